package dynamotest_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutThenGetReturnsTheItem(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{
		"pk": S("a"), "sk": S("b"), "n": N("42"), "bin": B("\x00\x01"),
		"m":   &types.AttributeValueMemberM{Value: item{"x": &types.AttributeValueMemberL{Value: []types.AttributeValue{S("y"), &types.AttributeValueMemberBOOL{Value: true}}}}},
		"ss":  &types.AttributeValueMemberSS{Value: []string{"p", "q"}},
		"nul": &types.AttributeValueMemberNULL{Value: true},
	})
	got := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	require.Falsef(t, str(t, got, "pk") != "a" || num(t, got, "n") != "42" || len(got) != 7, "got %v", got)
	m := got["m"].(*types.AttributeValueMemberM).Value["x"].(*types.AttributeValueMemberL).Value
	assert.Falsef(t, m[0].(*types.AttributeValueMemberS).Value != "y" || !m[1].(*types.AttributeValueMemberBOOL).Value, "nested value %v", m)
}

func TestGetMissingItemReturnsNoItem(t *testing.T) {
	db := newDB(t, simple)
	it := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.Nilf(t, it, "got %v", it)
}

func TestPutReplacesWholeItem(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b"), "old": S("1")})
	out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"),
		Item: item{"pk": S("a"), "sk": S("b"), "new": S("2")}, ReturnValues: types.ReturnValueAllOld})
	require.NoError(t, err)
	assert.EqualValuesf(t, "1", str(t, out.Attributes, "old"), "ALL_OLD %v", out.Attributes)
	got := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	_, ok := got["old"]
	assert.Falsef(t, ok || str(t, got, "new") != "2", "got %v", got)
}

func TestNumbersAreStoredCanonical(t *testing.T) {
	db := newDB(t, numbered)
	put(t, db, "numbered", item{"pk": S("a"), "n": N("1.50"), "v": N("007.100"), "ns": &types.AttributeValueMemberNS{Value: []string{"1.0", "2e1"}}})
	// "1.5" and "1.50" are one key.
	got := get(t, db, "numbered", item{"pk": S("a"), "n": N("1.5")})
	assert.Falsef(t, num(t, got, "n") != "1.5" || num(t, got, "v") != "7.1", "got %v", got)
	ns := got["ns"].(*types.AttributeValueMemberNS).Value
	assert.EqualValuesf(t, "1,20", strings.Join(ns, ","), "NS %v", ns)
	put(t, db, "numbered", item{"pk": S("a"), "n": N("15e-1"), "v": N("2")})
	out, _ := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("numbered")})
	assert.EqualValuesf(t, 1, out.Count, "1.50 and 15e-1 made %d items, want one", out.Count)
}

func TestReturnedItemsAreCopies(t *testing.T) {
	db := newDB(t, simple)
	in := item{"pk": S("a"), "sk": S("b"), "bin": B("abc"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{S("x")}}}
	put(t, db, "simple", in)
	// Changing what was written, or what was read, leaves the stored item alone.
	in["bin"].(*types.AttributeValueMemberB).Value[0] = 'Z'
	in["l"].(*types.AttributeValueMemberL).Value[0] = S("changed")
	got := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	got["bin"].(*types.AttributeValueMemberB).Value[1] = 'Z'
	got["extra"] = S("x")
	again := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.EqualValuesf(t, "abc", string(again["bin"].(*types.AttributeValueMemberB).Value), "binary changed to %q", again["bin"].(*types.AttributeValueMemberB).Value)
	v := again["l"].(*types.AttributeValueMemberL).Value[0].(*types.AttributeValueMemberS).Value
	assert.EqualValuesf(t, "x", v, "list element changed to %q", v)
	_, ok := again["extra"]
	assert.False(t, ok, "an attribute added to a returned item was stored")
}

