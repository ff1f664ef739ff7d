package tasks_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

const day = 24 * time.Hour

// ttlOf is the ttl attribute of a raw item (0 when absent).
func ttlOf(t testing.TB, it table.Item) int64 {
	t.Helper()
	n, ok := it["ttl"].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	require.NoError(t, err)
	return v
}

func maxAttempts(n int) func(*tasks.Options) { return func(o *tasks.Options) { o.MaxAttempts = n } }

// partition is every item of a task's partition, as stored.
func (f *fixture) partition(t testing.TB, id string) []table.Item {
	t.Helper()
	q := table.Query{Partition: "TASK#" + id, Consistent: true}
	var out []table.Item
	for it, err := range table.QueryAll[table.Item](context.Background(), f.store.Table(), q) {
		require.NoError(t, err)
		out = append(out, it)
	}
	return out
}

// stopSweeper turns TTL off on the fake's table, so expired items stay as
// DynamoDB keeps them until its TTL process (up to days late) gets there.
func (f *fixture) stopSweeper(t testing.TB) {
	t.Helper()
	_, err := f.db.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(f.store.Table().Name()),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(false)},
	})
	require.NoError(t, err)
}

// tableSize is how many items the table holds besides its CONFIG item,
// which never expires.
func (f *fixture) tableSize(t testing.TB) int {
	t.Helper()
	out, err := f.db.Scan(context.Background(), &dynamodb.ScanInput{
		TableName: aws.String(f.store.Table().Name()), Select: types.SelectCount,
		FilterExpression:          aws.String("PK <> :config"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":config": &types.AttributeValueMemberS{Value: "CONFIG"}},
	})
	require.NoError(t, err)
	return int(out.Count)
}

func TestNewStoreRefusesARetentionUnderMinRetention(t *testing.T) {
	for _, d := range []time.Duration{-time.Hour, time.Nanosecond, tasks.MinRetention - time.Second} {
		_, err := tasks.NewStore(dynamotest.New(), nil, tasks.Retention(d))
		wantInputError(t, err, "Options.Retention")
	}
	s, err := tasks.NewStore(dynamotest.New(), nil)
	require.NoError(t, err)
	assert.Equal(t, tasks.DefaultRetention, s.Options().Retention)
	assert.Equal(t, "ttl", s.Schema().TTLAttribute, "EnsureTable enables TTL on ttl; Schema.Check reports drift")
}

// TestCompletedTaskExpiresRetentionAfterItFinished: every item a task
// leaves carries a ttl, the last ones Retention after completion, and
// the fake's TTL sweep then leaves nothing.
func TestCompletedTaskExpiresRetentionAfterItFinished(t *testing.T) {
	const retention = 3 * day
	f := newFixture(t, tasks.Retention(retention))
	ctx := context.Background()
	submitted := f.db.Now()
	task, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-1", Payload: []byte("resize")})
	require.NoError(t, err)
	f.db.Advance(time.Minute)
	c := f.claim(t, "worker-1")
	f.db.Advance(time.Minute)
	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("ok")))
	finished := f.db.Now()

	items := f.partition(t, task.ID)
	require.Len(t, items, 4, "the three events, then META")
	for _, it := range items {
		ttl := ttlOf(t, it)
		assert.GreaterOrEqual(t, ttl, submitted.Add(retention).Unix(), "%s %s", str(it, "PK"), str(it, "SK"))
		assert.LessOrEqual(t, ttl, table.TTL(finished.Add(retention)), "%s %s", str(it, "PK"), str(it, "SK"))
	}
	meta := f.raw(t, "TASK#"+task.ID, "META")
	assert.Equal(t, table.TTL(finished.Add(retention)), ttlOf(t, meta), "META expires Retention after completion")
	idem := f.raw(t, "IDEM#order-1", "TASK#"+task.ID)
	assert.Equal(t, table.TTL(submitted.Add(retention)), ttlOf(t, idem))

	f.db.Advance(retention - 3*time.Minute)
	assert.Equal(t, tasks.StatusCompleted, f.get(t, task.ID).Status, "kept until Retention has passed")
	f.db.Advance(4 * time.Minute) // the fake, as DynamoDB, deletes once the ttl is past
	assert.Zero(t, f.tableSize(t), "TTL deleted every item of the task")
}

