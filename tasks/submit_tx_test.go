package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// jobsTable is a second table on the fixture's fake holding one job "j-1"
// in status FAILED, for transactions that move a job and submit a task.
func (f *fixture) jobsTable(t *testing.T) *table.Table {
	t.Helper()
	schema := table.Schema{Name: "jobs", PartitionKey: table.Attribute{Name: "jobId", Type: types.ScalarAttributeTypeS}}
	db := f.store.Table().DB() // one transaction goes to one DynamoDB client
	require.NoError(t, schema.EnsureTable(context.Background(), db))
	jt := table.New(db, schema)
	require.NoError(t, jt.Put(context.Background(), table.Item{
		"jobId":  &types.AttributeValueMemberS{Value: "j-1"},
		"status": &types.AttributeValueMemberS{Value: "FAILED"},
	}))
	return jt
}

// requeue starts a transaction that moves job j-1 from FAILED to QUEUED.
func requeue(jt *table.Table) *table.WriteTx {
	wasFailed := expression.Name("status").Equal(expression.Value("FAILED"))
	return jt.WriteTx().Update(jt.Key("j-1"), expression.Set(expression.Name("status"), expression.Value("QUEUED")), table.If(wasFailed))
}

func (f *fixture) jobStatus(t *testing.T, jt *table.Table) string {
	t.Helper()
	var it table.Item
	require.NoError(t, jt.Get(context.Background(), jt.Key("j-1"), &it, table.Consistent()))
	return str(it, "status")
}

func TestSubmitTxCreatesTheTaskWithTheCallersWritesAcrossTables(t *testing.T) {
	f := newFixture(t)
	jt := f.jobsTable(t)
	ctx := context.Background()

	tx := requeue(jt)
	task, created, err := f.store.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: "replay-j-1", Payload: []byte("j-1")})
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, tasks.StatusPending, task.Status)
	_, err = f.store.Get(ctx, task.ID)
	require.ErrorIs(t, err, tasks.ErrNotFound, "SubmitTx wrote before the transaction ran")

	require.NoError(t, tx.Run(ctx))
	assert.Equal(t, "QUEUED", f.jobStatus(t, jt))
	assert.Equal(t, task, f.get(t, task.ID), "the task SubmitTx returned is the one stored")
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted)
	assert.Equal(t, f.history(t, task.ID), eventItems(t, f.store.Table(), task.ID), "EVENT#0001 is written in the transaction")
	f.raw(t, "IDEM#replay-j-1", "TASK#"+task.ID)
	c := f.claim(t, "w-1")
	assert.Equal(t, []byte("j-1"), c.Task.Payload)
}

func TestSubmitTxWritesNothingWhenTheCallersConditionFails(t *testing.T) {
	f := newFixture(t)
	jt := f.jobsTable(t)
	ctx := context.Background()
	require.NoError(t, requeue(jt).Run(ctx)) // the job is QUEUED now

	tx := requeue(jt)
	task, created, err := f.store.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: "replay-j-1", Payload: []byte("j-1")})
	require.NoError(t, err)
	require.True(t, created)
	require.ErrorIs(t, tx.Run(ctx), table.ErrConditionFailed)

	_, err = f.store.Get(ctx, task.ID)
	assert.ErrorIs(t, err, tasks.ErrNotFound, "META written by a canceled transaction")
	_, err = f.store.History(ctx, task.ID)
	assert.ErrorIs(t, err, tasks.ErrNotFound, "SUBMITTED event written by a canceled transaction")
	var idem table.Item
	assert.ErrorIs(t, f.store.Table().Get(ctx, f.store.Table().Key("IDEM#replay-j-1", "TASK#"+task.ID), &idem, table.Consistent()), table.ErrNotFound)
	page, err := f.store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

func TestSubmitTxWithAUsedKeyAddsNothingAndReturnsTheTask(t *testing.T) {
	f := newFixture(t)
	jt := f.jobsTable(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "replay-j-1", Payload: []byte("j-1")}
	first, created, err := f.store.Submit(ctx, in)
	require.NoError(t, err)
	require.True(t, created)

	tx := requeue(jt)
	again, created, err := f.store.SubmitTx(ctx, tx, in)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, first, again)
	writes := f.db.Calls("TransactWriteItems")
	require.NoError(t, tx.Run(ctx), "the transaction holds only the caller's move")
	assert.Equal(t, writes+1, f.db.Calls("TransactWriteItems"))
	assert.Equal(t, "QUEUED", f.jobStatus(t, jt))
	wantHistory(t, f.history(t, first.ID), tasks.EventSubmitted)
}

func TestSubmitTxRefusesAUsedKeyWithAnotherPayload(t *testing.T) {
	f := newFixture(t)
	jt := f.jobsTable(t)
	ctx := context.Background()
	_, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "replay-j-1", Payload: []byte("j-1")})
	require.NoError(t, err)

	tx := requeue(jt)
	task, created, err := f.store.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: "replay-j-1", Payload: []byte("j-2")})
	require.ErrorIs(t, err, tasks.ErrIdempotencyMismatch)
	assert.Nil(t, task)
	assert.False(t, created)
}

