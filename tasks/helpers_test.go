package tasks_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// epoch is where every test's clock starts.
var epoch = time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)

type fixture struct {
	db    *dynamotest.DB
	store *tasks.Store
	crash *crashSwitch // the store's requests pass through it
}

// newFixture is a store on a fresh fake whose clock stands at epoch and
// moves only by db.Advance; the store reads the fake's clock, and sends
// its requests through a crashSwitch (see crashOn).
func newFixture(t testing.TB, opts ...func(*tasks.Options)) *fixture {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	sw := &crashSwitch{API: db}
	// The switch wraps the fake as a table.API only, which tells no time
	// (table.ClockOf): the store is given the fake's clock.
	f := &fixture{db: db, store: newStore(t, sw, db.Now, opts...), crash: sw}
	require.NoError(t, f.store.EnsureTable(context.Background()))
	return f
}

// layout is the option of the history layout a test runs under: the
// default (every status change an event item) or CompactHistory.
func layout(compact bool) func(*tasks.Options) {
	return func(o *tasks.Options) { o.CompactHistory = compact }
}

func layoutName(compact bool) string {
	if compact {
		return "compact"
	}
	return "event-items"
}

// crashSwitch passes every request on to the fake, but fails the one a
// test marked (fixture.crashOn) with errCrash before it is made, as if the
// caller died just then. A mark names the operation and the kind of item
// (its "type": TASK, EVENT, IDEMPOTENCY, CLAIM, CONFIG, told from its
// key), so it hits the request meant even among requests sent at once.
type crashSwitch struct {
	table.API
	mu       sync.Mutex
	op, kind string
}

func (c *crashSwitch) hit(op string, key map[string]types.AttributeValue) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.op != op || c.kind != kindOf(key) {
		return false
	}
	c.op, c.kind = "", ""
	return true
}

// kindOf is the kind of item key names, by its prefixes.
func kindOf(key map[string]types.AttributeValue) string {
	pk, _ := key["PK"].(*types.AttributeValueMemberS)
	sk, _ := key["SK"].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return ""
	}
	switch {
	case strings.HasPrefix(pk.Value, "TASK#") && sk.Value == "META":
		return "TASK"
	case strings.HasPrefix(pk.Value, "TASK#"):
		return "EVENT"
	case strings.HasPrefix(pk.Value, "IDEM#"):
		return "IDEMPOTENCY"
	case strings.HasPrefix(pk.Value, "WORKER#"):
		return "CLAIM"
	}
	return pk.Value
}

func (c *crashSwitch) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if c.hit("PutItem", in.Item) {
		return nil, errCrash
	}
	return c.API.PutItem(ctx, in, opts...)
}

func (c *crashSwitch) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if c.hit("UpdateItem", in.Key) {
		return nil, errCrash
	}
	return c.API.UpdateItem(ctx, in, opts...)
}

func (c *crashSwitch) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if c.hit("DeleteItem", in.Key) {
		return nil, errCrash
	}
	return c.API.DeleteItem(ctx, in, opts...)
}

// crashOn makes the store's next op request on an item of kind fail with
// errCrash (the write is not made).
func (f *fixture) crashOn(op, kind string) {
	f.crash.mu.Lock()
	defer f.crash.mu.Unlock()
	f.crash.op, f.crash.kind = op, kind
}

// newStore is a store on api with the clock now; it does not create the
// table. It has one shard, the seed's exact layout (so tests can read keys
// and a single oldest-first order), unless opts say otherwise; the tests
// of sharding, the load test and the examples use more.
func newStore(t testing.TB, api table.API, now func() time.Time, opts ...func(*tasks.Options)) *tasks.Store {
	t.Helper()
	store, err := tasks.NewStore(api, nil, append([]func(*tasks.Options){func(o *tasks.Options) { o.Clock = now }, tasks.Shards(1)}, opts...)...)
	require.NoError(t, err)
	return store
}

