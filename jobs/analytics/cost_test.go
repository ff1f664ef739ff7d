package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
)

// lifecycles runs jobsPerUser jobs of each of users through create, start,
// one heartbeat, editing and completion, each step for every job before
// the next step (so a batch of the stream holds many users' changes), and
// returns the stream's changes in order.
func lifecycles(t testing.TB, users, jobsPerUser int) (*dynamotest.DB, []changes.Change[analytics.Job]) {
	t.Helper()
	ctx := context.Background()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	w := world{db: db, streams: db, clock: db, jobsTable: jobs.DefaultTableName,
		viewTable: analytics.DefaultTableName, leaseTable: changes.DefaultLeaseTable}
	store, view := w.setUp(t)
	var created []*jobs.Job
	for i := range jobsPerUser {
		for u := range users {
			j, _, err := store.Create(ctx, jobs.CreateInput{UserID: fmt.Sprintf("user-%d", u), FileSize: 1_000_000,
				FileType: "image/jpeg", Provider: "stub", OriginalFileName: fmt.Sprintf("photo-%d.jpg", i)})
			require.NoError(t, err)
			created = append(created, j)
		}
	}
	db.Advance(time.Second)
	var started []*jobs.Job
	for _, j := range created {
		s, err := store.StartProcessing(ctx, j.ID)
		require.NoError(t, err)
		started = append(started, s)
	}
	db.Advance(time.Second)
	for _, s := range started {
		_, err := store.Heartbeat(ctx, s.Lease())
		require.NoError(t, err)
	}
	var editing []*jobs.Job
	for _, s := range started {
		e, err := store.StartEditing(ctx, s.Lease(), &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "beach", Confidence: 0.9}}})
		require.NoError(t, err)
		editing = append(editing, e)
	}
	db.Advance(time.Second)
	for _, e := range editing {
		_, err := store.Complete(ctx, e.Lease(), jobs.EditResult{S3Key: "final/" + e.ID + ".jpg", Width: 800, Height: 600, Format: "jpeg", Size: 90_000})
		require.NoError(t, err)
	}
	var all []changes.Change[analytics.Job]
	c := w.consumer(t, view, "collector", changes.BatchSize(1000))
	for {
		n, err := c.Step(ctx, func(_ context.Context, batch []changes.Change[analytics.Job]) error {
			all = append(all, batch...)
			return nil
		})
		require.NoError(t, err)
		if n == 0 {
			break
		}
	}
	require.Len(t, all, 5*users*jobsPerUser, "five changes per job")
	return db, all
}

// applyCost applies all to a new view through a Meter (each request
// taking latency), batch changes at a time as a consumer hands them, and
// returns what that cost.
func applyCost(t testing.TB, db *dynamotest.DB, all []changes.Change[analytics.Job], batch int, viewTable string, latency time.Duration) dynamotest.Usage {
	t.Helper()
	ctx := context.Background()
	fresh, err := analytics.NewView(db, analytics.TableName(viewTable))
	require.NoError(t, err)
	require.NoError(t, fresh.EnsureTable(ctx))
	m := dynamotest.NewMeter(db, func(o *dynamotest.MeterOptions) { o.Latency = latency })
	view, err := analytics.NewView(m, analytics.TableName(viewTable))
	require.NoError(t, err)
	for i := 0; i < len(all); i += batch {
		require.NoError(t, view.Apply(ctx, all[i:min(i+batch, len(all))]))
	}
	return m.Usage()
}

// The view used to cost 16 write units per job lifecycle whatever the
// batch: each of a job's four counted changes was a transaction of its day
// row and a marker (two items, each write doubled). Now a change alone
// costs one row write, and a batch one write per user and day. Run in a
// synctest bubble, so the Meter's latency makes the concurrent row writes
// overlap exactly.
func TestTheViewCostsAtMostAQuarterOfTheWriteUnitsItDidPerJobLifecycle(t *testing.T) {
	const users, perUser = 10, 10
	for _, c := range []struct {
		batch                     int
		wcu, requests, roundTrips float64 // at most, per lifecycle
	}{
		// The consumer's default batch of 100 changes holds 10 users' jobs: 10 row writes, 8 at a time.
		{batch: 100, wcu: 0.4, requests: 0.4, roundTrips: 0.1},
		// A batch a job's lifecycle long (5 changes, 4 counted), here 5 users' changes.
		{batch: 5, wcu: 4, requests: 4, roundTrips: 1},
		// A change a batch: nothing to sum.
		{batch: 1, wcu: 4, requests: 4, roundTrips: 4},
	} {
		t.Run(fmt.Sprintf("batch=%d", c.batch), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db, all := lifecycles(t, users, perUser)
				u := applyCost(t, db, all, c.batch, "view", 10*time.Millisecond)
				n := float64(users * perUser)
				assert.LessOrEqual(t, u.WriteUnits/n, c.wcu, "write units per job lifecycle")
				assert.LessOrEqual(t, float64(u.Requests)/n, c.requests, "requests per job lifecycle")
				assert.LessOrEqual(t, float64(u.RoundTrips)/n, c.roundTrips, "round trips per job lifecycle")
			})
		})
	}
}

// BenchmarkApplyPerJobLifecycle reports the view's cost per job
// lifecycle (create, start, heartbeat, editing, complete) for batches of
// 1, 5 and 100 changes, 10 users' jobs interleaved.
func BenchmarkApplyPerJobLifecycle(b *testing.B) {
	const users, perUser = 10, 10
	db, all := lifecycles(b, users, perUser)
	for _, batch := range []int{1, 5, 100} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			var total dynamotest.Usage
			i := 0
			for b.Loop() {
				u := applyCost(b, db, all, batch, fmt.Sprintf("bench-%d-%d", batch, i), 0)
				i++
				total.Requests += u.Requests
				total.WriteUnits += u.WriteUnits
				total.ReadUnits += u.ReadUnits
			}
			lifecycles := float64(b.N * users * perUser)
			b.ReportMetric(total.WriteUnits/lifecycles, "WCU/lifecycle")
			b.ReportMetric(float64(total.Requests)/lifecycles, "requests/lifecycle")
		})
	}
}
