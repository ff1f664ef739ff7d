package table

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's per-request batch limits.
const (
	maxBatchWrite = 25
	maxBatchGet   = 100
)

// BatchWrite puts and deletes items in requests of 25, retrying whatever
// DynamoDB leaves unprocessed, and throttled requests, with exponential
// backoff and full jitter until everything is written or ctx ends. In that
// case the error, an *Error, wraps ctx.Err(), says how many items were not
// written and lists their keys in Unprocessed; no item is dropped silently.
//
// Every put and delete is checked before anything is sent. A key may appear
// only once per call: DynamoDB rejects a batch naming one key twice, and
// across requests the order of retried writes is not defined.
// BatchWrite is not atomic; use WriteTx for all-or-nothing writes. With
// Options.BatchWriteConcurrency above 1 it keeps that many requests in
// flight, each run of requests with its own retries; the guarantees are
// the same.
func (t *Table) BatchWrite(ctx context.Context, puts []any, deletes []Key) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	reqs := make([]types.WriteRequest, 0, len(puts)+len(deletes))
	seen := make(map[string]string, len(puts)+len(deletes))
	dup := func(field string, k Key) error {
		id := t.identity(k)
		if first, ok := seen[id]; ok {
			return inputErr(field, k.String(), "same key as "+first+": a key may appear once per batch")
		}
		seen[id] = field
		return nil
	}
	for i, p := range puts {
		field := fmt.Sprintf("puts[%d]", i)
		item, err := Marshal(p)
		if err != nil {
			return refield(err, field)
		}
		if err := t.checkItem(field, item); err != nil {
			return err
		}
		if err := dup(field, t.keyOf(item)); err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for i, k := range deletes {
		field := fmt.Sprintf("deletes[%d]", i)
		if err := t.checkKey(field, k); err != nil {
			return err
		}
		if err := dup(field, k); err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}})
	}
	return t.batchWrite(ctx, reqs)
}

func (t *Table) batchWrite(ctx context.Context, reqs []types.WriteRequest) error {
	unsent, sentinel, err := drainConcurrently(ctx, t.opts.BatchWriteConcurrency, t.opts.Backoff, t.batchRetryLog("batch write"), reqs, maxBatchWrite,
		func(ctx context.Context, batch []types.WriteRequest) ([]types.WriteRequest, error) {
			out, err := t.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{t.Name(): batch},
			})
			if err != nil {
				return nil, err
			}
			return out.UnprocessedItems[t.Name()], nil
		})
	if err == nil {
		return nil
	}
	left := make([]Key, len(unsent))
	for i, r := range unsent {
		if r.PutRequest != nil {
			left[i] = t.keyOf(r.PutRequest.Item)
		} else {
			left[i] = r.DeleteRequest.Key
		}
	}
	return &Error{Op: "batch write", Table: t.Name(), Err: sentinel, Unprocessed: left,
		Cause: fmt.Errorf("%d of %d items not written: %w", len(unsent), len(reqs), err)}
}

// drainBatches sends items in requests of at most size until every one is
// done, the context ends or a request fails for a reason other than
// throttling. What a request leaves unprocessed goes first into the next
// request, ahead of items not yet sent, after a backoff that grows while
// DynamoDB keeps refusing work and resets once a request is fully taken.
// Items are never copied more than once each, so a large batch costs time
// linear in its size. On failure it returns every item not yet done, the
// sentinel for the failure (nil when the context ended) and the cause.
// Before each retry it calls logRetry with the attempt about to be made, the
// delay before it, and what the last request left unprocessed or its error.
func drainBatches[R any](ctx context.Context, backoff Backoff, logRetry func(ctx context.Context, attempt int, delay time.Duration, unprocessed int, err error),
	items []R, size int, send func(ctx context.Context, batch []R) (unprocessed []R, err error)) (unsent []R, sentinel, err error) {
	var carry []R // unprocessed by the last request; at most size of them
	rest := items
	retry := 0
	failed := func(sentinel, err error) ([]R, error, error) {
		return append(carry[:len(carry):len(carry)], rest...), sentinel, err
	}
	for len(carry) > 0 || len(rest) > 0 {
		if err := ctx.Err(); err != nil {
			return failed(nil, err)
		}
		n := max(0, min(size-len(carry), len(rest)))
		batch := make([]R, 0, len(carry)+n)
		batch = append(append(batch, carry...), rest[:n]...)
		left, err := send(ctx, batch)
		unprocessed := len(left)
		if err != nil {
			carry = batch // none of it is known to be done
			rest = rest[n:]
			if ctx.Err() != nil {
				return failed(nil, ctx.Err())
			}
			if s := sentinelFor(err); s != ErrThrottled {
				return failed(s, err)
			}
		} else {
			carry, rest = left, rest[n:]
			if len(left) == 0 {
				retry = 0
				continue
			}
		}
		delay := backoff.delay(retry)
		logRetry(ctx, retry+2, delay, unprocessed, err)
		if err := wait(ctx, delay); err != nil {
			return failed(nil, err)
		}
		retry++
	}
	return nil, nil, nil
}