// Two transactions submit one key, each built before either runs: the
// first to run creates the task, the second is canceled as a whole (its
// job move too), and building it again finds the task and leaves it out.
func TestSubmitTxRaceOnOneKeyCreatesOneTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "k", Payload: []byte("p")}
	tb := f.store.Table()
	marker := func(n string) table.Item {
		return table.Item{"PK": &types.AttributeValueMemberS{Value: "MARKER#" + n}, "SK": &types.AttributeValueMemberS{Value: "M"}}
	}
	txA, txB := tb.WriteTx().Put(marker("a")), tb.WriteTx().Put(marker("b"))
	a, createdA, err := f.store.SubmitTx(ctx, txA, in)
	require.NoError(t, err)
	b, createdB, err := f.store.SubmitTx(ctx, txB, in)
	require.NoError(t, err)
	require.True(t, createdA)
	require.True(t, createdB)
	require.Equal(t, a.ID, b.ID, "one key, one task id")

	require.NoError(t, txA.Run(ctx))
	require.ErrorIs(t, txB.Run(ctx), table.ErrAlreadyExists)
	var it table.Item
	assert.ErrorIs(t, tb.Get(ctx, tb.Key("MARKER#b", "M"), &it, table.Consistent()), table.ErrNotFound, "the loser's own write applied")

	txB = tb.WriteTx().Put(marker("b"))
	again, created, err := f.store.SubmitTx(ctx, txB, in)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, a.ID, again.ID)
	require.NoError(t, txB.Run(ctx))
	wantHistory(t, f.history(t, a.ID), tasks.EventSubmitted)
}

func TestSubmitTxRefusesBadInputWithoutARequest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tx := f.store.Table().WriteTx()
	f.noRequests(t, func() {
		_, _, err := f.store.SubmitTx(ctx, nil, tasks.SubmitInput{Payload: []byte("p")})
		wantInputError(t, err, "tx")
		_, _, err = f.store.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: "a#b"})
		wantInputError(t, err, "IdempotencyKey")
		_, _, err = f.store.SubmitTx(ctx, tx, tasks.SubmitInput{Payload: make([]byte, tasks.MaxPayloadSize+1)})
		wantInputError(t, err, "Payload")
		_, _, err = f.store.SubmitTx(ctx, tx, tasks.SubmitInput{Payload: []byte("p")}, tasks.FreshKey())
		wantInputError(t, err, "IdempotencyKey")
		var nilStore *tasks.Store
		_, _, err = nilStore.SubmitTx(ctx, tx, tasks.SubmitInput{})
		assert.ErrorIs(t, err, table.ErrInvalidInput)
	})
	assert.ErrorIs(t, tx.Run(ctx), table.ErrInvalidInput, "bad input added actions to the transaction")
}

func TestSubmitTxOnAnotherDynamoDBIsRefusedByRun(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	other := dynamotest.New()
	schema := table.Schema{Name: "jobs", PartitionKey: table.Attribute{Name: "jobId", Type: types.ScalarAttributeTypeS}}
	require.NoError(t, schema.EnsureTable(ctx, other))
	jt := table.New(other, schema)
	tx := jt.WriteTx().Put(table.Item{"jobId": &types.AttributeValueMemberS{Value: "j-1"}})
	_, _, err := f.store.SubmitTx(ctx, tx, tasks.SubmitInput{Payload: []byte("p")})
	require.NoError(t, err)
	assert.ErrorIs(t, tx.Run(ctx), table.ErrInvalidInput)
	page, err := f.store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

// TestSubmitTxWithAFreshKeyReadsNothing: a key the caller vouches for is
// submitted with no request before the transaction, which is the one
// request of the submission (the readiness signal aside), and the task
// it creates is the one an ordinary SubmitTx creates.
func TestSubmitTxWithAFreshKeyReadsNothing(t *testing.T) {
	f := newFixture(t)
	jt := f.jobsTable(t)
	ctx := context.Background()
	meter := dynamotest.NewMeter(f.db)
	metered := newStore(t, meter, f.db.Now)
	// A store reads the table's shard count once, on its first call.
	_, _, err := metered.SubmitTx(ctx, jt.WriteTx(), tasks.SubmitInput{Payload: []byte("warm")})
	require.NoError(t, err)
	meter.Reset()
	tx := requeue(table.New(meter, jt.Schema()))
	task, created, err := metered.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: "j-1/1", Payload: []byte("j-1")}, tasks.FreshKey())
	require.NoError(t, err)
	assert.True(t, created)
	built := meter.Usage()
	assert.Zero(t, built.ReadUnits, "a fresh key is not read")
	assert.Zero(t, built.Calls["GetItem"]+built.Calls["Query"], "a fresh key is not read: %v", built.Calls)
	require.NoError(t, tx.Run(ctx))
	ran := meter.Usage()
	assert.Equal(t, 1, ran.Calls["TransactWriteItems"])
	assert.Zero(t, ran.ReadUnits)
	assert.Equal(t, built.Requests+1, ran.Requests, "the transaction is the submission's one request (the readiness signal aside)")

	assert.Equal(t, "QUEUED", f.jobStatus(t, jt))
	assert.Equal(t, task, f.get(t, task.ID), "the task SubmitTx returned is the one stored")
	f.raw(t, "IDEM#j-1/1", "TASK#"+task.ID)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted)
	c := f.claim(t, "w-1")
	assert.Equal(t, []byte("j-1"), c.Task.Payload)
}

