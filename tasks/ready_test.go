package tasks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/tasks"
)

// TestAnIdleWorkerClaimsATaskTheLaggingIndexHidFromItsScan: GSI1 is
// eventually consistent. A task submitted just before an idle worker's
// scan may not be in the index yet, so that scan finds nothing; the
// readiness signal the submission set is then older than the scan, and
// only the quiet margin (the index's lag, clock skew) makes the worker
// scan again at its next poll instead of waiting for its probes to reach
// the task's partition, up to 2N polls later.
func TestAnIdleWorkerClaimsATaskTheLaggingIndexHidFromItsScan(t *testing.T) {
	const shards, lag = 4, time.Second
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } },
		dynamotest.EventualConsistency(lag))
	producer := newStore(t, db, db.Now, tasks.Shards(shards))
	ctx := context.Background()
	require.NoError(t, producer.EnsureTable(ctx))
	worker := newStore(t, db, db.Now, tasks.Shards(0)) // the table's count
	_, err := worker.Claim(ctx, "w-idle")
	require.ErrorIs(t, err, tasks.ErrNoTask, "the queue is empty: the worker is idle")
	// One task per probe position, so a worker that only probes misses
	// at least one at its next poll.
	for i := range 2 * shards {
		db.Advance(tasks.DefaultPollBackoff.Max)
		task, _, err := producer.Submit(ctx, tasks.SubmitInput{Payload: []byte(fmt.Sprint("task ", i))})
		require.NoError(t, err)
		db.Advance(time.Millisecond) // the worker's poll comes just after
		_, err = worker.Claim(ctx, "w-idle")
		require.ErrorIs(t, err, tasks.ErrNoTask, "task %d: the index has not caught up with the submission", i)
		db.Advance(lag)
		c, err := worker.Claim(ctx, "w-idle")
		require.NoError(t, err, "task %d: the poll once the index caught up", i)
		require.Equal(t, task.ID, c.Task.ID)
		require.NoError(t, worker.Complete(ctx, c.Lease, nil))
		_, err = worker.Claim(ctx, "w-idle")
		require.ErrorIs(t, err, tasks.ErrNoTask, "task %d: idle again", i)
	}
}
