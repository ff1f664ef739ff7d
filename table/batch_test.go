package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// halfUnprocessed stores the first half of every batch and hands the rest
// back as unprocessed, as DynamoDB does under throttling.
type halfUnprocessed struct {
	*memDB
	mu         sync.Mutex
	writeCalls int
	getCalls   int
	maxChunk   int
}

func (h *halfUnprocessed) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	h.mu.Lock()
	h.writeCalls++
	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	keep := map[string][]types.WriteRequest{}
	for name, reqs := range in.RequestItems {
		h.maxChunk = max(h.maxChunk, len(reqs))
		n := (len(reqs) + 1) / 2
		keep[name] = reqs[:n]
		if len(reqs[n:]) > 0 {
			out.UnprocessedItems[name] = reqs[n:]
		}
	}
	h.mu.Unlock()
	if _, err := h.memDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: keep}, o...); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *halfUnprocessed) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	h.mu.Lock()
	h.getCalls++
	out := &dynamodb.BatchGetItemOutput{UnprocessedKeys: map[string]types.KeysAndAttributes{}}
	keep := map[string]types.KeysAndAttributes{}
	for name, ka := range in.RequestItems {
		h.maxChunk = max(h.maxChunk, len(ka.Keys))
		n := (len(ka.Keys) + 1) / 2
		k := ka
		k.Keys = ka.Keys[:n]
		keep[name] = k
		if len(ka.Keys[n:]) > 0 {
			u := ka
			u.Keys = ka.Keys[n:]
			out.UnprocessedKeys[name] = u
		}
	}
	h.mu.Unlock()
	got, err := h.memDB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: keep}, o...)
	if err != nil {
		return nil, err
	}
	out.Responses = got.Responses
	return out, nil
}

func things(n int) []any {
	items := make([]any, n)
	for i := range items {
		items[i] = thing{PK: fmt.Sprintf("P#%d", i%7), SK: fmt.Sprintf("S#%04d", i), Name: fmt.Sprint("thing ", i), Count: i}
	}
	return items
}

func TestBatchWriteStoresEveryItemWhenHalfOfEachBatchIsUnprocessed(t *testing.T) {
	db := &halfUnprocessed{memDB: newMemDB()}
	tbl := New(db, thingsSchema, fastBackoff)
	if err := tbl.BatchWrite(context.Background(), things(1000), nil); err != nil {
		t.Fatal(err)
	}
	if got := db.len(); got != 1000 {
		t.Fatalf("stored %d items, want 1000", got)
	}
	for i, v := range things(1000) {
		want := v.(thing)
		var got thing
		if err := tbl.Get(context.Background(), tbl.Key(want.PK, want.SK), &got); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if got != want {
			t.Fatalf("item %d = %+v, want %+v", i, got, want)
		}
	}
	if db.maxChunk > 25 {
		t.Errorf("largest BatchWriteItem had %d requests, DynamoDB allows 25", db.maxChunk)
	}
	// Each call stores half of up to 25: 1,000 items need at least 80 calls.
	if db.writeCalls < 80 {
		t.Errorf("only %d BatchWriteItem calls: unprocessed items were not resent", db.writeCalls)
	}
}

func TestBatchWriteDeletesAndPutsTogether(t *testing.T) {
	db := &halfUnprocessed{memDB: newMemDB()}
	tbl := New(db, thingsSchema, fastBackoff)
	ctx := context.Background()
	if err := tbl.BatchWrite(ctx, things(60), nil); err != nil {
		t.Fatal(err)
	}
	var deletes []Key
	for _, v := range things(60)[:30] {
		deletes = append(deletes, tbl.Key(v.(thing).PK, v.(thing).SK))
	}
	extra := thing{PK: "P#new", SK: "S#new"}
	if err := tbl.BatchWrite(ctx, []any{extra}, deletes); err != nil {
		t.Fatal(err)
	}
	if got := db.len(); got != 31 {
		t.Fatalf("%d items after deleting 30 of 60 and adding 1, want 31", got)
	}
}

// alwaysUnprocessed processes nothing and cancels its context after a few
// calls, as a caller giving up would.
type alwaysUnprocessed struct {
	API
	mu       sync.Mutex
	calls    int
	cancelAt int
	cancel   context.CancelFunc
	throttle bool
}

func (a *alwaysUnprocessed) tick() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if a.calls == a.cancelAt {
		a.cancel()
	}
}

func (a *alwaysUnprocessed) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.tick()
	if a.throttle {
		return nil, &types.ProvisionedThroughputExceededException{Message: strPtr("slow down")}
	}
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
}

func (a *alwaysUnprocessed) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	a.tick()
	if a.throttle {
		return nil, &types.ThrottlingException{Message: strPtr("slow down")}
	}
	return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, nil
}

func strPtr(s string) *string { return &s }