func TestCancelledTaskExpiresRetentionAfterItWasCancelled(t *testing.T) {
	const retention = 2 * day
	f := newFixture(t, tasks.Retention(retention))
	ctx := context.Background()
	task, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-2", Payload: []byte("x")})
	require.NoError(t, err)
	f.db.Advance(time.Hour)
	require.NoError(t, f.store.Cancel(ctx, task.ID, "not needed"))
	cancelled := f.db.Now()
	for _, it := range f.partition(t, task.ID) {
		assert.NotZero(t, ttlOf(t, it), "%s %s", str(it, "PK"), str(it, "SK"))
	}
	assert.Equal(t, table.TTL(cancelled.Add(retention)), ttlOf(t, f.raw(t, "TASK#"+task.ID, "META")))
	f.db.Advance(retention + time.Minute)
	assert.Zero(t, f.tableSize(t))
}

// TestLiveAndDeadTasksNeverExpire: PENDING, PROCESSING and DEAD tasks'
// META carry no ttl, and a dead letter keeps the event saying why it died.
func TestLiveAndDeadTasksNeverExpire(t *testing.T) {
	f := newFixture(t, maxAttempts(1))
	ctx := context.Background()
	pending := f.submit(t, "pending")
	processing := f.submit(t, "processing")
	dead := f.submit(t, "dead")
	for _, id := range []string{dead.ID, processing.ID} {
		for {
			c := f.claim(t, "worker-1")
			if c.Task.ID != id {
				require.NoError(t, f.store.Release(ctx, c.Lease, "not this one"))
				continue
			}
			if id == dead.ID {
				_, err := f.store.Fail(ctx, c.Lease, "bad input")
				require.NoError(t, err)
			}
			break
		}
	}
	for _, task := range []*tasks.Task{pending, processing, dead} {
		assert.Zero(t, ttlOf(t, f.raw(t, "TASK#"+task.ID, "META")), "META of a %s task", f.get(t, task.ID).Status)
	}
	require.Equal(t, tasks.StatusDead, f.get(t, dead.ID).Status)
	last := f.get(t, dead.ID).Events
	assert.Zero(t, ttlOf(t, f.raw(t, "TASK#"+dead.ID, fmt.Sprintf("EVENT#%04d", last))), "the DEAD event")

	f.db.Advance(30 * day) // the fake's TTL sweep runs
	for task, want := range map[*tasks.Task]tasks.Status{pending: tasks.StatusPending, processing: tasks.StatusProcessing, dead: tasks.StatusDead} {
		got, err := f.store.Get(ctx, task.ID)
		require.NoError(t, err, "a %s task a month old", want)
		assert.Equal(t, want, got.Status)
	}
	_, err := f.store.Maintenance().Redrive(ctx, dead.ID, "still re-drivable")
	assert.NoError(t, err)
}

// TestExpiredTaskIsGoneBeforeDynamoDBDeletesIt: DynamoDB's TTL process
// deletes days late; readers go by the ttl.
func TestExpiredTaskIsGoneBeforeDynamoDBDeletesIt(t *testing.T) {
	f := newFixture(t, tasks.Retention(day))
	f.stopSweeper(t)
	ctx := context.Background()
	task, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-3", Payload: []byte("x")})
	require.NoError(t, err)
	c := f.claim(t, "worker-1")
	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	f.db.Advance(day + time.Minute)

	require.Len(t, f.partition(t, task.ID), 4, "the fake still holds META and its events")
	_, err = f.store.Get(ctx, task.ID)
	assert.ErrorIs(t, err, tasks.ErrNotFound)
	_, err = f.store.History(ctx, task.ID)
	assert.ErrorIs(t, err, tasks.ErrNotFound)
	assert.ErrorIs(t, f.store.Cancel(ctx, task.ID, "x"), tasks.ErrNotFound)
}

