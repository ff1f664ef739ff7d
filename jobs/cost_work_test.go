package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
)

// workCostFixture is a store with a work queue whose requests go through a
// Meter.
type workCostFixture struct {
	store *jobs.Store
	bare  *jobs.Store // the same tables, unmetered
	meter *dynamotest.Meter
}

func workCostFixtureAndMeter(t testing.TB) (*workCostFixture, *dynamotest.Meter) {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	m := dynamotest.NewMeter(db)
	opts := []func(*jobs.Options){jobs.TableName(jobsTable), jobs.Clock(db.Now), jobs.Work(tasksTable)}
	bare := newStore(t, db, nil, opts...)
	require.NoError(t, bare.EnsureTable(context.Background()))
	return &workCostFixture{store: newStore(t, m, nil, opts...), bare: bare, meter: m}, m
}

// workCalls are what the calls that queue a job's work cost today.
var workCalls = []dynamotest.Cost[*workCostFixture]{
	// One transaction of the job (and its two index entries) and its
	// task's writes (IDEM, META and its GSI1 entry, the SUBMITTED event:
	// tasks' default layout), each write doubled in a transaction. A queuing's key is new (tasks.FreshKey), so
	// tasks.SubmitTx reads nothing first: before FreshKey its consistent
	// reads of the key's IDEM item and of the task made this 3 requests
	// and 2 RCU. Without Work, Create is 1 request and 3 WCU.
	{Name: "Create with work", Prepare: func(t testing.TB, f *workCostFixture) func() error {
		_, _, err := f.store.Create(context.Background(), upload("warm")) // the tasks table's shard count, read once a store
		require.NoError(t, err)
		return func() error { _, _, err := f.store.Create(context.Background(), upload("u1")); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 14}},
	// The job's read, then the move and the new task in one transaction,
	// then the job read back (5 requests and 4 RCU before FreshKey).
	{Name: "Replay with work", Prepare: func(t testing.TB, f *workCostFixture) func() error {
		ctx := context.Background()
		job, _, err := f.bare.Create(ctx, upload("u1"))
		require.NoError(t, err)
		started, err := f.bare.StartProcessing(ctx, job.ID)
		require.NoError(t, err)
		_, err = f.bare.Fail(ctx, started.Lease(), jobs.JobError{Code: "X", Message: "x"})
		require.NoError(t, err)
		_, _, err = f.store.Create(ctx, upload("warm"))
		require.NoError(t, err)
		return func() error { _, err := f.store.Maintenance().Replay(ctx, job.ID); return err }
	}, Max: dynamotest.Usage{Requests: 3, RoundTrips: 3, WriteUnits: 16, ReadUnits: 2}},
}

func TestQueuingWorkCostsNoMoreThanToday(t *testing.T) {
	dynamotest.CheckCosts(t, workCostFixtureAndMeter, workCalls)
}

// BenchmarkQueuingWork reports what Create and Replay with work send and
// are billed per call.
func BenchmarkQueuingWork(b *testing.B) {
	dynamotest.BenchmarkCosts(b, workCostFixtureAndMeter, workCalls)
}
