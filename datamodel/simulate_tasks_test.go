package datamodel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/tasks"
)

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
// a lease (fail, release, expiry) and the reads and index moves of leases
// heartbeated past their claim's expiry (its tasks complete within a
// tick), which it does not send, so that datamodel estimates the load the
// simulation makes.
func driven(ps []access.Pattern) []access.Pattern {
	var out []access.Pattern
	for _, ap := range ps {
		switch ap.Name {
		case "Fail, release or expire task", "Read a lease", "Move a lease's index entry":
		default:
			out = append(out, ap)
		}
	}
	return out
}

// runTasks drives a tasks store at the task-queue design's declared peak: every 100 ms
// of the fake's clock, the tick's share of submissions, claims (each
// claimed task heartbeaten at the declared heartbeat rate and completed),
// metadata and history reads. It returns the simulation.
func runTasks(t *testing.T, shards, seconds int, scale float64) *sim {
	ctx := context.Background()
	s := newSim(t)
	st, err := tasks.NewStore(s.api, nil, tasks.Clock(s.db.Now), tasks.Shards(shards),
		func(o *tasks.Options) { o.Table = append(o.Table, noRetries) })
	require.NoError(t, err)
	require.NoError(t, st.EnsureTable(ctx))
	ps := tasks.Patterns()
	submit, claim := scale*rateOf(t, ps, "Submit: META"), scale*rateOf(t, ps, "Claim task (atomic)")
	heartbeat, reads := scale*rateOf(t, ps, "Heartbeat"), scale*rateOf(t, ps, "Get task metadata")
	pace := pacer{}
	var last string
	s.run(seconds, func() {
		for range pace.take("submit", submit, simTick) {
			s.call(func(ctx context.Context) error {
				task, _, err := st.Submit(ctx, tasks.SubmitInput{Payload: []byte("resize image")})
				if err == nil {
					last = task.ID
				}
				return err
			})
		}
		beats := pace.take("heartbeat", heartbeat, simTick)
		for i := range pace.take("claim", claim, simTick) {
			var c *tasks.Claim
			if s.call(func(ctx context.Context) (err error) {
				if c, err = st.Claim(ctx, fmt.Sprint("worker-", i)); errors.Is(err, tasks.ErrNoTask) {
					return nil
				}
				return err
			}) || c == nil {
				continue
			}
			lease := c.Lease
			if i < beats && s.call(func(ctx context.Context) (err error) { lease, err = st.Heartbeat(ctx, c.Lease); return err }) {
				continue
			}
			s.call(func(ctx context.Context) error { return st.Complete(ctx, lease, []byte("done")) })
		}
		for range pace.take("read", reads, simTick) {
			if last == "" {
				continue
			}
			s.call(func(ctx context.Context) error { _, err := st.Get(ctx, last); return err })
			s.call(func(ctx context.Context) error { _, err := st.History(ctx, last); return err })
		}
	})
	return s
}

// TestTasksAtSeedPeakThrottlesExactlyThePartitionsDatamodelCallsHot: on
// one shard GSI1's STATUS#PENDING and STATUS#PROCESSING take about a
// partition's 1,000 WCU at the task-queue design's 500 tasks a second (each move writes
// the index entry once, now that submit, claim and complete are
// single-item writes); at half as much again both are over and datamodel
// says so. The fake throttles STATUS#PENDING, and nothing datamodel does
// not call hot: STATUS#PROCESSING's writes are the claims' (in) and the
// completions' (out), and a claim's one write also takes its entry out of
// STATUS#PENDING, so that partition's throttling holds the claims, and
// with them STATUS#PROCESSING, under the limit (heartbeats, which moved
// its entries too, now write the claim item alone).
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

	run := runTasks(t, 1, simSeconds(t, est), scale)
	assert.Positive(t, run.throttled)
	throttled := throttledSet(est, run.l)
	assert.Subset(t, hot, throttled, "every partition that throttled is one datamodel calls hot")
	assert.Contains(t, throttled, partitionKey{Index: tasks.IndexGSI1, Partition: "STATUS#PENDING"}, "the queue's entry throttles")
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
	run := runTasks(t, shards, simSeconds(t, single), 1)
	assert.Zero(t, run.throttled)
	assert.Empty(t, throttledSet(est, run.l))
}
