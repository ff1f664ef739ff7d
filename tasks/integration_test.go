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

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// localClock is a fake serving as a store's clock on DynamoDB Local, so a
// test can stop or advance time there. It starts at testenv.Now, not at
// epoch (in the past), whose finished tasks' ttl Local would act on.
func localClock() *dynamotest.DB {
	start := testenv.Now()
	return dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
}

// localStore is a store on its own table in the DynamoDB at
// TABLEKIT_DYNAMODB_ENDPOINT (DynamoDB Local), or a skip when it is unset.
func localStore(t *testing.T, opts ...func(*tasks.Options)) *tasks.Store {
	t.Helper()
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "tasks")
	store, err := tasks.NewStore(client, nil, append([]func(*tasks.Options){tasks.TableName(name)}, opts...)...)
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(context.Background()), "create table %s", name)
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return store
}

func TestIntegrationTwentyWorkersTwoThousandTasks(t *testing.T) {
	// DynamoDB Local keeps no time of its own that tests can move: the
	// fake serves as the store's clock, moved only when every live worker
	// is idle.
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now))
	n := 2000
	if testing.Short() {
		n = 300
	}
	run := runQueue(t, store, n, 20, 2, clock.Advance)
	checkQueue(t, store, run, n)
	checkRecovery(t, store, run, 2)
}

func TestIntegrationShardedQueue(t *testing.T) {
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now), tasks.Shards(4))
	run := runQueue(t, store, 300, 10, 1, clock.Advance)
	checkQueue(t, store, run, 300)
	checkRecovery(t, store, run, 1)
}

func TestIntegrationFiftyGoroutinesSameKeyOneTask(t *testing.T) {
	store := localStore(t)
	ctx := context.Background()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
	)
	start := make(chan struct{})
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			task, c, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid-50", Payload: []byte("once")})
			mu.Lock()
			defer mu.Unlock()
			if !assert.NoError(t, err, "Submit") {
				return
			}
			ids[task.ID]++
			if c {
				created++
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Len(t, ids, 1, "50 goroutines got tasks %v; want one task", ids)
	require.Equal(t, 1, created, "tasks created; want one task created once")
	for id := range ids {
		h, err := store.History(ctx, id)
		require.NoError(t, err)
		require.Len(t, h, 1, "history; want the one SUBMITTED event")
	}
}

func TestIntegrationLeaseLostAfterTakeover(t *testing.T) {
	// DynamoDB Local keeps no time of its own that tests can move: the
	// fake serves as the store's clock.
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now))
	ctx := context.Background()
	_, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	require.NoError(t, err)
	old, err := store.Claim(ctx, "w-old")
	require.NoError(t, err)
	clock.Advance(time.Minute)
	c, err := store.Claim(ctx, "w-new")
	require.NoError(t, err, "takeover")
	require.Equal(t, 2, c.Lease.Attempt, "takeover: %+v", c)
	var lost *tasks.LeaseLostError
	err = store.Complete(ctx, old.Lease, nil)
	require.ErrorAs(t, err, &lost, "late completion on DynamoDB Local: want *LeaseLostError")
	require.Equal(t, "w-new", lost.Owner, "late completion on DynamoDB Local: want *LeaseLostError naming w-new")
	require.NoError(t, store.Complete(ctx, c.Lease, nil))
	h, err := store.History(ctx, c.Task.ID)
	require.NoError(t, err)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
}

// TestIntegrationRetentionOnDynamoDBLocal: EnsureTable turns TTL on for
// ttl, a finished task's items carry it, and, once the ttl has passed on
// the store's clock but not on Local's (which keeps them, as DynamoDB may
// for days), the store treats them as gone and a Submit of the key writes a
// fresh task over them.
func TestIntegrationRetentionOnDynamoDBLocal(t *testing.T) {
	clock := localClock()
	start := clock.Now()
	store := localStore(t, tasks.Clock(clock.Now), tasks.Retention(day))
	ctx := context.Background()
	ttl, err := store.Table().DB().DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(store.Table().Name())})
	require.NoError(t, err)
	require.NotNil(t, ttl.TimeToLiveDescription)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, "ttl", aws.ToString(ttl.TimeToLiveDescription.AttributeName))
	require.NoError(t, store.Schema().Check(ctx, store.Table().DB()), "no drift")

	in := tasks.SubmitInput{IdempotencyKey: "local-retention", Payload: []byte("first")}
	task, _, err := store.Submit(ctx, in)
	require.NoError(t, err)
	c, err := store.Claim(ctx, "worker-1")
	require.NoError(t, err)
	clock.Advance(time.Minute)
	require.NoError(t, store.Complete(ctx, c.Lease, nil))
	finished := clock.Now()

	f := &fixture{db: clock, store: store}
	items := append(f.partition(t, task.ID), f.raw(t, "IDEM#local-retention", "TASK#"+task.ID))
	require.Len(t, items, 5, "the three events, META and the IDEM item")
	for _, it := range items {
		got := ttlOf(t, it)
		assert.GreaterOrEqual(t, got, start.Add(day).Unix(), "%s %s", str(it, "PK"), str(it, "SK"))
		assert.LessOrEqual(t, got, table.TTL(finished.Add(day)), "%s %s", str(it, "PK"), str(it, "SK"))
	}

	clock.Advance(day + time.Minute)
	_, err = store.Get(ctx, task.ID)
	require.ErrorIs(t, err, tasks.ErrNotFound)
	require.Len(t, f.partition(t, task.ID), 4, "DynamoDB Local keeps expired items")
	in.Payload = []byte("second")
	fresh, created, err := store.Submit(ctx, in)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, task.ID, fresh.ID)
	c, err = store.Claim(ctx, "worker-2")
	require.NoError(t, err)
	require.NoError(t, store.Complete(ctx, c.Lease, []byte("two")))
	h, err := store.History(ctx, task.ID)
	require.NoError(t, err)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	assert.Equal(t, h, eventItems(t, store.Table(), task.ID), "the fresh task's events replaced the expired ones")
}

