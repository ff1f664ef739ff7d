package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/tasks"
)

// A delayed submission (SubmitInput.AvailableAt) is a pending task whose
// place in the queue is its time: claims, idle polls and the admin list
// see it as they see a task in its retry backoff.

func TestDelayedTaskIsNotClaimedBeforeItsTime(t *testing.T) {
	f := newFixture(t, tasks.Shards(4))
	ctx := context.Background()
	at := epoch.Add(time.Hour)
	task, created, err := f.store.Submit(ctx, tasks.SubmitInput{Payload: []byte("later"), AvailableAt: at})
	require.NoError(t, err)
	require.True(t, created)
	assert.Equal(t, at, task.AvailableAt)
	assert.Equal(t, epoch, task.CreatedAt)
	assert.Equal(t, task, f.get(t, task.ID), "the task Submit returned is the one stored")
	now := f.submit(t, "now")

	c := f.claim(t, "w1")
	assert.Equal(t, now.ID, c.Task.ID, "the task due now is claimed, not the delayed one")
	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	page, err := f.store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the admin list shows the delayed task")
	assert.Equal(t, task.ID, page.Items[0].ID)
	assert.Equal(t, at, page.Items[0].AvailableAt)

	for _, d := range []time.Duration{time.Minute, 30 * time.Minute, 59*time.Minute - time.Microsecond} {
		f.db.SetTime(epoch.Add(d))
		_, err := f.store.Claim(ctx, "w1")
		require.ErrorIs(t, err, tasks.ErrNoTask, "a claim %v after the submission, before its time", d)
	}
	f.db.SetTime(at)
	c = f.claim(t, "w1")
	assert.Equal(t, task.ID, c.Task.ID, "claimable at its time")
	require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
}

// TestAnIdleWorkerClaimsADelayedTaskWhenItIsDue: the scan that found the
// queue idle learned the delayed task's time, so the first poll at that
// time scans again, wherever the poll's probe stands (one delayed task per
// probe position).
func TestAnIdleWorkerClaimsADelayedTaskWhenItIsDue(t *testing.T) {
	const shards = 4
	f := newFixture(t, tasks.Shards(shards))
	ctx := context.Background()
	worker := newStore(t, f.db, f.db.Now, tasks.Shards(0))
	_, err := worker.Claim(ctx, "w-idle")
	require.ErrorIs(t, err, tasks.ErrNoTask)
	for i := range 2 * shards {
		at := f.db.Now().Add(10 * time.Minute)
		task, _, err := f.store.Submit(ctx, tasks.SubmitInput{Payload: []byte("later"), AvailableAt: at})
		require.NoError(t, err)
		for range 2*shards + i { // polls until its time: every partition probed
			f.db.Advance(10 * time.Second)
			_, err := worker.Claim(ctx, "w-idle")
			require.ErrorIs(t, err, tasks.ErrNoTask)
		}
		f.db.SetTime(at)
		c, err := worker.Claim(ctx, "w-idle")
		require.NoError(t, err, "task %d: the first poll at its time", i)
		assert.Equal(t, task.ID, c.Task.ID)
		require.NoError(t, worker.Complete(ctx, c.Lease, nil))
		_, err = worker.Claim(ctx, "w-idle")
		require.ErrorIs(t, err, tasks.ErrNoTask, "idle again")
	}
}

func TestDelayedSubmissionOfAKeyCutOffAfterItsIdempotencyItemKeepsItsTime(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	at := epoch.Add(time.Hour)
	in := tasks.SubmitInput{IdempotencyKey: "later-1", Payload: []byte("p"), AvailableAt: at}
	f.crashOn("PutItem", "TASK") // the IDEM item is written, META is not
	_, _, err := f.store.Submit(ctx, in)
	require.ErrorIs(t, err, errCrash)
	f.db.Advance(time.Minute)
	in.AvailableAt = time.Time{} // the retry asks for no delay: the key's first submission decides
	task, created, err := f.store.Submit(ctx, in)
	require.NoError(t, err)
	assert.False(t, created, "the retry finishes the first submission, which wrote the key")
	assert.Equal(t, at, task.AvailableAt)
	assert.Equal(t, epoch, task.CreatedAt)
	_, err = f.store.Claim(ctx, "w1")
	require.ErrorIs(t, err, tasks.ErrNoTask)
}

func TestDelayedSubmissionInThePastIsRefusedWritingNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.db.Advance(time.Hour)
	now := f.db.Now()
	for name, at := range map[string]time.Time{
		"a microsecond ago": now.Add(-time.Microsecond),
		"a day ago":         now.Add(-24 * time.Hour),
		"after year 9999":   time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		before := tableItems(t, f.store)
		f.noRequests(t, func() {
			task, _, err := f.store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x"), AvailableAt: at})
			wantInputError(t, err, "AvailableAt")
			assert.Nil(t, task, name)
			tx := f.store.Table().WriteTx()
			task, _, err = f.store.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: "k", Payload: []byte("x"), AvailableAt: at})
			wantInputError(t, err, "AvailableAt")
			assert.Nil(t, task, name)
		})
		assert.Equal(t, before, tableItems(t, f.store), name)
	}
	task, _, err := f.store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x"), AvailableAt: now})
	require.NoError(t, err, "now is not the past: claimable at once")
	assert.Equal(t, f.claim(t, "w1").Task.ID, task.ID)
}
