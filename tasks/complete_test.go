package tasks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestCompleteLeavesIndexAndWorkerItem(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	c := f.claim(t, "w1")
	require.NoError(t, f.store.Complete(context.Background(), c.Lease, []byte("ok")))
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, "ok", string(got.Result))
	assert.Equal(t, "w1", got.Owner, "the worker that completed it")
	assert.True(t, got.LeaseExpiresAt.IsZero())
	assert.Equal(t, 3, got.Events)
	assert.NotContains(t, f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK", "a COMPLETED task is still in GSI1")
	assert.Empty(t, heldClaims(t, f.store), "WORKER items left")
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	assert.Equal(t, tasks.StatusCompleted, h[2].Status)
	assert.Equal(t, "w1", h[2].Worker)
	assert.Equal(t, 1, h[2].Attempt)
}

func TestCompleteTwiceSucceedsAndChangesNothing(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	c := f.claim(t, "w1")
	require.NoError(t, f.store.Complete(context.Background(), c.Lease, []byte("first")))
	before := f.get(t, task.ID)
	f.db.Advance(time.Second)
	require.NoError(t, f.store.Complete(context.Background(), c.Lease, []byte("second")),
		"a retried Complete (its first answer lost) finds the task completed under its lease")
	assert.Equal(t, before, f.get(t, task.ID), "the second result is not stored")
	assert.Len(t, f.history(t, task.ID), 3)
}

func TestCompleteUnderALeaseThatDidNotCompleteIsLeaseLost(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	old := f.claim(t, "w1")
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	c := f.claim(t, "w2")
	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("w2's")))
	before := f.get(t, task.ID)
	var lost *tasks.LeaseLostError
	require.ErrorAs(t, f.store.Complete(ctx, old.Lease, []byte("w1's")), &lost)
	assert.Equal(t, tasks.StatusCompleted, lost.Status)
	assert.Empty(t, lost.Owner, "nobody holds a completed task")
	assert.Equal(t, before, f.get(t, task.ID))
}

func TestFailRetriesUntilMaxAttemptsThenDead(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 3 })
	ctx := context.Background()
	task := f.submit(t, "flaky")
	for attempt := 1; attempt <= 3; attempt++ {
		f.db.Advance(tasks.DefaultRetryBackoff.Max) // past any backoff
		c := f.claim(t, "w1")
		require.Equal(t, attempt, c.Lease.Attempt)
		st, err := f.store.Fail(ctx, c.Lease, "timeout")
		require.NoError(t, err)
		want := tasks.StatusPending
		if attempt == 3 {
			want = tasks.StatusDead
		}
		require.Equal(t, want, st, "Fail on attempt %d", attempt)
		assert.Equal(t, want, f.get(t, task.ID).Status, "stored status after attempt %d", attempt)
	}
	f.db.Advance(time.Hour)
	_, err := f.store.Claim(ctx, "w1")
	require.ErrorIs(t, err, tasks.ErrNoTask, "a DEAD task was claimable")
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusDead, got.Status)
	assert.Equal(t, "timeout", got.LastError)
	assert.Equal(t, "STATUS#DEAD", str(f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK"))
	wantHistory(t, f.history(t, task.ID),
		tasks.EventSubmitted,
		tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventDead)
	assert.Empty(t, heldClaims(t, f.store), "WORKER items left")
}

// Issue 13: three claim/fail cycles used to take a millisecond and leave
// the task DEAD. A failed attempt now waits out a backoff that grows with
// every attempt, and no claim sees the task before its time.
func TestFailedTaskIsNotClaimableBeforeItsBackoffThenIs(t *testing.T) {
	backoff := table.Backoff{Initial: 10 * time.Second, Max: time.Minute}
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 4; o.RetryBackoff = backoff })
	ctx := context.Background()
	task := f.submit(t, "flaky")
	c := f.claim(t, "w1")
	for attempt := 1; attempt <= 3; attempt++ {
		failedAt := f.db.Now()
		st, err := f.store.Fail(ctx, c.Lease, "upstream timeout")
		require.NoError(t, err)
		require.Equal(t, tasks.StatusPending, st)

		got := f.get(t, task.ID)
		wait := got.AvailableAt.Sub(failedAt)
		window := min(backoff.Initial<<(attempt-1), backoff.Max)
		require.Positive(t, wait, "attempt %d: claimable at once (AvailableAt %v)", attempt, got.AvailableAt)
		require.Less(t, wait, window, "attempt %d: backoff past its window", attempt)
		meta := f.raw(t, "TASK#"+task.ID, "META")
		assert.Equal(t, "CREATED#"+got.AvailableAt.Format("2006-01-02T15:04:05.000000Z"), str(meta, "GSI1SK"),
			"the queue orders the task by when it becomes claimable")

		// Just before its time: no claim sees it.
		f.db.Advance(wait - time.Microsecond)
		_, err = f.store.Claim(ctx, "w2")
		require.ErrorIs(t, err, tasks.ErrNoTask, "attempt %d: claimed %v before its backoff ended", attempt, wait)
		page, err := f.store.Maintenance().Pending().Page(ctx, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1, "a task in backoff is still listed as pending")

		// At its time: claimable.
		f.db.Advance(time.Microsecond)
		c = f.claim(t, "w2")
		require.Equal(t, task.ID, c.Task.ID)
		require.Equal(t, attempt+1, c.Lease.Attempt)
		assert.True(t, c.Task.AvailableAt.IsZero(), "a claimed task has no AvailableAt")
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted,
		tasks.EventProcessing, tasks.EventFailed, tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventFailed, tasks.EventProcessing)
}

