package tasks

import (
	"context"

	"github.com/tablekit/tablekit/table"
)

// The store's surface is split by role, as pipeline's and journey's are:
// the producer's calls (Submit, SubmitTx, Get, History, Cancel) and the
// worker's (Claim, Heartbeat, Complete, Fail, Release, NewWorker) are
// Store's methods; what an operator, an admin view or a scheduled job runs
// is behind Maintenance.

// Maintenance is the handle of the operator's calls, not a producer's or a
// worker's path (the seed lists pending tasks "for admin UI; not the
// worker path"): the queue's listings (Pending, Dead) and its depth, the
// expired leases (Expired, ReclaimExpired), the dead letters' re-drive
// (Redrive, RedriveDead), a worker's claims (WorkerTasks) and the table's
// shard count. A handle is a value over the store: made on every call,
// kept or not, it costs nothing and holds no state of its own.
type Maintenance struct{ s *Store }

// Maintenance returns the store's handle of the operator's calls.
func (s *Store) Maintenance() *Maintenance { return &Maintenance{s: s} }

// store returns the handle's store, nil for a nil handle, which the
// store's own check then refuses as it refuses a nil Store.
func (h *Maintenance) store() *Store {
	if h == nil {
		return nil
	}
	return h.s
}

// list is every listing of the store, made as table.List's recipe says
// (table's doc, Listings): the store and the options are checked once,
// when the listing is made, so a bad one is a FailedList that reads
// nothing; each page is one span named name, read by page with the
// options' page size.
func (h *Maintenance) list(name string, opts []func(*ListOptions), page func(s *Store, ctx context.Context, cursor string, limit int) (table.Page[Task], error)) table.List[Task] {
	s := h.store()
	o, err := listOptions(opts)
	if err := s.check(err); err != nil {
		return table.FailedList[Task](err)
	}
	return table.NewList(func(ctx context.Context, cursor string) (_ table.Page[Task], err error) {
		ctx, span := s.start(ctx, name)
		defer span.End(&err)
		return page(s, ctx, cursor, o.Limit)
	})
}
