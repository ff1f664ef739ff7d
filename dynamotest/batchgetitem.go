package dynamotest

import (
	"context"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	maxBatchGetKeys = 100
	// maxBatchGetBytes is DynamoDB's limit on one BatchGetItem response;
	// keys beyond it come back in UnprocessedKeys.
	maxBatchGetBytes = 16 * 1024 * 1024
)

// BatchGetItem reads up to 100 items from one or more tables. Each key is
// read and costed like a GetItem. Keys past the 16 MB response limit, and
// the fraction an UnprocessedFraction fault asks for, come back in
// UnprocessedKeys.
func (db *DB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (res *dynamodb.BatchGetItemOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	tableNames := make([]string, 0, len(in.RequestItems))
	for name := range in.RequestItems {
		tableNames = append(tableNames, name)
	}
	sort.Strings(tableNames)
	faults, err := db.stats.begin(ctx, opBatchGetItem, tableNames...)
	if err != nil {
		return nil, err
	}
	if err := batchGetItemViolations(in); err != nil {
		return nil, err
	}
	total := 0
	for _, name := range tableNames {
		total += len(in.RequestItems[name].Keys)
	}
	if total > maxBatchGetKeys {
		return nil, validationf("Too many items requested for the BatchGetItem call")
	}

	type tableRead struct {
		t          *dbTable
		req        types.KeysAndAttributes
		proj       *readProj
		consistent bool
	}
	reads := make([]tableRead, 0, len(tableNames))
	// The whole request is validated before ResourceNotFound, as in
	// BatchWriteItem.
	var notFound error
	for _, name := range tableNames {
		req := in.RequestItems[name]
		t := db.table(name)
		if t == nil {
			notFound = missingTable(requestExprs{names: req.ExpressionAttributeNames, projection: req.ProjectionExpression})
			if !isResourceNotFound(notFound) {
				return nil, notFound
			}
			// Duplicate keys are the request's fault, table or none, and
			// the request is validated before its tables are looked up
			// (DynamoDB Local and dynalite's AWS-written tests agree).
			seen := make(map[string]bool, len(req.Keys))
			for _, k := range req.Keys {
				id := wholeKey(k)
				if seen[id] {
					return nil, duplicateKeys()
				}
				seen[id] = true
			}
			continue
		}
		seen := make(map[string]bool, len(req.Keys))
		for _, k := range req.Keys {
			if _, _, err := t.checkKey(k); err != nil {
				return nil, err
			}
			id := t.itemID(k)
			if seen[id] {
				return nil, duplicateKeys()
			}
			seen[id] = true
		}
		proj, err := t.readProjection(req.ExpressionAttributeNames, req.ProjectionExpression, req.AttributesToGet)
		if err != nil {
			return nil, err
		}
		reads = append(reads, tableRead{t: t, req: req, proj: proj, consistent: aws.ToBool(req.ConsistentRead)})
	}

	if notFound != nil {
		return nil, notFound
	}
	out := &dynamodb.BatchGetItemOutput{
		Responses:       make(map[string][]map[string]types.AttributeValue, len(reads)),
		UnprocessedKeys: map[string]types.KeysAndAttributes{},
	}
	var usages []*usage
	bytes := 0
	for _, r := range reads {
		keys := r.req.Keys
		skip := db.stats.leaveUnprocessed(faults, r.t.name, len(keys))
		process := keys[:len(keys)-skip]
		var unprocessed []map[string]types.AttributeValue
		if skip > 0 {
			unprocessed = append(unprocessed, keys[len(keys)-skip:]...)
		}
		u := &usage{table: r.t.name}
		items := make([]map[string]types.AttributeValue, 0, len(process))
		src := r.t.source(r.consistent)
		r.t.mu.RLock()
		if r.t.deleted {
			r.t.mu.RUnlock()
			return nil, resourceNotFound()
		}
		for i, k := range process {
			e := src.lookup(k)
			if e != nil && bytes+e.Size > maxBatchGetBytes {
				unprocessed = append(append([]map[string]types.AttributeValue(nil), process[i:]...), unprocessed...)
				break
			}
			size := 0
			if e != nil {
				items = append(items, r.proj.project(e.Item()))
				size = e.Size
				bytes += size
			}
			u.read += readUnits(size, r.consistent)
		}
		r.t.mu.RUnlock()
		out.Responses[r.t.name] = items
		if len(unprocessed) > 0 {
			ka := r.req
			ka.Keys = make([]map[string]types.AttributeValue, len(unprocessed))
			for i, k := range unprocessed {
				ka.Keys[i] = copyItem(k)
			}
			out.UnprocessedKeys[r.t.name] = ka
		}
		usages = append(usages, u)
	}
	db.record(ctx, usages...)
	out.ConsumedCapacity = consumedList(in.ReturnConsumedCapacity, usages, false)
	return out, nil
}
