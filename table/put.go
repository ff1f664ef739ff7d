package table

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Put writes item, replacing any item with the same key. item is a struct
// (marshaled with Marshal) or an Item. The key attributes must be present,
// of the schema's types and non-empty, and the item must fit the size limit
// (ErrItemTooLarge); both are checked before anything is sent.
func (t *Table) Put(ctx context.Context, item any, opts ...func(*WriteOptions)) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	av, err := Marshal(item)
	if err != nil {
		return err
	}
	if err := t.checkItem("item", av); err != nil {
		return err
	}
	o := writeOptions(opts)
	if err := checkReturnPtrs(o, true); err != nil {
		return err
	}
	wc, err := t.condition(o)
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(t.Name()), Item: av}
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
	key := t.keyOf(av)
	res, err := t.db.PutItem(ctx, in)
	if err != nil {
		return t.writeError("put", key, wc, o, err)
	}
	if err := decodeReturned(res.Attributes, o.ReturnOld); err != nil {
		return err
	}
	// PutItem cannot return the new item, but it is exactly what was sent.
	return decodeReturned(av, o.ReturnNew)
}

// checkReturnPtrs validates ReturnOld/ReturnNew before any request.
func checkReturnPtrs(o WriteOptions, newAllowed bool) error {
	if o.ReturnOld != nil {
		if err := checkOut(o.ReturnOld); err != nil {
			return inputErr("options.ReturnOld", err.(*InputError).Value, "must be a non-nil pointer")
		}
	}
	if o.ReturnNew != nil {
		if !newAllowed {
			return inputErr("options.ReturnNew", "", "not available for this operation")
		}
		if err := checkOut(o.ReturnNew); err != nil {
			return inputErr("options.ReturnNew", err.(*InputError).Value, "must be a non-nil pointer")
		}
	}
	return nil
}
