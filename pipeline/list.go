package pipeline

import (
	"github.com/tablekit/tablekit/entity"
)

// ListOptions configure the listings (table.List) of the handles.
type ListOptions struct {
	// Limit is the most items one page holds; 0: what one DynamoDB page
	// holds (DefaultTagsPageSize for Pipelines.ByTags). Filtered
	// listings (Tags.List, Tags.Values, Pipelines.InGroup,
	// Pipelines.ByTags) may return fewer.
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

// pageLimit checks ListOptions.Limit and returns it as an entity option.
func pageLimit(opts []func(*ListOptions)) (func(*entity.ListOptions), error) {
	limit := listOptions(opts).Limit
	if limit < 0 || limit > maxLimit {
		return nil, inputError("Limit", limit, "must be between 0 and 1048576")
	}
	return entity.Limit(limit), nil
}
