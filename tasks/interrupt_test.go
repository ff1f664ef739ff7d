package tasks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// Submit, Claim and Complete are single-item writes in a row, not
// transactions. These tests cut each one off at a write it makes (the
// fixture's crashSwitch: fixture.crashOn), as a crashed process would,
// and check that what is left is either invisible or finished by the
// next call, with a history that has no gap.

// errCrash stands for the process dying before the write reached
// DynamoDB.
var errCrash = errors.New("crash")

func TestSubmitCutOffAfterItsIdempotencyItemIsFinishedByTheNextSubmitOfItsKey(t *testing.T) {
	in := tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("resize")}
	// The IDEM item is the first PutItem, META the second: cut off before
	// the second.
	f := newFixture(t)
	ctx := context.Background()
	f.crashOn("PutItem", "TASK")
	_, _, err := f.store.Submit(ctx, in)
	require.ErrorIs(t, err, errCrash)

	// Half a submission is no task: nothing to get, list or claim.
	id := tasks.TaskIDForKey(in.IdempotencyKey)
	_, err = f.store.Get(ctx, id)
	assert.ErrorIs(t, err, tasks.ErrNotFound)
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

func TestSubmitTxFinishesASubmitCutOffAfterItsIdempotencyItem(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("resize")}
	f.crashOn("PutItem", "TASK")
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
	// After META, the claim writes one item: the WORKER item, which holds
	// the lease.
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	f.crashOn("PutItem", "CLAIM")
	_, err := f.store.Claim(ctx, "w1")
	require.ErrorIs(t, err, errCrash)

	// The task is w1's until its lease runs out; its history shows the
	// claim, told by META.
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
	// The takeover wrote the events META was about to forget.
	for _, sk := range []string{"EVENT#0002", "EVENT#0003"} {
		f.raw(t, "TASK#"+task.ID, sk)
	}
	assert.Empty(t, heldClaims(t, f.store))
}

func TestClaimWhoseClaimItemComesAfterATakeoverIsRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	// w1's claim stalls between its META update and its claim item, past
	// its lease: w2 takes the task over meanwhile.
	slow := &stallAfterClaim{API: f.db}
	w1 := newStore(t, slow, f.db.Now)
	slow.during = func() {
		f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
		c := f.claim(t, "w2")
		require.Equal(t, task.ID, c.Task.ID)
	}
	_, err := w1.Claim(ctx, "w1")
	require.ErrorIs(t, err, tasks.ErrNoTask, "w1's late claim item is refused by the takeover's mark")
	ids, err := f.store.Maintenance().WorkerTasks(ctx, "w1")
	require.NoError(t, err)
	assert.Empty(t, ids)
	lease := tasks.Lease{TaskID: task.ID, Worker: "w1", Attempt: 1, Seq: 2, ExpiresAt: f.db.Now()}
	_, err = f.store.Heartbeat(ctx, lease)
	var lost *tasks.LeaseLostError
	require.ErrorAs(t, err, &lost, "a heartbeat under the taken lease")
	assert.Equal(t, "w2", lost.Owner)
}

// stallAfterClaim runs during before the first claim item it is asked to
// write (the claim's second write), as a claimer stalled there would.
type stallAfterClaim struct {
	table.API
	during func()
	once   sync.Once
}

func (s *stallAfterClaim) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if v, ok := in.Item["type"].(*types.AttributeValueMemberS); ok && v.Value == "CLAIM" {
		s.once.Do(s.during)
	}
	return s.API.PutItem(ctx, in, opts...)
}

func TestCompleteCutOffBeforeItsMetaUpdateCanBeRetried(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "w1")
	f.crashOn("UpdateItem", "TASK") // META
	require.ErrorIs(t, f.store.Complete(ctx, c.Lease, []byte("done")), errCrash)
	assert.Equal(t, tasks.StatusProcessing, f.get(t, task.ID).Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)

	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("done")))
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, []byte("done"), got.Result)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	assert.Empty(t, heldClaims(t, f.store))
}

