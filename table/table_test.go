package table

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestKeyMarshalsValuesUnderSchemaNames(t *testing.T) {
	tbl := New(nil, thingsSchema)
	k := tbl.Key("USER#1", "JOB#1")
	require.Len(t, k, 2, "Key = %v", k)
	require.Equal(t, "USER#1", k["pk"].(*types.AttributeValueMemberS).Value, "Key = %v", k)
	require.Equal(t, "JOB#1", k["sk"].(*types.AttributeValueMemberS).Value, "Key = %v", k)
	require.NoError(t, tbl.checkKey("key", k))
	numeric := New(nil, Schema{Name: "Counters", PartitionKey: Attribute{Name: "id", Type: "N"}})
	k = numeric.Key(42)
	require.Equal(t, "42", k["id"].(*types.AttributeValueMemberN).Value, "Key(42) = %v", k)
	require.NoError(t, numeric.checkKey("key", k))
	require.Error(t, numeric.checkKey("key", numeric.Key(42, "extra")), "a sort value on a table without a sort key was accepted")
}

func TestKeyStringIsStableForMessages(t *testing.T) {
	k := Key{"sk": &types.AttributeValueMemberS{Value: "b"}, "pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "1"}}
	require.Equal(t, `n=1, pk="a", sk="b"`, k.String())
}

func TestTableAccessors(t *testing.T) {
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	require.Equal(t, "Things", tbl.Name())
	require.Same(t, c, tbl.DB())
	s := tbl.Schema()
	s.Indexes[0].Name = "Mutated"
	require.Equal(t, "GSI1", tbl.Schema().Indexes[0].Name, "Schema() exposes the table's own slices")
}

func TestCursorKeyIsCopied(t *testing.T) {
	key := []byte("secret")
	tbl := New(nil, thingsSchema, func(o *Options) { o.CursorKey = key })
	key[0] = 'X'
	require.Equal(t, "secret", string(tbl.opts.CursorKey), "the table shares the caller's CursorKey slice")
}

func TestIdentityComparesNumbersByValue(t *testing.T) {
	tbl := New(nil, Schema{Name: "Counters", PartitionKey: Attribute{Name: "id", Type: "N"}})
	a := Key{"id": &types.AttributeValueMemberN{Value: "1"}}
	b := Key{"id": &types.AttributeValueMemberN{Value: "1.00"}}
	c := Key{"id": &types.AttributeValueMemberN{Value: "10E-1"}}
	d := Key{"id": &types.AttributeValueMemberN{Value: "2"}}
	require.Equal(t, tbl.identity(a), tbl.identity(b), "1 and 1.00 are one key in DynamoDB")
	require.Equal(t, tbl.identity(a), tbl.identity(c), "1 and 10E-1 are one key in DynamoDB")
	require.NotEqual(t, tbl.identity(a), tbl.identity(d), "1 and 2 collide")
	s := New(nil, thingsSchema)
	require.NotEqual(t, s.identity(s.Key("a", "1")), s.identity(Key{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: "1"}}), "S 1 and N 1 collide")
}
