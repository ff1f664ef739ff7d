package tasks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestHistoryOfMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	if _, err := f.store.History(context.Background(), "t-none"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

func TestHistoryBadIDSendsNothing(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() {
		_, err := f.store.History(context.Background(), "TASK#x#y")
		wantInputError(t, err, "taskID")
		_, err = f.store.Get(context.Background(), "")
		wantInputError(t, err, "taskID")
		_, err = f.store.WorkerTasks(context.Background(), "")
		wantInputError(t, err, "workerID")
	})
}

func TestGetMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	if _, err := f.store.Get(context.Background(), "t-none"); !errors.Is(err, tasks.ErrNotFound) || !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

func TestFullHistoryRefusesTheChangeBeforeAnyWrite(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	// A task whose history already holds EVENT#9999.
	err := f.store.Table().Update(ctx, f.store.Table().Key("TASK#"+task.ID, "META"),
		expression.Set(expression.Name("events"), expression.Value(tasks.MaxEvents)))
	if err != nil {
		t.Fatal(err)
	}
	writes := f.db.Calls("TransactWriteItems")
	err = f.store.Cancel(ctx, task.ID, "")
	if !errors.Is(err, keys.ErrOverflow) {
		t.Fatalf("a 10,000th event: %v, want keys.ErrOverflow", err)
	}
	if f.db.Calls("TransactWriteItems") != writes {
		t.Fatal("the overflowing change was sent")
	}
	if got := f.get(t, task.ID); got.Status != tasks.StatusPending {
		t.Fatalf("task became %s", got.Status)
	}
}
