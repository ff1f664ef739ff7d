package dynamotest

import (
	"context"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/table"
)

const maxBatchWrites = 25

// errOneWrite is the error for a WriteRequest that names no write, or two:
// DynamoDB reads a WriteRequest as a union, as it reads an AttributeValue,
// and words both faults as it words an AttributeValue with two types
// (dynalite's AWS-written "should return ValidationException for empty
// item in RequestItems"; DynamoDB Local says the same of {} and of a
// request with both a PutRequest and a DeleteRequest).
func errOneWrite() error {
	return validationf("%s", attr.MultipleMessage)
}

// BatchWriteItem puts and deletes up to 25 items in one or more tables.
// Each write is atomic on its own, not with the others, as in DynamoDB; the
// fraction an UnprocessedFraction fault asks for comes back in
// UnprocessedItems, untouched.
func (db *DB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (res *dynamodb.BatchWriteItemOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	tableNames := make([]string, 0, len(in.RequestItems))
	for name := range in.RequestItems {
		tableNames = append(tableNames, name)
	}
	sort.Strings(tableNames)
	faults, err := db.stats.begin(ctx, opBatchWriteItem, tableNames...)
	if err != nil {
		return nil, err
	}
	if err := batchWriteItemViolations(in); err != nil {
		return nil, err
	}
	total := 0
	for _, name := range tableNames {
		total += len(in.RequestItems[name])
	}
	if total > maxBatchWrites {
		return nil, validationf("Too many items requested for the BatchWriteItem call")
	}

	type tableWrites struct {
		t   *dbTable
		ops []*writeOp
		req []types.WriteRequest
	}
	groups := make([]tableWrites, 0, len(tableNames))
	// DynamoDB validates the whole request before it looks for a table: the
	// writes to a missing table are checked on their own, and
	// ResourceNotFound comes only when no write is invalid.
	var notFound error
	for _, name := range tableNames {
		t := db.table(name)
		if t == nil {
			if err := checkWritesAlone(in.RequestItems[name]); err != nil {
				return nil, err
			}
			notFound = resourceNotFound()
			continue
		}
		reqs := in.RequestItems[name]
		g := tableWrites{t: t, req: reqs}
		seen := make(map[string]bool, len(reqs))
		for _, r := range reqs {
			var w *writeOp
			var err error
			switch {
			case r.PutRequest != nil && r.DeleteRequest != nil, r.PutRequest == nil && r.DeleteRequest == nil:
				return nil, errOneWrite()
			case r.PutRequest != nil:
				w, err = t.putOp(r.PutRequest.Item, nil, nil, nil)
			default:
				w, err = t.keyOp(writeDelete, r.DeleteRequest.Key, nil, nil, nil, nil)
			}
			if err != nil {
				return nil, err
			}
			id := t.itemID(w.key)
			if seen[id] {
				return nil, duplicateKeys()
			}
			seen[id] = true
			g.ops = append(g.ops, w)
		}
		groups = append(groups, g)
	}
	if notFound != nil {
		return nil, notFound
	}

	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	var usages []*usage
	for _, g := range groups {
		skip := db.stats.leaveUnprocessed(faults, g.t.name, len(g.ops))
		u := &usage{table: g.t.name}
		g.t.mu.Lock()
		if g.t.deleted {
			g.t.mu.Unlock()
			return nil, resourceNotFound()
		}
		for _, w := range g.ops[:len(g.ops)-skip] {
			// No condition and no update: only a local secondary index's
			// item collection limit can refuse the write. As in DynamoDB,
			// a batch is not atomic: the writes before it stay.
			o, err := w.evaluate()
			if err != nil {
				g.t.mu.Unlock()
				db.record(ctx, append(usages, u)...)
				return nil, err
			}
			w.apply(o, u)
			if m := w.itemCollectionMetrics(in.ReturnItemCollectionMetrics, o); m != nil {
				if out.ItemCollectionMetrics == nil {
					out.ItemCollectionMetrics = map[string][]types.ItemCollectionMetrics{}
				}
				out.ItemCollectionMetrics[g.t.name] = append(out.ItemCollectionMetrics[g.t.name], *m)
			}
		}
		g.t.mu.Unlock()
		if skip > 0 {
			left := make([]types.WriteRequest, 0, skip)
			for _, r := range g.req[len(g.req)-skip:] {
				left = append(left, copyWriteRequest(r))
			}
			out.UnprocessedItems[g.t.name] = left
		}
		usages = append(usages, u)
	}
	db.record(ctx, usages...)
	out.ConsumedCapacity = consumedList(in.ReturnConsumedCapacity, usages, false)
	return out, nil
}

func copyWriteRequest(r types.WriteRequest) types.WriteRequest {
	var c types.WriteRequest
	if r.PutRequest != nil {
		c.PutRequest = &types.PutRequest{Item: copyItem(r.PutRequest.Item)}
	}
	if r.DeleteRequest != nil {
		c.DeleteRequest = &types.DeleteRequest{Key: copyItem(r.DeleteRequest.Key)}
	}
	return c
}

// checkWritesAlone checks the writes to a table that does not exist as far
// as they can be checked without its key schema: each names exactly one
// write, and every attribute value is valid.
func checkWritesAlone(reqs []types.WriteRequest) error {
	for _, r := range reqs {
		var item map[string]types.AttributeValue
		switch {
		case r.PutRequest != nil && r.DeleteRequest != nil, r.PutRequest == nil && r.DeleteRequest == nil:
			return errOneWrite()
		case r.PutRequest != nil:
			item = r.PutRequest.Item
		default:
			item = r.DeleteRequest.Key
		}
		for name, v := range item {
			if name == "" {
				return invalidParam("An AttributeValue may not contain an empty string")
			}
			if err := attr.Validate(v); err != nil {
				return attrError(err)
			}
		}
		// The item's size is the request's to check, table or none: the
		// BatchWriteItem API reference lists an item over 400 KB among the
		// faults of the request itself that reject the whole batch, and
		// those are checked before the tables are looked up (DynamoDB
		// Local and dynalite's AWS-written tests agree).
		// Duplicate keys, on the other hand, are looked for only on a
		// table that exists (dynalite's "should check table exists first
		// before checking for duplicate keys").
		if r.PutRequest != nil && table.ItemSize(item) > table.MaxItemSize {
			return itemTooLarge()
		}
	}
	return nil
}

// wholeKey identifies a key map by all its attributes, in name order: how
// duplicates are found among the keys of a table that does not exist
// (BatchGetItem).
func wholeKey(key map[string]types.AttributeValue) string {
	names := make([]string, 0, len(key))
	for n := range key {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	for _, n := range names {
		b = append(b, n...)
		b = append(b, 0)
		b = wire.AppendItem(b, map[string]types.AttributeValue{n: key[n]})
	}
	return string(b)
}
