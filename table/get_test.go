package table

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badKeys are keys every call taking a Key must refuse before sending.
func badKeys(tbl *Table) map[string]Key {
	return map[string]Key{
		"nil key":            nil,
		"empty key":          {},
		"missing sort key":   tbl.Key("a"),
		"extra attribute":    {"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}, "name": &types.AttributeValueMemberS{Value: "x"}},
		"wrong partition":    {"id": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}},
		"number for string":  tbl.Key(1, "b"),
		"empty string":       tbl.Key("a", ""),
		"too many values":    tbl.Key("a", "b", "c"),
		"unmarshalable":      tbl.Key("a", make(chan int)),
		"bool for string":    {"pk": &types.AttributeValueMemberBOOL{Value: true}, "sk": &types.AttributeValueMemberS{Value: "b"}},
		"nil attribute":      {"pk": nil, "sk": &types.AttributeValueMemberS{Value: "b"}},
		"binary for string":  {"pk": &types.AttributeValueMemberB{Value: []byte("a")}, "sk": &types.AttributeValueMemberS{Value: "b"}},
		"map for sort value": {"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberM{}},
	}
}

func TestGetRejectsBadInputBeforeSending(t *testing.T) {
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	ctx := context.Background()
	for name, key := range badKeys(tbl) {
		var out thing
		ie := mustInputError(t, tbl.Get(ctx, key, &out))
		assert.NotEmpty(t, ie.Field, "%s: the error names its field: %v", name, ie)
	}
	var notPtr thing
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), notPtr))
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), nil))
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), (*thing)(nil)))
	bad := expression.ProjectionBuilder{}
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), &notPtr, func(o *GetOptions) { o.Projection = &bad }))
	assert.Zero(t, c.total(), "calls sent for bad input")
}

func TestGetMissingItemIsNotFoundNamingTheKey(t *testing.T) {
	tbl := New(newMemDB(), thingsSchema)
	var out thing
	err := tbl.Get(context.Background(), tbl.Key("USER#1", "JOB#9"), &out)
	require.ErrorIs(t, err, ErrNotFound)
	require.EqualError(t, err, `table: get Things (pk="USER#1", sk="JOB#9"): item not found`)
}

func TestGetIntoItemOrStruct(t *testing.T) {
	db := newMemDB()
	tbl := New(db, thingsSchema)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, thing{PK: "a", SK: "b", Name: "n", Count: 3}))
	var th thing
	require.NoError(t, tbl.Get(ctx, tbl.Key("a", "b"), &th))
	require.Equal(t, 3, th.Count, "struct")
	var it Item
	require.NoError(t, tbl.Get(ctx, tbl.Key("a", "b"), &it))
	require.IsType(t, &types.AttributeValueMemberS{}, it["name"])
	require.Equal(t, "n", it["name"].(*types.AttributeValueMemberS).Value, "item")
}