func TestBatchWriteStopsWhenContextIsCanceled(t *testing.T) {
	for _, throttle := range []bool{false, true} {
		t.Run(fmt.Sprintf("throttled=%t", throttle), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			db := &alwaysUnprocessed{cancelAt: 5, cancel: cancel, throttle: throttle}
			// The default backoff (up to 2 s): the cancellation must cut the
			// wait short, not sit it out.
			tbl := New(db, thingsSchema)
			err := tbl.BatchWrite(ctx, things(40), nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want one wrapping context.Canceled", err)
			}
			if db.calls != 5 {
				t.Fatalf("%d BatchWriteItem calls, want 5: retries went on after the context was canceled", db.calls)
			}
			if want := "40 of 40 items not written"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			var te *Error
			if !errors.As(err, &te) || len(te.Unprocessed) != 40 {
				t.Fatalf("Unprocessed lists %d keys, want 40", len(te.Unprocessed))
			}
		})
	}
}

func TestBatchGetStopsWhenContextIsCanceled(t *testing.T) {
	for _, throttle := range []bool{false, true} {
		t.Run(fmt.Sprintf("throttled=%t", throttle), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			db := &alwaysUnprocessed{cancelAt: 3, cancel: cancel, throttle: throttle}
			tbl := New(db, thingsSchema)
			_, err := BatchGet[thing](ctx, tbl, []Key{tbl.Key("a", "b")})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want one wrapping context.Canceled", err)
			}
			if db.calls != 3 {
				t.Fatalf("%d BatchGetItem calls, want 3", db.calls)
			}
		})
	}
}

func TestBatchWriteWithExpiredDeadlineSendsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := newCalls(nil)
	err := New(c, thingsSchema).BatchWrite(ctx, things(3), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if c.total() != 0 {
		t.Fatalf("%d calls after the context ended", c.total())
	}
}

// throttleFirst throttles the first n calls, then delegates.
type throttleFirst struct {
	*memDB
	n int
}

func (f *throttleFirst) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if f.n > 0 {
		f.n--
		return nil, &types.RequestLimitExceeded{Message: strPtr("account limit")}
	}
	return f.memDB.BatchWriteItem(ctx, in, o...)
}

func (f *throttleFirst) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if f.n > 0 {
		f.n--
		return nil, &types.ProvisionedThroughputExceededException{Message: strPtr("hot")}
	}
	return f.memDB.BatchGetItem(ctx, in, o...)
}

func TestBatchWriteRetriesThrottledRequests(t *testing.T) {
	db := &throttleFirst{memDB: newMemDB(), n: 4}
	tbl := New(db, thingsSchema, fastBackoff)
	if err := tbl.BatchWrite(context.Background(), things(30), nil); err != nil {
		t.Fatal(err)
	}
	if db.len() != 30 {
		t.Fatalf("stored %d, want 30", db.len())
	}
}

// failingBatch fails with a non-retryable error.
type failingBatch struct{ API }

func (failingBatch) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, &types.ResourceNotFoundException{Message: strPtr("Requested resource not found")}
}

func TestBatchWriteReportsUnwrittenItemsOnFailure(t *testing.T) {
	err := New(failingBatch{}, thingsSchema).BatchWrite(context.Background(), things(30), nil)
	if !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("err = %v, want ErrTableNotFound", err)
	}
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Fatalf("err = %v does not reach the SDK error", err)
	}
	if want := "30 of 30 items not written"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	var te *Error
	if !errors.As(err, &te) || len(te.Unprocessed) != 30 {
		t.Fatalf("Unprocessed lists %d keys, want 30", len(te.Unprocessed))
	}
}

// cancelAfter cancels the context after n BatchWriteItem calls.
type cancelAfter struct {
	*halfUnprocessed
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := c.halfUnprocessed.BatchWriteItem(ctx, in, o...)
	if c.writeCalls == c.n {
		c.cancel()
	}
	return out, err
}

func TestBatchWriteCanceledMidwayAccountsForEveryItem(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := &cancelAfter{halfUnprocessed: &halfUnprocessed{memDB: newMemDB()}, n: 10, cancel: cancel}
	tbl := New(db, thingsSchema, fastBackoff)
	all := things(500)
	err := tbl.BatchWrite(ctx, all, nil)
	var te *Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &te) {
		t.Fatalf("err = %v, want *Error wrapping context.Canceled", err)
	}
	// Every item is either stored or listed as unprocessed, never both.
	unprocessed := map[string]bool{}
	for _, k := range te.Unprocessed {
		unprocessed[memID(k)] = true
	}
	for i, v := range all {
		item, _ := Marshal(v)
		var got Item
		stored := tbl.Get(context.Background(), tbl.keyOf(item), &got) == nil
		if stored == unprocessed[memID(item)] {
			t.Fatalf("item %d: stored %t, listed unprocessed %t", i, stored, !stored)
		}
	}
	if db.len()+len(te.Unprocessed) != 500 || db.len() == 0 {
		t.Fatalf("%d stored + %d unprocessed, want 500 with some stored", db.len(), len(te.Unprocessed))
	}
}

