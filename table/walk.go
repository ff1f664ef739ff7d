package table

import "iter"

// Walk is the iterator over every item of the pages page fetches: from the
// first (cursor "") until a page's Next is "", in page order, stopping at
// the first error, which it yields once with T's zero value. List.All is
// built on it, so every store's iterators end, fail and stop early the same
// way; a store returns a List rather than calling Walk itself. A nil page
// yields an *InputError.
func Walk[T any](page func(cursor string) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if page == nil {
			var zero T
			yield(zero, inputErr("page", "nil", "Walk needs a page function"))
			return
		}
		cursor := ""
		for {
			p, err := page(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, v := range p.Items {
				if !yield(v, nil) {
					return
				}
			}
			if cursor = p.Next; cursor == "" {
				return
			}
		}
	}
}
