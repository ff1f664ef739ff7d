package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
)

// costFixture is a store whose requests go through a Meter, so that a
// test sees what one call sends and what it is billed.
type costFixture struct {
	*fixture
	meter *dynamotest.Meter
}

func newCostFixture(t testing.TB) *costFixture {
	t.Helper()
	f := newFixture(t)
	m := dynamotest.NewMeter(f.db)
	f.store = newStore(t, m, f.blobs, func(o *jobs.Options) {
		o.TableName = jobs.TableNameForEnv("test")
		o.Clock = f.db.Now
	})
	return &costFixture{fixture: f, meter: m}
}

func costFixtureAndMeter(t testing.TB) (*costFixture, *dynamotest.Meter) {
	f := newCostFixture(t)
	return f, f.meter
}

func (f *costFixture) processing(t testing.TB) *jobs.Job {
	t.Helper()
	j, err := f.store.StartProcessing(context.Background(), f.create(t, "u1").ID)
	require.NoError(t, err)
	return j
}

// hotCalls are the store's frequent calls and what each costs today.
var hotCalls = []dynamotest.Cost[*costFixture]{
	{Name: "Create", Prepare: func(t testing.TB, f *costFixture) func() error {
		return func() error { _, _, err := f.store.Create(context.Background(), upload("u1")); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 3}}, // the job and its two index entries
	// A status move rewrites the job and moves both index entries (the
	// indexes project everything, as the design asks).
	{Name: "StartProcessing", Prepare: func(t testing.TB, f *costFixture) func() error {
		id := f.create(t, "u1").ID
		return func() error { _, err := f.store.StartProcessing(context.Background(), id); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 4}},
	{Name: "Heartbeat", Prepare: func(t testing.TB, f *costFixture) func() error {
		j := f.processing(t)
		f.db.Advance(10 * time.Second) // a lease renewed later: its expiry moves
		return func() error { _, err := f.store.Heartbeat(context.Background(), j.Lease()); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 3}}, // the job and both index entries (they project the lease)
	{Name: "StartEditing", Prepare: func(t testing.TB, f *costFixture) func() error {
		j := f.processing(t)
		return func() error { _, err := f.store.StartEditing(context.Background(), j.Lease(), analysis); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 4}},
	{Name: "Complete", Prepare: func(t testing.TB, f *costFixture) func() error {
		j := f.processing(t)
		e, err := f.store.StartEditing(context.Background(), j.Lease(), analysis)
		require.NoError(t, err)
		return func() error { _, err := f.store.Complete(context.Background(), e.Lease(), edit); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 4}},
	{Name: "Fail", Prepare: func(t testing.TB, f *costFixture) func() error {
		j := f.processing(t)
		return func() error {
			_, err := f.store.Fail(context.Background(), j.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "no answer"})
			return err
		}
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 4}},
	{Name: "Get", Prepare: func(t testing.TB, f *costFixture) func() error {
		id := f.create(t, "u1").ID
		return func() error { _, err := f.store.Get(context.Background(), id); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, ReadUnits: 0.5}},
	{Name: "ListByUser page of 25", Prepare: func(t testing.TB, f *costFixture) func() error {
		for range 30 {
			f.create(t, "u1")
			f.db.Advance(time.Millisecond)
		}
		return func() error {
			p, err := f.store.ByUser("u1", jobs.Limit(25)).Page(context.Background(), "")
			if err == nil && len(p.Items) != 25 {
				err = fmt.Errorf("%d jobs listed", len(p.Items))
			}
			return err
		}
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, ReadUnits: 1}},
	{Name: "ListByStatus page of 25", Prepare: func(t testing.TB, f *costFixture) func() error {
		for range 30 {
			f.create(t, "u1")
			f.db.Advance(time.Millisecond)
		}
		return func() error {
			p, err := f.store.Maintenance().ByStatus(jobs.StatusQueued, jobs.Limit(25)).Page(context.Background(), "")
			if err == nil && len(p.Items) != 25 {
				err = fmt.Errorf("%d jobs listed", len(p.Items))
			}
			return err
		}
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, ReadUnits: 1}},
}

// TestHotCallsCostNoMoreThanToday fails when one of the store's frequent
// calls sends more requests or is billed more units than it is today:
// counts on the fake are exact, so a rise is a change to look at.
func TestHotCallsCostNoMoreThanToday(t *testing.T) {
	dynamotest.CheckCosts(t, costFixtureAndMeter, hotCalls)
}

// BenchmarkHotCalls reports each frequent call's requests, round trips
// and billed units per call.
func BenchmarkHotCalls(b *testing.B) {
	dynamotest.BenchmarkCosts(b, costFixtureAndMeter, hotCalls)
}
