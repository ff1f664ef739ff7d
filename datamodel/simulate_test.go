package datamodel_test

import (
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// The simulations (simulate_<store>_test.go, helpers here) prove the
// hot-partition analysis by running it:
// each drives a store on dynamotest with its partitions limited as
// DynamoDB limits them (dynamotest.LimitPartitions: 3,000 RCU and 1,000
// WCU a second per key value, burst credit, on the fake's clock), at the
// peak rates its patterns declare, and checks that the key values that
// throttled are exactly the ones datamodel calls hot. They read
// datamodel's verdict rather than restating it, so a change to either the
// analysis or the store that breaks the agreement fails them.

// simStart is the fake's clock at the start of every simulation.
var simStart = time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)

// simDB is a fake with limited partitions, its clock at simStart.
func simDB(t *testing.T) (*dynamotest.DB, *dynamotest.PartitionLimiter) {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return simStart } })
	l, err := dynamotest.LimitPartitions(db)
	require.NoError(t, err)
	return db, l
}

// noRetries makes a store's table give a throttled request back at once,
// so that every throttle is counted and no retry waits on the wall clock.
func noRetries(o *table.Options) { o.TxAttempts = 1 }

// partitionKey names a key value as the comparison sees it: the index
// ("" for the table) and the value, shard suffix removed.
type partitionKey struct{ Index, Partition string }

func (k partitionKey) String() string {
	if k.Index == "" {
		return k.Partition
	}
	return k.Index + " " + k.Partition
}

// hotSet is datamodel's verdict: the key values it calls hot.
func hotSet(est *datamodel.Estimate) []partitionKey {
	var out []partitionKey
	for _, h := range est.Hot() {
		out = append(out, partitionKey{h.Index, h.Partition})
	}
	return sortKeys(out)
}

// throttledSet is the fake's: the key values that refused requests, each
// shard of a value datamodel knows as sharded (PENDING#3) reported as the
// value (PENDING).
func throttledSet(est *datamodel.Estimate, l *dynamotest.PartitionLimiter) []partitionKey {
	seen := map[partitionKey]bool{}
	for _, th := range l.Throttles() {
		k := partitionKey{th.Index, th.Partition}
		for _, p := range est.Partitions {
			if p.Index != th.Index || p.Spread <= 1 || !strings.HasPrefix(th.Partition, p.Partition+"#") {
				continue
			}
			if _, err := strconv.Atoi(strings.TrimPrefix(th.Partition, p.Partition+"#")); err == nil {
				k.Partition = p.Partition
			}
		}
		seen[k] = true
	}
	out := make([]partitionKey, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	return sortKeys(out)
}

func sortKeys(ks []partitionKey) []partitionKey {
	sort.Slice(ks, func(i, j int) bool { return ks[i].String() < ks[j].String() })
	return ks
}

// simSeconds is how long a simulation must run for every partition
// datamodel calls hot to spend the one second of credit a fresh partition
// starts with: 1/(load/limit - 1) seconds, plus a second; and a second
// when none is hot.
func simSeconds(t *testing.T, est *datamodel.Estimate) int {
	t.Helper()
	need := 1.0
	for _, h := range est.Hot() {
		over := max(h.ReadPerSecond/datamodel.PartitionReadLimit, h.WritePerSecond/datamodel.PartitionWriteLimit) - 1
		need = max(need, 1/over+1)
	}
	require.LessOrEqual(t, need, 10.0, "a hot partition barely over its limit would need a long simulation")
	return int(math.Ceil(need))
}

// pacer turns a declared rate into whole requests per tick, carrying the
// fractions over.
type pacer map[string]float64

// take returns how many requests of pattern name a tick of d holds at
// rate per second.
func (p pacer) take(name string, rate float64, d time.Duration) int {
	p[name] += rate * d.Seconds()
	n := math.Floor(p[name])
	p[name] -= n
	return int(n)
}

// rateOf is the declared peak of pattern name.
func rateOf(t *testing.T, ps []access.Pattern, name string) float64 {
	t.Helper()
	for _, ap := range ps {
		if ap.Name == name {
			return ap.RatePerSecond
		}
	}
	require.Failf(t, "no pattern", "%q is not declared", name)
	return 0
}

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
