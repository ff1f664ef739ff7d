package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// Query reads one partition of a table or index, in sort key order, from
// the start of the key condition's range or just after ExclusiveStartKey.
// It costs O(log n + items read): the tree is entered at the range's edge
// and left at the first entry outside it.
func (db *DB) Query(ctx context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (res *dynamodb.QueryOutput, err error) {
	defer acknowledged(db, &res, &err)
	out, items, err := db.query(ctx, in)
	if err != nil {
		return nil, err
	}
	out.Items = readItems(items)
	return out, nil
}

// query is Query with the items left as readItems, for the HTTP handler.
func (db *DB) query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, []readItem, error) {
	in = orEmpty(in)
	t, err := db.openRead(ctx, opQuery, aws.ToString(in.TableName))
	if err != nil {
		return nil, nil, err
	}
	if err := queryViolations(in, t != nil); err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, nil, missingTable(requestExprs{attributesToGet: in.AttributesToGet, names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
			keyCondition: in.KeyConditionExpression, filter: in.FilterExpression, projection: in.ProjectionExpression,
			queryFilter: in.QueryFilter, keyConditions: in.KeyConditions})
	}
	limit := int(aws.ToInt32(in.Limit))
	consistent := aws.ToBool(in.ConsistentRead)
	ix, err := t.readIndex(in.IndexName, consistent)
	if err != nil {
		return nil, nil, err
	}
	hash, rng := t.pk, t.sk
	if ix != nil {
		hash, rng = ix.pk, ix.sk
	}
	// A QueryFilter on a key attribute of the table or index read is
	// refused before Select is checked against the index's projection
	// (dynalite's AWS-written "should return ValidationException if global
	// range key in QueryFilter": Select ALL_ATTRIBUTES on an INCLUDE index).
	filterExpr, names, values := in.FilterExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues
	if in.QueryFilter != nil || in.ConditionalOperator != "" {
		filterExpr, names, values, err = legacyFilter("QueryFilter", in.QueryFilter, in.ConditionalOperator,
			present("KeyConditionExpression", in.KeyConditionExpression, "FilterExpression", in.FilterExpression, "ProjectionExpression", in.ProjectionExpression),
			in.FilterExpression, names, values, hash.name, rng.name)
		if err != nil {
			return nil, nil, err
		}
	}
	if err := checkSelect(in.Select, ix, in.ProjectionExpression != nil, in.AttributesToGet != nil); err != nil {
		return nil, nil, err
	}
	switch {
	case in.KeyConditionExpression != nil && in.KeyConditions != nil:
		return nil, nil, validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}")
	case in.KeyConditionExpression == nil && in.KeyConditions == nil:
		return nil, nil, validationf("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	case in.AttributesToGet != nil && (in.ProjectionExpression != nil || in.KeyConditionExpression != nil || in.FilterExpression != nil):
		return nil, nil, validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {KeyConditionExpression}")
	}

	x, err := newExprs(names, values)
	if err != nil {
		return nil, nil, err
	}
	if in.QueryFilter != nil {
		x.env.Translated()
	}
	x.onTable(t)
	var kc *keyCond
	if in.KeyConditionExpression != nil {
		kc, err = x.keyCondition(*in.KeyConditionExpression, hash.name, rng.name)
	} else {
		kc, err = legacyKeyConditions(in.KeyConditions, hash.name, rng.name)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := kc.check(hash, rng); err != nil {
		return nil, nil, err
	}
	filter, err := x.filter(filterExpr, hash.name, rng.name)
	if err != nil {
		return nil, nil, err
	}
	sel, err := x.selection(in.Select, in.ProjectionExpression, in.AttributesToGet)
	if err != nil {
		return nil, nil, err
	}
	if err := x.done(); err != nil {
		return nil, nil, err
	}
	fetch, err := checkProjected(ix, sel, filter)
	if err != nil {
		return nil, nil, err
	}
	start, err := t.checkStartKey(in.ExclusiveStartKey, ix)
	if err != nil {
		return nil, nil, err
	}
	if err := kc.checkStart(start); err != nil {
		return nil, nil, err
	}
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	res, err := db.readPage(ctx, pageRead{t: t, ix: ix, limit: limit, consistent: consistent, filter: filter, sel: sel, mode: in.ReturnConsumedCapacity, fetch: fetch,
		fill: func(col *store.Collection, p *page) {
			if part := col.Partition(keyString(kc.hash)); part != nil {
				walkRange(part, kc, start, forward, p)
			}
		}})
	if err != nil {
		return nil, nil, err
	}
	return &dynamodb.QueryOutput{Count: res.count, ScannedCount: res.scanned, LastEvaluatedKey: res.lastKey, ConsumedCapacity: res.consumed}, res.items, nil
}

// walkRange feeds p the partition's entries inside the key condition's
// range, in the requested direction, starting after start when given.
func walkRange(part *store.Partition, kc *keyCond, start *startKey, forward bool, p *page) {
	from := kc.start(forward)
	if start != nil {
		from = start.pos
	}
	visit := func(e *store.Entry) bool {
		if start != nil && e.Key == start.pos {
			return true // ExclusiveStartKey itself is not returned
		}
		if !kc.matches(e.Sort) {
			return false
		}
		return p.add(e)
	}
	if forward {
		part.Ascend(from, visit)
	} else {
		part.Descend(from, visit)
	}
}