// TestSubmitOfAKeyWhoseTaskExpiredCreatesAFreshTask: the key's task id is
// derived from the key, so the fresh task reuses it, over items DynamoDB
// may not have deleted yet, and runs its whole life there.
func TestSubmitOfAKeyWhoseTaskExpiredCreatesAFreshTask(t *testing.T) {
	for _, swept := range []bool{true, false} {
		f := newFixture(t, tasks.Retention(day))
		if !swept {
			f.stopSweeper(t)
		}
		ctx := context.Background()
		in := tasks.SubmitInput{IdempotencyKey: "order-4", Payload: []byte("first")}
		old, _, err := f.store.Submit(ctx, in)
		require.NoError(t, err)
		c := f.claim(t, "worker-1")
		require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("one")))
		f.db.Advance(day + time.Minute)

		in.Payload = []byte("second: the old task is gone, so the key is free")
		fresh, created, err := f.store.Submit(ctx, in)
		require.NoError(t, err, "swept %v", swept)
		assert.True(t, created, "swept %v", swept)
		assert.Equal(t, old.ID, fresh.ID, "the id is the key's")
		assert.Equal(t, f.db.Now().Truncate(time.Microsecond), fresh.CreatedAt)
		wantHistory(t, f.history(t, fresh.ID), tasks.EventSubmitted)

		c = f.claim(t, "worker-2")
		require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("two")), "its COMPLETED event replaces the expired one")
		got := f.get(t, fresh.ID)
		assert.Equal(t, []byte("two"), got.Result)
		assert.Equal(t, 1, got.Attempt)
		wantHistory(t, f.history(t, fresh.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
		again, created, err := f.store.Submit(ctx, in)
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, fresh.ID, again.ID)
	}
}

// TestKeyOfATaskLiveLongerThanRetentionStillNamesIt: a task in a backlog
// longer than Retention outlives its IDEM item; the key still returns it
// (its id is the key's), its payload still decides a mismatch, and its
// history shows no event of the late submission.
func TestKeyOfATaskLiveLongerThanRetentionStillNamesIt(t *testing.T) {
	f := newFixture(t, tasks.Retention(day))
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "order-5", Payload: []byte("p")}
	task, _, err := f.store.Submit(ctx, in)
	require.NoError(t, err)
	f.db.Advance(2 * day)

	_, _, err = f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-5", Payload: []byte("other")})
	assert.ErrorIs(t, err, tasks.ErrIdempotencyMismatch)
	got, created, err := f.store.Submit(ctx, in)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, task.ID, got.ID)
	assert.Equal(t, task.CreatedAt, got.CreatedAt)
	_, _, err = f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-5", Payload: []byte("other")})
	assert.ErrorIs(t, err, tasks.ErrIdempotencyMismatch, "the task's payload decides, not the late IDEM item")

	tx := f.store.Table().WriteTx()
	got, created, err = f.store.SubmitTx(ctx, tx, in)
	require.NoError(t, err)
	assert.False(t, created, "SubmitTx finds the task by its id")
	assert.Equal(t, task.ID, got.ID)

	h := f.history(t, task.ID)
	require.Len(t, h, 1, "META tells the SUBMITTED event for the task's whole life; the late Submits wrote none")
	assert.True(t, h[0].At.Equal(task.CreatedAt))
	assert.Empty(t, eventItems(t, f.store.Table(), task.ID),
		"the SUBMITTED event item expired with the IDEM item, and the late Submits removed the ones they wrote")
	c := f.claim(t, "worker-1")
	require.Equal(t, task.ID, c.Task.ID)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
}

