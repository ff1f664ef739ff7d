package tasks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestNewStoreRefusesBadOptionsWithATypedError(t *testing.T) {
	db := dynamotest.New()
	for name, c := range map[string]struct {
		opt   func(*tasks.Options)
		field string
	}{
		"table name with a space": {tasks.TableName("my tasks"), "schema.Name"},
		"negative lease":          {tasks.LeaseDuration(-time.Second), "Options.LeaseDuration"},
		"negative attempts":       {func(o *tasks.Options) { o.MaxAttempts = -1 }, "Options.MaxAttempts"},
		"attempts past a history": {func(o *tasks.Options) { o.MaxAttempts = tasks.MaxAttemptsLimit + 1 }, "Options.MaxAttempts"},
		"too many shards":         {tasks.Shards(tasks.MaxShards + 1), "Options.Shards"},
		"negative shards":         {tasks.Shards(-2), "Options.Shards"},
		"claim batch over 100":    {func(o *tasks.Options) { o.ClaimBatch = 101 }, "Options.ClaimBatch"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := tasks.NewStore(db, nil, c.opt)
			assert.Nil(t, s)
			wantInputError(t, err, c.field)
		})
	}
	s, err := tasks.NewStore(nil, nil)
	assert.Nil(t, s)
	wantInputError(t, err, "db")
	assert.Zero(t, db.Calls("CreateTable")+db.Calls("DescribeTable"), "NewStore sent requests")
}

func TestNilStoreMethodsFailWithoutPanicking(t *testing.T) {
	var s *tasks.Store
	ctx := context.Background()
	_, _, err := s.Submit(ctx, tasks.SubmitInput{})
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = s.Claim(ctx, "w1")
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = s.Get(ctx, "t1")
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = s.Maintenance().Pending().Page(ctx, "")
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	assert.ErrorIs(t, s.EnsureTable(ctx), table.ErrInvalidInput)
	assert.Zero(t, s.Schema().Name)
}

func TestStoreEnsureTableCreatesTheTableItUses(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	store, err := tasks.NewStore(db, nil, tasks.TableName("tasks-prod"))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	assert.Equal(t, "tasks-prod", store.Schema().Name)
	assert.Equal(t, tasks.Schema("tasks-prod").Name, store.Schema().Name)
	_, _, err = store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	require.NoError(t, err, "the store writes the table EnsureTable created")
	require.NoError(t, store.EnsureTable(ctx), "EnsureTable of an existing table")

	def, err := tasks.NewStore(db, nil)
	require.NoError(t, err)
	assert.Equal(t, tasks.DefaultTableName, def.Schema().Name)
	assert.Equal(t, tasks.DefaultShards, def.Options().Shards)
}

// The default shard count is the one the declared patterns are costed
// with, and at the seed's rates it keeps every GSI1 partition under
// DynamoDB's per-partition limits (docs/tasks, hot-partition analysis).
func TestDefaultShardsKeepEveryQueuePartitionUnderItsLimits(t *testing.T) {
	require.Greater(t, tasks.DefaultShards, 1)
	wcu := map[string]float64{}
	for _, p := range tasks.Patterns() {
		for _, w := range p.IndexWrites {
			if p.Partitions != tasks.DefaultShards {
				continue
			}
			n := 1.0
			if w.Move {
				n = 2
			}
			wcu[w.Partition] += n * p.RatePerSecond / float64(p.Partitions)
		}
	}
	require.NotEmpty(t, wcu)
	for partition, perShard := range wcu {
		assert.Less(t, perShard, 1000.0, "%s takes %.0f WCU/s per shard", partition, perShard)
	}
}

func TestSchemaIsValidAndDeclaresTheSeedsPatterns(t *testing.T) {
	s := tasks.Schema("tasks-prod")
	require.NoError(t, s.Validate())
	names := map[string]bool{}
	for _, ap := range tasks.Patterns() {
		names[ap.Name] = true
		assert.Positive(t, ap.RatePerSecond, "access pattern %q has no rate", ap.Name)
		assert.Positive(t, ap.ItemSize, "access pattern %q has no item size", ap.Name)
	}
	for _, want := range []string{"Get task metadata", "Get task history", "List pending tasks", "Check idempotency", "Claim task (atomic)"} {
		assert.True(t, names[want], "the seed's access pattern %q is not declared", want)
	}
	ix, ok := s.Index(tasks.IndexGSI1)
	require.True(t, ok)
	assert.Equal(t, "GSI1PK", ix.PartitionKey.Name)
	assert.Equal(t, "GSI1SK", ix.SortKey.Name)
}

func ExampleNewStore() {
	ctx := context.Background()
	db := dynamotest.New() // or a *dynamodb.Client
	store, err := tasks.NewStore(db, nil, tasks.LeaseDuration(time.Minute))
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(ctx); err != nil {
		panic(err)
	}
	task, created, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte("resize photo.jpg")})
	if err != nil {
		panic(err)
	}
	fmt.Println(task.ID, task.Status, created)
	// Output: k-3lhht5wthh2eh4ooo5v5hlobkk PENDING true
}

func TestMaxAttemptsOptionBoundsTheClaimsATaskGets(t *testing.T) {
	f := newFixture(t, tasks.MaxAttempts(1))
	assert.Equal(t, 1, f.store.Options().MaxAttempts)
	task := f.submit(t, "x")
	c := f.claim(t, "w1")
	to, err := f.store.Fail(context.Background(), c.Lease, "boom")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusDead, to, "its one attempt failed")
	assert.Equal(t, tasks.StatusDead, f.get(t, task.ID).Status)

	s, err := tasks.NewStore(f.db, nil, tasks.MaxAttempts(0))
	require.NoError(t, err)
	assert.Equal(t, tasks.DefaultMaxAttempts, s.Options().MaxAttempts, "0 is the default")
	for _, n := range []int{-1, tasks.MaxAttemptsLimit + 1} {
		_, err := tasks.NewStore(f.db, nil, tasks.MaxAttempts(n))
		wantInputError(t, err, "Options.MaxAttempts")
	}
}

func TestATaskKeepsTheMaxAttemptsOfTheStoreThatSubmittedIt(t *testing.T) {
	f := newFixture(t, tasks.MaxAttempts(5))
	ctx := context.Background()
	task := f.submit(t, "patient")
	assert.Equal(t, 5, f.get(t, task.ID).MaxAttempts)
	other := newStore(t, f.db, f.db.Now) // DefaultMaxAttempts: 3
	for attempt := 1; attempt <= 5; attempt++ {
		f.db.Advance(tasks.DefaultRetryBackoff.Max)
		c, err := other.Claim(ctx, "w-other")
		require.NoError(t, err)
		require.Equal(t, attempt, c.Lease.Attempt)
		if attempt == 4 {
			// Its lease runs out instead: the reclaim counts the same way.
			f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
			n, err := other.Maintenance().ReclaimExpired(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			require.Equal(t, tasks.StatusPending, f.get(t, task.ID).Status, "attempt 4 of 5")
			continue
		}
		to, err := other.Fail(ctx, c.Lease, "boom")
		require.NoError(t, err)
		if attempt < 5 {
			require.Equal(t, tasks.StatusPending, to, "attempt %d of 5, though the failing store allows 3", attempt)
		} else {
			require.Equal(t, tasks.StatusDead, to, "the fifth")
		}
	}
}
