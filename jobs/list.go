package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Default page sizes: the seed's queries ask for 20 of a user's jobs and 100
// of a status.
const (
	DefaultUserPageSize   = 20
	DefaultStatusPageSize = 100
)

// ListOptions configure ByUser and Maintenance.ByStatus.
type ListOptions struct {
	// Limit is the most jobs one page holds. Zero means the default for
	// the list (20 for a user, 100 for a status); at most 1000.
	Limit int
	// CreatedAfter and CreatedBefore, when set, bound createdAt
	// (exclusive). They are a key condition on the index's sort key, so
	// only the jobs returned are read.
	CreatedAfter, CreatedBefore time.Time
	// OldestFirst lists oldest createdAt first. Default false: newest
	// first, as the seed's queries do.
	OldestFirst bool
}

// Limit sets ListOptions.Limit.
func Limit(n int) func(*ListOptions) { return func(o *ListOptions) { o.Limit = n } }

// NewestFirst lists newest createdAt first, the default.
func NewestFirst() func(*ListOptions) { return func(o *ListOptions) { o.OldestFirst = false } }

// OldestFirst lists oldest createdAt first.
func OldestFirst() func(*ListOptions) { return func(o *ListOptions) { o.OldestFirst = true } }

const maxPageSize = 1000

// ByUser is the listing of userID's jobs, newest createdAt first (the
// seed's userId-createdAt-index query with ScanIndexForward false), or
// oldest first with OldestFirst. Jobs created in the same millisecond share
// the index's sort key, and DynamoDB returns such ties in an order it does
// not define, so the list breaks them by jobId (table.Query.TieBreak): the
// total order is createdAt then jobId, ascending for OldestFirst and the
// exact reverse (newest createdAt first, ties by jobId descending) by
// default, and a cursor resumes correctly inside a run of ties. Read it a
// page at a time (Page: "" as cursor for the first page and Page.Next for
// the following ones; Next is "" after the last page) or whole (All). A
// cursor from another user or another list is rejected with
// table.ErrInvalidCursor, a bad user id or option with a
// *table.InputError, before anything is read.
//
// Expired jobs are left out by a filter on ttl with the store's clock.
// DynamoDB applies Limit before a filter, so table.QueryPage reads on until
// the page is full or the partition ends: pages are full, but expired items
// waiting for deletion still cost reads.
func (s *Store) ByUser(userID string, opts ...func(*ListOptions)) table.List[Job] {
	return s.list("jobs.ByUser", checkUserID(userID), IndexUserCreatedAt, userID, DefaultUserPageSize, opts)
}

// ByStatus is the listing of the jobs in status, newest createdAt first
// (or oldest first with OldestFirst): the admin view on
// status-createdAt-index ("all FAILED jobs"). Order, ties, paging and
// expiry work as for Store.ByUser.
func (h *Maintenance) ByStatus(status Status, opts ...func(*ListOptions)) table.List[Job] {
	return h.store().list("jobs.Maintenance.ByStatus", checkStatus("status", status), IndexStatusCreatedAt, string(status), DefaultStatusPageSize, opts)
}

// list is every listing of the store, made as table.List's recipe says
// (table's doc, Listings): the store, the partition (argErr) and the
// options are checked once, in that order, when the listing is made, so a
// bad one is a FailedList that reads nothing; each page is one span named
// name.
func (s *Store) list(name string, argErr error, index, partition string, defaultLimit int, opts []func(*ListOptions)) table.List[Job] {
	lopts, err := listOptions(index, defaultLimit, opts)
	if err := cmp.Or(s.check(), argErr, err); err != nil {
		return table.FailedList[Job](err)
	}
	return table.NewList(func(ctx context.Context, cursor string) (_ table.Page[Job], err error) {
		ctx, span := s.start(ctx, name)
		defer span.End(&err)
		return s.listPage(ctx, index, partition, cursor, lopts)
	})
}

// listOptions turns the options into the entity's read of index: the page
// size (defaultLimit when Limit is 0), the createdAt bounds and the order.
func listOptions(index string, defaultLimit int, opts []func(*ListOptions)) ([]func(*entity.ListOptions), error) {
	o := ListOptions{}
	for _, f := range opts {
		f(&o)
	}
	if o.Limit < 0 || o.Limit > maxPageSize {
		return nil, inputError("Limit", o.Limit, fmt.Sprintf("must be between 0 and %d", maxPageSize))
	}
	if o.Limit == 0 {
		o.Limit = defaultLimit
	}
	sortCond, err := createdRange(o.CreatedAfter, o.CreatedBefore)
	if err != nil {
		return nil, err
	}
	// The entity's read: expired jobs filtered out by ttl, ties on
	// createdAt broken by jobId, newest first unless OldestFirst.
	lopts := []func(*entity.ListOptions){entity.ByIndex(index), entity.Limit(o.Limit), sortCond}
	if !o.OldestFirst {
		lopts = append(lopts, entity.Descending())
	}
	return lopts, nil
}

func (s *Store) listPage(ctx context.Context, index, partition, cursor string, lopts []func(*entity.ListOptions)) (table.Page[Job], error) {
	key := record{UserID: partition}
	if index == IndexStatusCreatedAt {
		key = record{Status: Status(partition)}
	}
	recs, err := s.jobs.List(ctx, key, cursor, lopts...)
	if err != nil {
		if errors.Is(err, blobstore.ErrUnsupported) {
			return table.Page[Job]{}, s.readError("of "+partition, err)
		}
		return table.Page[Job]{}, fmt.Errorf("jobs: list %s %q: %w", index, partition, err)
	}
	page := table.Page[Job]{Items: make([]Job, 0, len(recs.Items)), Next: recs.Next}
	for i := range recs.Items {
		page.Items = append(page.Items, *recs.Items[i].job())
	}
	return page, nil
}

// createdRange turns the createdAt bounds into a sort key condition on the
// index (exclusive bounds, Unix ms).
func createdRange(after, before time.Time) (func(*entity.ListOptions), error) {
	switch {
	case after.IsZero() && before.IsZero():
		return nil, nil
	case before.IsZero():
		return entity.SortGreater(after.UnixMilli()), nil
	case after.IsZero():
		return entity.SortLess(before.UnixMilli()), nil
	}
	lo, hi := after.UnixMilli()+1, before.UnixMilli()-1
	if lo > hi {
		return nil, inputError("CreatedAfter/CreatedBefore",
			fmt.Sprintf("%s/%s", after.Format(time.RFC3339Nano), before.Format(time.RFC3339Nano)), "leave no time between them")
	}
	return entity.SortBetween([]any{lo}, []any{hi}), nil
}