func TestCompleteCutOffAfterItsMetaUpdateIsFinishedByItsRetry(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "w1")
	f.crashOn("DeleteItem", "CLAIM") // the claim item, after META
	require.ErrorIs(t, f.store.Complete(ctx, c.Lease, []byte("done")), errCrash)
	assert.Equal(t, tasks.StatusCompleted, f.get(t, task.ID).Status)
	f.raw(t, "WORKER#w1", "TASK#"+task.ID) // left behind

	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("done")), "the retry finds its own completion")
	_, err := f.store.Table().DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.store.Table().Name()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "WORKER#w1"}, "SK": &types.AttributeValueMemberS{Value: "TASK#" + task.ID}}})
	require.NoError(t, err)
	assert.Empty(t, claimItems(t, f.store.Table()), "and deletes the claim item")
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
}

// TestCompleteCutOffBeforeItsEventIsFinishedByItsRetry: the COMPLETED
// event goes beside the claim item's delete, after META. Cut off there,
// the task is complete (META tells the event meanwhile); the retry writes
// the event, dated by the update that completed the task, not by itself.
func TestCompleteCutOffBeforeItsEventIsFinishedByItsRetry(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "w1")
	f.db.Advance(time.Second)
	completedAt := f.db.Now()
	f.crashOn("PutItem", "EVENT")
	require.ErrorIs(t, f.store.Complete(ctx, c.Lease, []byte("done")), errCrash)
	assert.Equal(t, tasks.StatusCompleted, f.get(t, task.ID).Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	assert.Len(t, eventItems(t, f.store.Table(), task.ID), 2, "the COMPLETED event item is missing")

	f.db.Advance(time.Minute)
	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("done")), "the retry finds its own completion")
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	assert.True(t, h[2].At.Equal(completedAt), "COMPLETED at %v, want the first attempt's %v", h[2].At, completedAt)
	assert.Equal(t, h, eventItems(t, f.store.Table(), task.ID), "the retry wrote the event item")
}

// TestSubmitWhoseEventPutFailsSaysSo: META is stored, its SUBMITTED event
// item is not. The task exists and its history reads whole (META tells
// the event); Submit reports the failure rather than a submission it did
// not finish.
func TestSubmitWhoseEventPutFailsSaysSo(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.crashOn("PutItem", "EVENT")
	_, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k-1", Payload: []byte("p")})
	require.ErrorIs(t, err, errCrash)
	id := tasks.TaskIDForKey("k-1")
	assert.Equal(t, tasks.StatusPending, f.get(t, id).Status)
	wantHistory(t, f.history(t, id), tasks.EventSubmitted)
	assert.Empty(t, eventItems(t, f.store.Table(), id))
}

func TestCompleteCutOffBeforeItsMetaUpdateLosesToTakeover(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	old := f.claim(t, "w1")
	f.crashOn("UpdateItem", "TASK")
	require.ErrorIs(t, f.store.Complete(ctx, old.Lease, nil), errCrash)

	// w1 is gone; its lease runs out and w2 takes over.
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	c := f.claim(t, "w2")
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)

	// w1 comes back: its completion is refused.
	var lost *tasks.LeaseLostError
	require.ErrorAs(t, f.store.Complete(ctx, old.Lease, nil), &lost)
	assert.Equal(t, "w2", lost.Owner)
	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
}

func TestFailWritesTheEventsMetaNoLongerTells(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "w1")
	to, err := f.store.Fail(ctx, c.Lease, "gave up")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusPending, to)
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed)
	assert.Equal(t, "w1", h[1].Worker)
	assert.True(t, h[1].At.Equal(c.Lease.ClaimedAt))
	var stored table.Item
	require.NoError(t, f.store.Table().Get(ctx, f.store.Table().Key("TASK#"+task.ID, "EVENT#0002"), &stored, table.Consistent()))
	assert.Equal(t, "PROCESSING", str(stored, "event"))
	require.NoError(t, f.store.Table().Get(ctx, f.store.Table().Key("TASK#"+task.ID, "EVENT#0003"), &stored, table.Consistent()))
	assert.Equal(t, "FAILED", str(stored, "event"))
}
