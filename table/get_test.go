package table

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
		if ie.Field == "" {
			t.Errorf("%s: error names no field: %v", name, ie)
		}
	}
	var notPtr thing
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), notPtr))
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), nil))
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), (*thing)(nil)))
	bad := expression.ProjectionBuilder{}
	mustInputError(t, tbl.Get(ctx, tbl.Key("a", "b"), &notPtr, func(o *GetOptions) { o.Projection = &bad }))
	if c.total() != 0 {
		t.Fatalf("%d calls sent for bad input", c.total())
	}
}

func TestGetMissingItemIsNotFoundNamingTheKey(t *testing.T) {
	tbl := New(newMemDB(), thingsSchema)
	var out thing
	err := tbl.Get(context.Background(), tbl.Key("USER#1", "JOB#9"), &out)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if want := `table: get Things (pk="USER#1", sk="JOB#9"): item not found`; err.Error() != want {
		t.Fatalf("message = %q, want %q", err, want)
	}
}

func TestGetIntoItemOrStruct(t *testing.T) {
	db := newMemDB()
	tbl := New(db, thingsSchema)
	ctx := context.Background()
	if err := tbl.Put(ctx, thing{PK: "a", SK: "b", Name: "n", Count: 3}); err != nil {
		t.Fatal(err)
	}
	var th thing
	if err := tbl.Get(ctx, tbl.Key("a", "b"), &th); err != nil || th.Count != 3 {
		t.Fatalf("struct: %+v, %v", th, err)
	}
	var it Item
	if err := tbl.Get(ctx, tbl.Key("a", "b"), &it); err != nil || it["name"].(*types.AttributeValueMemberS).Value != "n" {
		t.Fatalf("item: %v, %v", it, err)
	}
}
