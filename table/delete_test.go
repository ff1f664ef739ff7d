package table

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.Zero(t, c.total(), "calls sent for bad input")
}

func TestDeleteRemovesTheItem(t *testing.T) {
	db := newMemDB()
	tbl := New(db, thingsSchema)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, thing{PK: "a", SK: "b"}))
	require.NoError(t, tbl.Delete(ctx, tbl.Key("a", "b")))
	assert.Zero(t, db.len(), "items still stored")
}
