package analytics_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
)

// paced is what the view cost per job lifecycle when jobs arrived at a
// steady rate and the consumer polled once a second, as changes.Run does
// when it is idle.
type paced struct {
	viewWCU, leaseWCU float64 // per job lifecycle
	changesPerBatch   float64
}

// jobsPace runs n jobs arriving at random (a Poisson process, seeded) one
// every interval on average, through create, a worker's
// start a second later, editing at 15 s and completion at 30 s (a job is
// in flight about half a minute, as the jobs store's patterns assume).
// session gives each user their jobsPerUserDay uploads in a row; otherwise
// users take turns. Every second of the fake's clock the consumer reads
// the stream until it is empty: a batch is what arrived since the last
// poll.
func jobsPace(t testing.TB, n int, interval time.Duration, session bool) paced {
	t.Helper()
	ctx := context.Background()
	const jobsPerUserDay = 5
	now := epoch.Add(-23 * time.Hour) // one UTC day for the whole run
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return now } })
	w := world{db: db, streams: db, clock: db, jobsTable: jobs.DefaultTableName,
		viewTable: analytics.DefaultTableName, leaseTable: changes.DefaultLeaseTable}
	store, view := w.setUp(t)
	// The consumer's defaults: batches of up to 100 records.
	consumer, err := view.Consumer(db, w.jobsTable, changes.Clock(db.Now))
	require.NoError(t, err)
	batches, changed := 0, 0
	counting := func(ctx context.Context, batch []changes.Change[analytics.Job]) error {
		batches++
		changed += len(batch)
		return view.Apply(ctx, batch)
	}
	poll := func() {
		for {
			got, err := consumer.Step(ctx, counting)
			require.NoError(t, err)
			if got == 0 {
				return
			}
		}
	}
	poll() // takes the shard's lease
	db.ResetConsumed()
	batches = 0

	type event struct {
		at  time.Duration
		job int
		do  func()
	}
	var events []event
	held := make([]*jobs.Job, n)
	arrivals := rand.New(rand.NewPCG(1, 2))
	var start time.Duration
	for i := range n {
		start += time.Duration(arrivals.ExpFloat64() * float64(interval))
		user := i % max(n/jobsPerUserDay, 1)
		if session {
			user = i / jobsPerUserDay
		}
		in := jobs.CreateInput{UserID: fmt.Sprintf("user-%d", user), FileSize: 1_000_000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "p.jpg"}
		events = append(events,
			event{start, i, func() { held[i], _, err = store.Create(ctx, in); require.NoError(t, err) }},
			event{start + time.Second, i, func() { held[i], err = store.StartProcessing(ctx, held[i].ID); require.NoError(t, err) }},
			event{start + 15*time.Second, i, func() { held[i], err = store.StartEditing(ctx, held[i].Lease(), nil); require.NoError(t, err) }},
			event{start + 30*time.Second, i, func() {
				_, err = store.Complete(ctx, held[i].Lease(), jobs.EditResult{S3Key: "final/" + held[i].ID + ".jpg", Width: 1, Height: 1, Format: jobs.FormatJPEG, Size: 1})
				require.NoError(t, err)
			}})
	}
	sort.SliceStable(events, func(a, b int) bool { return events[a].at < events[b].at })
	begin := now
	for second, next := time.Duration(0), 0; next < len(events); second += time.Second {
		for next < len(events) && events[next].at < second+time.Second {
			now = begin.Add(events[next].at)
			events[next].do()
			next++
		}
		now = begin.Add(second + time.Second)
		poll()
	}
	require.Equal(t, 4*n, changed, "four changes a job")
	lifecycles := float64(n)
	return paced{
		viewWCU:         db.Consumed(analytics.DefaultTableName).WriteUnits / lifecycles,
		leaseWCU:        db.Consumed(changes.DefaultLeaseTable).WriteUnits / lifecycles,
		changesPerBatch: float64(changed) / float64(batches),
	}
}

// declaredRate is the view's declared row writes per job created, at the
// declared peak (average false) or on average, and the time between two
// jobs at that rate (the jobs store's "Create job").
func declaredRate(t testing.TB, average bool) (writesPerJob float64, interval time.Duration) {
	t.Helper()
	rate := func(ap access.Pattern) float64 {
		if average {
			return ap.AveragePerSecond
		}
		return ap.RatePerSecond
	}
	var jobsPerSecond float64
	for _, ap := range jobs.Patterns() {
		if ap.Name == "Create job" {
			jobsPerSecond = rate(ap)
		}
	}
	require.Positive(t, jobsPerSecond)
	for _, ap := range analytics.Patterns() {
		if ap.Operation == access.UpdateItem {
			writesPerJob += rate(ap) / jobsPerSecond
		}
	}
	return writesPerJob, time.Duration(float64(time.Second) / jobsPerSecond)
}

// paces are the runs of the test and the benchmark: the declared peak and
// average job rates, users taking turns or uploading in sessions.
var paces = []struct {
	average, session bool
	jobs             int
}{
	{false, false, 100}, {false, true, 100}, {true, false, 40}, {true, true, 40},
}

// At the jobs store's declared rates (a peak of 0.4 jobs a second, 100k
// a month on average), jobs arriving at random and a consumer polling
// every second, the view costs at most the declared write units per job
// lifecycle (4: a row write per counted change, each a write unit): a
// batch holds about two changes at the peak and one on average, and
// rarely two of one user's day. The lease table takes a checkpoint per
// batch with records, and lease renewals.
func TestAtTheDeclaredRatesTheViewCostsAtMostItsDeclaredWritesPerJob(t *testing.T) {
	for _, p := range paces {
		t.Run(fmt.Sprintf("average=%v/session=%v", p.average, p.session), func(t *testing.T) {
			declared, interval := declaredRate(t, p.average)
			got := jobsPace(t, p.jobs, interval, p.session)
			t.Logf("per job lifecycle: view %.2f WCU (declared %.2f), lease table %.2f WCU; %.2f changes a batch", got.viewWCU, declared, got.leaseWCU, got.changesPerBatch)
			assert.LessOrEqual(t, got.viewWCU, declared, "the view's write units per job")
			assert.Greater(t, got.viewWCU, declared*3/4, "batches at these rates merge few changes")
		})
	}
}

// BenchmarkApplyAtTheDeclaredRates reports what the view and the
// consumer's lease table cost per job lifecycle at the jobs store's
// declared peak and average rates, users taking turns and in sessions of
// five uploads.
func BenchmarkApplyAtTheDeclaredRates(b *testing.B) {
	for _, p := range paces {
		b.Run(fmt.Sprintf("average=%v/session=%v", p.average, p.session), func(b *testing.B) {
			_, interval := declaredRate(b, p.average)
			var got paced
			for b.Loop() {
				got = jobsPace(b, p.jobs, interval, p.session)
			}
			b.ReportMetric(got.viewWCU, "viewWCU/lifecycle")
			b.ReportMetric(got.leaseWCU, "leaseWCU/lifecycle")
			b.ReportMetric(got.changesPerBatch, "changes/batch")
		})
	}
}
