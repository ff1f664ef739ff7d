package datamodel_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
)

// simAPI is the limiter as a store sees it in a simulation: a batch that
// comes back throttled, or with items left unprocessed, cancels the store
// call's context, so that table's batch retries (which back off on the
// wall clock, which a simulation never waits for) stop at once. The
// limiter has counted the throttle by then.
type simAPI struct {
	*dynamotest.PartitionLimiter
	cancel context.CancelFunc
}

func (a *simAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := a.PartitionLimiter.BatchWriteItem(ctx, in, opts...)
	if err != nil || len(out.UnprocessedItems) > 0 {
		a.cancel()
	}
	return out, err
}

func (a *simAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := a.PartitionLimiter.BatchGetItem(ctx, in, opts...)
	if err != nil || len(out.UnprocessedKeys) > 0 {
		a.cancel()
	}
	return out, err
}

// sim is one simulation: a fake with limited partitions, its clock at
// simStart, and the store calls made on it.
type sim struct {
	t   *testing.T
	db  *dynamotest.DB
	l   *dynamotest.PartitionLimiter
	api *simAPI
	// throttled counts the store calls the limiter refused a request of.
	throttled int
	// entities are the ids the simulation sent its per-entity traffic to,
	// by template placeholder ("journeyId").
	entities map[string]string
}

// instantiate names a per-entity template as the simulation's key value:
// JOURNEY#{journeyId} is JOURNEY#<the journey it used>.
func (s *sim) instantiate(k partitionKey) partitionKey {
	var pairs []string
	for _, name := range slices.Sorted(maps.Keys(s.entities)) {
		pairs = append(pairs, "{"+name+"}", s.entities[name])
	}
	k.Partition = strings.NewReplacer(pairs...).Replace(k.Partition)
	return k
}

func newSim(t *testing.T) *sim {
	t.Helper()
	db, l := simDB(t)
	return &sim{t: t, db: db, l: l, api: &simAPI{PartitionLimiter: l, cancel: func() {}}}
}

// refused is how many requests the limiter has refused so far.
func (s *sim) refused() int {
	n := 0
	for _, th := range s.l.Throttles() {
		n += th.Reads + th.Writes
	}
	return n
}

// call runs one store call and reports whether the limiter refused any of
// its requests (the call's error is then the throttle's, or the
// cancellation that stopped its retries); any other error fails the test.
func (s *sim) call(f func(ctx context.Context) error) bool {
	s.t.Helper()
	before := s.refused()
	ctx, cancel := context.WithCancel(context.Background())
	s.api.cancel = cancel
	err := f(ctx)
	cancel()
	if s.refused() > before {
		s.throttled++
		return true
	}
	require.NoError(s.t, err)
	return false
}

// simTick is the simulations' step of the fake's clock.
const simTick = 100 * time.Millisecond

// run advances the fake's clock a tick at a time for seconds, calling
// tick after each step.
func (s *sim) run(seconds int, tick func()) {
	for range seconds * int(time.Second/simTick) {
		s.db.Advance(simTick)
		tick()
	}
}

// keyLoad is what one key value drew, in units a second.
type keyLoad struct{ Read, Write float64 }

// measure starts measuring what the key values of tableName draw; the
// function it returns reports each one's units per second since. It reads
// the limiter's buckets: credit refills at the limit, so what a key value
// drew is the credit it had, plus the refill, less what is left (exact
// while no bucket reaches its burst cap, minutes away in a simulation).
func (s *sim) measure(tableName string, kvs ...partitionKey) func() map[partitionKey]keyLoad {
	type credit struct{ read, write float64 }
	start, at := map[partitionKey]credit{}, s.db.Now()
	for _, k := range kvs {
		start[k] = credit{s.l.Credit(tableName, k.Index, k.Partition, false), s.l.Credit(tableName, k.Index, k.Partition, true)}
	}
	return func() map[partitionKey]keyLoad {
		secs := s.db.Now().Sub(at).Seconds()
		out := map[partitionKey]keyLoad{}
		for _, k := range kvs {
			c := start[k]
			r := c.read + datamodel.PartitionReadLimit*secs - s.l.Credit(tableName, k.Index, k.Partition, false)
			w := c.write + datamodel.PartitionWriteLimit*secs - s.l.Credit(tableName, k.Index, k.Partition, true)
			out[k] = keyLoad{r / secs, w / secs}
		}
		return out
	}
}

// assertHeld checks a simulation of a design datamodel says holds: no
// call throttled, no key value refused a request, and every measured key
// value within datamodel's figure for it.
func assertHeld(t *testing.T, est *datamodel.Estimate, s *sim, drew map[partitionKey]keyLoad) {
	t.Helper()
	assert.Zero(t, s.throttled, "store calls throttled")
	assert.Empty(t, throttledSet(est, s.l))
	assertWithinFigures(t, est, s.instantiate, drew)
}

// assertWithinFigures checks that what each measured key value drew is
// within datamodel's figure for it: a constant's load, or a template's
// PerEntity bound, named by instantiate as the simulation's key value.
func assertWithinFigures(t *testing.T, est *datamodel.Estimate, instantiate func(partitionKey) partitionKey, drew map[partitionKey]keyLoad) {
	t.Helper()
	figures := map[partitionKey]datamodel.PartitionLoad{}
	for _, pl := range append(est.Partitions, est.PerEntity...) {
		figures[instantiate(partitionKey{pl.Index, pl.Partition})] = pl
	}
	for _, k := range sortKeys(slices.Collect(maps.Keys(drew))) {
		got := drew[k]
		want, ok := figures[k]
		require.True(t, ok, "datamodel has no figure for %s", k)
		t.Logf("%s: drew %.1f RCU/s, %.1f WCU/s; datamodel %.1f RCU/s, %.1f WCU/s", k, got.Read, got.Write, want.ReadPerSecond, want.WritePerSecond)
		assert.LessOrEqual(t, got.Read, want.ReadPerSecond, "%s read more than datamodel's figure", k)
		assert.LessOrEqual(t, got.Write, want.WritePerSecond, "%s wrote more than datamodel's figure", k)
	}
}
