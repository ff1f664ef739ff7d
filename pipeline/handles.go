package pipeline

import (
	"context"

	"github.com/tablekit/tablekit/table"
)

// The store's surface is split by role, as journey's is: the everyday
// calls on a pipeline (Create, Get, Update, Delete, its files) are Store's
// methods; each other kind has its handle, which holds its calls and its
// listings; the operator's calls are behind Maintenance. A handle is a
// value over the store: made on every call, kept or not, it costs nothing
// and reads no state of its own.

// Pipelines is the handle of the pipeline listings: every pipeline (List),
// those carrying tags (ByTags) and the members of a group (InGroup).
type Pipelines struct{ s *Store }

// Pipelines returns the store's handle of the pipeline listings.
func (s *Store) Pipelines() *Pipelines { return &Pipelines{s: s} }

// Executions is the handle of executions: creating one, moving it through
// its states, reading it and listing a pipeline's executions.
type Executions struct{ s *Store }

// Executions returns the store's handle of executions.
func (s *Store) Executions() *Executions { return &Executions{s: s} }

// Versions is the handle of a pipeline's versions: reading one and
// listing them.
type Versions struct{ s *Store }

// Versions returns the store's handle of pipeline versions.
func (s *Store) Versions() *Versions { return &Versions{s: s} }

// Tags is the handle of the tag aggregates: the keys, the counts of every
// tag and the values of one key.
type Tags struct{ s *Store }

// Tags returns the store's handle of the tag aggregates.
func (s *Store) Tags() *Tags { return &Tags{s: s} }

// Maintenance is the handle of the operator's calls: what a scheduled job
// or an operator runs, not a request path.
type Maintenance struct{ s *Store }

// Maintenance returns the store's handle of the operator's calls.
func (s *Store) Maintenance() *Maintenance { return &Maintenance{s: s} }

// store returns the handle's store, nil for a nil handle: the store's own
// checks (ready) then refuse it with ErrNoStore, as they refuse a nil
// Store.
func (h *Pipelines) store() *Store   { return storeOf(h, func(h *Pipelines) *Store { return h.s }) }
func (h *Executions) store() *Store  { return storeOf(h, func(h *Executions) *Store { return h.s }) }
func (h *Versions) store() *Store    { return storeOf(h, func(h *Versions) *Store { return h.s }) }
func (h *Tags) store() *Store        { return storeOf(h, func(h *Tags) *Store { return h.s }) }
func (h *Maintenance) store() *Store { return storeOf(h, func(h *Maintenance) *Store { return h.s }) }

func storeOf[H any](h *H, s func(*H) *Store) *Store {
	if h == nil {
		return nil
	}
	return s(h)
}

// newList is every listing of the store, made as table.List's recipe says
// (table's doc, Listings): the store and the listing's arguments (argErr,
// the first bad one) are checked once, when the listing is made, so a bad
// one is a FailedList that reads nothing; each page is one span named
// name, read by page.
func newList[T any](s *Store, name string, argErr error, page func(ctx context.Context, cursor string) (table.Page[T], error)) table.List[T] {
	if err := s.made(); err != nil {
		return table.FailedList[T](err)
	}
	if argErr != nil {
		return table.FailedList[T](argErr)
	}
	return table.NewList(func(ctx context.Context, cursor string) (_ table.Page[T], err error) {
		ctx, span := s.start(ctx, name)
		defer span.End(&err)
		return page(ctx, cursor)
	})
}

// firstErr returns the first non-nil error: a listing's arguments are
// checked in the order they are written.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
