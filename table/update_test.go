package table

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

func TestUpdateRejectsBadInputBeforeSending(t *testing.T) {
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	ctx := context.Background()
	set := expression.Set(expression.Name("name"), expression.Value("x"))
	for name, key := range badKeys(tbl) {
		t.Run(name, func(t *testing.T) { mustInputError(t, tbl.Update(ctx, key, set)) })
	}
	var a, b thing
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), expression.UpdateBuilder{}))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, ReturnOld(&a), ReturnNew(&b)))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, IfExists(), IfNotExists()))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, ReturnNew(b)))
	mustInputError(t, tbl.Update(ctx, tbl.Key("a", "b"), set, If(expression.ConditionBuilder{})))
	if c.total() != 0 {
		t.Fatalf("%d calls sent for bad input", c.total())
	}
}