// drainConcurrently is drainBatches with up to workers requests in
// flight: the items are cut into that many runs of whole requests, each
// drained by its own loop (its own unprocessed items first, its own
// backoff), so a slow or throttled run holds back only itself. The first
// run that fails for a reason other than throttling cancels the others;
// what every run left is returned, so no item goes missing from unsent.
// workers below 2 is drainBatches.
func drainConcurrently[R any](ctx context.Context, workers int, backoff Backoff, logRetry func(ctx context.Context, attempt int, delay time.Duration, unprocessed int, err error),
	items []R, size int, send func(ctx context.Context, batch []R) (unprocessed []R, err error)) (unsent []R, sentinel, err error) {
	requests := (len(items) + size - 1) / size
	workers = min(workers, requests)
	if workers < 2 {
		return drainBatches(ctx, backoff, logRetry, items, size, send)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		unsent        []R
		sentinel, err error
	}
	results := make([]result, workers)
	per := (requests + workers - 1) / workers * size
	// first is the run that failed first: its failure is the call's, not
	// the cancellation it made the others stop with.
	var first atomic.Int32
	first.Store(-1)
	var wg sync.WaitGroup
	for w := range workers {
		run := items[min(w*per, len(items)):min((w+1)*per, len(items))]
		wg.Go(func() {
			r := &results[w]
			r.unsent, r.sentinel, r.err = drainBatches(ctx, backoff, logRetry, run, size, send)
			if r.err != nil {
				first.CompareAndSwap(-1, int32(w))
				cancel()
			}
		})
	}
	wg.Wait()
	for _, r := range results {
		unsent = append(unsent, r.unsent...)
	}
	if f := first.Load(); f >= 0 {
		sentinel, err = results[f].sentinel, results[f].err
	}
	return unsent, sentinel, err
}

// refield renames the field of an *InputError from Marshal ("item") to the
// caller's argument ("puts[3]").
func refield(err error, field string) error {
	var ie *InputError
	if errors.As(err, &ie) {
		c := *ie
		c.Field = field
		return &c
	}
	return err
}

// BatchGet reads the items with keys in requests of 100, retrying
// unprocessed keys and throttled requests with backoff until done or ctx
// ends. Results are in the order of keys; keys with no item are skipped.
// A key given twice is an *InputError (DynamoDB rejects duplicates).
func BatchGet[T any](ctx context.Context, t *Table, keys []Key, opts ...func(*GetOptions)) ([]T, error) {
	if err := t.ready(ctx); err != nil {
		return nil, err
	}
	ids := make([]string, len(keys))
	seen := make(map[string]int, len(keys))
	for i, k := range keys {
		field := fmt.Sprintf("keys[%d]", i)
		if err := t.checkKey(field, k); err != nil {
			return nil, err
		}
		ids[i] = t.identity(k)
		if first, ok := seen[ids[i]]; ok {
			return nil, inputErr(field, k.String(), fmt.Sprintf("same key as keys[%d]: a key may appear once per batch", first))
		}
		seen[ids[i]] = i
	}
	o := getOptions(opts)
	base := types.KeysAndAttributes{ConsistentRead: aws.Bool(o.Consistent)}
	if o.Projection != nil {
		p, err := withKeys(*o.Projection, t.keyAttrs())
		if err != nil {
			return nil, err
		}
		e, err := buildExpr("options.Projection", builders{projection: &p})
		if err != nil {
			return nil, err
		}
		base.ProjectionExpression = e.Projection()
		base.ExpressionAttributeNames = e.Names()
	}
	pending := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		pending[i] = k
	}
	found := make(map[string]Item, len(keys))
	unsent, sentinel, err := drainBatches(ctx, t.opts.Backoff, t.batchRetryLog("batch get"), pending, maxBatchGet,
		func(ctx context.Context, batch []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
			ka := base
			ka.Keys = batch
			out, err := t.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems: map[string]types.KeysAndAttributes{t.Name(): ka},
			})
			if err != nil {
				return nil, err
			}
			for _, item := range out.Responses[t.Name()] {
				found[t.identity(t.keyOf(item))] = item
			}
			return out.UnprocessedKeys[t.Name()].Keys, nil
		})
	if err != nil {
		left := make([]Key, len(unsent))
		for i, k := range unsent {
			left[i] = k
		}
		return nil, &Error{Op: "batch get", Table: t.Name(), Err: sentinel, Unprocessed: left,
			Cause: fmt.Errorf("%d of %d keys not read: %w", len(unsent), len(keys), err)}
	}
	results := make([]T, 0, len(found))
	var dec itemDecoder
	for _, id := range ids {
		item, ok := found[id]
		if !ok {
			continue
		}
		var v T
		if err := dec.decode(item, &v); err != nil {
			return nil, err
		}
		results = append(results, v)
	}
	return results, nil
}
