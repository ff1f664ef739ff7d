package tasks_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestTheFirstStoreRecordsTheShardCountAndStoresWithoutOneFollowIt(t *testing.T) {
	f := newFixture(t) // Shards(1), recorded by EnsureTable
	ctx := context.Background()
	cfg := f.raw(t, "CONFIG", "QUEUE")
	assert.Equal(t, "1", num(t, cfg, "shards"), "EnsureTable recorded the store's count")

	follower, err := tasks.NewStore(f.db, nil, tasks.Clock(f.db.Now))
	require.NoError(t, err)
	assert.Equal(t, tasks.DefaultShards, follower.Options().Shards, "before it has read the table: its own default")
	n, err := follower.Maintenance().ShardCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, follower.Options().Shards, "after: the table's")

	// A task the follower submits lands where the one-shard store looks,
	// and the other way round.
	mine, _, err := follower.Submit(ctx, tasks.SubmitInput{Payload: []byte("from the follower")})
	require.NoError(t, err)
	assert.Equal(t, mine.ID, f.claim(t, "w-1").Task.ID)
	theirs := f.submit(t, "from the one-shard store")
	c, err := follower.Claim(ctx, "w-2")
	require.NoError(t, err)
	assert.Equal(t, theirs.ID, c.Task.ID)
}

func TestAStoreOnAFreshTableRecordsDefaultShards(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	store, err := tasks.NewStore(db, nil)
	require.NoError(t, err)
	require.NoError(t, tasks.Schema(tasks.DefaultTableName).EnsureTable(ctx, db), "the table, created without a store")
	_, _, err = store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	require.NoError(t, err)
	f := &fixture{db: db, store: store}
	assert.Equal(t, "4", num(t, f.raw(t, "CONFIG", "QUEUE"), "shards"), "the first Submit recorded DefaultShards")
}

func TestAStoreOpenedWithAnotherShardCountIsRefusedAndWritesNothing(t *testing.T) {
	f := newFixture(t) // the table records 1
	ctx := context.Background()
	dead := f.submit(t, "to die")
	c := f.claim(t, "w-1")
	_, err := f.store.Fail(ctx, c.Lease, "boom") // the fixture allows 3 attempts: still PENDING
	require.NoError(t, err)

	four, err := tasks.NewStore(f.db, nil, tasks.Clock(f.db.Now), tasks.Shards(4))
	require.NoError(t, err, "NewStore sends nothing, so it cannot know yet")
	before := writeCalls(f.db)
	calls := map[string]func() error{
		"EnsureTable": func() error { return four.EnsureTable(ctx) },
		"ShardCount":  func() error { _, err := four.Maintenance().ShardCount(ctx); return err },
		"Submit": func() error {
			_, _, err := four.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k", Payload: []byte("x")})
			return err
		},
		"Claim":          func() error { _, err := four.Claim(ctx, "w-4"); return err },
		"ListPending":    func() error { _, err := four.Maintenance().Pending().Page(ctx, ""); return err },
		"ReclaimExpired": func() error { _, err := four.Maintenance().ReclaimExpired(ctx); return err },
		"Redrive":        func() error { _, err := four.Maintenance().Redrive(ctx, dead.ID, "again"); return err },
		"RedriveDead":    func() error { _, err := four.Maintenance().RedriveDead(ctx, nil, "again"); return err },
	}
	for name, call := range calls {
		err := call()
		require.ErrorIs(t, err, tasks.ErrShardsMismatch, name)
		var se *tasks.ShardsError
		require.True(t, errors.As(err, &se), name)
		assert.Equal(t, tasks.ShardsError{Table: tasks.DefaultTableName, TableShards: 1, StoreShards: 4}, *se, name)
		assert.Contains(t, err.Error(), "split into 1 shards", name)
	}
	assert.Equal(t, before, writeCalls(f.db), "nothing written")
	assert.Equal(t, "1", num(t, f.raw(t, "CONFIG", "QUEUE"), "shards"), "the table's count stands")
}

// configBarrier holds every GetItem of the CONFIG item until n have been
// read, so n stores all find the table recording no count and all try to
// record theirs: the race attribute_not_exists decides.
type configBarrier struct {
	table.API
	mu      sync.Mutex
	n       int
	arrived int
	all     chan struct{}
}

func (b *configBarrier) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := b.API.GetItem(ctx, in, opts...)
	if pk, ok := in.Key["PK"].(*types.AttributeValueMemberS); ok && pk.Value == "CONFIG" {
		b.mu.Lock()
		b.arrived++
		if b.arrived == b.n {
			close(b.all)
		}
		first := b.arrived <= b.n
		b.mu.Unlock()
		if first {
			<-b.all
		}
	}
	return out, err
}

func TestStoresRacingOnANewTableRecordOneShardCount(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	require.NoError(t, tasks.Schema(tasks.DefaultTableName).EnsureTable(ctx, db))
	counts := []int{1, 2, 3, 4, 5, 6, 7, 8}
	barrier := &configBarrier{API: db, n: len(counts), all: make(chan struct{})}
	errs := make([]error, len(counts))
	var wg sync.WaitGroup
	for i, n := range counts {
		store, err := tasks.NewStore(barrier, nil, tasks.Shards(n))
		require.NoError(t, err)
		wg.Go(func() { _, errs[i] = store.Maintenance().ShardCount(ctx) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			f := &fixture{db: db, store: newStore(t, db, db.Now, tasks.Shards(counts[i]))}
			assert.Equal(t, strconv.Itoa(counts[i]), num(t, f.raw(t, "CONFIG", "QUEUE"), "shards"))
			continue
		}
		assert.ErrorIs(t, err, tasks.ErrShardsMismatch)
	}
	assert.Equal(t, 1, won, "all eight found no count and tried to record theirs; exactly one did")
}

func TestListingATableThatRecordsNoShardCountRecordsNothing(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	require.NoError(t, tasks.Schema(tasks.DefaultTableName).EnsureTable(ctx, db))
	store, err := tasks.NewStore(db, nil, tasks.Shards(2))
	require.NoError(t, err)
	before := writeCalls(db)
	p, err := store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, p.Items)
	assert.Equal(t, before, writeCalls(db), "a dashboard's list writes nothing")
	_, err = store.Maintenance().ShardCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, before+1, writeCalls(db), "a store that places tasks records its count")
}

// writeCalls counts the write requests db has served.
func writeCalls(db *dynamotest.DB) int {
	n := 0
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"} {
		n += db.Calls(op)
	}
	return n
}

func TestIntegrationStoresFollowTheTablesShardCount(t *testing.T) {
	ctx := context.Background()
	one := localStore(t, tasks.Shards(1))
	db := one.Table().DB()
	name := one.Table().Name()
	follower, err := tasks.NewStore(db, nil, tasks.TableName(name))
	require.NoError(t, err)
	task, _, err := follower.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	require.NoError(t, err)
	c, err := one.Claim(ctx, "w-1")
	require.NoError(t, err, "the follower placed the task in the table's one shard")
	assert.Equal(t, task.ID, c.Task.ID)

	four, err := tasks.NewStore(db, nil, tasks.TableName(name), tasks.Shards(4))
	require.NoError(t, err)
	_, _, err = four.Submit(ctx, tasks.SubmitInput{Payload: []byte("y")})
	require.ErrorIs(t, err, tasks.ErrShardsMismatch)
	p, err := one.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, p.Items, "the refused store wrote nothing")
}
