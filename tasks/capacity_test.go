package tasks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/tasks"
)

// These tests pin what the queue's calls cost by DynamoDB's billing rules
// (dynamotest's Meter over the fake), so that a change that makes every
// task dearer is a decision, not an accident. They run in a synctest
// bubble: the meter's latency overlaps requests sent together, as the
// network does, and takes no real time.

// TestTaskLifecycleCostsEightRoundTripsAndFifteenWriteUnits: a task
// submitted with an idempotency key, claimed, heartbeated once and
// completed, at the default shards. In the default layout each of its
// three status changes writes its event item (the seed's EVENT#0001-0003)
// within the round trips the lifecycle takes anyway: one write unit each,
// nothing more. With CompactHistory META tells them: 12 WCU.
func TestTaskLifecycleCostsEightRoundTripsAndFifteenWriteUnits(t *testing.T) {
	for _, tc := range []struct {
		compact                       bool
		submit, claim, complete, life float64
		claimRequests                 int
	}{
		{compact: false, submit: 5, claim: 5, complete: 4, life: 15, claimRequests: tasks.DefaultShards + 4},
		{compact: true, submit: 4, claim: 4, complete: 3, life: 12, claimRequests: tasks.DefaultShards + 3},
	} {
		t.Run(layoutName(tc.compact), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db, m, store := metered(t, layout(tc.compact))
				ctx := context.Background()
				var c *tasks.Claim
				var lease tasks.Lease
				submit := m.Measure(func() {
					_, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte(`{"resize":"photo.jpg"}`)})
					require.NoError(t, err)
				})
				claim := m.Measure(func() {
					var err error
					c, err = store.Claim(ctx, "w-abc")
					require.NoError(t, err)
				})
				db.Advance(10 * time.Second)
				heartbeat := m.Measure(func() {
					var err error
					lease, err = store.Heartbeat(ctx, c.Lease)
					require.NoError(t, err)
				})
				complete := m.Measure(func() { require.NoError(t, store.Complete(ctx, lease, nil)) })
				t.Logf("submit %+v\nclaim %+v\nheartbeat %+v\ncomplete %+v", submit, claim, heartbeat, complete)

				// Submit: the IDEM item, then META with its GSI1 entry beside
				// the readiness signal (due: the store's first placement)
				// and the SUBMITTED event.
				assert.Equal(t, tc.submit, submit.WriteUnits, "submit WCU")
				assert.Equal(t, 2, submit.RoundTrips, "submit round trips")
				// Claim: every shard's pending queue and one lease partition
				// at once; META, its GSI1 entry moving from STATUS#PENDING to
				// STATUS#PROCESSING (a delete and a put); the WORKER item
				// beside the PROCESSING event.
				assert.Equal(t, tc.claim, claim.WriteUnits, "claim WCU")
				assert.Equal(t, 3, claim.RoundTrips, "claim round trips")
				assert.Equal(t, tc.claimRequests, claim.Requests, "claim requests")
				// Heartbeat: the WORKER item alone.
				assert.Equal(t, 1.0, heartbeat.WriteUnits, "heartbeat WCU")
				assert.Equal(t, 1, heartbeat.RoundTrips)
				// Complete: META, its entry leaving GSI1; the WORKER item's
				// delete beside the COMPLETED event.
				assert.Equal(t, tc.complete, complete.WriteUnits, "complete WCU")
				assert.Equal(t, 2, complete.RoundTrips)

				wcu := submit.WriteUnits + claim.WriteUnits + heartbeat.WriteUnits + complete.WriteUnits
				rt := submit.RoundTrips + claim.RoundTrips + heartbeat.RoundTrips + complete.RoundTrips
				assert.LessOrEqual(t, wcu, tc.life, "WCU per task lifecycle")
				assert.LessOrEqual(t, rt, 8, "round trips per task lifecycle (16 before the lease moved to the claim item)")
			})
		})
	}
}

