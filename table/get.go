package table

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Get reads the item with key into out (a non-nil pointer to a struct or an
// Item). A missing item is ErrNotFound.
func (t *Table) Get(ctx context.Context, key Key, out any, opts ...func(*GetOptions)) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	if err := t.checkKey("key", key); err != nil {
		return err
	}
	if err := checkOut(out); err != nil {
		return err
	}
	o := getOptions(opts)
	in := &dynamodb.GetItemInput{
		TableName:      aws.String(t.Name()),
		Key:            key,
		ConsistentRead: aws.Bool(o.Consistent),
	}
	if o.Projection != nil {
		p, err := withKeys(*o.Projection, t.keyAttrs())
		if err != nil {
			return err
		}
		e, err := buildExpr("options.Projection", builders{projection: &p})
		if err != nil {
			return err
		}
		in.ProjectionExpression = e.Projection()
		in.ExpressionAttributeNames = e.Names()
	}
	res, err := t.db.GetItem(ctx, in)
	if err != nil {
		return wrapError("get", t.Name(), key.String(), err)
	}
	if len(res.Item) == 0 {
		return &Error{Op: "get", Table: t.Name(), Key: key.String(), Err: ErrNotFound}
	}
	return Unmarshal(res.Item, out)
}
