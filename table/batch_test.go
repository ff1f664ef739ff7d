package table

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, tbl.BatchWrite(context.Background(), things(1000), nil))
	require.Equal(t, 1000, db.len(), "items stored")
	for i, v := range things(1000) {
		want := v.(thing)
		var got thing
		require.NoError(t, tbl.Get(context.Background(), tbl.Key(want.PK, want.SK), &got), "item %d", i)
		require.Equal(t, want, got, "item %d", i)
	}
	assert.LessOrEqual(t, db.maxChunk, 25, "requests in the largest BatchWriteItem: DynamoDB allows 25")
	// Each call stores half of up to 25: 1,000 items need at least 80 calls.
	assert.GreaterOrEqual(t, db.writeCalls, 80, "BatchWriteItem calls: unprocessed items were not resent")
}

func TestBatchWriteDeletesAndPutsTogether(t *testing.T) {
	db := &halfUnprocessed{memDB: newMemDB()}
	tbl := New(db, thingsSchema, fastBackoff)
	ctx := context.Background()
	require.NoError(t, tbl.BatchWrite(ctx, things(60), nil))
	var deletes []Key
	for _, v := range things(60)[:30] {
		deletes = append(deletes, tbl.Key(v.(thing).PK, v.(thing).SK))
	}
	extra := thing{PK: "P#new", SK: "S#new"}
	require.NoError(t, tbl.BatchWrite(ctx, []any{extra}, deletes))
	require.Equal(t, 31, db.len(), "items after deleting 30 of 60 and adding 1")
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
			require.ErrorIs(t, err, context.Canceled)
			require.Equal(t, 5, db.calls, "BatchWriteItem calls: retries went on after the context was canceled")
			assert.ErrorContains(t, err, "40 of 40 items not written")
			var te *Error
			require.ErrorAs(t, err, &te)
			require.Len(t, te.Unprocessed, 40, "Unprocessed keys")
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
			require.ErrorIs(t, err, context.Canceled)
			require.Equal(t, 3, db.calls, "BatchGetItem calls")
		})
	}
}

func TestBatchWriteWithExpiredDeadlineSendsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := newCalls(nil)
	err := New(c, thingsSchema).BatchWrite(ctx, things(3), nil)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, c.total(), "calls after the context ended")
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
	require.NoError(t, tbl.BatchWrite(context.Background(), things(30), nil))
	require.Equal(t, 30, db.len(), "items stored")
}

// failingBatch fails with a non-retryable error.
type failingBatch struct{ API }

func (failingBatch) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, &types.ResourceNotFoundException{Message: strPtr("Requested resource not found")}
}

func TestBatchWriteReportsUnwrittenItemsOnFailure(t *testing.T) {
	err := New(failingBatch{}, thingsSchema).BatchWrite(context.Background(), things(30), nil)
	require.ErrorIs(t, err, ErrTableNotFound)
	var rnf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &rnf, "err does not reach the SDK error")
	assert.ErrorContains(t, err, "30 of 30 items not written")
	var te *Error
	require.ErrorAs(t, err, &te)
	require.Len(t, te.Unprocessed, 30, "Unprocessed keys")
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
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorAs(t, err, &te, "want *Error wrapping context.Canceled")
	// Every item is either stored or listed as unprocessed, never both.
	unprocessed := map[string]bool{}
	for _, k := range te.Unprocessed {
		unprocessed[memID(k)] = true
	}
	for i, v := range all {
		item, _ := Marshal(v)
		var got Item
		stored := tbl.Get(context.Background(), tbl.keyOf(item), &got) == nil
		require.NotEqual(t, stored, unprocessed[memID(item)], "item %d: stored %t, listed unprocessed %t", i, stored, unprocessed[memID(item)])
	}
	require.Equal(t, 500, db.len()+len(te.Unprocessed), "%d stored + %d unprocessed", db.len(), len(te.Unprocessed))
	require.NotZero(t, db.len(), "want some stored")
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
			assert.Equal(t, c.tooBig, errors.Is(err, ErrItemTooLarge), "errors.Is(err, ErrItemTooLarge) for %v", err)
			require.Zero(t, calls.total(), "calls sent for bad input")
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
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i], got[i], "item %d", i)
	}
	assert.LessOrEqual(t, db.maxChunk, 100, "keys in the largest BatchGetItem: DynamoDB allows 100")
}

func TestBatchGetRetriesThrottledRequests(t *testing.T) {
	db := &throttleFirst{memDB: newMemDB(), n: 3}
	tbl := New(db, thingsSchema, fastBackoff)
	db.put(Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}})
	got, err := BatchGet[Item](context.Background(), tbl, []Key{tbl.Key("a", "b")})
	require.NoError(t, err)
	require.Len(t, got, 1, "want the item")
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
			require.Zero(t, calls.total(), "calls sent for bad input")
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

// inFlight counts the BatchWriteItem requests in flight at once; each
// takes a millisecond (of a synctest bubble's time), so concurrent ones
// overlap. From call failAt on (0: never) every request fails.
type inFlight struct {
	*halfUnprocessed
	mu           sync.Mutex
	now, most, n int
	failAt       int
}

func (f *inFlight) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.mu.Lock()
	f.now++
	f.n++
	f.most = max(f.most, f.now)
	fail := f.failAt > 0 && f.n >= f.failAt
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.now--; f.mu.Unlock() }()
	time.Sleep(time.Millisecond)
	if fail {
		return nil, &types.ResourceNotFoundException{Message: strPtr("Requested resource not found")}
	}
	return f.halfUnprocessed.BatchWriteItem(ctx, in, o...)
}

func TestConcurrentBatchWriteStoresEveryItemWithBoundedRequestsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := &inFlight{halfUnprocessed: &halfUnprocessed{memDB: newMemDB()}}
		tbl := New(db, thingsSchema, fastBackoff, func(o *Options) { o.BatchWriteConcurrency = 8 })
		require.NoError(t, tbl.BatchWrite(context.Background(), things(1000), nil))
		require.Equal(t, 1000, db.len(), "items stored")
		for i, v := range things(1000) {
			want := v.(thing)
			var got thing
			require.NoError(t, tbl.Get(context.Background(), tbl.Key(want.PK, want.SK), &got), "item %d", i)
			require.Equal(t, want, got, "item %d", i)
		}
		assert.Equal(t, 8, db.most, "requests in flight at once")
		assert.LessOrEqual(t, db.maxChunk, 25)
	})
}

func TestConcurrentBatchWriteFailureAccountsForEveryItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := &inFlight{halfUnprocessed: &halfUnprocessed{memDB: newMemDB()}, failAt: 20}
		tbl := New(db, thingsSchema, fastBackoff, func(o *Options) { o.BatchWriteConcurrency = 4 })
		all := things(1000)
		err := tbl.BatchWrite(context.Background(), all, nil)
		require.ErrorIs(t, err, ErrTableNotFound, "the failure, not the cancellation of the other runs")
		var te *Error
		require.ErrorAs(t, err, &te)
		unprocessed := map[string]bool{}
		for _, k := range te.Unprocessed {
			unprocessed[memID(k)] = true
		}
		for i, v := range all {
			item, _ := Marshal(v)
			var got Item
			stored := tbl.Get(context.Background(), tbl.keyOf(item), &got) == nil
			require.NotEqual(t, stored, unprocessed[memID(item)], "item %d: stored %t, listed unprocessed %t", i, stored, unprocessed[memID(item)])
		}
		assert.Equal(t, 1000, db.len()+len(te.Unprocessed))
		assert.NotZero(t, db.len())
	})
}
