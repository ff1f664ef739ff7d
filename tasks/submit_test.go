package tasks_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestSubmitWritesTheSeedLayout(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(layoutName(compact), func(t *testing.T) {
			f := newFixture(t, layout(compact))
			task, created, err := f.store.Submit(context.Background(), tasks.SubmitInput{IdempotencyKey: "client-uuid", Payload: []byte(`{"resize":"photo.jpg"}`)})
			require.NoError(t, err, "Submit")
			require.True(t, created, "Submit: created")
			require.Equal(t, tasks.StatusPending, task.Status, "new task %+v", task)
			require.Equal(t, 0, task.Attempt, "new task %+v", task)
			require.Equal(t, 1, task.Events, "new task %+v", task)
			require.True(t, task.CreatedAt.Equal(epoch), "new task %+v", task)
			meta := f.raw(t, "TASK#"+task.ID, "META")
			assert.Equal(t, "STATUS#PENDING", str(meta, "GSI1PK"), "GSI1PK, want the seed's STATUS#PENDING")
			assert.Equal(t, "CREATED#2026-09-23T10:00:00.000000Z", str(meta, "GSI1SK"), "GSI1SK, want CREATED#<fixed-width UTC time>")
			if compact {
				assert.Len(t, f.partition(t, task.ID), 1, "META alone: it tells the SUBMITTED event, EVENT#0001")
			} else {
				ev := f.raw(t, "TASK#"+task.ID, "EVENT#0001")
				assert.Equal(t, "SUBMITTED", str(ev, "event"), "the seed's EVENT#0001 (SUBMITTED)")
				assert.Equal(t, "2026-09-23T10:00:00.000000Z", str(ev, "at"))
				assert.Len(t, f.partition(t, task.ID), 2, "EVENT#0001 and META")
			}
			idem := f.raw(t, "IDEM#client-uuid", "TASK#"+task.ID)
			assert.Equal(t, task.ID, str(idem, "taskId"), "IDEM item %v does not map the key to the task", idem)
			wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted)
		})
	}
}

// TestSubmitSameKeyReturnsFirstTaskAndWritesNothing: a repeated key
// changes nothing in the table. Its one write request is the IDEM item's
// conditional put, which is the check itself (the seed's GetItem and
// attribute_not_exists PutItem in one request): DynamoDB refuses it and
// returns the first submission's item. No write applies, and every item
// is as it was.
func TestSubmitSameKeyReturnsFirstTaskAndWritesNothing(t *testing.T) {
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	log := newWriteLog(db)
	store := newStore(t, log, db.Now)
	ctx := context.Background()
	require.NoError(t, store.EnsureTable(ctx))
	in := tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("ship")}
	first, _, err := store.Submit(ctx, in)
	require.NoError(t, err)
	db.Advance(time.Minute) // a later submission would write later times
	before := tableItems(t, store)
	log.reset()
	again, created, err := store.Submit(ctx, in)
	require.NoError(t, err, "second Submit")
	require.False(t, created, "second Submit created a task")
	require.Equal(t, first.ID, again.ID, "second Submit: want the first task")
	sent, applied := log.counts()
	assert.Empty(t, applied, "write requests DynamoDB applied; want none")
	assert.Equal(t, map[string]int{"PutItem": 1}, sent, "write requests sent; want only the IDEM item's refused conditional put")
	assert.Equal(t, before, tableItems(t, store), "the table's items after a repeated key")
}

func TestSubmitSameKeyOtherPayloadRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, _, err := f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("ship")})
	require.NoError(t, err)
	_, _, err = f.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-42", Payload: []byte("refund")})
	var ie *tasks.IdempotencyError
	require.ErrorAs(t, err, &ie, "want *IdempotencyError")
	require.ErrorIs(t, err, tasks.ErrIdempotencyMismatch)
	require.Equal(t, first.ID, ie.TaskID, "*IdempotencyError should name the first task")
	require.Equal(t, "ship", string(f.get(t, first.ID).Payload), "payload changed")
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
			if !assert.NoError(t, err, "Submit") {
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
	require.Len(t, ids, 1, "%d goroutines got tasks %v; want one task", n, ids)
	require.Equal(t, 1, created, "tasks created; want one task created once")
	pending := 0
	for _, err := range f.store.Maintenance().Pending().All(ctx) {
		require.NoError(t, err)
		pending++
	}
	require.Equal(t, 1, pending, "pending tasks")
}

func TestSubmitWithoutKeyCreatesATaskEachTime(t *testing.T) {
	f := newFixture(t)
	a, b := f.submit(t, "same"), f.submit(t, "same")
	require.NotEqual(t, a.ID, b.ID, "two key-less submissions share an id")
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
		require.ErrorIs(t, err, table.ErrInvalidInput, "want ErrInvalidInput for an id with #")
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
	require.NoError(t, err)
	// A second store whose IDEM read misses goes on to write the IDEM
	// item, which attribute_not_exists refuses; it writes nothing more.
	stale := newStore(t, staleReads{f.db}, f.db.Now)
	writes := f.db.Calls("PutItem")
	got, created, err := stale.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k1", Payload: []byte("p")})
	require.NoError(t, err, "lost race")
	require.False(t, created, "lost race created a task")
	require.Equal(t, first.ID, got.ID, "lost race: want the winner's task")
	require.Equal(t, writes+1, f.db.Calls("PutItem"), "the lost race did not stop at the refused IDEM write")
	wantHistory(t, f.history(t, first.ID), tasks.EventSubmitted)
	_, _, err = stale.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "k1", Payload: []byte("other")})
	require.ErrorIs(t, err, tasks.ErrIdempotencyMismatch, "lost race with another payload")
}

// beforeMetaPut runs fn once, just before the first PutItem of a META
// item goes through.
type beforeMetaPut struct {
	table.API
	once sync.Once
	fn   func()
}

func (b *beforeMetaPut) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if sk, ok := in.Item["SK"].(*types.AttributeValueMemberS); ok && sk.Value == "META" {
		b.once.Do(b.fn)
	}
	return b.API.PutItem(ctx, in, opts...)
}

// TestSubmitFinishedByARacingSubmitStillReportsItCreated: a Submit of the
// same key that reads the IDEM item between the first Submit's IDEM and
// META writes finishes the submission; the first one, whose META write is
// then refused, created the task all the same (and the other did not).
func TestSubmitFinishedByARacingSubmitStillReportsItCreated(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "k-race", Payload: []byte("p")}
	var (
		other        *tasks.Task
		otherCreated bool
		otherErr     error
	)
	racing := &beforeMetaPut{API: f.db}
	racing.fn = func() { other, otherCreated, otherErr = f.store.Submit(ctx, in) }
	first, created, err := newStore(t, racing, f.db.Now).Submit(ctx, in)
	require.NoError(t, err)
	require.NoError(t, otherErr)
	assert.True(t, created, "the first Submit's IDEM item made the task")
	assert.False(t, otherCreated, "the racing Submit finished it")
	assert.Equal(t, first.ID, other.ID)
	wantHistory(t, f.history(t, first.ID), tasks.EventSubmitted)
}
