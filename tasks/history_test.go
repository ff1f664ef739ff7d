package tasks_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestHistoryOfMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	_, err := f.store.History(context.Background(), "t-none")
	require.ErrorIs(t, err, tasks.ErrNotFound)
}

func TestHistoryBadIDSendsNothing(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() {
		_, err := f.store.History(context.Background(), "TASK#x#y")
		wantInputError(t, err, "taskID")
		_, err = f.store.Get(context.Background(), "")
		wantInputError(t, err, "taskID")
		_, err = f.store.Maintenance().WorkerTasks(context.Background(), "")
		wantInputError(t, err, "workerID")
	})
}

func TestGetMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	_, err := f.store.Get(context.Background(), "t-none")
	require.ErrorIs(t, err, tasks.ErrNotFound)
	require.ErrorIs(t, err, table.ErrNotFound)
}

func TestFullHistoryRefusesTheChangeBeforeAnyWrite(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "x")
	// A task whose history already holds EVENT#9999.
	err := f.store.Table().Update(ctx, f.store.Table().Key("TASK#"+task.ID, "META"),
		expression.Set(expression.Name("events"), expression.Value(tasks.MaxEvents)))
	require.NoError(t, err)
	writes := f.db.Calls("TransactWriteItems")
	err = f.store.Cancel(ctx, task.ID, "")
	require.ErrorIs(t, err, keys.ErrOverflow, "a 10,000th event")
	require.Equal(t, writes, f.db.Calls("TransactWriteItems"), "the overflowing change was sent")
	require.Equal(t, tasks.StatusPending, f.get(t, task.ID).Status, "task status")
}
