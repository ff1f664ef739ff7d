package dynamotest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
	if err := create("first", ""); err != nil {
		t.Fatal(err)
	}
	err := create("second", "")
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("want ConditionalCheckFailedException, got %v", err)
	}
	if ccf.Item != nil || aws.ToString(ccf.Message) != "The conditional request failed" {
		t.Errorf("exception %+v", ccf)
	}
	err = create("third", types.ReturnValuesOnConditionCheckFailureAllOld)
	if !errors.As(err, &ccf) || str(t, ccf.Item, "v") != "first" {
		t.Fatalf("want the current item in the exception, got %v", err)
	}
	if got := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")}); str(t, got, "v") != "first" {
		t.Errorf("a failed put changed the item to %v", got)
	}
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
	if !errors.As(err, &ccf) {
		t.Fatalf("want ConditionalCheckFailedException, got %v", err)
	}
	if get(t, db, "simple", item{"pk": S("a"), "sk": S("b")}) == nil {
		t.Error("item deleted despite failed condition")
	}
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
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes
	}
	if got := run(types.ReturnValueNone); got != nil {
		t.Errorf("NONE returned %v", got)
	}
	// x is 2 now, z is "new".
	got := run(types.ReturnValueUpdatedOld)
	if len(got) != 2 || num(t, got, "x") != "2" || str(t, got, "z") != "new" {
		t.Errorf("UPDATED_OLD %v", got)
	}
	got = run(types.ReturnValueUpdatedNew)
	if len(got) != 2 || num(t, got, "x") != "4" {
		t.Errorf("UPDATED_NEW %v", got)
	}
	got = run(types.ReturnValueAllOld)
	if len(got) != 5 || num(t, got, "x") != "4" || str(t, got, "y") != "keep" {
		t.Errorf("ALL_OLD %v", got)
	}
	got = run(types.ReturnValueAllNew)
	if len(got) != 5 || num(t, got, "x") != "6" {
		t.Errorf("ALL_NEW %v", got)
	}
}

func TestUpdateItemCreatesMissingItemFromKey(t *testing.T) {
	db := newDB(t, simple)
	out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")},
		UpdateExpression:          aws.String("ADD hits :one"),
		ExpressionAttributeValues: item{":one": N("1")},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Attributes) != 3 || num(t, out.Attributes, "hits") != "1" || str(t, out.Attributes, "pk") != "a" {
		t.Errorf("ALL_NEW %v", out.Attributes)
	}
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
	if got := get(t, db, "simple", key); len(got) != 3 {
		t.Errorf("rejected updates changed the item: %d attributes", len(got))
	}
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
	if !errors.As(err, &ccf) || ccf.Item != nil {
		t.Fatalf("want ConditionalCheckFailedException without item, got %v", err)
	}
	if it := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")}); it != nil {
		t.Errorf("failed update created %v", it)
	}
}