func TestKeyValidation(t *testing.T) {
	db := newDB(t, simple, numbered)
	cases := []struct {
		name string
		call func() error
		msg  string
	}{
		{"put missing sort key", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a")}})
			return err
		}, "One or more parameter values were invalid: Missing the key sk in the item"},
		{"put wrong key type", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": N("1"), "sk": S("b")}})
			return err
		}, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"put empty key string", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S(""), "sk": S("b")}})
			return err
		}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"put bad number", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("numbered"), Item: item{"pk": S("a"), "n": N("1x")}})
			return err
		}, ""},
		{"get missing sort key", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a")}})
			return err
		}, "The provided key element does not match the schema"},
		{"get extra attribute", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b"), "x": S("c")}})
			return err
		}, "The provided key element does not match the schema"},
		{"get wrong type", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("numbered"), Key: item{"pk": S("a"), "n": S("1")}})
			return err
		}, "The provided key element does not match the schema"},
		{"delete empty key", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("")}})
			return err
		}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk"},
		{"partition key too long", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S(strings.Repeat("k", 2049)), "sk": S("b")}})
			return err
		}, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{"sort key too long", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S(strings.Repeat("k", 1025))}})
			return err
		}, "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
		{"empty set", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("b"), "s": &types.AttributeValueMemberSS{}}})
			return err
		}, ""},
		{"put ReturnValues ALL_NEW", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("b")}, ReturnValues: types.ReturnValueAllNew})
			return err
		}, "ReturnValues can only be ALL_OLD or NONE"},
		{"delete ReturnValues UPDATED_NEW", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")}, ReturnValues: types.ReturnValueUpdatedNew})
			return err
		}, "ReturnValues can only be ALL_OLD or NONE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantValidation(t, c.call(), c.msg)
		})
	}
	out, _ := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("simple")})
	assert.EqualValuesf(t, 0, out.Count, "rejected writes stored %d items", out.Count)
}

func TestItemSizeLimit(t *testing.T) {
	db := newDB(t, simple)
	// 400 KB exactly, names included, is allowed; one byte more is not.
	base := item{"pk": S("a"), "sk": S("b")}
	overhead := len("pk") + 1 + len("sk") + 1 + len("data")
	base["data"] = S(strings.Repeat("x", 400*1024-overhead))
	put(t, db, "simple", base)
	base["data"] = S(strings.Repeat("x", 400*1024-overhead+1))
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: base})
	wantValidation(t, err, "Item size has exceeded the maximum allowed size")
}

func TestDeleteItemReturnsOldItem(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b"), "v": S("1")})
	out, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")}, ReturnValues: types.ReturnValueAllOld})
	require.NoError(t, err)
	assert.EqualValuesf(t, "1", str(t, out.Attributes, "v"), "ALL_OLD %v", out.Attributes)
	it := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.Nilf(t, it, "still there: %v", it)
	// Deleting a missing item succeeds and returns nothing.
	out, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")}, ReturnValues: types.ReturnValueAllOld})
	assert.Falsef(t, err != nil || out.Attributes != nil, "second delete: %v %v", out.Attributes, err)
}

func TestUpdateItemWithoutExpressionCreatesKeyOnlyItem(t *testing.T) {
	db := newDB(t, simple)
	out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")}, ReturnValues: types.ReturnValueAllNew})
	require.NoError(t, err)
	assert.Falsef(t, len(out.Attributes) != 2 || str(t, out.Attributes, "sk") != "b", "ALL_NEW %v", out.Attributes)
	it := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.Lenf(t, it, 2, "stored %v", it)
}

func TestBinaryKeysCompareByBytes(t *testing.T) {
	spec := tableSpec{name: "bin", pk: "pk", pkType: "B", sk: "sk", skType: "B"}
	db := newDB(t, spec)
	for _, s := range []string{"\xff", "\x00", "\x7f", "a"} {
		put(t, db, "bin", item{"pk": B("p"), "sk": B(s)})
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("bin"), KeyConditions: map[string]types.Condition{
		"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{B("p")}}}})
	require.NoError(t, err)
	var order []byte
	for _, it := range out.Items {
		order = append(order, it["sk"].(*types.AttributeValueMemberB).Value[0])
	}
	assert.EqualValuesf(t, "\x00a\x7f\xff", string(order), "order %q", order)
}

func TestAttributeNameLimit(t *testing.T) {
	db := newDB(t, simple)
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"),
		Item: item{"pk": S("a"), "sk": S("b"), strings.Repeat("n", 65536): S("v")}})
	wantValidation(t, err, "One or more parameter values were invalid: Attribute name exceeds the maximum size of 65535 bytes")
}