// TestClaimOnAnEmptyQueueSendsTwoRequestsWhateverTheShardCount: an idle
// worker's poll, once its store has found the queue empty.
func TestClaimOnAnEmptyQueueSendsTwoRequestsWhateverTheShardCount(t *testing.T) {
	for _, shards := range []int{1, 4, 16, tasks.MaxShards} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db, m, store := metered(t, tasks.Shards(shards))
				ctx := context.Background()
				first := m.Measure(func() {
					_, err := store.Claim(ctx, "w-idle")
					require.ErrorIs(t, err, tasks.ErrNoTask)
				})
				assert.Equal(t, 2*shards+1, first.Requests, "the first finds the queue empty: every shard")
				for range 5 * 2 * shards { // every partition probed more than once
					db.Advance(tasks.DefaultPollBackoff.Max)
					u := m.Measure(func() {
						_, err := store.Claim(ctx, "w-idle")
						require.ErrorIs(t, err, tasks.ErrNoTask)
					})
					require.Equal(t, 2, u.Requests, "an idle poll: the readiness signal and one partition")
					require.Equal(t, 1, u.RoundTrips)
					require.Zero(t, u.WriteUnits)
				}
			})
		})
	}
}

// TestHeartbeatIsOneWriteUnitWhateverThePayload: the lease is on the claim
// item, not on META, which holds the payload.
func TestHeartbeatIsOneWriteUnitWhateverThePayload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db, m, store := metered(t)
		ctx := context.Background()
		_, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte(strings.Repeat("p", 100*1024))})
		require.NoError(t, err)
		c, err := store.Claim(ctx, "w-abc")
		require.NoError(t, err)
		lease := c.Lease
		for range 3 {
			db.Advance(10 * time.Second)
			u := m.Measure(func() {
				lease, err = store.Heartbeat(ctx, lease)
				require.NoError(t, err)
			})
			assert.Equal(t, 1.0, u.WriteUnits)
			assert.Equal(t, 1, u.Requests)
		}
	})
}

// TestAnIdleWorkerSeesANewTaskAtItsNextPoll: the readiness signal ends
// an idle store's two-request polls as soon as another store submits.
func TestAnIdleWorkerSeesANewTaskAtItsNextPoll(t *testing.T) {
	for _, shards := range []int{1, 4, 16} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			f := newFixture(t, tasks.Shards(shards))
			ctx := context.Background()
			worker := newStore(t, f.db, f.db.Now, tasks.Shards(0)) // the table's count
			for range 3 {
				f.db.Advance(tasks.DefaultPollBackoff.Max)
				_, err := worker.Claim(ctx, "w-idle")
				require.ErrorIs(t, err, tasks.ErrNoTask)
			}
			for i := range 2 * shards {
				f.db.Advance(time.Minute)
				task := f.submit(t, fmt.Sprintf("task %d", i))
				c, err := worker.Claim(ctx, "w-idle")
				require.NoError(t, err, "the poll right after submission %d", i)
				assert.Equal(t, task.ID, c.Task.ID)
				require.NoError(t, worker.Complete(ctx, c.Lease, nil))
				for range 3 {
					f.db.Advance(tasks.DefaultPollBackoff.Max)
					_, err := worker.Claim(ctx, "w-idle")
					require.ErrorIs(t, err, tasks.ErrNoTask)
				}
			}
		})
	}
}

// TestAnIdleWorkerTakesOverALeaseWhenItExpires: what an idle store
// learned of the leases in flight brings it back when one runs out.
func TestAnIdleWorkerTakesOverALeaseWhenItExpires(t *testing.T) {
	f := newFixture(t, tasks.Shards(4))
	ctx := context.Background()
	task := f.submit(t, "crashy")
	f.claim(t, "w-dies")
	worker := newStore(t, f.db, f.db.Now, tasks.Shards(0)) // the table's count
	for range 3 {
		f.db.Advance(time.Second)
		_, err := worker.Claim(ctx, "w-idle")
		require.ErrorIs(t, err, tasks.ErrNoTask)
	}
	f.db.Advance(tasks.DefaultLeaseDuration)
	c, err := worker.Claim(ctx, "w-idle")
	require.NoError(t, err, "the poll after the lease ran out")
	assert.Equal(t, task.ID, c.Task.ID)
}
