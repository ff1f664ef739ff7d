package tasks_test

import (
	"context"
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

// Each test here fails when the guard it names is removed from the code
// (each was planted as a bug once, and caught).

// TestALeaseForgedWithAnotherWorkersNameCannotSettleItsTask: the lease
// condition checks the owner, not only the attempt and event count a
// forger can read from the task.
func TestALeaseForgedWithAnotherWorkersNameCannotSettleItsTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	c := f.claim(t, "w1")
	forged := c.Lease
	forged.Worker = "w2"

	var lost *tasks.LeaseLostError
	require.ErrorAs(t, f.store.Complete(ctx, forged, []byte("forged")), &lost, "Complete")
	assert.Equal(t, "w1", lost.Owner)
	_, err := f.store.Fail(ctx, forged, "forged")
	require.ErrorAs(t, err, &lost, "Fail")
	require.ErrorAs(t, f.store.Release(ctx, forged, "forged"), &lost, "Release")
	_, err = f.store.Heartbeat(ctx, forged)
	require.ErrorAs(t, err, &lost, "Heartbeat")

	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusProcessing, got.Status)
	assert.Equal(t, "w1", got.Owner)
	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("real")))
	assert.Equal(t, []byte("real"), f.get(t, task.ID).Result)
}

// heartbeatAfterLeaseRead runs beat once, right after the first read of a
// claim item: between a claim's read of an expired-looking lease and its
// takeover.
type heartbeatAfterLeaseRead struct {
	table.API
	beat func()
	once sync.Once
}

func (h *heartbeatAfterLeaseRead) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := h.API.GetItem(ctx, in, opts...)
	if pk, ok := in.Key["PK"].(*types.AttributeValueMemberS); ok && len(pk.Value) > 7 && pk.Value[:7] == "WORKER#" {
		h.once.Do(h.beat)
	}
	return out, err
}

// TestAHeartbeatBetweenTheLeaseReadAndTheTakeoverKeepsTheTask: the
// takeover is conditioned on the claim item as it read it.
func TestAHeartbeatBetweenTheLeaseReadAndTheTakeoverKeepsTheTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "slow")
	c := f.claim(t, "w1")
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second) // w1 is late, not dead
	lease := c.Lease
	racer := &heartbeatAfterLeaseRead{API: f.db, beat: func() {
		var err error
		lease, err = f.store.Heartbeat(ctx, c.Lease)
		require.NoError(t, err)
	}}
	taker := newStore(t, racer, f.db.Now)
	_, err := taker.Claim(ctx, "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask, "the takeover lost to the heartbeat")
	got := f.get(t, task.ID)
	assert.Equal(t, "w1", got.Owner)
	assert.Equal(t, 1, got.Attempt)
	require.NoError(t, f.store.Complete(ctx, lease, nil), "w1 keeps its task")
}

// TestTheReadinessSignalNeverMovesBackwards: a store whose clock is behind
// does not make idle workers think nothing happened since.
func TestTheReadinessSignalNeverMovesBackwards(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ahead := newStore(t, f.db, func() time.Time { return f.db.Now().Add(10 * time.Second) })
	_, _, err := ahead.Submit(ctx, tasks.SubmitInput{Payload: []byte("a")})
	require.NoError(t, err)
	signal := str(f.raw(t, "CONFIG", "QUEUE"), "activeAt")
	f.db.Advance(2 * time.Second) // past the bump interval
	f.submit(t, "behind")
	assert.Equal(t, signal, str(f.raw(t, "CONFIG", "QUEUE"), "activeAt"), "the later time stands")
}

// TestTheReadinessSignalNeverCreatesAConfigItem: the signal is an update
// of the CONFIG item that records the shard count; it never writes one
// without it.
func TestTheReadinessSignalNeverCreatesAConfigItem(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.submit(t, "first") // the store knows the table's count from now on
	_, err := f.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.store.Table().Name()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "CONFIG"}, "SK": &types.AttributeValueMemberS{Value: "QUEUE"}}})
	require.NoError(t, err)
	f.db.Advance(2 * time.Second)
	f.submit(t, "second")
	var it table.Item
	err = f.store.Table().Get(ctx, f.store.Table().Key("CONFIG", "QUEUE"), &it, table.Consistent())
	assert.ErrorIs(t, err, table.ErrNotFound, "no CONFIG item without a shard count: %v", it)
}
