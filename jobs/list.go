package jobs

import (
	"context"
	"errors"
	"fmt"
	"iter"
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

// ListOptions configure ListByUser, ListByStatus and their walkers.
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

// ListByUser returns one page of userID's jobs, newest createdAt first
// (the seed's userId-createdAt-index query with ScanIndexForward false), or
// oldest first with OldestFirst. Jobs created in the same millisecond share
// the index's sort key, and DynamoDB returns such ties in an order it does
// not define, so the list breaks them by jobId (table.Query.TieBreak): the
// total order is createdAt then jobId, ascending for OldestFirst and the
// exact reverse (newest createdAt first, ties by jobId descending) by
// default, and a cursor resumes correctly inside a run of ties. Pass "" as
// cursor for the first page and Page.Next for the following ones; Next is
// "" after the last page. A cursor from another user or another list is
// rejected with table.ErrInvalidCursor before anything is read.
//
// Expired jobs are left out by a filter on ttl with the store's clock.
// DynamoDB applies Limit before a filter, so table.QueryPage reads on until
// the page is full or the partition ends: pages are full, but expired items
// waiting for deletion still cost reads.
func (s *Store) ListByUser(ctx context.Context, userID, cursor string, opts ...func(*ListOptions)) (_ table.Page[Job], err error) {
	ctx, span := s.start(ctx, "jobs.ListByUser")
	defer span.End(&err)
	if err := checkUserID(userID); err != nil {
		return table.Page[Job]{}, err
	}
	return s.listPage(ctx, IndexUserCreatedAt, userID, DefaultUserPageSize, cursor, opts)
}

// ListByStatus returns one page of the jobs in status, newest createdAt
// first (or oldest first with OldestFirst): the admin view on
// status-createdAt-index ("all FAILED jobs"). Order, ties, paging and
// expiry work as for ListByUser.
func (s *Store) ListByStatus(ctx context.Context, status Status, cursor string, opts ...func(*ListOptions)) (_ table.Page[Job], err error) {
	ctx, span := s.start(ctx, "jobs.ListByStatus")
	defer span.End(&err)
	if err := checkStatus("status", status); err != nil {
		return table.Page[Job]{}, err
	}
	return s.listPage(ctx, IndexStatusCreatedAt, string(status), DefaultStatusPageSize, cursor, opts)
}

// ByUser walks every page of ListByUser, in its order. It stops at the
// first error, which it yields.
func (s *Store) ByUser(ctx context.Context, userID string, opts ...func(*ListOptions)) iter.Seq2[Job, error] {
	return table.Walk(func(cursor string) (table.Page[Job], error) {
		return s.ListByUser(ctx, userID, cursor, opts...)
	})
}

// ByStatus walks every page of ListByStatus, in its order.
func (s *Store) ByStatus(ctx context.Context, status Status, opts ...func(*ListOptions)) iter.Seq2[Job, error] {
	return table.Walk(func(cursor string) (table.Page[Job], error) {
		return s.ListByStatus(ctx, status, cursor, opts...)
	})
}

func (s *Store) listPage(ctx context.Context, index, partition string, defaultLimit int, cursor string, opts []func(*ListOptions)) (table.Page[Job], error) {
	if err := s.check(); err != nil {
		return table.Page[Job]{}, err
	}
	o := ListOptions{}
	for _, f := range opts {
		f(&o)
	}
	if o.Limit < 0 || o.Limit > maxPageSize {
		return table.Page[Job]{}, inputError("Limit", o.Limit, fmt.Sprintf("must be between 0 and %d", maxPageSize))
	}
	if o.Limit == 0 {
		o.Limit = defaultLimit
	}
	sortCond, err := createdRange(o.CreatedAfter, o.CreatedBefore)
	if err != nil {
		return table.Page[Job]{}, err
	}
	// The entity's read: expired jobs filtered out by ttl, ties on
	// createdAt broken by jobId, newest first unless OldestFirst.
	key := record{UserID: partition}
	if index == IndexStatusCreatedAt {
		key = record{Status: Status(partition)}
	}
	lopts := []func(*entity.ListOptions){entity.ByIndex(index), entity.Limit(o.Limit), sortCond}
	if !o.OldestFirst {
		lopts = append(lopts, entity.Descending())
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
