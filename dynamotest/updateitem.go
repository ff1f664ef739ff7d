package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// UpdateItem applies an UpdateExpression to an item, creating it from its
// key when missing, if its ConditionExpression holds. Key attributes cannot
// be updated.
func (db *DB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (res *dynamodb.UpdateItemOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opUpdateItem, name); err != nil {
		return nil, err
	}
	t := db.table(name)
	if err := updateItemViolations(in, t != nil); err != nil {
		return nil, err
	}
	x, err := legacyWrite(writeExprs{condition: in.ConditionExpression, update: in.UpdateExpression,
		names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues},
		in.Expected, in.ConditionalOperator, in.AttributeUpdates)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, missingTable(requestExprs{names: x.names, values: x.values, condition: x.condition, update: x.update})
	}
	w, err := t.keyOp(writeUpdate, in.Key, x.condition, x.update, x.names, x.values)
	if err != nil {
		return nil, err
	}

	o, u, err := db.commit(ctx, w, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	return &dynamodb.UpdateItemOutput{
		Attributes:            returnValues(in.ReturnValues, o, w.upd),
		ConsumedCapacity:      u.consumedCapacity(in.ReturnConsumedCapacity),
		ItemCollectionMetrics: w.itemCollectionMetrics(in.ReturnItemCollectionMetrics, o),
	}, nil
}
