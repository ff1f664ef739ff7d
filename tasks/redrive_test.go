package tasks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/tasks"
)

// kill fails task id's attempts until it is DEAD.
func (f *fixture) kill(t *testing.T, id, reason string) {
	t.Helper()
	for {
		f.db.Advance(tasks.DefaultRetryBackoff.Max)
		c := f.claim(t, "w-killer")
		require.Equal(t, id, c.Task.ID)
		st, err := f.store.Fail(context.Background(), c.Lease, reason)
		require.NoError(t, err)
		if st == tasks.StatusDead {
			return
		}
	}
}

func TestRedriveGivesADeadLetterFreshAttemptsAndAHistoryEvent(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 2 })
	ctx := context.Background()
	task := f.submit(t, "poison")
	f.kill(t, task.ID, "bug 123")
	got, err := f.store.Maintenance().Redrive(ctx, task.ID, "bug 123 fixed")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusPending, got.Status)
	assert.Equal(t, got, f.get(t, task.ID), "the returned task is the stored one")
	assert.Equal(t, 2, got.AttemptBase)
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed, tasks.EventProcessing, tasks.EventDead, tasks.EventRedriven)
	assert.Equal(t, "bug 123 fixed", h[5].Message)
	assert.Equal(t, "STATUS#PENDING", str(f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK"))
	dead, err := f.store.Maintenance().Dead().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, dead.Items)

	// Claimable at once, and two fresh attempts before it is DEAD again.
	c := f.claim(t, "w1")
	assert.Equal(t, 3, c.Lease.Attempt)
	st, err := f.store.Fail(ctx, c.Lease, "still broken")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusPending, st, "the first attempt after a re-drive is not the last")
	f.db.Advance(tasks.DefaultRetryBackoff.Max)
	c = f.claim(t, "w1")
	st, err = f.store.Fail(ctx, c.Lease, "still broken")
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusDead, st)
}

func TestRedriveOfATaskThatIsNotDeadIsRefusedAndChangesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	before := f.get(t, task.ID)
	_, err := f.store.Maintenance().Redrive(ctx, task.ID, "")
	var se *tasks.StateError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, tasks.ErrInvalidState)
	assert.Equal(t, tasks.StatusPending, se.Status)
	assert.Equal(t, before, f.get(t, task.ID))
	_, err = f.store.Maintenance().Redrive(ctx, "t-none", "")
	assert.ErrorIs(t, err, tasks.ErrNotFound)
	f.noRequests(t, func() {
		_, err := f.store.Maintenance().Redrive(ctx, "a#b", "")
		wantInputError(t, err, "taskID")
		_, err = f.store.Maintenance().Redrive(ctx, task.ID, strings.Repeat("x", 5000))
		wantInputError(t, err, "reason")
	})
}

// Two operators re-drive one dead letter; the second read it DEAD before
// the first one's write: it must not re-drive it twice.
func TestRedriveRacingRedriveMovesTheTaskOnce(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 1 })
	ctx := context.Background()
	task := f.submit(t, "x")
	f.kill(t, task.ID, "boom")
	race := &interleave{API: f.db, hook: func() {
		_, err := f.store.Maintenance().Redrive(ctx, task.ID, "first")
		require.NoError(t, err)
	}}
	_, err := newStore(t, race, f.db.Now, func(o *tasks.Options) { o.MaxAttempts = 1 }).Maintenance().Redrive(ctx, task.ID, "second")
	var se *tasks.StateError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, tasks.StatusPending, se.Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventDead, tasks.EventRedriven)
}

func TestRedriveDeadByFilterMovesOnlyTheMatches(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 1 })
	ctx := context.Background()
	timeout := f.submit(t, "a")
	f.kill(t, timeout.ID, "upstream timeout")
	corrupt := f.submit(t, "b")
	f.kill(t, corrupt.ID, "corrupt input")
	timeout2 := f.submit(t, "c")
	f.kill(t, timeout2.ID, "upstream timeout")
	n, err := f.store.Maintenance().RedriveDead(ctx, func(t *tasks.Task) bool { return strings.Contains(t.LastError, "timeout") }, "upstream fixed")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, tasks.StatusPending, f.get(t, timeout.ID).Status)
	assert.Equal(t, tasks.StatusPending, f.get(t, timeout2.ID).Status)
	assert.Equal(t, tasks.StatusDead, f.get(t, corrupt.ID).Status)
	h := f.history(t, timeout2.ID)
	assert.Equal(t, tasks.EventRedriven, h[len(h)-1].Type)
	assert.Equal(t, "upstream fixed", h[len(h)-1].Message)

	n, err = f.store.Maintenance().RedriveDead(ctx, nil, "all")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	f.db.Advance(time.Second)
	dead, err := f.store.Maintenance().Dead().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, dead.Items)
}
