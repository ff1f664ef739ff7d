package table

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestKeyMarshalsValuesUnderSchemaNames(t *testing.T) {
	tbl := New(nil, thingsSchema)
	k := tbl.Key("USER#1", "JOB#1")
	if len(k) != 2 || k["pk"].(*types.AttributeValueMemberS).Value != "USER#1" || k["sk"].(*types.AttributeValueMemberS).Value != "JOB#1" {
		t.Fatalf("Key = %v", k)
	}
	if err := tbl.checkKey("key", k); err != nil {
		t.Fatal(err)
	}
	numeric := New(nil, Schema{Name: "Counters", PartitionKey: Attribute{Name: "id", Type: "N"}})
	k = numeric.Key(42)
	if k["id"].(*types.AttributeValueMemberN).Value != "42" {
		t.Fatalf("Key(42) = %v", k)
	}
	if err := numeric.checkKey("key", k); err != nil {
		t.Fatal(err)
	}
	if err := numeric.checkKey("key", numeric.Key(42, "extra")); err == nil {
		t.Fatal("a sort value on a table without a sort key was accepted")
	}
}

func TestKeyStringIsStableForMessages(t *testing.T) {
	k := Key{"sk": &types.AttributeValueMemberS{Value: "b"}, "pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "1"}}
	if got := k.String(); got != `n=1, pk="a", sk="b"` {
		t.Fatalf("String = %q", got)
	}
}

func TestTableAccessors(t *testing.T) {
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	if tbl.Name() != "Things" || tbl.DB() != API(c) {
		t.Fatal("Name or DB wrong")
	}
	s := tbl.Schema()
	s.Indexes[0].Name = "Mutated"
	if tbl.Schema().Indexes[0].Name != "GSI1" {
		t.Fatal("Schema() exposes the table's own slices")
	}
}

func TestCursorKeyIsCopied(t *testing.T) {
	key := []byte("secret")
	tbl := New(nil, thingsSchema, func(o *Options) { o.CursorKey = key })
	key[0] = 'X'
	if string(tbl.opts.CursorKey) != "secret" {
		t.Fatal("the table shares the caller's CursorKey slice")
	}
}

func TestIdentityComparesNumbersByValue(t *testing.T) {
	tbl := New(nil, Schema{Name: "Counters", PartitionKey: Attribute{Name: "id", Type: "N"}})
	a := Key{"id": &types.AttributeValueMemberN{Value: "1"}}
	b := Key{"id": &types.AttributeValueMemberN{Value: "1.00"}}
	c := Key{"id": &types.AttributeValueMemberN{Value: "10E-1"}}
	d := Key{"id": &types.AttributeValueMemberN{Value: "2"}}
	if tbl.identity(a) != tbl.identity(b) || tbl.identity(a) != tbl.identity(c) {
		t.Fatal("1, 1.00 and 10E-1 are one key in DynamoDB")
	}
	if tbl.identity(a) == tbl.identity(d) {
		t.Fatal("1 and 2 collide")
	}
	s := New(nil, thingsSchema)
	if s.identity(s.Key("a", "1")) == s.identity(Key{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: "1"}}) {
		t.Fatal("S 1 and N 1 collide")
	}
}
