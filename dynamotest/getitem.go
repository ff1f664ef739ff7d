package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// GetItem reads one item by its full key in O(log n) of its partition.
func (db *DB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (res *dynamodb.GetItemOutput, err error) {
	defer acknowledged(db, &res, &err)
	out, item, err := db.getItem(ctx, in)
	if err != nil {
		return nil, err
	}
	if item.found() {
		out.Item = item.item()
	}
	return out, nil
}

// getItem is GetItem with the item left as a readItem, for the HTTP
// handler; the zero readItem when there is none.
func (db *DB) getItem(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, readItem, error) {
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opGetItem, name); err != nil {
		return nil, readItem{}, err
	}
	t := db.table(name)
	if err := getItemViolations(in, t != nil); err != nil {
		return nil, readItem{}, err
	}
	if t == nil {
		return nil, readItem{}, missingTable(requestExprs{attributesToGet: in.AttributesToGet, names: in.ExpressionAttributeNames, projection: in.ProjectionExpression})
	}
	pk, sk, err := t.checkKey(in.Key)
	if err != nil {
		return nil, readItem{}, err
	}
	proj, err := t.readProjection(in.ExpressionAttributeNames, in.ProjectionExpression, in.AttributesToGet)
	if err != nil {
		return nil, readItem{}, err
	}
	consistent := aws.ToBool(in.ConsistentRead)
	var idBuf, posBuf [128]byte
	id, pos := t.locate(idBuf[:0], posBuf[:0], pk, sk)
	src := t.source(consistent)
	t.mu.RLock()
	if t.deleted {
		t.mu.RUnlock()
		return nil, readItem{}, resourceNotFound()
	}
	data := src.items.Data(id, pos)
	t.mu.RUnlock()

	// Stored items are immutable, so they can be read outside the lock.
	out := &dynamodb.GetItemOutput{}
	var item readItem
	size := 0
	if data != "" {
		item.data = data
		if proj != nil {
			item = readItem{attrs: proj.project(store.Decode(data))}
		}
		size = store.Size(data)
	}
	u := &usage{table: name, read: readUnits(size, consistent)}
	db.record(ctx, u)
	out.ConsumedCapacity = u.consumedCapacity(in.ReturnConsumedCapacity)
	return out, item, nil
}

// readProjection compiles a read's ProjectionExpression or its legacy
// AttributesToGet; the result copies whole items when neither is given.
func (t *dbTable) readProjection(names map[string]string, expression *string, attributesToGet []string) (*readProj, error) {
	if expression == nil && names == nil && attributesToGet == nil {
		return nil, nil
	}
	if expression != nil && attributesToGet != nil {
		return nil, validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	}
	if attributesToGet != nil {
		if names != nil {
			return nil, validationf("ExpressionAttributeNames can only be specified when using expressions")
		}
		return &readProj{attrs: attributesToGet}, nil
	}
	x, err := newExprs(names, nil)
	if err != nil {
		return nil, err
	}
	x.onTable(t)
	p, err := x.projection(expression)
	if err != nil {
		return nil, err
	}
	if err := x.done(); err != nil {
		return nil, err
	}
	return &readProj{p: p}, nil
}

// readProj is a read's projection: an expression, a legacy attribute list,
// or (nil) the whole item.
type readProj struct {
	p     *projection
	attrs []string
}

// project returns the projected attributes of item, a freshly decoded map
// the caller owns (so nothing needs copying).
func (r *readProj) project(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	switch {
	case r == nil:
		return item
	case r.attrs != nil:
		out := make(map[string]types.AttributeValue, len(r.attrs))
		for _, n := range r.attrs {
			if v, ok := item[n]; ok {
				out[n] = v
			}
		}
		return out
	}
	return r.p.apply(item)
}