// TestRedrivenDeadLetterOlderThanRetention: a dead letter waits a month;
// it keeps META and the event that says why it died (the older events
// expired), is re-driven, and once finished expires whole.
func TestRedrivenDeadLetterOlderThanRetention(t *testing.T) {
	f := newFixture(t, tasks.Retention(day), maxAttempts(1))
	ctx := context.Background()
	task := f.submit(t, "bad")
	c := f.claim(t, "worker-1")
	_, err := f.store.Fail(ctx, c.Lease, "cannot parse")
	require.NoError(t, err)
	f.db.Advance(30 * day)

	h := f.history(t, task.ID)
	require.Len(t, h, 1, "events older than Retention expired; the DEAD event stays")
	assert.Equal(t, tasks.EventDead, h[0].Type)
	assert.Equal(t, 3, h[0].Seq)
	assert.Equal(t, "cannot parse", h[0].Message)

	_, err = f.store.Maintenance().Redrive(ctx, task.ID, "fixed the parser")
	require.NoError(t, err)
	h = f.history(t, task.ID)
	assert.Equal(t, []tasks.EventType{tasks.EventDead, tasks.EventRedriven}, eventTypes(h))
	assert.Equal(t, []int{3, 4}, []int{h[0].Seq, h[1].Seq})
	c = f.claim(t, "worker-1")
	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	assert.Len(t, f.history(t, task.ID), 4)

	f.db.Advance(day + time.Minute)
	assert.Zero(t, f.tableSize(t), "the re-driven task, its DEAD event too, expired")
}

// TestCompleteCutOffBeforeDeletingItsClaimItemLeavesOneThatExpires: the
// one item a cut-off Complete leaves behind is gone after Retention.
func TestCompleteCutOffBeforeDeletingItsClaimItemLeavesOneThatExpires(t *testing.T) {
	f := newFixture(t, tasks.Retention(day))
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "worker-1")
	f.crashOn("DeleteItem", "CLAIM")
	require.ErrorIs(t, f.store.Complete(ctx, c.Lease, nil), errCrash)
	claim := f.raw(t, "WORKER#worker-1", "TASK#"+task.ID)
	assert.Equal(t, table.TTL(c.Task.UpdatedAt.Add(day)), ttlOf(t, claim))
	f.db.Advance(day + time.Minute)
	assert.Empty(t, claimItems(t, f.store.Table()))
	assert.Zero(t, f.tableSize(t))
}

// TestHistoryNeverShowsAGap: stores on one table should share a
// Retention; when they do not, an event in the middle of a history can
// expire before older ones. History then starts after it rather than
// show a history with a hole.
func TestHistoryNeverShowsAGap(t *testing.T) {
	f := newFixture(t, tasks.Retention(30*day))
	short := newStore(t, f.db, f.db.Now, tasks.Retention(tasks.MinRetention))
	ctx := context.Background()
	task := f.submit(t, "x") // EVENT#0001: META tells it
	c, err := short.Claim(ctx, "worker-1")
	require.NoError(t, err)
	_, err = short.Fail(ctx, c.Lease, "flaky") // EVENT#0002 and EVENT#0003, kept an hour
	require.NoError(t, err)
	f.db.Advance(tasks.DefaultRetryBackoff.Initial) // past its first backoff
	c = f.claim(t, "worker-2")
	require.NoError(t, f.store.Release(ctx, c.Lease, "shutting down")) // EVENT#0004 and EVENT#0005, kept 30 days
	f.db.Advance(2 * time.Hour)

	h := f.history(t, task.ID)
	require.Len(t, h, 2, "the history starts after the hole, not with the SUBMITTED event before it")
	assert.Equal(t, []int{4, 5}, []int{h[0].Seq, h[1].Seq})
	assert.Equal(t, []tasks.EventType{tasks.EventProcessing, tasks.EventReleased}, []tasks.EventType{h[0].Type, h[1].Type})
}
