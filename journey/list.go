package journey

import (
	"fmt"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// ReadOptions configure every read of the store: the single-item reads
// (Journeys.Get, Stages.Get, Jobs.Get, Rules.Get), the whole-journey and
// rule reads (Journeys.Load, Rules.ForStage), and the lists (ListX) and
// their iterators. One option means one thing wherever it is accepted:
// Consistent() asks a Get and a list alike for strongly consistent reads.
// A call refuses an option it cannot honour (Limit on a Get, Consistent on
// a GSI1 list, OfStage outside Jobs, ...) with a *table.InputError before
// any request.
type ReadOptions struct {
	// Consistent asks for strongly consistent reads (twice the read
	// units): a read right after a write then sees it. The reads of one
	// journey's partition can have them; the GSI1 lists (Journeys.List,
	// Logs.ListSummaries, Reports.ListCatalog) refuse it, as DynamoDB does
	// for a global secondary index.
	Consistent bool
	// IncludeLogSummaries makes Journeys.Load read the optional LOG#
	// items too, every one of them: a job of the seed's size leaves
	// 10,000. By default Load reads around them (SK < "LOG#" and
	// SK >= "LOG$", two Queries side by side), so a dashboard's Load
	// costs the journey, not its logs; Logs.ListSummaries pages them.
	// Only Journeys.Load accepts it.
	IncludeLogSummaries bool
	// Limit is the most items one page of a list holds (0: what one
	// DynamoDB request returns, up to 1 MB). Lists that filter
	// (Logs.ListSummaries) still return full pages: table.QueryPage reads
	// on. Only the lists accept it.
	Limit int
	// StageID, when set, lists only that stage's executions (Jobs.List
	// and Jobs.All; the other reads refuse it).
	StageID string
	// NewestFirst and OldestFirst choose the direction of a list ordered
	// by time (Journeys.List, Logs.ListSummaries, Reports.ListCatalog);
	// each list documents its default. The other reads refuse them.
	NewestFirst, OldestFirst bool
	// Statuses, when set, lists only the journeys in one of them
	// (Journeys.List, Journeys.ByPriority; the other reads refuse it): the
	// dashboard's active journeys are OfStatus(StatusPending,
	// StatusRunning, StatusPaused). GSI1JOURNEYS sorts by creation time,
	// not status, so this is a filter on Data.status: a page reads (and is
	// billed for) the journeys it passes over too.
	Statuses []Status
}

// ListOptions is ReadOptions under the name every store's lists use: the
// lists take the same options, and the same helpers, as the single reads.
type ListOptions = ReadOptions

// Consistent asks for strongly consistent reads: a read right after a
// write sees it. Gets, Journeys.Load, Rules.ForStage and the lists of one
// journey's partition (Stages.List, Jobs.List) accept it.
func Consistent() func(*ReadOptions) { return func(o *ReadOptions) { o.Consistent = true } }

// IncludeLogSummaries makes Journeys.Load read the LOG# items too.
func IncludeLogSummaries() func(*ReadOptions) {
	return func(o *ReadOptions) { o.IncludeLogSummaries = true }
}

// Limit sets ReadOptions.Limit: the most items one page of a list holds.
func Limit(n int) func(*ReadOptions) { return func(o *ReadOptions) { o.Limit = n } }

// OfStatus sets ReadOptions.Statuses: only the journeys in one of these
// statuses.
func OfStatus(statuses ...Status) func(*ReadOptions) {
	return func(o *ReadOptions) { o.Statuses = append([]Status{}, statuses...) }
}

// OfStage sets ReadOptions.StageID: only that stage's executions.
func OfStage(stageID string) func(*ReadOptions) { return func(o *ReadOptions) { o.StageID = stageID } }

// NewestFirst lists newest first.
func NewestFirst() func(*ReadOptions) {
	return func(o *ReadOptions) { o.NewestFirst, o.OldestFirst = true, false }
}

// OldestFirst lists oldest first.
func OldestFirst() func(*ReadOptions) {
	return func(o *ReadOptions) { o.NewestFirst, o.OldestFirst = false, true }
}

// maxLimit bounds ListOptions.Limit (DynamoDB's Limit is an int32; a page
// is at most 1 MB anyway).
const maxLimit = 1 << 20

// readKind says which options a read accepts.
type readKind struct {
	name                                         string
	list, stage, consistent, time, skips, status bool
}

// named is k under the name of the call that reads with it, for errors.
func (k readKind) named(name string) readKind { k.name = name; return k }

var (
	getKind          = readKind{name: "a Get", consistent: true}
	loadKind         = readKind{name: "Journeys.Load", consistent: true, skips: true}
	forStageKind     = readKind{name: "Rules.ForStage", consistent: true}
	listJourneysKind = readKind{name: "Journeys.List", list: true, time: true, status: true}
	byPriorityKind   = readKind{name: "Journeys.ByPriority", status: true}
	listStagesKind   = readKind{name: "Stages.List", list: true, consistent: true}
	listJobsKind     = readKind{name: "Jobs.List", list: true, stage: true, consistent: true}
	listLogsKind     = readKind{name: "Logs.ListSummaries", list: true, time: true}
	listReportsKind  = readKind{name: "Reports.ListCatalog", list: true, time: true}
)

// readOptions applies opts (a nil option is skipped) and refuses what the
// read k cannot do, before any request.
func readOptions(k readKind, opts []func(*ReadOptions)) (ReadOptions, error) {
	o := applyReadOptions(opts)
	switch {
	case o.Limit < 0 || o.Limit > maxLimit:
		return o, inputError("ReadOptions.Limit", o.Limit, "must be between 0 and 1048576")
	case o.Limit != 0 && !k.list:
		return o, inputError("ReadOptions.Limit", o.Limit, k.name+" is not a list")
	case o.StageID != "" && !k.stage:
		return o, inputError("ReadOptions.StageID", o.StageID, k.name+" lists no stage's jobs")
	case o.Consistent && !k.consistent:
		return o, inputError("ReadOptions.Consistent", true, k.name+" reads GSI1, which has no consistent reads")
	case o.IncludeLogSummaries && !k.skips:
		return o, inputError("ReadOptions.IncludeLogSummaries", true, "only Journeys.Load reads log summaries with the rest of a journey, not "+k.name)
	case (o.NewestFirst || o.OldestFirst) && !k.time:
		return o, inputError("ReadOptions.NewestFirst/OldestFirst", true, k.name+" is not ordered by time")
	case o.NewestFirst && o.OldestFirst:
		return o, inputError("ReadOptions.NewestFirst/OldestFirst", true, "choose one")
	case o.Statuses != nil && !k.status:
		return o, inputError("ReadOptions.Statuses", fmt.Sprint(o.Statuses), k.name+" lists no journeys by status")
	case o.Statuses != nil && len(o.Statuses) == 0:
		return o, inputError("ReadOptions.Statuses", "[]", "name at least one status (no OfStatus for all)")
	}
	for _, st := range o.Statuses {
		if !st.valid() {
			return o, inputError("ReadOptions.Statuses", fmt.Sprintf("%q", st), "not a journey status (pending, running, completed, failed, paused, cancelled)")
		}
	}
	if o.StageID != "" {
		if err := checkID("ReadOptions.StageID", o.StageID); err != nil {
			return o, err
		}
	}
	return o, nil
}

// applyReadOptions applies opts, skipping nil ones, without checking them:
// for the store's own reads, whose options are known to be good.
func applyReadOptions(opts []func(*ReadOptions)) ReadOptions {
	var o ReadOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// entityList is an entity list's options for a list of o on index ("" for
// the table).
func entityList(index string, o ListOptions) []func(*entity.ListOptions) {
	out := []func(*entity.ListOptions){entity.Limit(o.Limit)}
	if index != "" {
		out = append(out, entity.ByIndex(index))
	}
	if o.NewestFirst {
		out = append(out, entity.Descending())
	}
	if o.Consistent {
		out = append(out, entity.Consistent())
	}
	return out
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
