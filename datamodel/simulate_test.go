package datamodel_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// The tests in this file prove the hot-partition analysis by running it:
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

// throttled reports whether err is a throttle, and fails the test on any
// other error.
func throttled(t *testing.T, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	require.ErrorIs(t, err, table.ErrThrottled)
	return true
}

// tasksShards is the WithPartitions option that tells datamodel the
// pending and processing partitions are split over n shards, as
// tasks.Shards(n) splits them.
func tasksShards(ps []access.Pattern, n int) map[string]int {
	shards := map[string]int{}
	for _, ap := range ps {
		if strings.HasPrefix(ap.Partition, "STATUS#PENDING") || strings.HasPrefix(ap.Partition, "STATUS#PROCESSING") ||
			strings.Contains(fmt.Sprint(ap.Items, ap.IndexWrites), "STATUS#P") {
			shards[ap.Name] = n
		}
	}
	return shards
}

// driven is the tasks patterns runTasks drives: all but the rarer ends of
// a lease (fail, release, expiry), which it does not send, so that
// datamodel estimates the load the simulation makes.
func driven(ps []access.Pattern) []access.Pattern {
	var out []access.Pattern
	for _, ap := range ps {
		if ap.Name != "Fail, release or expire task" {
			out = append(out, ap)
		}
	}
	return out
}

// runTasks drives a tasks store at seed 003's declared peak: every 100 ms
// of the fake's clock, the tick's share of submissions, claims (each
// claimed task heartbeaten at the declared heartbeat rate and completed),
// metadata and history reads. It returns how many requests were throttled.
func runTasks(t *testing.T, shards, seconds int, scale float64) (*dynamotest.PartitionLimiter, int) {
	ctx := context.Background()
	db, l := simDB(t)
	s, err := tasks.NewStore(l, nil, tasks.Clock(db.Now), tasks.Shards(shards),
		func(o *tasks.Options) { o.Table = append(o.Table, noRetries) })
	require.NoError(t, err)
	require.NoError(t, s.EnsureTable(ctx))
	ps := tasks.Patterns()
	submit, claim := scale*rateOf(t, ps, "Submit: META"), scale*rateOf(t, ps, "Claim task (atomic)")
	heartbeat, reads := scale*rateOf(t, ps, "Heartbeat"), scale*rateOf(t, ps, "Get task metadata")
	const tick = 100 * time.Millisecond
	pace := pacer{}
	throttles := 0
	var last string
	for range seconds * int(time.Second/tick) {
		db.Advance(tick)
		for range pace.take("submit", submit, tick) {
			task, _, err := s.Submit(ctx, tasks.SubmitInput{Payload: []byte("resize image")})
			if throttled(t, err) {
				throttles++
				continue
			}
			last = task.ID
		}
		beats := pace.take("heartbeat", heartbeat, tick)
		for i := range pace.take("claim", claim, tick) {
			c, err := s.Claim(ctx, fmt.Sprint("worker-", i))
			if errors.Is(err, tasks.ErrNoTask) {
				continue
			}
			if throttled(t, err) {
				throttles++
				continue
			}
			lease := c.Lease
			if i < beats {
				if lease, err = s.Heartbeat(ctx, c.Lease); throttled(t, err) {
					throttles++
					continue
				}
			}
			if throttled(t, s.Complete(ctx, lease, []byte("done"))) {
				throttles++
			}
		}
		for range pace.take("read", reads, tick) {
			if last == "" {
				continue
			}
			if _, err := s.Get(ctx, last); throttled(t, err) {
				throttles++
			}
			if _, err := s.History(ctx, last); throttled(t, err) {
				throttles++
			}
		}
	}
	return l, throttles
}

// TestTasksAtSeedPeakThrottlesExactlyThePartitionsDatamodelCallsHot: on
// one shard GSI1's STATUS#PENDING and STATUS#PROCESSING take about a
// partition's 1,000 WCU at seed 003's 500 tasks a second (each move writes
// the index entry once, now that submit, claim and complete are
// single-item writes); at half as much again both are over, datamodel
// says so, and the fake throttles them and nothing else.
func TestTasksAtSeedPeakThrottlesExactlyThePartitionsDatamodelCallsHot(t *testing.T) {
	const scale = 1.5
	s, ps := tasks.Schema(tasks.DefaultTableName), driven(tasks.Patterns())
	rates := map[string]float64{}
	for _, ap := range ps {
		rates[ap.Name] = scale * ap.RatePerSecond
	}
	est, err := datamodel.EstimateSchema(s, ps, datamodel.WithPartitions(tasksShards(ps, 1)), datamodel.WithRates(rates))
	require.NoError(t, err)
	hot := hotSet(est)
	require.NotEmpty(t, hot, "datamodel finds the single-shard queue hot")

	l, throttles := runTasks(t, 1, simSeconds(t, est), scale)
	assert.Positive(t, throttles)
	assert.Equal(t, hot, throttledSet(est, l), "the partitions that throttled are the ones datamodel calls hot")
}

