package dynamotest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutIfNotExistsFailsOnSecondPut(t *testing.T) {
	db := newDB(t, simple)
	create := func(v string, onFailure types.ReturnValuesOnConditionCheckFailure) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                           aws.String("simple"),
			Item:                                item{"pk": S("a"), "sk": S("b"), "v": S(v)},
			ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: onFailure,
		})
		return err
	}
	err := create("first", "")
	require.NoError(t, err)
	err = create("second", "")
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAsf(t, err, &ccf, "want ConditionalCheckFailedException, got %v", err)
	assert.Falsef(t, ccf.Item != nil || aws.ToString(ccf.Message) != "The conditional request failed", "exception %+v", ccf)
	err = create("third", types.ReturnValuesOnConditionCheckFailureAllOld)
	require.Falsef(t, !errors.As(err, &ccf) || str(t, ccf.Item, "v") != "first", "want the current item in the exception, got %v", err)
	got := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.EqualValuesf(t, "first", str(t, got, "v"), "a failed put changed the item to %v", got)
}

func TestDeleteWithFailedConditionKeepsItem(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b"), "status": S("running")})
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")},
		ConditionExpression:       aws.String("#s = :done"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: item{":done": S("done")},
	})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAsf(t, err, &ccf, "want ConditionalCheckFailedException, got %v", err)
	assert.NotNil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("b")}), "item deleted despite failed condition")
}

func TestUpdateItemReturnValues(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b"), "x": N("1"), "y": S("keep")})
	run := func(rv types.ReturnValue) item {
		t.Helper()
		out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")},
			UpdateExpression:          aws.String("SET x = x + :one, z = :z"),
			ExpressionAttributeValues: item{":one": N("1"), ":z": S("new")},
			ReturnValues:              rv,
		})
		require.NoError(t, err)
		return out.Attributes
	}
	got := run(types.ReturnValueNone)
	assert.Nilf(t, got, "NONE returned %v", got)
	// x is 2 now, z is "new".
	got = run(types.ReturnValueUpdatedOld)
	assert.Falsef(t, len(got) != 2 || num(t, got, "x") != "2" || str(t, got, "z") != "new", "UPDATED_OLD %v", got)
	got = run(types.ReturnValueUpdatedNew)
	assert.Falsef(t, len(got) != 2 || num(t, got, "x") != "4", "UPDATED_NEW %v", got)
	got = run(types.ReturnValueAllOld)
	assert.Falsef(t, len(got) != 5 || num(t, got, "x") != "4" || str(t, got, "y") != "keep", "ALL_OLD %v", got)
	got = run(types.ReturnValueAllNew)
	assert.Falsef(t, len(got) != 5 || num(t, got, "x") != "6", "ALL_NEW %v", got)
}

func TestUpdateItemCreatesMissingItemFromKey(t *testing.T) {
	db := newDB(t, simple)
	out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")},
		UpdateExpression:          aws.String("ADD hits :one"),
		ExpressionAttributeValues: item{":one": N("1")},
		ReturnValues:              types.ReturnValueAllNew,
	})
	require.NoError(t, err)
	assert.Falsef(t, len(out.Attributes) != 3 || num(t, out.Attributes, "hits") != "1" || str(t, out.Attributes, "pk") != "a", "ALL_NEW %v", out.Attributes)
}

func TestUpdateItemRejects(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b"), "big": S(strings.Repeat("x", 300*1024))})
	key := item{"pk": S("a"), "sk": S("b")}
	cases := []struct {
		name string
		in   *dynamodb.UpdateItemInput
		msg  string
	}{
		{"key attribute", &dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET sk = :v"), ExpressionAttributeValues: item{":v": S("c")}},
			"One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"},
		{"unused value", &dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET x = :v"), ExpressionAttributeValues: item{":v": S("c"), ":w": S("d")}},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"},
		{"values without expression", &dynamodb.UpdateItemInput{ExpressionAttributeValues: item{":v": S("c")}},
			"ExpressionAttributeValues can only be specified when using expressions"},
		{"grows past 400 KB", &dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET big2 = big")},
			"Item size to update has exceeded the maximum allowed size"},
		{"bad ReturnValues", &dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE x"), ReturnValues: "EVERYTHING"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.in.TableName, c.in.Key = aws.String("simple"), key
			_, err := db.UpdateItem(ctx, c.in)
			wantValidation(t, err, c.msg)
		})
	}
	got := get(t, db, "simple", key)
	assert.Lenf(t, got, 3, "rejected updates changed the item: %d attributes", len(got))
}

func TestConditionEvaluatesAgainstMissingItem(t *testing.T) {
	db := newDB(t, simple)
	// attribute_exists on a missing item is false: the update must fail and
	// must not create the item.
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")},
		UpdateExpression:                    aws.String("SET v = :v"),
		ConditionExpression:                 aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues:           item{":v": S("x")},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	require.Falsef(t, !errors.As(err, &ccf) || ccf.Item != nil, "want ConditionalCheckFailedException without item, got %v", err)
	it := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.Nilf(t, it, "failed update created %v", it)
}
