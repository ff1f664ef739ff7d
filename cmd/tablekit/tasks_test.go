package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// TestTasksCommandsUseTheTablesShardCount runs the CLI over HTTP against a
// table a one-shard service uses: what the operator lists, reclaims and
// re-drives is where that service looks.
func TestTasksCommandsUseTheTablesShardCount(t *testing.T) {
	srv := fakeServer(t)
	b := backend{endpoint: srv.URL, db: srv.DB, tasksTable: "one-shard-tasks"}
	testTasksShardCount(t, b, func() int { return writes(srv.DB) })
}

// TestCLIIntegrationTasksUseTheTablesShardCount is the same against
// DynamoDB Local, which counts no requests.
func TestCLIIntegrationTasksUseTheTablesShardCount(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "tablekit")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tablekit")
	t.Setenv("AWS_REGION", testenv.Region)
	b := backend{endpoint: endpoint, db: testenv.DynamoDB(t), tasksTable: testenv.TableName(t, "clishards")}
	testTasksShardCount(t, b, nil)
}

// testTasksShardCount runs the commands on b; writes counts the requests
// that write, where the backend can.
func testTasksShardCount(t *testing.T, b backend, writes func() int) {
	ctx := context.Background()
	// The service's workers: one whose clock is an hour behind, so its
	// lease is over by the time the operator looks, and one an hour ahead,
	// past any retry backoff the operator's reclaim sets.
	open := func(offset time.Duration) *tasks.Store {
		s, err := tasks.NewStore(b.db, nil, tasks.TableName(b.tasksTable), tasks.Shards(1),
			tasks.Clock(func() time.Time { return time.Now().Add(offset) }), tasks.MaxAttempts(2))
		require.NoError(t, err)
		return s
	}
	dying, service := open(-time.Hour), open(time.Hour)

	require.NoError(t, service.EnsureTable(ctx))

	waiting, _, err := dying.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{"n":1}`)})
	require.NoError(t, err)
	list := b.cli(t, "tasks", "list", "-output", "json")
	require.Equal(t, exitOK, list.code, list.stderr)
	var page pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &page))
	require.Len(t, page.Items, 1, "the CLI lists the one shard the service writes")
	assert.Equal(t, waiting.ID, page.Items[0].ID)

	// A task whose worker died: reclaim finds its lease in the one shard
	// and puts the task back where the service claims it.
	dropped, err := dying.Claim(ctx, "w-dies")
	require.NoError(t, err)
	dry := b.cli(t, "tasks", "reclaim", "-dry-run", "-output", "json")
	require.Equal(t, exitOK, dry.code, dry.stderr)
	var would dryRunOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(dry.stdout), &would))
	require.Len(t, would.Items, 1, "the dry run lists the expired lease")
	assert.Equal(t, dropped.Task.ID, would.Items[0].ID)
	got, err := service.Get(ctx, waiting.ID)
	require.NoError(t, err)
	require.Equal(t, tasks.StatusProcessing, got.Status, "and changes nothing")
	reclaim := b.cli(t, "tasks", "reclaim", "-yes", "-output", "json")
	require.Equal(t, exitOK, reclaim.code, reclaim.stderr)
	assert.JSONEq(t, `{"reclaimed":1}`, reclaim.stdout)
	got, err = service.Get(ctx, waiting.ID)
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusPending, got.Status)

	// A task that failed its last attempt (the lease lost was its first
	// of two) is a dead letter.
	retried, err := service.Claim(ctx, "w-1")
	require.NoError(t, err, "the service claims the reclaimed task once its backoff is over")
	require.Equal(t, dropped.Task.ID, retried.Task.ID)
	_, err = service.Fail(ctx, retried.Lease, "provider exploded")
	require.NoError(t, err)
	got, err = service.Get(ctx, waiting.ID)
	require.NoError(t, err)
	require.Equal(t, tasks.StatusDead, got.Status)

	// Re-driven by the operator, it is claimed by the one-shard service.
	redrive := b.cli(t, "tasks", "redrive", "-yes", waiting.ID)
	require.Equal(t, exitOK, redrive.code, redrive.stderr)
	c, err := service.Claim(ctx, "w-2")
	require.NoError(t, err, "the one-shard store sees the re-driven task")
	assert.Equal(t, waiting.ID, c.Task.ID)

	// Re-driving a task that is not DEAD is refused, and writes nothing.
	before := 0
	if writes != nil {
		before = writes()
	}
	again := b.cli(t, "tasks", "redrive", "-yes", waiting.ID)
	assert.Equal(t, exitFailed, again.code)
	assert.Contains(t, again.stderr, "task is PROCESSING, not DEAD")
	if writes != nil {
		assert.Equal(t, before, writes(), "a refused redrive writes nothing")
	}
	got, err = service.Get(ctx, waiting.ID)
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusProcessing, got.Status)
}

// TestTasksCommandsOnAnEightShardTableFindItsTasks: the CLI opens its store
// without a shard count, so it follows whatever count the table records.
func TestTasksCommandsOnAnEightShardTableFindItsTasks(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	b := backend{endpoint: srv.URL, db: srv.DB, tasksTable: "eight-shard-tasks"}
	service, err := tasks.NewStore(srv.DB, nil, tasks.TableName(b.tasksTable), tasks.Shards(8))
	require.NoError(t, err)
	require.NoError(t, service.EnsureTable(ctx))
	var ids []string
	for range 20 {
		task, _, err := service.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{}`)})
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	list := b.cli(t, "tasks", "list", "-output", "json", "-limit", "100")
	require.Equal(t, exitOK, list.code, list.stderr)
	var page pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &page))
	var listed []string
	for _, task := range page.Items {
		listed = append(listed, task.ID)
	}
	assert.ElementsMatch(t, ids, listed, "every shard of the eight listed")
}

// writes counts the write requests db has served.
func writes(db *dynamotest.DB) int {
	n := 0
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"} {
		n += db.Calls(op)
	}
	return n
}

// TestTasksReclaimCountsTheTasksOwnAttempts: a service that gives its
// tasks five attempts, and the operator's reclaim (the CLI's store has the
// default three) on the third: the task goes back to the queue, not DEAD.
func TestTasksReclaimCountsTheTasksOwnAttempts(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	b := backend{endpoint: srv.URL, db: srv.DB, tasksTable: "patient-tasks"}
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	service, err := tasks.NewStore(srv.DB, nil, tasks.TableName(b.tasksTable), tasks.MaxAttempts(5), tasks.Clock(behind),
		func(o *tasks.Options) { o.RetryBackoff = table.Backoff{Initial: 0, Max: time.Nanosecond} })
	require.NoError(t, err)
	require.NoError(t, service.EnsureTable(ctx))
	task, _, err := service.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{}`)})
	require.NoError(t, err)
	for range 2 {
		c, err := service.Claim(ctx, "w")
		require.NoError(t, err)
		_, err = service.Fail(ctx, c.Lease, "flaky")
		require.NoError(t, err)
	}
	_, err = service.Claim(ctx, "w-dies") // the third attempt; its lease is over an hour ago
	require.NoError(t, err)
	r := b.cli(t, "tasks", "reclaim", "-yes", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	got, err := service.Get(ctx, task.ID)
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusPending, got.Status, "attempt 3 of the task's 5, not of the CLI's 3")
}
