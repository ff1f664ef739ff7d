package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PutItem stores an item, replacing any item with its key, if its
// ConditionExpression holds.
func (db *DB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (res *dynamodb.PutItemOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opPutItem, name); err != nil {
		return nil, err
	}
	t := db.table(name)
	if err := putItemViolations(in, t != nil); err != nil {
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
		return nil, missingTable(requestExprs{item: in.Item, names: x.names, values: x.values, condition: x.condition})
	}
	w, err := t.putOp(in.Item, x.condition, x.names, x.values)
	if err != nil {
		return nil, err
	}

	o, u, err := db.commit(ctx, w, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	return &dynamodb.PutItemOutput{
		Attributes:            returnValues(in.ReturnValues, o, nil),
		ConsumedCapacity:      u.consumedCapacity(in.ReturnConsumedCapacity),
		ItemCollectionMetrics: w.itemCollectionMetrics(in.ReturnItemCollectionMetrics, o),
	}, nil
}

// putOp validates and compiles a put: PutItem, a batch put, or a
// transaction's Put.
func (t *dbTable) putOp(item map[string]types.AttributeValue, cond *string, names map[string]string, values map[string]types.AttributeValue) (*writeOp, error) {
	own, size, err := t.putItem(item)
	if err != nil {
		return nil, err
	}
	w := &writeOp{t: t, kind: writePut, item: own, size: size, key: own}
	if cond != nil || names != nil || values != nil {
		x, err := newExprs(names, values)
		if err != nil {
			return nil, err
		}
		x.onTable(t)
		if w.cond, err = x.condition(cond); err != nil {
			return nil, err
		}
		if err := x.done(); err != nil {
			return nil, err
		}
	}
	return w, nil
}
