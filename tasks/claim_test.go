package tasks_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestClaimTakesOldestPendingTask(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.ClaimBatch = 1 })
	first := f.submit(t, "first")
	f.submit(t, "second")
	c := f.claim(t, "w-abc")
	require.Equal(t, first.ID, c.Task.ID, "want the oldest task")
	require.Equal(t, "first", string(c.Task.Payload), "want the oldest task")
	require.Equal(t, tasks.StatusProcessing, c.Task.Status, "claim %+v", c)
	require.Equal(t, 1, c.Lease.Attempt, "claim %+v", c)
	require.Equal(t, "w-abc", c.Lease.Worker, "claim %+v", c)
	require.True(t, c.Lease.ExpiresAt.Equal(f.db.Now().Add(tasks.DefaultLeaseDuration)), "claim %+v", c)
	got := f.get(t, first.ID)
	require.Equal(t, tasks.StatusProcessing, got.Status, "stored task after claim %+v", got)
	require.Equal(t, "w-abc", got.Owner, "stored task after claim %+v", got)
	require.Equal(t, 1, got.Attempt, "stored task after claim %+v", got)
	require.True(t, got.LeaseExpiresAt.Equal(c.Lease.ExpiresAt), "stored task after claim %+v", got)
	wantHistory(t, f.history(t, first.ID), tasks.EventSubmitted, tasks.EventProcessing)
	ids, err := f.store.Maintenance().WorkerTasks(context.Background(), "w-abc")
	require.NoError(t, err)
	require.Equal(t, []string{first.ID}, ids, "WorkerTasks: want the claimed task")
	meta := f.raw(t, "TASK#"+first.ID, "META")
	require.Equal(t, "STATUS#PROCESSING", str(meta, "GSI1PK"), "a PROCESSING task's GSI1PK")
	require.True(t, strings.HasPrefix(str(meta, "GSI1SK"), "LEASE#"), "a PROCESSING task is indexed under GSI1SK %s, want LEASE#<expiry>", str(meta, "GSI1SK"))
}

func TestClaimEmptyQueueIsErrNoTask(t *testing.T) {
	f := newFixture(t)
	_, err := f.store.Claim(context.Background(), "w1")
	require.ErrorIs(t, err, tasks.ErrNoTask)
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
				assert.Equal(t, task.ID, c.Task.ID, "claimed task")
			case errors.Is(err, tasks.ErrNoTask):
				noTask++
			default:
				assert.NoError(t, err, "Claim(%s)", w)
			}
		}()
	}
	wg.Wait()
	require.Len(t, winners, 1, "want one winner")
	require.Equal(t, 1, noTask, "claims without a task; want one")
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	require.Len(t, claimItems(t, f.store.Table()), 1, "WORKER items")
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
		require.NoError(t, err)
		claimedItem = it
	}
	for it, err := range table.QueryAll[table.Item](ctx, f.store.Table(), table.Query{Index: tasks.IndexGSI1, Partition: "STATUS#PENDING"}) {
		require.NoError(t, err)
		otherItem = it
	}
	// The stale view still shows the claimed task as PENDING.
	stale := claimedItem
	stale["status"] = &types.AttributeValueMemberS{Value: "PENDING"}
	stale["attempt"] = &types.AttributeValueMemberN{Value: "0"}
	stale["events"] = &types.AttributeValueMemberN{Value: "1"}
	stale["GSI1PK"] = &types.AttributeValueMemberS{Value: "STATUS#PENDING"}
	stale["GSI1SK"] = otherItem["GSI1SK"]

	// Only the taken task in view: the claim's conditional update is
	// refused and there is nothing else to try.
	onlyStale := newStore(t, frozenPending{f.db, []table.Item{stale}}, f.db.Now)
	txs := f.db.Calls("UpdateItem")
	_, err := onlyStale.Claim(ctx, "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask, "claim of an already claimed task")
	require.Equal(t, 1, f.db.Calls("UpdateItem")-txs, "claim updates, want 1 refused")

	// Both in view: whichever it tries first, the worker ends up with the
	// other task.
	both := newStore(t, frozenPending{f.db, []table.Item{stale, otherItem}}, f.db.Now)
	c, err := both.Claim(ctx, "w2")
	require.NoError(t, err)
	require.Equal(t, str(otherItem, "taskId"), c.Task.ID, "w2 should claim the other task")
	wantHistory(t, f.history(t, taken.Task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	got := f.get(t, taken.Task.ID)
	require.Equal(t, "w1", got.Owner, "the lost race changed the task: %+v", got)
	require.Equal(t, 1, got.Attempt, "the lost race changed the task: %+v", got)
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
