package table

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutRejectsBadInputBeforeSending(t *testing.T) {
	big := Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"},
		"body": &types.AttributeValueMemberS{Value: string(make([]byte, MaxItemSize))}}
	var out thing
	emptyCond := expression.ConditionBuilder{}
	cases := []struct {
		name   string
		item   any
		opts   []func(*WriteOptions)
		tooBig bool
	}{
		{"nil item", nil, nil, false},
		{"nil struct pointer", (*thing)(nil), nil, false},
		{"nil Item pointer", (*Item)(nil), nil, false},
		{"not a record", "just a string", nil, false},
		{"slice", []thing{{PK: "a", SK: "b"}}, nil, false},
		{"empty partition key", thing{SK: "b"}, nil, false},
		{"empty sort key", thing{PK: "a"}, nil, false},
		{"missing key attribute", Item{"pk": &types.AttributeValueMemberS{Value: "a"}}, nil, false},
		{"wrong key type", Item{"pk": &types.AttributeValueMemberN{Value: "1"}, "sk": &types.AttributeValueMemberS{Value: "b"}}, nil, false},
		{"index key of wrong type", Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}, "gsi1pk": &types.AttributeValueMemberN{Value: "1"}}, nil, false},
		{"empty index key", Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}, "gsi1sk": &types.AttributeValueMemberS{Value: ""}}, nil, false},
		{"over 400 KB", big, nil, true},
		{"both existence checks", thing{PK: "a", SK: "b"}, []func(*WriteOptions){IfExists(), IfNotExists()}, false},
		{"ReturnOld not a pointer", thing{PK: "a", SK: "b"}, []func(*WriteOptions){ReturnOld(out)}, false},
		{"ReturnNew nil pointer", thing{PK: "a", SK: "b"}, []func(*WriteOptions){ReturnNew((*thing)(nil))}, false},
		{"invalid condition", thing{PK: "a", SK: "b"}, []func(*WriteOptions){If(emptyCond)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := newCalls(nil)
			err := New(calls, thingsSchema).Put(context.Background(), c.item, c.opts...)
			mustInputError(t, err)
			assert.Equal(t, c.tooBig, errors.Is(err, ErrItemTooLarge), "errors.Is(%v, ErrItemTooLarge)", err)
			require.Zero(t, calls.total(), "calls sent for bad input")
		})
	}
}

func TestPutHonoursLowerMaxItemSize(t *testing.T) {
	calls := newCalls(nil)
	tbl := New(calls, thingsSchema, func(o *Options) { o.MaxItemSize = 100 })
	err := tbl.Put(context.Background(), thing{PK: "a", SK: "b", Name: string(make([]byte, 100))})
	require.ErrorIs(t, err, ErrItemTooLarge)
	require.Zero(t, calls.total(), "calls sent before ErrItemTooLarge")
}

// condFail answers every conditional write with ConditionalCheckFailed,
// returning current when asked for the old item, as DynamoDB does.
type condFail struct {
	API
	current Item
	last    any
}

func (c *condFail) fail(rv types.ReturnValuesOnConditionCheckFailure) error {
	e := &types.ConditionalCheckFailedException{Message: strPtr("The conditional request failed")}
	if rv == types.ReturnValuesOnConditionCheckFailureAllOld {
		e.Item = c.current
	}
	return e
}

func (c *condFail) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.last = in
	return nil, c.fail(in.ReturnValuesOnConditionCheckFailure)
}

func (c *condFail) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.last = in
	return nil, c.fail(in.ReturnValuesOnConditionCheckFailure)
}

func (c *condFail) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.last = in
	return nil, c.fail(in.ReturnValuesOnConditionCheckFailure)
}

func TestConditionalWriteFailureMapsToTheOptionsSentinel(t *testing.T) {
	existing := Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"}}
	cond := expression.Name("count").Equal(expression.Value(1))
	cases := []struct {
		name    string
		current Item
		opts    []func(*WriteOptions)
		want    error
	}{
		{"condition", existing, []func(*WriteOptions){If(cond)}, ErrConditionFailed},
		{"if not exists", existing, []func(*WriteOptions){IfNotExists()}, ErrAlreadyExists},
		{"if exists", nil, []func(*WriteOptions){IfExists()}, ErrNotFound},
		{"if not exists and condition, item there", existing, []func(*WriteOptions){IfNotExists(), If(cond)}, ErrAlreadyExists},
		{"if not exists and condition, item absent", nil, []func(*WriteOptions){IfNotExists(), If(cond)}, ErrConditionFailed},
		{"if exists and condition, item absent", nil, []func(*WriteOptions){IfExists(), If(cond)}, ErrNotFound},
		{"if exists and condition, item there", existing, []func(*WriteOptions){IfExists(), If(cond)}, ErrConditionFailed},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := &condFail{current: c.current}
			tbl := New(db, thingsSchema)
			for op, err := range map[string]error{
				"put":    tbl.Put(ctx, thing{PK: "a", SK: "b"}, c.opts...),
				"update": tbl.Update(ctx, tbl.Key("a", "b"), expression.Set(expression.Name("x"), expression.Value(1)), c.opts...),
				"delete": tbl.Delete(ctx, tbl.Key("a", "b"), c.opts...),
			} {
				assert.ErrorIs(t, err, c.want, op)
				assert.ErrorIs(t, err, ErrConditionFailed, op)
				var te *Error
				if assert.ErrorAs(t, err, &te, op) {
					assert.Equal(t, op, te.Op)
					assert.Nil(t, te.Item, "%s: no item (not asked for)", op)
				}
			}
		})
	}
}

func TestItemOnConditionFailureCarriesCurrentItem(t *testing.T) {
	current := Item{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "b"},
		"count": &types.AttributeValueMemberN{Value: "7"}}
	db := &condFail{current: current}
	tbl := New(db, thingsSchema)
	err := tbl.Put(context.Background(), thing{PK: "a", SK: "b"},
		If(expression.Name("count").Equal(expression.Value(1))), ItemOnConditionFailure())
	var te *Error
	require.ErrorAs(t, err, &te)
	var cur thing
	require.NoError(t, Unmarshal(te.Item, &cur))
	require.Equal(t, 7, cur.Count, "the current item")
	require.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, db.last.(*dynamodb.PutItemInput).ReturnValuesOnConditionCheckFailure)
}

func TestPutReturnNewGivesTheWrittenItem(t *testing.T) {
	tbl := New(newMemDB(), thingsSchema)
	var got thing
	in := thing{PK: "a", SK: "b", Name: "n", Count: 2}
	require.NoError(t, tbl.Put(context.Background(), in, ReturnNew(&got)))
	require.Equal(t, in, got, "ReturnNew")
}
