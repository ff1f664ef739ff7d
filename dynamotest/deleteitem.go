package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteItem deletes an item by its key, if its ConditionExpression holds.
// Deleting a missing item succeeds and costs one write unit, as in DynamoDB.
func (db *DB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (res *dynamodb.DeleteItemOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opDeleteItem, name); err != nil {
		return nil, err
	}
	t := db.table(name)
	if err := deleteItemViolations(in, t != nil); err != nil {
		return nil, err
	}
	switch in.ReturnValues {
	case "", types.ReturnValueNone, types.ReturnValueAllOld:
	default:
		return nil, validationf("ReturnValues can only be ALL_OLD or NONE")
	}
	x, err := legacyWrite(writeExprs{condition: in.ConditionExpression, names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues},
		in.Expected, in.ConditionalOperator, nil)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, missingTable(requestExprs{names: x.names, values: x.values, condition: x.condition})
	}
	w, err := t.keyOp(writeDelete, in.Key, x.condition, nil, x.names, x.values)
	if err != nil {
		return nil, err
	}

	o, u, err := db.commit(ctx, w, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	return &dynamodb.DeleteItemOutput{
		Attributes:            returnValues(in.ReturnValues, o, nil),
		ConsumedCapacity:      u.consumedCapacity(in.ReturnConsumedCapacity),
		ItemCollectionMetrics: w.itemCollectionMetrics(in.ReturnItemCollectionMetrics, o),
	}, nil
}

// keyOp validates and compiles a write addressed by key: an update, a
// delete or a condition check.
func (t *dbTable) keyOp(kind writeKind, key map[string]types.AttributeValue, cond, upd *string, names map[string]string, values map[string]types.AttributeValue) (*writeOp, error) {
	w, err := t.txKeyOp(kind, key, cond, upd, names, values)
	if err != nil {
		return nil, err
	}
	if w.invalid != nil {
		return nil, w.invalid
	}
	return w, nil
}

// txKeyOp is keyOp for a transaction, where DynamoDB reports a key that
// does not match the schema, or an update of a key attribute, as the
// action's ValidationError cancellation reason rather than failing the
// request: such errors are left in w.invalid.
func (t *dbTable) txKeyOp(kind writeKind, key map[string]types.AttributeValue, cond, upd *string, names map[string]string, values map[string]types.AttributeValue) (*writeOp, error) {
	w := &writeOp{t: t, kind: kind, key: ownKey(key)}
	if _, _, err := t.checkKey(key); err != nil {
		w.invalid = err
	}
	if cond == nil && upd == nil && names == nil && values == nil {
		return w, nil
	}
	x, err := newExprs(names, values)
	if err != nil {
		return nil, err
	}
	x.onTable(t)
	if w.upd, err = x.update(upd); err != nil {
		return nil, err
	}
	if w.cond, err = x.condition(cond); err != nil {
		return nil, err
	}
	if err := x.done(); err != nil {
		return nil, err
	}
	for _, n := range w.upd.names() {
		if t.isKeyAttr(n) && w.invalid == nil {
			w.invalid = invalidParam("Cannot update attribute %s. This attribute is part of the key", n)
		}
	}
	return w, nil
}
