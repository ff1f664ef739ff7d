package tasks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

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
			if err != nil {
				t.Errorf("Submit: %v", err)
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
	if len(ids) != 1 || created != 1 {
		t.Fatalf("50 goroutines got tasks %v, %d created; want one task created once", ids, created)
	}
	for id := range ids {
		h, err := store.History(ctx, id)
		if err != nil || len(h) != 1 {
			t.Fatalf("history %v, %v; want the one SUBMITTED event", h, err)
		}
	}
}

func TestIntegrationLeaseLostAfterTakeover(t *testing.T) {
	// DynamoDB Local keeps no time of its own that tests can move: the
	// fake serves as the store's clock.
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	store := localStore(t, tasks.Clock(clock.Now))
	ctx := context.Background()
	if _, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	old, err := store.Claim(ctx, "w-old")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	c, err := store.Claim(ctx, "w-new")
	if err != nil || c.Lease.Attempt != 2 {
		t.Fatalf("takeover: %+v, %v", c, err)
	}
	var lost *tasks.LeaseLostError
	if err := store.Complete(ctx, old.Lease, nil); !errors.As(err, &lost) || lost.Owner != "w-new" {
		t.Fatalf("late completion on DynamoDB Local: %v, want *LeaseLostError naming w-new", err)
	}
	if err := store.Complete(ctx, c.Lease, nil); err != nil {
		t.Fatal(err)
	}
	h, err := store.History(ctx, c.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
}
