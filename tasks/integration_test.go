package tasks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/tasks"
)

// localStore is a store on its own table in the DynamoDB at
// TABLEKIT_DYNAMODB_ENDPOINT (DynamoDB Local), or a skip when it is unset.
func localStore(t *testing.T, opts ...func(*tasks.Options)) *tasks.Store {
	t.Helper()
	client := testenv.DynamoDB(t)
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
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
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
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
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
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
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
