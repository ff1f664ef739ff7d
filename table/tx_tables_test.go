package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// testWriteTxSpansTables: a job moves and a task is enqueued in one
// transaction over two tables (what jobs needs to hand work to tasks); a
// failure on either table applies nothing on both.
func testWriteTxSpansTables(t *testing.T, be backend) {
	jobs, tasks := newJobs(t, be), newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, jobs.Put(ctx, job{PK: "U", SK: "J", Status: "queued"}))

	tx := jobs.WriteTx().Put(job{PK: "U", SK: "J", Status: "processing"})
	tx.On(tasks).Create(job{PK: "TASK", SK: "J", Status: "pending"})
	require.NoError(t, tx.Run(ctx))
	var j, task job
	require.NoError(t, jobs.Get(ctx, jobs.Key("U", "J"), &j))
	assert.Equal(t, "processing", j.Status)
	require.NoError(t, tasks.Get(ctx, tasks.Key("TASK", "J"), &task))
	assert.Equal(t, "pending", task.Status)

	// The task exists now: the same enqueue fails on the tasks table, and
	// the job's move on the other table is not applied either.
	tx = jobs.WriteTx().Put(job{PK: "U", SK: "J", Status: "done"})
	err := tx.On(tasks).Create(job{PK: "TASK", SK: "J", Status: "pending"}).Run(ctx)
	require.ErrorIs(t, err, table.ErrAlreadyExists)
	var txe *table.TxError
	require.ErrorAs(t, err, &txe)
	require.Len(t, txe.Reasons, 1)
	assert.Equal(t, 1, txe.Reasons[0].Index)
	assert.Equal(t, tasks.Name(), txe.Reasons[0].Table)
	assert.Equal(t, "Create", txe.Reasons[0].Action)
	require.NoError(t, jobs.Get(ctx, jobs.Key("U", "J"), &j))
	assert.Equal(t, "processing", j.Status, "all or nothing across tables")
}

func TestWriteTxOnKeepsItemsOfEachTableApart(t *testing.T) {
	db, a := fakeJobs(t)
	s := jobsSchema("other")
	require.NoError(t, s.EnsureTable(context.Background(), db))
	b := table.New(db, s)
	ctx := context.Background()

	// One key on two tables is two items: allowed.
	tx := a.WriteTx().Put(job{PK: "U", SK: "J"})
	require.NoError(t, tx.On(b).Put(job{PK: "U", SK: "J"}).Run(ctx))

	// One item twice, through two handles on its table: refused before
	// anything is sent.
	calls := db.Calls("TransactWriteItems")
	tx = a.WriteTx().Put(job{PK: "U", SK: "J"})
	tx.On(b).Put(job{PK: "U", SK: "K"})
	err := tx.On(a).Delete(a.Key("U", "J")).Run(ctx)
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, ie.Reason, "action 0")
	assert.Equal(t, calls, db.Calls("TransactWriteItems"))
}

func TestWriteTxOnNilOrAnotherAPIIsAnInputError(t *testing.T) {
	db, a := fakeJobs(t)
	ctx := context.Background()
	err := a.WriteTx().Put(job{PK: "U", SK: "J"}).On(nil).Put(job{PK: "U", SK: "K"}).Run(ctx)
	assert.ErrorIs(t, err, table.ErrInvalidInput)

	elsewhere := dynamotest.New()
	s := jobsSchema("jobs")
	require.NoError(t, s.EnsureTable(ctx, elsewhere))
	err = a.WriteTx().Put(job{PK: "U", SK: "J"}).On(table.New(elsewhere, s)).Put(job{PK: "U", SK: "K"}).Run(ctx)
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "tx.On", ie.Field)
	assert.Zero(t, db.Calls("TransactWriteItems"), "nothing sent")
	assert.Zero(t, elsewhere.Calls("TransactWriteItems"), "nothing sent")
	assert.True(t, errors.Is(err, table.ErrInvalidInput))
}
