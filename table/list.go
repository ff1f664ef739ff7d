package table

import (
	"context"
	"iter"
)

// List is one listing of a store, made once with its arguments and read
// either a page at a time (Page) or whole (All): the one shape every
// store's listings take, so a reader learns paging once. A store method
// returns it, never two methods per listing:
//
//	page, err := s.Executions().List(pipelineID, pipeline.Limit(25)).Page(ctx, cursor)
//	for e, err := range s.Executions().List(pipelineID).All(ctx) { ... }
//
// The listing's arguments (a parent id, the options) are checked when it is
// made; bad ones make a List that reads nothing and returns the
// *InputError from Page, or yields it first and only from All (FailedList).
// So a caller meets a bad argument where it reads, with a typed error,
// whichever way it reads. A List keeps no state between pages (the cursor
// is the caller's): a store's List may be kept, copied and read any number
// of times, concurrently.
//
// # Cursors
//
// A cursor is the position after the last item of a page, opaque to the
// caller: pass "" for the first page and a Page's Next for the one after
// it. "" can mean "from the start" because no other page is ever named by
// it: a Page's Next is "" exactly when nothing follows (the stores read one
// item ahead), so a caller never holds "" for a page that exists.
// gocloud's blob.ListPage gives the first page a token of its own
// (FirstPageToken) and ends with an empty one; here the empty string can be
// both, and the zero string, which an HTTP handler gets for a missing
// query parameter, is the right start.
//
// A cursor names a position, not an offset: an item written before it
// after the page was read is not returned by the next page, one written
// after it is. It is bound (by an HMAC, see Options.CursorKey) to the
// listing it came from: the table, index, partition, sort condition and
// direction, or a store's own listing and its arguments (the tag set of a
// tag search). A cursor that was altered, or is used with another listing,
// fails with ErrInvalidCursor before anything is read. It is not bound to
// the page size (a caller may change Limit between pages) and it carries
// no time: it does not expire, and stays valid across restarts while the
// cursor key is the same.
type List[T any] struct {
	page func(ctx context.Context, cursor string) (Page[T], error)
	err  error
}

// NewList returns the listing whose pages page reads: page gets the
// caller's context (never nil) and the cursor, "" for the first page, and
// returns that page, its Next "" exactly when no page follows. A nil page
// makes the zero List.
func NewList[T any](page func(ctx context.Context, cursor string) (Page[T], error)) List[T] {
	return List[T]{page: page}
}

// FailedList returns a listing that reads nothing: Page returns err and All
// yields it once. A store returns it when the listing's arguments are
// wrong (an empty parent id, a negative limit), with err the
// *InputError that says which. A nil err makes the zero List.
func FailedList[T any](err error) List[T] {
	return List[T]{err: err}
}

// Page reads the page at cursor ("" for the first) and returns it with the
// cursor of the next one (Next "" when none follows). A List made with bad
// arguments (FailedList), the zero List (an *InputError: no page function)
// and a nil context (an *InputError) are reported here, before anything is
// read.
func (l List[T]) Page(ctx context.Context, cursor string) (Page[T], error) {
	switch {
	case l.err != nil:
		return Page[T]{}, l.err
	case l.page == nil:
		return Page[T]{}, inputErr("List", "zero", "a List is made by NewList or FailedList")
	case ctx == nil:
		return Page[T]{}, inputErr("ctx", "nil", "reading a List needs a context")
	}
	return l.page(ctx, cursor)
}

// All iterates over every item of every page, from the first, in the
// listing's order (Walk): it stops at the first error, which it yields
// once, and reads no page after the caller stops.
func (l List[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return Walk(func(cursor string) (Page[T], error) { return l.Page(ctx, cursor) })
}
