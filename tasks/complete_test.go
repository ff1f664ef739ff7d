package tasks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/tasks"
)

func TestCompleteLeavesIndexAndWorkerItem(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	c := f.claim(t, "w1")
	if err := f.store.Complete(context.Background(), c.Lease, []byte("ok")); err != nil {
		t.Fatal(err)
	}
	got := f.get(t, task.ID)
	if got.Status != tasks.StatusCompleted || string(got.Result) != "ok" || got.Owner != "" || !got.LeaseExpiresAt.IsZero() || got.Events != 3 {
		t.Fatalf("completed task %+v", got)
	}
	meta := f.raw(t, "TASK#"+task.ID, "META")
	if _, ok := meta["GSI1PK"]; ok {
		t.Fatal("a COMPLETED task is still in GSI1")
	}
	if n := len(claimItems(t, f.store.Table())); n != 0 {
		t.Fatalf("%d WORKER items left", n)
	}
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	if h[2].Status != tasks.StatusCompleted || h[2].Worker != "w1" || h[2].Attempt != 1 {
		t.Fatalf("COMPLETED event %+v", h[2])
	}
}

func TestCompleteTwiceIsLeaseLost(t *testing.T) {
	f := newFixture(t)
	f.submit(t, "x")
	c := f.claim(t, "w1")
	if err := f.store.Complete(context.Background(), c.Lease, nil); err != nil {
		t.Fatal(err)
	}
	var lost *tasks.LeaseLostError
	err := f.store.Complete(context.Background(), c.Lease, nil)
	if !errors.As(err, &lost) || lost.Status != tasks.StatusCompleted {
		t.Fatalf("second Complete: %v, want *LeaseLostError with status COMPLETED", err)
	}
}

func TestFailRetriesUntilMaxAttemptsThenDead(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 3 })
	ctx := context.Background()
	task := f.submit(t, "flaky")
	for attempt := 1; attempt <= 3; attempt++ {
		c := f.claim(t, "w1")
		if c.Lease.Attempt != attempt {
			t.Fatalf("claim %d has attempt %d", attempt, c.Lease.Attempt)
		}
		st, err := f.store.Fail(ctx, c.Lease, "timeout")
		if err != nil {
			t.Fatal(err)
		}
		want := tasks.StatusPending
		if attempt == 3 {
			want = tasks.StatusDead
		}
		if st != want {
			t.Fatalf("Fail on attempt %d moved to %s, want %s", attempt, st, want)
		}
	}
	if _, err := f.store.Claim(ctx, "w1"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("a DEAD task was claimable: %v", err)
	}
	got := f.get(t, task.ID)
	if got.Status != tasks.StatusDead || got.LastError != "timeout" {
		t.Fatalf("dead task %+v", got)
	}
	wantHistory(t, f.history(t, task.ID),
		tasks.EventSubmitted,
		tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventDead)
	if n := len(claimItems(t, f.store.Table())); n != 0 {
		t.Fatalf("%d WORKER items left", n)
	}
}

func TestFailedTaskKeepsItsPlaceInTheQueue(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.ClaimBatch = 1 })
	ctx := context.Background()
	first := f.submit(t, "first")
	f.submit(t, "second")
	c := f.claim(t, "w1")
	if c.Task.ID != first.ID {
		t.Fatalf("claimed %s, want the oldest %s", c.Task.ID, first.ID)
	}
	if _, err := f.store.Fail(ctx, c.Lease, "retry me"); err != nil {
		t.Fatal(err)
	}
	page, err := f.store.ListPending(ctx, "")
	if err != nil || len(page.Items) != 2 || page.Items[0].ID != first.ID {
		t.Fatalf("pending after a retry: %+v, %v; want the retried task first", page.Items, err)
	}
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
}

func TestCancelPendingTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	if err := f.store.Cancel(ctx, task.ID, "customer withdrew"); err != nil {
		t.Fatal(err)
	}
	got := f.get(t, task.ID)
	if got.Status != tasks.StatusCancelled || got.LastError != "customer withdrew" {
		t.Fatalf("cancelled task %+v", got)
	}
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventCancelled)
	if h[1].Message != "customer withdrew" {
		t.Fatalf("CANCELLED event %+v", h[1])
	}
	if _, err := f.store.Claim(ctx, "w1"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("a cancelled task was claimable: %v", err)
	}
	if _, ok := f.raw(t, "TASK#"+task.ID, "META")["GSI1PK"]; ok {
		t.Fatal("a CANCELLED task is still in GSI1")
	}
}

func TestCancelProcessingTaskRefused(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	f.claim(t, "w1")
	err := f.store.Cancel(context.Background(), task.ID, "")
	var se *tasks.StateError
	if !errors.As(err, &se) || !errors.Is(err, tasks.ErrInvalidState) || se.Status != tasks.StatusProcessing {
		t.Fatalf("got %v, want *StateError with status PROCESSING", err)
	}
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
	if !errors.As(err, &se) || se.Status != tasks.StatusProcessing {
		t.Fatalf("cancel that lost to a claim: %v, want *StateError naming PROCESSING", err)
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
}

func TestCancelMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	if err := f.store.Cancel(context.Background(), "t-none", ""); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

func TestCancelBadInputSendsNothing(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() {
		wantInputError(t, f.store.Cancel(context.Background(), "", ""), "taskID")
		wantInputError(t, f.store.Cancel(context.Background(), "t#1", ""), "taskID")
		wantInputError(t, f.store.Cancel(context.Background(), "t-1", strings.Repeat("x", 5000)), "reason")
	})
}
