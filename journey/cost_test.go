package journey

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
)

// costFixture is a store whose requests go through a Meter (on the fake,
// at the fake's clock) with JRN-C created: a test sees what one call
// sends and what it is billed.
type costFixture struct {
	db    *dynamotest.DB
	store *Store
}

func newCostFixture(tb testing.TB) (*costFixture, *dynamotest.Meter) {
	tb.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
	require.NoError(tb, Schema("").Create(context.Background(), db))
	m := dynamotest.NewMeter(db)
	s := mustStore(tb, m, blobstore.NewMemory(), Clock(db.Now))
	_, err := s.Journeys().Create(context.Background(), NewJourney{ID: "JRN-C", Name: "costs",
		Configuration: Configuration{Timeout: 60, RetryAttempts: 999}})
	require.NoError(tb, err)
	return &costFixture{db: db, store: s}, m
}

func (f *costFixture) start(tb testing.TB) *Job {
	tb.Helper()
	j, err := f.store.Jobs().Start(context.Background(), NewJob{JourneyID: "JRN-C", StageID: "raw_analysis"})
	require.NoError(tb, err)
	return j
}

// fail ends the stage's running job, so the next start is a retry.
func (f *costFixture) fail(tb testing.TB) {
	tb.Helper()
	j, err := f.store.Jobs().Latest(context.Background(), "JRN-C", "raw_analysis")
	if err != nil {
		return // no job yet
	}
	if j.Status == JobRunning {
		_, err = f.store.Jobs().Finish(context.Background(), j.Ref(), Finish{Status: JobFailed})
		require.NoError(tb, err)
	}
}

// hotCalls are the store's frequent calls and what each costs today, at
// the fake's item sizes (round trips are exact for calls that send one
// request at a time; TestStartJobIsTwoRoundTrips, TestIngestLogsRoundTrips
// and TestLoadJourneyIsOneRoundTrip count the concurrent ones).
var hotCalls = []dynamotest.Cost[*costFixture]{
	{Name: "Start", Prepare: func(tb testing.TB, f *costFixture) func() error {
		f.fail(tb)
		return func() error {
			_, err := f.store.Jobs().Start(context.Background(), NewJob{JourneyID: "JRN-C", StageID: "raw_analysis"})
			return err
		}
	}, Max: dynamotest.Usage{Requests: 3, RoundTrips: 3, ReadUnits: 2, WriteUnits: 12}},
	{Name: "StartPastATimedOutJob", Prepare: func(tb testing.TB, f *costFixture) func() error {
		f.fail(tb)
		f.start(tb)
		f.db.Advance(2 * time.Minute)
		return func() error {
			_, err := f.store.Jobs().Start(context.Background(), NewJob{JourneyID: "JRN-C", StageID: "raw_analysis"})
			return err
		}
	}, Max: dynamotest.Usage{Requests: 3, RoundTrips: 3, ReadUnits: 2, WriteUnits: 20}},
	{Name: "SetProgress", Prepare: func(tb testing.TB, f *costFixture) func() error {
		f.fail(tb)
		j := f.start(tb)
		return func() error {
			_, err := f.store.Jobs().SetProgress(context.Background(), j.Ref(), 50, "schema_extraction")
			return err
		}
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 2}},
	{Name: "Finish", Prepare: func(tb testing.TB, f *costFixture) func() error {
		f.fail(tb)
		j := f.start(tb)
		return func() error {
			_, err := f.store.Jobs().Finish(context.Background(), j.Ref(), Finish{Status: JobFailed})
			return err
		}
	}, Max: dynamotest.Usage{Requests: 3, RoundTrips: 3, ReadUnits: 5, WriteUnits: 12}},
	{Name: "LogStep10000Entries", Prepare: func(tb testing.TB, f *costFixture) func() error {
		f.fail(tb)
		j := f.start(tb)
		l, err := f.store.Logs().Logger(j.Ref(), "schema_extraction")
		require.NoError(tb, err)
		for range 10_000 {
			l.Info("Processed batch of table products", map[string]any{"rows": 1200})
		}
		return func() error { return l.Close(context.Background()) }
	}, Max: dynamotest.Usage{Requests: 401, RoundTrips: 401, WriteUnits: 20008}},
	{Name: "Load", Prepare: func(tb testing.TB, f *costFixture) func() error {
		return func() error { _, err := f.store.Journeys().Load(context.Background(), "JRN-C"); return err }
	}, Max: dynamotest.Usage{Requests: 2, RoundTrips: 2, ReadUnits: 1}},
}

// TestHotCallsCostNoMore keeps each hot call's requests and capacity at or
// below today's (dynamotest.CheckCosts).
func TestHotCallsCostNoMore(t *testing.T) {
	dynamotest.CheckCosts(t, newCostFixture, hotCalls)
}

// BenchmarkHotCalls reports each hot call's requests, round trips, RCU
// and WCU per call.
func BenchmarkHotCalls(b *testing.B) {
	dynamotest.BenchmarkCosts(b, newCostFixture, hotCalls)
}
