package tasks_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestClaimTakesOldestPendingTask(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.ClaimBatch = 1 })
	first := f.submit(t, "first")
	f.submit(t, "second")
	c := f.claim(t, "w-abc")
	if c.Task.ID != first.ID || string(c.Task.Payload) != "first" {
		t.Fatalf("claimed %s (%q), want the oldest %s", c.Task.ID, c.Task.Payload, first.ID)
	}
	if c.Task.Status != tasks.StatusProcessing || c.Lease.Attempt != 1 || c.Lease.Worker != "w-abc" ||
		!c.Lease.ExpiresAt.Equal(f.db.Now().Add(tasks.DefaultLeaseDuration)) {
		t.Fatalf("claim %+v", c)
	}
	got := f.get(t, first.ID)
	if got.Status != tasks.StatusProcessing || got.Owner != "w-abc" || got.Attempt != 1 || !got.LeaseExpiresAt.Equal(c.Lease.ExpiresAt) {
		t.Fatalf("stored task after claim %+v", got)
	}
	wantHistory(t, f.history(t, first.ID), tasks.EventSubmitted, tasks.EventProcessing)
	if ids, err := f.store.WorkerTasks(context.Background(), "w-abc"); err != nil || len(ids) != 1 || ids[0] != first.ID {
		t.Fatalf("WorkerTasks = %v, %v; want the claimed task", ids, err)
	}
	meta := f.raw(t, "TASK#"+first.ID, "META")
	if str(meta, "GSI1PK") != "STATUS#PROCESSING" || !strings.HasPrefix(str(meta, "GSI1SK"), "LEASE#") {
		t.Fatalf("a PROCESSING task is indexed under %s / %s, want STATUS#PROCESSING / LEASE#<expiry>", str(meta, "GSI1PK"), str(meta, "GSI1SK"))
	}
}

func TestClaimEmptyQueueIsErrNoTask(t *testing.T) {
	f := newFixture(t)
	if _, err := f.store.Claim(context.Background(), "w1"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("got %v, want ErrNoTask", err)
	}
}

func TestClaimTwoWorkersOneWins(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "only")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []string
		noTask  int
	)
	for _, w := range []string{"w1", "w2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := f.store.Claim(context.Background(), w)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				winners = append(winners, w)
				if c.Task.ID != task.ID {
					t.Errorf("claimed %s", c.Task.ID)
				}
			case errors.Is(err, tasks.ErrNoTask):
				noTask++
			default:
				t.Errorf("Claim(%s): %v", w, err)
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 || noTask != 1 {
		t.Fatalf("winners %v, %d without a task; want one winner", winners, noTask)
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	if n := len(claimItems(t, f.store.Table())); n != 1 {
		t.Fatalf("%d WORKER items, want 1", n)
	}
}

// frozenPending answers queries of the STATUS#PENDING partition with a
// snapshot, as an index that has not caught up with a claim would.
type frozenPending struct {
	table.API
	items []table.Item
}

func (f frozenPending) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	for _, v := range in.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == "STATUS#PENDING" {
			return &dynamodb.QueryOutput{Items: f.items, Count: int32(len(f.items))}, nil
		}
	}
	return f.API.Query(ctx, in, opts...)
}

func TestClaimLoserMovesToNextCandidate(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.submit(t, "a")
	f.submit(t, "b")
	taken := f.claim(t, "w1")
	var claimedItem, otherItem table.Item
	for it, err := range table.QueryAll[table.Item](ctx, f.store.Table(), table.Query{Partition: "TASK#" + taken.Task.ID, Sort: table.SortEquals("META")}) {
		if err != nil {
			t.Fatal(err)
		}
		claimedItem = it
	}
	for it, err := range table.QueryAll[table.Item](ctx, f.store.Table(), table.Query{Index: tasks.IndexGSI1, Partition: "STATUS#PENDING"}) {
		if err != nil {
			t.Fatal(err)
		}
		otherItem = it
	}
	// The stale view still shows the claimed task as PENDING.
	stale := claimedItem
	stale["status"] = &types.AttributeValueMemberS{Value: "PENDING"}
	stale["attempt"] = &types.AttributeValueMemberN{Value: "0"}
	stale["events"] = &types.AttributeValueMemberN{Value: "1"}

	// Only the taken task in view: the claim's conditional update is
	// refused and there is nothing else to try.
	onlyStale := newStore(t, frozenPending{f.db, []table.Item{stale}}, f.db.Now)
	txs := f.db.Calls("UpdateItem")
	if _, err := onlyStale.Claim(ctx, "w2"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("claim of an already claimed task: %v, want ErrNoTask", err)
	}
	if got := f.db.Calls("UpdateItem") - txs; got != 1 {
		t.Fatalf("%d claim updates, want 1 refused", got)
	}

	// Both in view: whichever it tries first, the worker ends up with the
	// other task.
	both := newStore(t, frozenPending{f.db, []table.Item{stale, otherItem}}, f.db.Now)
	c, err := both.Claim(ctx, "w2")
	if err != nil {
		t.Fatal(err)
	}
	if c.Task.ID != str(otherItem, "taskId") {
		t.Fatalf("w2 claimed %s, want the other task %s", c.Task.ID, str(otherItem, "taskId"))
	}
	wantHistory(t, f.history(t, taken.Task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	if got := f.get(t, taken.Task.ID); got.Owner != "w1" || got.Attempt != 1 {
		t.Fatalf("the lost race changed the task: %+v", got)
	}
}

func TestClaimBadWorkerIDSendsNothing(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"", "w#1", strings.Repeat("w", 300)} {
		f.noRequests(t, func() {
			_, err := f.store.Claim(context.Background(), id)
			wantInputError(t, err, "workerID")
		})
	}
}
