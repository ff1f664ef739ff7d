package journey

import (
	"context"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// ListOptions configure ListJobs and Jobs.
type ListOptions struct {
	// Limit is the page size of ListJobs (0: what one DynamoDB request
	// returns, up to 1 MB).
	Limit int
	// StageID, when set, lists only that stage's executions.
	StageID string
	// Consistent asks for strongly consistent reads.
	Consistent bool
}

// Limit sets ListOptions.Limit.
func Limit(n int) func(*ListOptions) { return func(o *ListOptions) { o.Limit = n } }

// OfStage sets ListOptions.StageID: only that stage's executions.
func OfStage(stageID string) func(*ListOptions) { return func(o *ListOptions) { o.StageID = stageID } }

// ConsistentList sets ListOptions.Consistent.
func ConsistentList() func(*ListOptions) { return func(o *ListOptions) { o.Consistent = true } }

// jobsListQuery is the key condition of a journey's jobs:
// begins_with(SK, "JOB#"), or "JOB#{order}#{stageId}#" for one stage. The
// log summaries (LOG#...) and every other item of the partition are outside
// it, so the listing reads only job items.
func (s *Store) jobsListQuery(ctx context.Context, journeyID string, o ListOptions) (table.Query, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return table.Query{}, err
	}
	if o.Limit < 0 {
		return table.Query{}, inputError("ListOptions.Limit", o.Limit, "must not be negative")
	}
	if o.StageID != "" {
		if err := checkID("ListOptions.StageID", o.StageID); err != nil {
			return table.Query{}, err
		}
		st, _, err := s.stage(ctx, journeyID, o.StageID)
		if err != nil {
			return table.Query{}, err
		}
		q, err := s.jobsQuery(journeyID, st.Order, st.StageID)
		q.Limit, q.Consistent = int32(min(o.Limit, 1<<30)), o.Consistent
		return q, err
	}
	pk, _ := journeyPK.Build(journeyID)
	prefix, _ := jobSK.Prefix()
	return table.Query{Partition: pk, Sort: table.SortBeginsWith(prefix), Limit: int32(min(o.Limit, 1<<30)),
		Consistent: o.Consistent}, nil
}

func listOptions(opts []func(*ListOptions)) ListOptions {
	var o ListOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

// ListJobs returns one page of a journey's job executions (all, or one
// stage's with OfStage) and the cursor of the next page ("" after the
// last). The order is total: by stage order, then execution number (the
// job's sort key, unique in the journey), and cursors resume exactly after
// the last job returned. One Query per page, reading job items only: the
// journey's log summaries and catalog entries are not read.
func (s *Store) ListJobs(ctx context.Context, journeyID, cursor string, opts ...func(*ListOptions)) (table.Page[Job], error) {
	if s.err != nil {
		return table.Page[Job]{}, s.err
	}
	q, err := s.jobsListQuery(ctx, journeyID, listOptions(opts))
	if err != nil {
		return table.Page[Job]{}, err
	}
	page, err := table.QueryPage[record[Job]](ctx, s.t, q, cursor)
	if err != nil {
		return table.Page[Job]{}, err
	}
	out := table.Page[Job]{Items: make([]Job, 0, len(page.Items)), Next: page.Next}
	for _, rec := range page.Items {
		j, err := jobFrom(rec)
		if err != nil {
			return table.Page[Job]{}, err
		}
		out.Items = append(out.Items, j)
	}
	return out, nil
}

// Jobs walks every job execution of a journey (or of one stage) in
// ListJobs's order, page by page.
func (s *Store) Jobs(ctx context.Context, journeyID string, opts ...func(*ListOptions)) iter.Seq2[Job, error] {
	return func(yield func(Job, error) bool) {
		if s.err != nil {
			yield(Job{}, s.err)
			return
		}
		q, err := s.jobsListQuery(ctx, journeyID, listOptions(opts))
		if err != nil {
			yield(Job{}, err)
			return
		}
		for rec, err := range table.QueryAll[record[Job]](ctx, s.t, q) {
			if err != nil {
				yield(Job{}, err)
				return
			}
			j, err := jobFrom(rec)
			if !yield(j, err) || err != nil {
				return
			}
		}
	}
}
