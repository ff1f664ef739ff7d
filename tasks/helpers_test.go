package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// epoch is where every test's clock starts.
var epoch = time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)

// manualClock is a clock tests move by hand, shared by the store and the
// fake.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *manualClock { return &manualClock{now: epoch} }

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type fixture struct {
	db    *dynamotest.DB
	clock *manualClock
	store *tasks.Store
}

// newFixture is a store on a fresh fake; the store's clock is a manual
// clock starting at epoch.
func newFixture(t testing.TB, opts ...func(*tasks.Options)) *fixture {
	t.Helper()
	clock := newClock()
	f := newFixtureOnClock(t, clock.Now, opts...)
	f.clock = clock
	return f
}

// newFixtureOnClock is a store on a fresh fake, both on now.
func newFixtureOnClock(t testing.TB, now func() time.Time, opts ...func(*tasks.Options)) *fixture {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = now })
	all := append([]func(*tasks.Options){func(o *tasks.Options) { o.Clock = now }}, opts...)
	store := tasks.NewStore(db, all...)
	if err := store.Table().Schema().Create(context.Background(), db); err != nil {
		t.Fatalf("create table: %v", err)
	}
	return &fixture{db: db, store: store}
}

// submit submits a task without an idempotency key, one microsecond after
// the previous one so that creation order is visible.
func (f *fixture) submit(t testing.TB, payload string) *tasks.Task {
	t.Helper()
	f.clock.Advance(time.Microsecond)
	task, created, err := f.store.Submit(context.Background(), tasks.SubmitInput{Payload: []byte(payload)})
	if err != nil || !created {
		t.Fatalf("Submit(%q) = %v, created %t", payload, err, created)
	}
	return task
}

func (f *fixture) claim(t testing.TB, worker string) *tasks.Claim {
	t.Helper()
	c, err := f.store.Claim(context.Background(), worker)
	if err != nil {
		t.Fatalf("Claim(%q): %v", worker, err)
	}
	return c
}

func (f *fixture) get(t testing.TB, id string) *tasks.Task {
	t.Helper()
	task, err := f.store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return task
}

// raw reads an item of the table as stored.
func (f *fixture) raw(t testing.TB, pk, sk string) table.Item {
	t.Helper()
	var it table.Item
	if err := f.store.Table().Get(context.Background(), f.store.Table().Key(pk, sk), &it, table.Consistent()); err != nil {
		t.Fatalf("raw item %s/%s: %v", pk, sk, err)
	}
	return it
}

// str is a string attribute of a raw item ("" when absent).
func str(it table.Item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// wantInputError asserts err is the typed bad-input error naming field.
func wantInputError(t testing.TB, err error, field string) {
	t.Helper()
	var ie *table.InputError
	if !errors.As(err, &ie) || !errors.Is(err, table.ErrInvalidInput) {
		t.Fatalf("got %v (%T), want *table.InputError for %s", err, err, field)
	}
	if ie.Field != field {
		t.Fatalf("InputError.Field = %q, want %q (%v)", ie.Field, field, err)
	}
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

// noRequests runs fn and fails if it sent anything to DynamoDB.
func (f *fixture) noRequests(t testing.TB, fn func()) {
	t.Helper()
	before := f.totalCalls()
	fn()
	if after := f.totalCalls(); after != before {
		t.Fatalf("bad input sent %d requests to DynamoDB", after-before)
	}
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
	if err != nil {
		t.Fatalf("History(%q): %v", id, err)
	}
	return h
}

func wantHistory(t testing.TB, events []tasks.Event, want ...tasks.EventType) {
	t.Helper()
	if got := eventTypes(events); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	for i, e := range events {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d: history has a gap or is out of order", i, e.Seq)
		}
	}
}

// claimItems returns every WORKER claim item in the table, by a scan that
// only tests afford.
func claimItems(t testing.TB, tb *table.Table) []table.Item {
	t.Helper()
	filter := expression.Name("type").Equal(expression.Value("CLAIM"))
	var out []table.Item
	for it, err := range table.ScanAll[table.Item](context.Background(), tb, table.Scan{Filter: &filter, Consistent: true}) {
		if err != nil {
			t.Fatalf("scan for claim items: %v", err)
		}
		out = append(out, it)
	}
	return out
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