// TestIntegrationSubmitTxWithAFreshKeyOnDynamoDBLocal: on DynamoDB Local,
// a fresh key's transaction creates the task with no read before it, and
// the same key vouched for again cancels its transaction as a whole (the
// caller's own write too), leaving the first task as it was.
func TestIntegrationSubmitTxWithAFreshKeyOnDynamoDBLocal(t *testing.T) {
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now))
	ctx := context.Background()
	tb := store.Table()
	marker := func(n string) table.Item {
		return table.Item{"PK": &types.AttributeValueMemberS{Value: "MARKER#" + n}, "SK": &types.AttributeValueMemberS{Value: "M"}}
	}
	in := tasks.SubmitInput{IdempotencyKey: "jobs/j-1/1", Payload: []byte("j-1")}

	tx := tb.WriteTx().Put(marker("a"))
	first, created, err := store.SubmitTx(ctx, tx, in, tasks.FreshKey())
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, tx.Run(ctx))
	got, err := store.Get(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, first, got, "the task SubmitTx returned is the one stored")

	tx = tb.WriteTx().Put(marker("b"))
	_, _, err = store.SubmitTx(ctx, tx, in, tasks.FreshKey())
	require.NoError(t, err)
	require.ErrorIs(t, tx.Run(ctx), table.ErrAlreadyExists)
	var it table.Item
	assert.ErrorIs(t, tb.Get(ctx, tb.Key("MARKER#b", "M"), &it, table.Consistent()), table.ErrNotFound, "the canceled transaction's own write applied")
	again, err := store.Get(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, first, again, "the key's task changed")
}

// TestIntegrationClaimThatLosesARaceReportsWhatItFound: DynamoDB returns
// the task with the refusal of the losing claim's conditional write, for
// the pending claim (UpdateItem) and the takeover (a transaction).
func TestIntegrationClaimThatLosesARaceReportsWhatItFound(t *testing.T) {
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now))
	ctx := context.Background()
	task, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("contended")})
	require.NoError(t, err)
	racer := func() *tasks.Store {
		race := &interleave{API: store.Table().DB(), hook: func() {
			_, err := store.Claim(ctx, "w1")
			require.NoError(t, err, "the winner's claim")
		}}
		s, err := tasks.NewStore(race, nil, tasks.TableName(store.Table().Name()), tasks.Clock(clock.Now))
		require.NoError(t, err)
		return s
	}
	_, err = racer().Claim(ctx, "w2")
	wantConflict(t, err, tasks.ClaimConflictError{Worker: "w2", TaskID: task.ID, Status: tasks.StatusProcessing, Owner: "w1", Attempt: 1})

	clock.Advance(tasks.DefaultLeaseDuration + time.Second)
	_, err = racer().Claim(ctx, "w2")
	wantConflict(t, err, tasks.ClaimConflictError{Worker: "w2", TaskID: task.ID, Status: tasks.StatusProcessing, Owner: "w1", Attempt: 2})
}

func TestIntegrationDelayedSubmission(t *testing.T) {
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now))
	ctx := context.Background()
	at := clock.Now().Add(time.Hour)
	task, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "later", Payload: []byte("x"), AvailableAt: at})
	require.NoError(t, err)
	assert.True(t, at.Truncate(time.Microsecond).Equal(task.AvailableAt))
	_, err = store.Claim(ctx, "w1")
	require.ErrorIs(t, err, tasks.ErrNoTask, "not before its time")
	clock.Advance(59 * time.Minute)
	_, err = store.Claim(ctx, "w1")
	require.ErrorIs(t, err, tasks.ErrNoTask, "not before its time")

	before := tableItems(t, store)
	_, _, err = store.Submit(ctx, tasks.SubmitInput{Payload: []byte("y"), AvailableAt: clock.Now().Add(-time.Second)})
	wantInputError(t, err, "AvailableAt")
	assert.Equal(t, before, tableItems(t, store), "a delayed submission in the past wrote nothing")

	clock.Advance(time.Minute)
	c, err := store.Claim(ctx, "w1")
	require.NoError(t, err, "at its time")
	assert.Equal(t, task.ID, c.Task.ID)
}