// TestSubmitTxWithAFreshKeyThatWasUsedCancelsTheTransaction: a caller
// wrong about its key gets no second task and no task of the key
// overwritten: the transaction is canceled as a whole, its own write too.
// So is it when only the task is left (its IDEM item expired).
func TestSubmitTxWithAFreshKeyThatWasUsedCancelsTheTransaction(t *testing.T) {
	f := newFixture(t)
	jt := f.jobsTable(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "j-1/1", Payload: []byte("j-1")}
	first, created, err := f.store.Submit(ctx, in)
	require.NoError(t, err)
	require.True(t, created)

	for _, payload := range [][]byte{in.Payload, []byte("other")} {
		tx := requeue(jt)
		_, created, err = f.store.SubmitTx(ctx, tx, tasks.SubmitInput{IdempotencyKey: in.IdempotencyKey, Payload: payload}, tasks.FreshKey())
		require.NoError(t, err, "nothing is read, so nothing is known before Run")
		require.True(t, created)
		require.ErrorIs(t, tx.Run(ctx), table.ErrAlreadyExists)
		assert.Equal(t, "FAILED", f.jobStatus(t, jt), "the caller's own write applied")
		assert.Equal(t, first, f.get(t, first.ID), "the key's task changed")
	}

	// Past Retention the IDEM item is gone, the task lives on.
	var idem table.Item
	tb := f.store.Table()
	require.NoError(t, tb.Get(ctx, tb.Key("IDEM#j-1/1", "TASK#"+first.ID), &idem, table.Consistent()))
	require.NoError(t, tb.Delete(ctx, tb.Key("IDEM#j-1/1", "TASK#"+first.ID)))
	tx := requeue(jt)
	_, _, err = f.store.SubmitTx(ctx, tx, in, tasks.FreshKey())
	require.NoError(t, err)
	require.ErrorIs(t, tx.Run(ctx), table.ErrAlreadyExists)
	assert.Equal(t, "FAILED", f.jobStatus(t, jt))
	assert.Equal(t, first, f.get(t, first.ID))
	var gone table.Item
	assert.ErrorIs(t, tb.Get(ctx, tb.Key("IDEM#j-1/1", "TASK#"+first.ID), &gone, table.Consistent()), table.ErrNotFound, "the IDEM item came back")
}

// TestSubmitTxOfAKeyWhoseItemsExpiredButAreNotDeletedCreatesAFreshTask:
// an IDEM item whose ttl has passed is gone for SubmitTx, though DynamoDB
// has not deleted it yet (its TTL process runs days late). The key is
// free: SubmitTx submits a fresh task, with a new IDEM item, whatever the
// payload, and the key names that task from then on.
func TestSubmitTxOfAKeyWhoseItemsExpiredButAreNotDeletedCreatesAFreshTask(t *testing.T) {
	for _, payload := range []string{"first", "second: another payload is no mismatch once the key expired"} {
		t.Run(payload, func(t *testing.T) {
			f := newFixture(t, tasks.Retention(day))
			f.stopSweeper(t)
			ctx := context.Background()
			old, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-6", Payload: []byte("first")})
			require.NoError(t, err)
			c := f.claim(t, "worker-1")
			require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
			f.db.Advance(day + time.Minute)
			require.NotNil(t, f.raw(t, "IDEM#order-6", "TASK#"+old.ID), "the expired IDEM item is still stored")

			in := tasks.SubmitInput{IdempotencyKey: "order-6", Payload: []byte(payload)}
			tx := f.store.Table().WriteTx()
			fresh, created, err := f.store.SubmitTx(ctx, tx, in)
			require.NoError(t, err, "SubmitTx of a key whose items expired")
			require.True(t, created)
			require.NoError(t, tx.Run(ctx))
			now := f.db.Now().Truncate(time.Microsecond)
			got := f.get(t, fresh.ID)
			assert.Equal(t, now, got.CreatedAt, "a fresh task, not the expired submission resumed")
			assert.Equal(t, tasks.StatusPending, got.Status)
			assert.Equal(t, payload, string(got.Payload))
			idem := f.raw(t, "IDEM#order-6", "TASK#"+fresh.ID)
			assert.Greater(t, ttlOf(t, idem), now.Unix(), "a new IDEM item guards the key")

			again, created, err := f.store.Submit(ctx, in)
			require.NoError(t, err)
			assert.False(t, created, "the key names the fresh task")
			assert.Equal(t, fresh.ID, again.ID)
		})
	}
}