// submit submits a task without an idempotency key, one microsecond after
// the previous one so that creation order is visible.
func (f *fixture) submit(t testing.TB, payload string) *tasks.Task {
	t.Helper()
	f.db.Advance(time.Microsecond)
	task, created, err := f.store.Submit(context.Background(), tasks.SubmitInput{Payload: []byte(payload)})
	require.NoError(t, err, "Submit(%q)", payload)
	require.True(t, created, "Submit(%q) created nothing", payload)
	return task
}

func (f *fixture) claim(t testing.TB, worker string) *tasks.Claim {
	t.Helper()
	c, err := f.store.Claim(context.Background(), worker)
	require.NoError(t, err, "Claim(%q)", worker)
	return c
}

func (f *fixture) get(t testing.TB, id string) *tasks.Task {
	t.Helper()
	task, err := f.store.Get(context.Background(), id)
	require.NoError(t, err, "Get(%q)", id)
	return task
}

// raw reads an item of the table as stored.
func (f *fixture) raw(t testing.TB, pk, sk string) table.Item {
	t.Helper()
	var it table.Item
	err := f.store.Table().Get(context.Background(), f.store.Table().Key(pk, sk), &it, table.Consistent())
	require.NoError(t, err, "raw item %s/%s", pk, sk)
	return it
}

// str is a string attribute of a raw item ("" when absent).
func str(it table.Item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// num is a number attribute of a raw item, as DynamoDB writes it ("" when
// absent).
func num(t testing.TB, it table.Item, name string) string {
	t.Helper()
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}

// wantInputError asserts err is the typed bad-input error naming field.
func wantInputError(t testing.TB, err error, field string) {
	t.Helper()
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, table.ErrInvalidInput)
	assert.Equal(t, field, ie.Field, "InputError.Field of %v", err)
}

var allOps = []string{"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
	"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems"}

func (f *fixture) totalCalls() int {
	n := 0
	for _, op := range allOps {
		n += f.db.Calls(op)
	}
	return n
}

// totalWrites is how many write requests the fake has served.
func (f *fixture) totalWrites() int { return writeCalls(f.db) }

// noRequests runs fn and fails if it sent anything to DynamoDB.
func (f *fixture) noRequests(t testing.TB, fn func()) {
	t.Helper()
	before := f.totalCalls()
	fn()
	assert.Equal(t, before, f.totalCalls(), "bad input sent requests to DynamoDB")
}

