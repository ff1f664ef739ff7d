package analytics

import (
	"context"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// dayItem is a day row as stored.
type dayItem struct {
	UserID       string `dynamodbav:"userId"`
	Day          string `dynamodbav:"day"`
	Queued       int64  `dynamodbav:"QUEUED"`
	Processing   int64  `dynamodbav:"PROCESSING"`
	Editing      int64  `dynamodbav:"EDITING"`
	CompletedN   int64  `dynamodbav:"COMPLETED"`
	Failed       int64  `dynamodbav:"FAILED"`
	Timed        int64  `dynamodbav:"timedCount"`
	ProcessingMs int64  `dynamodbav:"processingMs"`
}

func (it dayItem) day() Day {
	d := Day{UserID: it.UserID, Day: it.Day, ByStatus: map[jobs.Status]int64{},
		Completed: it.Timed, ProcessingTime: time.Duration(it.ProcessingMs) * time.Millisecond}
	for s, n := range map[jobs.Status]int64{jobs.StatusQueued: it.Queued, jobs.StatusProcessing: it.Processing,
		jobs.StatusEditing: it.Editing, jobs.StatusCompleted: it.CompletedN, jobs.StatusFailed: it.Failed} {
		if n != 0 {
			d.ByStatus[s] = n
		}
	}
	return d
}

// ListOptions configure ListDays and Days.
type ListOptions struct {
	// Limit is the most rows a page holds. Default 100.
	Limit int
}

// Limit sets ListOptions.Limit.
func Limit(n int) func(*ListOptions) { return func(o *ListOptions) { o.Limit = n } }

// ListDays returns a page of userID's rows, oldest day first (a user has
// one row per day, so the order is total), from cursor ("" for the first
// page). Read consistently. A day whose counts all went back to zero (its
// jobs deleted) is absent.
func (v *View) ListDays(ctx context.Context, userID, cursor string, opts ...func(*ListOptions)) (_ table.Page[Day], err error) {
	ctx, span := v.start(ctx, "analytics.ListDays")
	defer span.End(&err)
	if err := v.check(); err != nil {
		return table.Page[Day]{}, err
	}
	o := ListOptions{}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.Limit == 0 {
		o.Limit = 100
	}
	if o.Limit < 0 || o.Limit > 1000 {
		return table.Page[Day]{}, &table.InputError{Field: "ListOptions.Limit", Value: strconv.Itoa(o.Limit), Reason: "must be between 0 and 1000"}
	}
	pk, err := userPK.Build(userID)
	if err != nil {
		return table.Page[Day]{}, err
	}
	prefix, _ := daySK.Prefix()
	// A zeroed day is dropped by Keep, under the paging, so a page is never
	// cut short by it nor ends with a cursor to an empty page.
	q := table.Query{Partition: pk, Sort: table.SortBeginsWith(prefix), Limit: int32(o.Limit), Consistent: true, Keep: countsJobs}
	page, err := table.QueryPage[dayItem](ctx, v.t, q, cursor)
	if err != nil {
		return table.Page[Day]{}, err
	}
	out := table.Page[Day]{Next: page.Next, Items: make([]Day, 0, len(page.Items))}
	for _, it := range page.Items {
		out.Items = append(out.Items, it.day())
	}
	return out, nil
}

// countsJobs reports whether a stored day row counts any job. A row that does
// not decode is kept, for the page's decoding to report.
func countsJobs(item table.Item) bool {
	var it dayItem
	if err := table.Unmarshal(item, &it); err != nil {
		return true
	}
	return len(it.day().ByStatus) > 0
}

// Days yields userID's rows, oldest day first, as ListDays pages them.
func (v *View) Days(ctx context.Context, userID string, opts ...func(*ListOptions)) iter.Seq2[Day, error] {
	return table.Walk(func(cursor string) (table.Page[Day], error) {
		return v.ListDays(ctx, userID, cursor, opts...)
	})
}

// Recount computes userID's rows from the jobs themselves (every job of
// the user, through store's user index), oldest day first: what the view
// holds once it has applied every change. It reads every job of the user;
// it is for checks and repairs, not for serving.
func Recount(ctx context.Context, store *jobs.Store, userID string) ([]Day, error) {
	byDay := map[string]*tally{}
	for j, err := range store.ByUser(userID).All(ctx) {
		if err != nil {
			return nil, err
		}
		jr := &Job{JobID: j.ID, UserID: j.UserID, Status: j.Status, CreatedAt: j.CreatedAt.UnixMilli()}
		if !j.ProcessingStartedAt.IsZero() {
			jr.ProcessingStartedAt = j.ProcessingStartedAt.UnixMilli()
		}
		if !j.ProcessingCompletedAt.IsZero() {
			jr.ProcessingCompletedAt = j.ProcessingCompletedAt.UnixMilli()
		}
		b, t := contribution(jr)
		if byDay[b.day] == nil {
			byDay[b.day] = &tally{}
		}
		byDay[b.day].add(t, 1)
	}
	var days []Day
	for day, t := range byDay {
		d := Day{UserID: userID, Day: day, ByStatus: map[jobs.Status]int64{},
			Completed: t.timed, ProcessingTime: time.Duration(t.processingMs) * time.Millisecond}
		for s, n := range t.byStatus {
			if n != 0 {
				d.ByStatus[s] = n
			}
		}
		days = append(days, d)
	}
	slices.SortFunc(days, func(a, b Day) int { return strings.Compare(a.Day, b.Day) })
	return days, nil
}
