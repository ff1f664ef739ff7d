package journey

import (
	"github.com/tablekit/tablekit/table"
)

// ListOptions configure the ListX calls of the handles and their
// iterators.
type ListOptions struct {
	// Limit is the most items one page holds (0: what one DynamoDB
	// request returns, up to 1 MB). Lists that filter (Logs.ListSummaries)
	// still return full pages: table.QueryPage reads on.
	Limit int
	// StageID, when set, lists only that stage's executions (Jobs.List
	// and Jobs.All; the other lists refuse it).
	StageID string
	// Consistent asks for strongly consistent reads. Only the lists of one
	// journey's partition (Jobs, Stages) can have them; the GSI1 lists
	// (Journeys, log summaries, report catalog) refuse it, as DynamoDB
	// does for a global secondary index.
	Consistent bool
	// NewestFirst and OldestFirst choose the direction of a list ordered
	// by time (Journeys.List, Logs.ListSummaries, Reports.ListCatalog);
	// each list documents its default. The lists ordered by stage
	// (Jobs, Stages) refuse them.
	NewestFirst, OldestFirst bool
}

// Limit sets ListOptions.Limit.
func Limit(n int) func(*ListOptions) { return func(o *ListOptions) { o.Limit = n } }

// OfStage sets ListOptions.StageID: only that stage's executions.
func OfStage(stageID string) func(*ListOptions) { return func(o *ListOptions) { o.StageID = stageID } }

// ConsistentList sets ListOptions.Consistent. (Consistent is the option of
// the single-item reads, ReadOptions.)
func ConsistentList() func(*ListOptions) { return func(o *ListOptions) { o.Consistent = true } }

// NewestFirst lists newest first.
func NewestFirst() func(*ListOptions) {
	return func(o *ListOptions) { o.NewestFirst, o.OldestFirst = true, false }
}

// OldestFirst lists oldest first.
func OldestFirst() func(*ListOptions) {
	return func(o *ListOptions) { o.NewestFirst, o.OldestFirst = false, true }
}

// maxLimit bounds ListOptions.Limit (DynamoDB's Limit is an int32; a page
// is at most 1 MB anyway).
const maxLimit = 1 << 20

// listKind says which options a list accepts.
type listKind struct {
	name                    string
	stage, consistent, time bool
}

var (
	listJourneysKind = listKind{name: "Journeys.List", time: true}
	listStagesKind   = listKind{name: "Stages.List", consistent: true}
	listJobsKind     = listKind{name: "Jobs.List", stage: true, consistent: true}
	listLogsKind     = listKind{name: "Logs.ListSummaries", time: true}
	listReportsKind  = listKind{name: "Reports.ListCatalog", time: true}
)

// listOptions applies opts and refuses what the list k cannot do, before
// any request.
func listOptions(k listKind, opts []func(*ListOptions)) (ListOptions, error) {
	var o ListOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	switch {
	case o.Limit < 0 || o.Limit > maxLimit:
		return o, inputError("ListOptions.Limit", o.Limit, "must be between 0 and 1048576")
	case o.StageID != "" && !k.stage:
		return o, inputError("ListOptions.StageID", o.StageID, k.name+" lists no stage's jobs")
	case o.Consistent && !k.consistent:
		return o, inputError("ListOptions.Consistent", true, k.name+" reads GSI1, which has no consistent reads")
	case (o.NewestFirst || o.OldestFirst) && !k.time:
		return o, inputError("ListOptions.NewestFirst/OldestFirst", true, k.name+" is ordered by stage, not by time")
	case o.NewestFirst && o.OldestFirst:
		return o, inputError("ListOptions.NewestFirst/OldestFirst", true, "choose one")
	}
	if o.StageID != "" {
		if err := checkID("ListOptions.StageID", o.StageID); err != nil {
			return o, err
		}
	}
	return o, nil
}

// pageOf decodes a page of records with from.
func pageOf[R, T any](page table.Page[R], from func(R) (T, error)) (table.Page[T], error) {
	out := table.Page[T]{Items: make([]T, 0, len(page.Items)), Next: page.Next}
	for _, rec := range page.Items {
		v, err := from(rec)
		if err != nil {
			return table.Page[T]{}, err
		}
		out.Items = append(out.Items, v)
	}
	return out, nil
}