// TestShardedTasksAtSeedPeakDoNotThrottle: with the shards datamodel's
// remedy asks for, it calls nothing hot, and the fake throttles nothing.
func TestShardedTasksAtSeedPeakDoNotThrottle(t *testing.T) {
	s, ps := tasks.Schema(tasks.DefaultTableName), driven(tasks.Patterns())
	const shards = 4
	est, err := datamodel.EstimateSchema(s, ps, datamodel.WithPartitions(tasksShards(ps, shards)))
	require.NoError(t, err)
	require.Empty(t, hotSet(est), "datamodel: %d shards hold the seed's rate", shards)

	single, err := datamodel.EstimateSchema(s, ps, datamodel.WithPartitions(tasksShards(ps, 1)))
	require.NoError(t, err)
	l, throttles := runTasks(t, shards, simSeconds(t, single), 1)
	assert.Zero(t, throttles)
	assert.Empty(t, throttledSet(est, l))
}

// runJobs drives a jobs store at its declared peaks multiplied by scale:
// every 100 ms, the tick's share of creates, polls (spread over the jobs,
// as clients poll their own), user and admin lists, and the moves of the
// jobs created (processing, a heartbeat, editing, completed).
func runJobs(t *testing.T, scale float64, seconds int) *dynamotest.PartitionLimiter {
	ctx := context.Background()
	db, l := simDB(t)
	s, err := jobs.NewStore(l, blobstore.NewMemory(), jobs.Clock(db.Now),
		func(o *jobs.Options) { o.Table = append(o.Table, noRetries) })
	require.NoError(t, err)
	require.NoError(t, s.EnsureTable(ctx))
	ps := jobs.Patterns()
	rate := func(name string) float64 { return scale * rateOf(t, ps, name) }
	const tick = 100 * time.Millisecond
	pace := pacer{}
	var created, queued []string
	n, polls := 0, 0
	for range seconds * int(time.Second/tick) {
		db.Advance(tick)
		for range pace.take("create", rate("Create job"), tick) {
			n++
			j, _, err := s.Create(ctx, jobs.CreateInput{UserID: fmt.Sprint("user-", n%1000), FileSize: 2 << 20, FileType: "image/jpeg", Provider: "stub"})
			if !throttled(t, err) {
				created, queued = append(created, j.ID), append(queued, j.ID)
			}
		}
		for range pace.take("poll", rate("Get job by ID"), tick) {
			if len(created) > 0 {
				polls++
				_, err := s.Get(ctx, created[polls%len(created)])
				throttled(t, err)
			}
		}
		for range pace.take("list", rate("List user jobs"), tick) {
			_, err := s.ListByUser(ctx, fmt.Sprint("user-", polls%1000), "")
			throttled(t, err)
		}
		for range pace.take("admin", rate("List failed jobs"), tick) {
			_, err := s.ListByStatus(ctx, jobs.StatusFailed, "")
			throttled(t, err)
		}
		beats := pace.take("heartbeat", rate("Heartbeat job lease"), tick)
		for i := range pace.take("moves", rate("Update job status"), tick) {
			if len(queued) == 0 {
				break
			}
			id := queued[0]
			queued = queued[1:]
			j, err := s.StartProcessing(ctx, id)
			if throttled(t, err) {
				continue
			}
			lease := j.Lease()
			if i < beats {
				if lease, err = s.Heartbeat(ctx, lease); throttled(t, err) {
					continue
				}
			}
			if j, err = s.StartEditing(ctx, lease, nil); throttled(t, err) {
				continue
			}
			_, err = s.Complete(ctx, j.Lease(), jobs.EditResult{S3Key: "final/" + id, Width: 800, Height: 600, Format: "jpeg", Size: 1 << 20})
			throttled(t, err)
		}
	}
	return l
}

// TestJobsAtSeedPeakDoNotThrottle: seed 001's ~100k jobs a month, at
// their declared peak, load no key value near its limits; datamodel says
// so and the fake throttles nothing.
func TestJobsAtSeedPeakDoNotThrottle(t *testing.T) {
	est, err := datamodel.EstimateSchema(jobs.Schema(jobs.DefaultTableName), jobs.Patterns())
	require.NoError(t, err)
	require.Empty(t, hotSet(est))
	l := runJobs(t, 1, 10)
	assert.Empty(t, throttledSet(est, l))
}
