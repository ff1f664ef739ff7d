package table

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Update applies update to the item with key. Without IfExists (or a
// condition that requires the item) DynamoDB creates a missing item, as
// UpdateItem does. ReturnOld and ReturnNew are mutually exclusive: DynamoDB
// returns one image per call.
func (t *Table) Update(ctx context.Context, key Key, update expression.UpdateBuilder, opts ...func(*WriteOptions)) error {
	if err := t.checkKey("key", key); err != nil {
		return err
	}
	o := writeOptions(opts)
	if err := checkReturnPtrs(o, true); err != nil {
		return err
	}
	if o.ReturnOld != nil && o.ReturnNew != nil {
		return inputErr("options", "ReturnOld and ReturnNew", "UpdateItem returns either the old or the new item, not both")
	}
	wc, err := t.condition(o)
	if err != nil {
		return err
	}
	b := expression.NewBuilder().WithUpdate(update)
	if wc.cond != nil {
		b = b.WithCondition(*wc.cond)
	}
	e, err := buildExpr("update", b)
	if err != nil {
		return err
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(t.Name()),
		Key:                       key,
		UpdateExpression:          e.Update(),
		ConditionExpression:       e.Condition(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
	}
	if wc.cond != nil {
		in.ReturnValuesOnConditionCheckFailure = returnValuesOnFailure(wc.wantCurrentItem(o))
	}
	switch {
	case o.ReturnOld != nil:
		in.ReturnValues = types.ReturnValueAllOld
	case o.ReturnNew != nil:
		in.ReturnValues = types.ReturnValueAllNew
	}
	res, err := t.db.UpdateItem(ctx, in)
	if err != nil {
		return t.writeError("update", key, wc, o, err)
	}
	if o.ReturnOld != nil {
		return decodeReturned(res.Attributes, o.ReturnOld)
	}
	return decodeReturned(res.Attributes, o.ReturnNew)
}
