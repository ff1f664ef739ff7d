package tasks_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestSubmitWritesTheSeedLayout(t *testing.T) {
	f := newFixture(t)
	task, created, err := f.store.Submit(context.Background(), tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte(`{"resize":"photo.jpg"}`)})
	if err != nil || !created {
		t.Fatalf("Submit: %v, created %t", err, created)
	}
	if task.Status != tasks.StatusPending || task.Attempt != 0 || task.Events != 1 || !task.CreatedAt.Equal(epoch) {
		t.Fatalf("new task %+v", task)
	}
	meta := f.raw(t, "TASK#"+task.ID, "META")
	if got := str(meta, "GSI1PK"); got != "STATUS#PENDING" {
		t.Errorf("GSI1PK %q, want the seed's STATUS#PENDING", got)
	}
	if got := str(meta, "GSI1SK"); got != "CREATED#2026-09-23T10:00:00.000000Z" {
		t.Errorf("GSI1SK %q, want CREATED#<fixed-width UTC time>", got)
	}
	ev := f.raw(t, "TASK#"+task.ID, "EVENT#0001")
	if str(ev, "event") != "SUBMITTED" || str(ev, "GSI1PK") != "" {
		t.Errorf("EVENT#0001 = %v, want a SUBMITTED event outside GSI1", ev)
	}
	idem := f.raw(t, "IDEM#client-uuid", "TASK#"+task.ID)
	if str(idem, "taskId") != task.ID {
		t.Errorf("IDEM item %v does not map the key to %s", idem, task.ID)
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted)
}

func TestSubmitSameKeyReturnsFirstTaskAndWritesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("ship")}
	first, _, err := f.store.Submit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	writes := f.db.Calls("TransactWriteItems")
	again, created, err := f.store.Submit(ctx, in)
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("second Submit = %+v, created %t, %v; want task %s, not created", again, created, err, first.ID)
	}
	if f.db.Calls("TransactWriteItems") != writes {
		t.Fatal("a repeated key wrote a transaction; the IDEM GetItem should have answered")
	}
}

func TestSubmitSameKeyOtherPayloadRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("ship")})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("refund")})
	var ie *tasks.IdempotencyError
	if !errors.As(err, &ie) || !errors.Is(err, tasks.ErrIdempotencyMismatch) || ie.TaskID != first.ID {
		t.Fatalf("got %v, want *IdempotencyError naming %s", err, first.ID)
	}
	if got := f.get(t, first.ID); string(got.Payload) != "ship" {
		t.Fatalf("payload became %q", got.Payload)
	}
}

func TestSubmitFiftyGoroutinesSameKeyOneTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n = 50
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
	)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			task, c, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-uuid-7", Payload: []byte("once")})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("Submit: %v", err)
				return
			}
			ids[task.ID]++
			if c {
				created++
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(ids) != 1 || created != 1 {
		t.Fatalf("%d goroutines got tasks %v, %d created; want one task created once", n, ids, created)
	}
	pending := 0
	for _, err := range f.store.Pending(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		pending++
	}
	if pending != 1 {
		t.Fatalf("%d pending tasks, want 1", pending)
	}
}

func TestSubmitWithoutKeyCreatesATaskEachTime(t *testing.T) {
	f := newFixture(t)
	a, b := f.submit(t, "same"), f.submit(t, "same")
	if a.ID == b.ID {
		t.Fatal("two key-less submissions share an id")
	}
}

func TestSubmitBadInputSendsNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		in    tasks.SubmitInput
		field string
	}{
		{"key with the delimiter", tasks.SubmitInput{IdempotencyKey: "a#b"}, "IdempotencyKey"},
		{"key too long", tasks.SubmitInput{IdempotencyKey: strings.Repeat("k", 257)}, "IdempotencyKey"},
		{"key not UTF-8", tasks.SubmitInput{IdempotencyKey: "\xff"}, "IdempotencyKey"},
		{"payload too large", tasks.SubmitInput{Payload: make([]byte, tasks.MaxPayloadSize+1)}, "Payload"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.noRequests(t, func() {
				_, _, err := f.store.Submit(ctx, c.in)
				wantInputError(t, err, c.field)
			})
		})
	}
}

func TestSubmitNewIDOptionMustMakeValidIDs(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.NewID = func(time.Time) string { return "bad#id" } })
	f.noRequests(t, func() {
		_, _, err := f.store.Submit(context.Background(), tasks.SubmitInput{Payload: []byte("x")})
		if !errors.Is(err, table.ErrInvalidInput) {
			t.Fatalf("got %v, want ErrInvalidInput for an id with #", err)
		}
	})
}

// staleReads answers every eventually consistent GetItem with "no item",
// as a replica that has not seen a recent write may.
type staleReads struct{ table.API }

func (s staleReads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if in.ConsistentRead == nil || !*in.ConsistentRead {
		return &dynamodb.GetItemOutput{}, nil
	}
	return s.API.GetItem(ctx, in, opts...)
}

func TestSubmitLostRaceReturnsTheWinnersTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k1", Payload: []byte("p")})
	if err != nil {
		t.Fatal(err)
	}
	// A second store whose IDEM read misses goes on to write the IDEM
	// item, which attribute_not_exists refuses; it writes nothing more.
	stale := newStore(t, staleReads{f.db}, f.db.Now)
	writes := f.db.Calls("PutItem")
	got, created, err := stale.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k1", Payload: []byte("p")})
	if err != nil || created || got.ID != first.ID {
		t.Fatalf("lost race: %+v, created %t, %v; want task %s", got, created, err, first.ID)
	}
	if f.db.Calls("PutItem") != writes+1 {
		t.Fatal("the lost race did not stop at the refused IDEM write")
	}
	wantHistory(t, f.history(t, first.ID), tasks.EventSubmitted)
	_, _, err = stale.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k1", Payload: []byte("other")})
	if !errors.Is(err, tasks.ErrIdempotencyMismatch) {
		t.Fatalf("lost race with another payload: %v, want ErrIdempotencyMismatch", err)
	}
}