// eventTypes is a history as its event types.
func eventTypes(events []tasks.Event) []tasks.EventType {
	out := make([]tasks.EventType, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

func (f *fixture) history(t testing.TB, id string) []tasks.Event {
	t.Helper()
	h, err := f.store.History(context.Background(), id)
	require.NoError(t, err, "History(%q)", id)
	return h
}

// wantHistory asserts the history's event types and that its sequence
// numbers run 1, 2, ... without a gap.
func wantHistory(t testing.TB, events []tasks.Event, want ...tasks.EventType) {
	t.Helper()
	require.Equal(t, want, eventTypes(events), "history")
	for i, e := range events {
		require.Equal(t, i+1, e.Seq, "event %d: history has a gap or is out of order", i)
	}
}

// claimItems returns every WORKER claim item in the table, by a scan that
// only tests afford.
func claimItems(t testing.TB, tb *table.Table) []table.Item {
	t.Helper()
	filter := expression.Name("type").Equal(expression.Value("CLAIM"))
	var out []table.Item
	for it, err := range table.ScanAll[table.Item](context.Background(), tb, table.Scan{Filter: &filter, Consistent: true}) {
		require.NoError(t, err, "scan for claim items")
		out = append(out, it)
	}
	return out
}

// heldClaims returns the WORKER claim items of claims that still hold:
// their task is PROCESSING under that worker and attempt. Every end of a
// lease deletes its claim item; one a Complete cut off before its delete
// leaves expires by its ttl.
func heldClaims(t testing.TB, store *tasks.Store) []table.Item {
	t.Helper()
	var held []table.Item
	for _, it := range claimItems(t, store.Table()) {
		task, err := store.Get(context.Background(), str(it, "taskId"))
		require.NoError(t, err, "task of claim item %v", it)
		attempt, _ := it["attempt"].(*types.AttributeValueMemberN)
		if task.Status == tasks.StatusProcessing && task.Owner == str(it, "worker") && attempt != nil && attempt.Value == fmt.Sprint(task.Attempt) {
			held = append(held, it)
		}
	}
	return held
}

// pendingMeta answers GetItem of one task's META with a snapshot taken
// while it was PENDING.
type pendingMeta struct {
	table.API
	task *tasks.Task
}

func (p pendingMeta) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if pk, ok := in.Key["PK"].(*types.AttributeValueMemberS); ok && pk.Value == "TASK#"+p.task.ID {
		return &dynamodb.GetItemOutput{Item: table.Item{
			"PK":        &types.AttributeValueMemberS{Value: pk.Value},
			"SK":        &types.AttributeValueMemberS{Value: "META"},
			"taskId":    &types.AttributeValueMemberS{Value: p.task.ID},
			"status":    &types.AttributeValueMemberS{Value: string(p.task.Status)},
			"attempt":   &types.AttributeValueMemberN{Value: fmt.Sprint(p.task.Attempt)},
			"events":    &types.AttributeValueMemberN{Value: fmt.Sprint(p.task.Events)},
			"createdAt": &types.AttributeValueMemberS{Value: p.task.CreatedAt.Format("2006-01-02T15:04:05.000000Z")},
			"updatedAt": &types.AttributeValueMemberS{Value: p.task.UpdatedAt.Format("2006-01-02T15:04:05.000000Z")},
		}}, nil
	}
	return p.API.GetItem(ctx, in, opts...)
}

// writeLog is a table.API that records every write request it passes on:
// its operation and whether DynamoDB applied it.
type writeLog struct {
	table.API
	mu      sync.Mutex
	sent    map[string]int // write requests by operation
	applied map[string]int // ... of which DynamoDB applied
}

func newWriteLog(api table.API) *writeLog {
	return &writeLog{API: api, sent: map[string]int{}, applied: map[string]int{}}
}

func (w *writeLog) record(op string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent[op]++
	if err == nil {
		w.applied[op]++
	}
}

// reset forgets what was recorded.
func (w *writeLog) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent, w.applied = map[string]int{}, map[string]int{}
}

// counts returns what was sent and what was applied, by operation.
func (w *writeLog) counts() (sent, applied map[string]int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.sent), maps.Clone(w.applied)
}

func (w *writeLog) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := w.API.PutItem(ctx, in, opts...)
	w.record("PutItem", err)
	return out, err
}

func (w *writeLog) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := w.API.UpdateItem(ctx, in, opts...)
	w.record("UpdateItem", err)
	return out, err
}

func (w *writeLog) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := w.API.DeleteItem(ctx, in, opts...)
	w.record("DeleteItem", err)
	return out, err
}

func (w *writeLog) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := w.API.BatchWriteItem(ctx, in, opts...)
	w.record("BatchWriteItem", err)
	return out, err
}

func (w *writeLog) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := w.API.TransactWriteItems(ctx, in, opts...)
	w.record("TransactWriteItems", err)
	return out, err
}

// tableItems is every item of the store's table, by a strongly consistent
// scan only tests afford, keyed by "PK/SK".
func tableItems(t testing.TB, store *tasks.Store) map[string]table.Item {
	t.Helper()
	out := map[string]table.Item{}
	for it, err := range table.ScanAll[table.Item](context.Background(), store.Table(), table.Scan{Consistent: true}) {
		require.NoError(t, err, "scan the table")
		out[str(it, "PK")+"/"+str(it, "SK")] = it
	}
	return out
}
