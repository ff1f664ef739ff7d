package tasks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// Submit, Claim and Complete are single-item writes in a row, not
// transactions. These tests cut each one off after every write it makes,
// as a crashed process would, and check that what is left is either
// invisible or finished by the next call, with a history that has no gap.

// errCrash stands for the process dying before the write reached
// DynamoDB.
var errCrash = errors.New("crash")

// crashAt makes the nth call of op from now on fail (the write is not
// made), as if the caller died just before it.
func (f *fixture) crashAt(op string, n int) {
	f.db.Inject(dynamotest.FailNth(op, n, errCrash))
}

func TestSubmitCutOffAfterAnyWriteIsFinishedByTheNextSubmitOfItsKey(t *testing.T) {
	in := tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("resize")}
	// The IDEM item is the first PutItem, EVENT#0001 the second, META the
	// third: cut off before the second or the third.
	for _, n := range []int{2, 3} {
		f := newFixture(t)
		ctx := context.Background()
		f.crashAt("PutItem", n)
		_, _, err := f.store.Submit(ctx, in)
		require.ErrorIs(t, err, errCrash, "cut off before PutItem %d", n)

		// Half a submission is no task: nothing to get, list or claim.
		id := tasks.TaskIDForKey(in.IdempotencyKey)
		_, err = f.store.Get(ctx, id)
		assert.ErrorIs(t, err, tasks.ErrNotFound, "cut off before PutItem %d", n)
		_, err = f.store.History(ctx, id)
		assert.ErrorIs(t, err, tasks.ErrNotFound)
		_, err = f.store.Claim(ctx, "w1")
		assert.ErrorIs(t, err, tasks.ErrNoTask)

		// The client's retry finishes it, with the first attempt's time.
		f.db.Advance(5 * time.Second)
		task, created, err := f.store.Submit(ctx, in)
		require.NoError(t, err)
		assert.False(t, created, "the key's IDEM item was written first")
		assert.Equal(t, id, task.ID)
		assert.Equal(t, tasks.StatusPending, task.Status)
		assert.True(t, task.CreatedAt.Equal(epoch), "createdAt %v, want the first attempt's %v", task.CreatedAt, epoch)
		h := f.history(t, id)
		wantHistory(t, h, tasks.EventSubmitted)
		assert.True(t, h[0].At.Equal(epoch))
		c := f.claim(t, "w1")
		assert.Equal(t, in.Payload, c.Task.Payload)
	}
}

func TestSubmitTxFinishesASubmitCutOffAfterItsIdempotencyItem(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("resize")}
	f.crashAt("PutItem", 2)
	_, _, err := f.store.Submit(ctx, in)
	require.ErrorIs(t, err, errCrash)

	tx := f.store.Table().WriteTx()
	task, created, err := f.store.SubmitTx(ctx, tx, in)
	require.NoError(t, err)
	assert.True(t, created, "the transaction makes the task")
	require.NoError(t, tx.Run(ctx))
	assert.Equal(t, task, f.get(t, task.ID))
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted)
}

func TestClaimCutOffAfterItsMetaUpdateIsRecoveredByTakeover(t *testing.T) {
	// After META: the event is the first PutItem, the WORKER item the
	// second.
	for _, n := range []int{1, 2} {
		f := newFixture(t)
		ctx := context.Background()
		task := f.submit(t, "resize")
		f.crashAt("PutItem", n)
		_, err := f.store.Claim(ctx, "w1")
		require.ErrorIs(t, err, errCrash, "cut off before PutItem %d", n)

		// The task is w1's until its lease runs out; its history shows the
		// claim, rebuilt from META if need be.
		got := f.get(t, task.ID)
		assert.Equal(t, tasks.StatusProcessing, got.Status)
		assert.Equal(t, "w1", got.Owner)
		wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
		_, err = f.store.Claim(ctx, "w2")
		require.ErrorIs(t, err, tasks.ErrNoTask, "a live lease was taken")

		f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
		c := f.claim(t, "w2")
		require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
		h := f.history(t, task.ID)
		wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
		assert.Equal(t, "w1", h[1].Worker)
		assert.Equal(t, "w2", h[3].Worker)
		// Every event is stored now, not only rebuilt.
		for _, sk := range []string{"EVENT#0001", "EVENT#0002", "EVENT#0003", "EVENT#0004", "EVENT#0005"} {
			f.raw(t, "TASK#"+task.ID, sk)
		}
		assert.Empty(t, heldClaims(t, f.store))
	}
}

func TestCompleteCutOffAfterItsEventCanBeRetried(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "w1")
	f.crashAt("UpdateItem", 1) // META, after the COMPLETED event
	require.ErrorIs(t, f.store.Complete(ctx, c.Lease, []byte("done")), errCrash)

	// The COMPLETED event is written but is no part of the history yet.
	assert.Equal(t, tasks.StatusProcessing, f.get(t, task.ID).Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)

	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("done")), "the retry keeps its own event")
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, []byte("done"), got.Result)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
}

func TestCompleteCutOffAfterItsEventLosesToTakeover(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	old := f.claim(t, "w1")
	f.crashAt("UpdateItem", 1)
	require.ErrorIs(t, f.store.Complete(ctx, old.Lease, nil), errCrash)

	// w1 is gone; its lease runs out and w2 takes over, writing its own
	// event over w1's COMPLETED one.
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	c := f.claim(t, "w2")
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)

	// w1 comes back: its completion is refused, whichever write it tries.
	var lost *tasks.LeaseLostError
	require.ErrorAs(t, f.store.Complete(ctx, old.Lease, nil), &lost)
	assert.Equal(t, "w2", lost.Owner)
	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
}

func TestFailAfterACompleteCutOffWritesOverItsEvent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "w1")
	f.crashAt("UpdateItem", 1)
	require.ErrorIs(t, f.store.Complete(ctx, c.Lease, nil), errCrash)

	to, err := f.store.Fail(ctx, c.Lease, "gave up")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusPending, to)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed)
	var stored table.Item
	require.NoError(t, f.store.Table().Get(ctx, f.store.Table().Key("TASK#"+task.ID, "EVENT#0003"), &stored, table.Consistent()))
	assert.Equal(t, "FAILED", str(stored, "event"))
}
