package pipeline

import (
	"github.com/tablekit/tablekit/table"
)

// ListOptions configure the ListX calls and their iterators.
type ListOptions struct {
	// Limit is the most items one page holds; 0: what one DynamoDB page
	// holds (DefaultTagsPageSize for ListByTags). Filtered listings
	// (ListTags, ListTagValues, ListGroup, ListByTags) may return fewer.
	Limit int
}

// Limit sets ListOptions.Limit.
func Limit(n int) func(*ListOptions) { return func(o *ListOptions) { o.Limit = n } }

func listOptions(opts []func(*ListOptions)) ListOptions {
	var o ListOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	return o
}

// maxLimit bounds ListOptions.Limit (DynamoDB's Limit is an int32; a page
// is at most 1 MB anyway).
const maxLimit = 1 << 20

func pageQuery(q table.Query, opts []func(*ListOptions)) (table.Query, error) {
	limit := listOptions(opts).Limit
	if limit < 0 || limit > maxLimit {
		return q, inputError("Limit", limit, "must be between 0 and 1048576")
	}
	q.Limit = int32(limit)
	return q, nil
}
