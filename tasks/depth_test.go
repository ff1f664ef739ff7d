package tasks_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// queueOfEveryKind fills the queue of store (on the clock's time) with a
// dead letter, a task being processed, three claimable tasks and two
// delayed by an hour, one at a time so each claim takes the task meant.
func queueOfEveryKind(t *testing.T, store *tasks.Store, now func() time.Time) {
	t.Helper()
	ctx := context.Background()
	submit := func(in tasks.SubmitInput) {
		_, _, err := store.Submit(ctx, in)
		require.NoError(t, err)
	}
	doomed, err := tasks.NewStore(store.Table().DB(), nil, tasks.TableName(store.Table().Name()), tasks.Clock(now), tasks.MaxAttempts(1))
	require.NoError(t, err)
	_, _, err = doomed.Submit(ctx, tasks.SubmitInput{Payload: []byte("doomed")})
	require.NoError(t, err)
	c, err := store.Claim(ctx, "w1")
	require.NoError(t, err)
	to, err := store.Fail(ctx, c.Lease, "bad input")
	require.NoError(t, err)
	require.Equal(t, tasks.StatusDead, to)
	submit(tasks.SubmitInput{Payload: []byte("in flight")})
	_, err = store.Claim(ctx, "w1")
	require.NoError(t, err)
	for range 3 {
		submit(tasks.SubmitInput{Payload: []byte("now")})
	}
	for range 2 {
		submit(tasks.SubmitInput{Payload: []byte("later"), AvailableAt: now().Add(time.Hour)})
	}
}

func TestDepthCountsTheQueueByState(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	f := newFixture(t, tasks.Shards(4), tasks.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	ctx := context.Background()
	d, err := f.store.Maintenance().Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, tasks.QueueDepth{}, d, "an empty queue")

	queueOfEveryKind(t, f.store, f.db.Now)
	d, err = f.store.Maintenance().Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, tasks.QueueDepth{Claimable: 3, Waiting: 2, Processing: 1, Dead: 1}, d)
	assert.Equal(t, int64(5), d.Pending())
	assert.Equal(t, map[string]int64{"claimable": 3, "waiting": 2, "processing": 1, "dead": 1}, depthGauge(t, reader))

	f.db.Advance(time.Hour) // the delayed tasks are due, to the microsecond
	d, err = f.store.Maintenance().Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, tasks.QueueDepth{Claimable: 5, Processing: 1, Dead: 1}, d)
	assert.Equal(t, map[string]int64{"claimable": 5, "waiting": 0, "processing": 1, "dead": 1}, depthGauge(t, reader))
}

func TestIntegrationDepthCountsTheQueueByState(t *testing.T) {
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now), tasks.Shards(4))
	queueOfEveryKind(t, store, clock.Now)
	d, err := store.Maintenance().Depth(context.Background())
	require.NoError(t, err)
	assert.Equal(t, tasks.QueueDepth{Claimable: 3, Waiting: 2, Processing: 1, Dead: 1}, d)
}

// TestDepthIsOneRoundTripAndWritesNothing: 3N+1 COUNT queries sent at
// once, whatever they count.
func TestDepthIsOneRoundTripAndWritesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, m, store := metered(t)
		u := m.Measure(func() {
			_, err := store.Maintenance().Depth(context.Background())
			require.NoError(t, err)
		})
		assert.Equal(t, 3*tasks.DefaultShards+1, u.Requests)
		assert.Equal(t, 1, u.RoundTrips)
		assert.Zero(t, u.WriteUnits)
	})
}

func TestDepthWithoutAContextSendsNothing(t *testing.T) {
	f := newFixture(t)
	var none context.Context // nil: the bad input
	f.noRequests(t, func() {
		_, err := f.store.Maintenance().Depth(none)
		require.ErrorIs(t, err, table.ErrInvalidInput)
	})
}

// depthGauge is the last value of tablekit.tasks.queue.depth by state.
func depthGauge(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "tablekit.tasks.queue.depth" {
				continue
			}
			g, ok := m.Data.(metricdata.Gauge[int64])
			require.True(t, ok, "a gauge of int64")
			for _, p := range g.DataPoints {
				state, _ := p.Attributes.Value(attribute.Key("tablekit.tasks.state"))
				out[state.AsString()] = p.Value
			}
		}
	}
	return out
}