func TestBatchWriteRejectsBadInputBeforeSending(t *testing.T) {
	big := Item{"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberS{Value: "s"},
		"body": &types.AttributeValueMemberB{Value: make([]byte, MaxItemSize)}}
	cases := []struct {
		name    string
		puts    []any
		deletes []Key
		tooBig  bool
	}{
		{"nil put", []any{nil}, nil, false},
		{"put without sort key", []any{Item{"pk": &types.AttributeValueMemberS{Value: "p"}}}, nil, false},
		{"put with empty partition key", []any{thing{PK: "", SK: "s"}}, nil, false},
		{"put with numeric partition key", []any{Item{"pk": &types.AttributeValueMemberN{Value: "1"}, "sk": &types.AttributeValueMemberS{Value: "s"}}}, nil, false},
		{"put that is not a record", []any{42}, nil, false},
		{"put over 400 KB", []any{big}, nil, true},
		{"same key twice", []any{thing{PK: "p", SK: "s"}, thing{PK: "p", SK: "s", Name: "again"}}, nil, false},
		{"put and delete of one key", []any{thing{PK: "p", SK: "s"}}, []Key{{"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberS{Value: "s"}}}, false},
		{"nil delete key", nil, []Key{nil}, false},
		{"delete key with extra attribute", nil, []Key{{"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberS{Value: "s"}, "x": &types.AttributeValueMemberS{Value: "y"}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := newCalls(nil)
			// A valid item first: nothing at all may be written when a later one is bad.
			puts := append([]any{thing{PK: "ok", SK: "ok"}}, c.puts...)
			err := New(calls, thingsSchema).BatchWrite(context.Background(), puts, c.deletes)
			mustInputError(t, err)
			if c.tooBig != errors.Is(err, ErrItemTooLarge) {
				t.Errorf("errors.Is(err, ErrItemTooLarge) = %t for %v", !c.tooBig, err)
			}
			if calls.total() != 0 {
				t.Fatalf("%d calls sent for bad input", calls.total())
			}
		})
	}
}

func TestBatchGetReturnsItemsInKeyOrderAcrossChunks(t *testing.T) {
	db := &halfUnprocessed{memDB: newMemDB()}
	tbl := New(db, thingsSchema, fastBackoff)
	ctx := context.Background()
	all := things(250)
	for _, v := range all {
		item, _ := Marshal(v)
		db.put(item)
	}
	// Ask in reverse order, with some keys that have no item.
	var keys []Key
	var want []thing
	for i := len(all) - 1; i >= 0; i-- {
		th := all[i].(thing)
		keys = append(keys, tbl.Key(th.PK, th.SK))
		want = append(want, th)
		if i%50 == 0 {
			keys = append(keys, tbl.Key("missing", fmt.Sprint(i)))
		}
	}
	got, err := BatchGet[thing](ctx, tbl, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d items, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("item %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if db.maxChunk > 100 {
		t.Errorf("largest BatchGetItem had %d keys, DynamoDB allows 100", db.maxChunk)
	}
}

func TestBatchGetRetriesThrottledRequests(t *testing.T) {
	db := &throttleFirst{memDB: newMemDB(), n: 3}
	tbl := New(db, thingsSchema, fastBackoff)
	db.put(Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}})
	got, err := BatchGet[Item](context.Background(), tbl, []Key{tbl.Key("a", "b")})
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v; want the item", got, err)
	}
}

func TestBatchGetRejectsBadKeysBeforeSending(t *testing.T) {
	tbl := New(newCalls(nil), thingsSchema)
	cases := map[string][]Key{
		"duplicate key":     {tbl.Key("a", "b"), tbl.Key("c", "d"), tbl.Key("a", "b")},
		"nil key":           {nil},
		"missing sort key":  {tbl.Key("a")},
		"wrong type":        {tbl.Key("a", 7)},
		"empty string":      {tbl.Key("", "b")},
		"too many values":   {tbl.Key("a", "b", "c")},
		"unmarshalable key": {tbl.Key(make(chan int), "b")},
	}
	for name, keys := range cases {
		t.Run(name, func(t *testing.T) {
			calls := newCalls(nil)
			_, err := BatchGet[thing](context.Background(), New(calls, thingsSchema), keys)
			mustInputError(t, err)
			if calls.total() != 0 {
				t.Fatalf("%d calls sent for bad input", calls.total())
			}
		})
	}
}

func BenchmarkBatchWrite1000HalfUnprocessed(b *testing.B) {
	items := things(1000)
	for b.Loop() {
		db := &halfUnprocessed{memDB: newMemDB()}
		tbl := New(db, thingsSchema, func(o *Options) { o.Backoff = Backoff{Initial: time.Nanosecond, Max: time.Nanosecond} })
		if err := tbl.BatchWrite(context.Background(), items, nil); err != nil {
			b.Fatal(err)
		}
	}
}