func TestRetriedTaskQueuesBehindWorkClaimableBeforeIt(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.ClaimBatch = 1 })
	ctx := context.Background()
	first := f.submit(t, "first")
	second := f.submit(t, "second")
	c := f.claim(t, "w1")
	require.Equal(t, first.ID, c.Task.ID, "the oldest task first")
	_, err := f.store.Fail(ctx, c.Lease, "retry me")
	require.NoError(t, err)
	f.db.Advance(tasks.DefaultRetryBackoff.Max)
	page, err := f.store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, []string{second.ID, first.ID}, []string{page.Items[0].ID, page.Items[1].ID},
		"pending order is the order tasks became claimable")
	assert.Equal(t, second.ID, f.claim(t, "w1").Task.ID)
	assert.Equal(t, first.ID, f.claim(t, "w1").Task.ID)
}

func TestReclaimedTaskWaitsItsBackoff(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.RetryBackoff = table.Backoff{Initial: time.Minute, Max: time.Minute} })
	ctx := context.Background()
	task := f.submit(t, "x")
	f.claim(t, "w1")
	f.db.Advance(tasks.DefaultLeaseDuration)
	n, err := f.store.Maintenance().ReclaimExpired(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	got := f.get(t, task.ID)
	require.Equal(t, tasks.StatusPending, got.Status)
	require.True(t, got.AvailableAt.After(f.db.Now()), "a reclaimed task is claimable at once")
	f.db.Advance(got.AvailableAt.Sub(f.db.Now()) - time.Microsecond)
	_, err = f.store.Claim(ctx, "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask)
	f.db.Advance(time.Microsecond)
	assert.Equal(t, task.ID, f.claim(t, "w2").Task.ID)
}

func TestNewStoreRefusesABackwardsRetryBackoff(t *testing.T) {
	_, err := tasks.NewStore(newFixture(t).db, nil, func(o *tasks.Options) {
		o.RetryBackoff = table.Backoff{Initial: time.Minute, Max: time.Second}
	})
	wantInputError(t, err, "Options.RetryBackoff")
}

func TestCompleteAndFailBadInputSendsNothing(t *testing.T) {
	f := newFixture(t)
	f.submit(t, "x")
	c := f.claim(t, "w1")
	f.noRequests(t, func() {
		wantInputError(t, f.store.Complete(context.Background(), c.Lease, make([]byte, tasks.MaxResultSize+1)), "result")
		_, err := f.store.Fail(context.Background(), c.Lease, strings.Repeat("x", 5000))
		wantInputError(t, err, "reason")
	})
	assert.Equal(t, tasks.StatusProcessing, f.get(t, c.Task.ID).Status)
}

func TestCancelPendingTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	require.NoError(t, f.store.Cancel(ctx, task.ID, "customer withdrew"))
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCancelled, got.Status)
	assert.Equal(t, "customer withdrew", got.LastError)
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventCancelled)
	assert.Equal(t, "customer withdrew", h[1].Message)
	_, err := f.store.Claim(ctx, "w1")
	assert.ErrorIs(t, err, tasks.ErrNoTask, "a cancelled task was claimable")
	assert.NotContains(t, f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK", "a CANCELLED task is still in GSI1")
}

func TestCancelProcessingTaskRefused(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	f.claim(t, "w1")
	err := f.store.Cancel(context.Background(), task.ID, "")
	var se *tasks.StateError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, tasks.ErrInvalidState)
	assert.Equal(t, tasks.StatusProcessing, se.Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
}

func TestCancelRacingClaimIsStateError(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	// A store whose META reads are answered before the claim lands.
	snapshot := f.get(t, task.ID)
	f.claim(t, "w1")
	racing := newStore(t, pendingMeta{f.db, snapshot}, f.db.Now)
	err := racing.Cancel(context.Background(), task.ID, "")
	var se *tasks.StateError
	require.ErrorAs(t, err, &se, "cancel that lost to a claim")
	assert.Equal(t, tasks.StatusProcessing, se.Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	assert.Equal(t, "w1", f.get(t, task.ID).Owner)
}

func TestCancelMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	assert.ErrorIs(t, f.store.Cancel(context.Background(), "t-none", ""), tasks.ErrNotFound)
}

func TestCancelBadInputSendsNothing(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() {
		wantInputError(t, f.store.Cancel(context.Background(), "", ""), "taskID")
		wantInputError(t, f.store.Cancel(context.Background(), "t#1", ""), "taskID")
		wantInputError(t, f.store.Cancel(context.Background(), "t-1", strings.Repeat("x", 5000)), "reason")
	})
}

// Complete removes the worker's claim item, so a worker's claims do not
// grow with every task it finishes and WorkerTasks reads only live ones.
func TestCompleteRemovesTheWorkersClaimItem(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "resize")
	c := f.claim(t, "worker-1")
	key := f.store.Table().Key("WORKER#worker-1", "TASK#"+task.ID)
	var claim table.Item
	require.NoError(t, f.store.Table().Get(ctx, key, &claim, table.Consistent()), "Claim writes the claim item")

	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	err := f.store.Table().Get(ctx, key, &claim, table.Consistent())
	assert.ErrorIs(t, err, table.ErrNotFound, "Complete deletes the claim item")
	ids, err := f.store.Maintenance().WorkerTasks(ctx, "worker-1")
	require.NoError(t, err)
	assert.Empty(t, ids)
}
