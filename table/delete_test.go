package table

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

func TestDeleteRejectsBadInputBeforeSending(t *testing.T) {
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	ctx := context.Background()
	for name, key := range badKeys(tbl) {
		t.Run(name, func(t *testing.T) { mustInputError(t, tbl.Delete(ctx, key)) })
	}
	var v thing
	// DeleteItem can return only the old item.
	mustInputError(t, tbl.Delete(ctx, tbl.Key("a", "b"), ReturnNew(&v)))
	mustInputError(t, tbl.Delete(ctx, tbl.Key("a", "b"), ReturnOld(v)))
	mustInputError(t, tbl.Delete(ctx, tbl.Key("a", "b"), IfExists(), IfNotExists()))
	mustInputError(t, tbl.Delete(ctx, tbl.Key("a", "b"), If(expression.ConditionBuilder{})))
	if c.total() != 0 {
		t.Fatalf("%d calls sent for bad input", c.total())
	}
}

func TestDeleteRemovesTheItem(t *testing.T) {
	db := newMemDB()
	tbl := New(db, thingsSchema)
	ctx := context.Background()
	if err := tbl.Put(ctx, thing{PK: "a", SK: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, tbl.Key("a", "b")); err != nil {
		t.Fatal(err)
	}
	if db.len() != 0 {
		t.Fatal("item still stored")
	}
}
