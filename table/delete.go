package table

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Delete removes the item with key. Deleting a missing item succeeds, as in
// DynamoDB, unless IfExists asks for ErrNotFound.
func (t *Table) Delete(ctx context.Context, key Key, opts ...func(*WriteOptions)) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	if err := t.checkKey("key", key); err != nil {
		return err
	}
	o := writeOptions(opts)
	if err := checkReturnPtrs(o, false); err != nil {
		return err
	}
	wc, err := t.condition(o)
	if err != nil {
		return err
	}
	in := &dynamodb.DeleteItemInput{TableName: aws.String(t.Name()), Key: key}
	if wc.cond != nil {
		e, err := buildExpr("options.Condition", builders{condition: wc.cond})
		if err != nil {
			return err
		}
		in.ConditionExpression = e.Condition()
		in.ExpressionAttributeNames = e.Names()
		in.ExpressionAttributeValues = e.Values()
		in.ReturnValuesOnConditionCheckFailure = returnValuesOnFailure(wc.wantCurrentItem(o))
	}
	if o.ReturnOld != nil {
		in.ReturnValues = types.ReturnValueAllOld
	}
	res, err := t.db.DeleteItem(ctx, in)
	if err != nil {
		return t.writeError("delete", key, wc, o, err)
	}
	return decodeReturned(res.Attributes, o.ReturnOld)
}
