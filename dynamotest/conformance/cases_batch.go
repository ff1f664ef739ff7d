package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func numberedItems(n int) []Item {
	items := make([]Item, n)
	for i := range n {
		items[i] = I("pk", fmt.Sprintf("item%03d", i), "sk", "1", "n", i)
	}
	return items
}

func keysOf(items []Item) []Item {
	keys := make([]Item, len(items))
	for i, it := range items {
		keys[i] = I("pk", it["pk"], "sk", it["sk"])
	}
	return keys
}

func puts(items []Item) []types.WriteRequest {
	out := make([]types.WriteRequest, len(items))
	for i, it := range items {
		out[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	return out
}

func deletes(keys []Item) []types.WriteRequest {
	out := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		out[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	return out
}

// oneWriteMsg is DynamoDB's word for a WriteRequest without exactly one write.
const oneWriteMsg = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"

func batchCases() []Case {
	five := numberedItems(5)
	hundred := numberedItems(100)
	return []Case{
		BatchGetCase("batchget/returns-found-skips-missing", PKSK, numberedItems(5), types.KeysAndAttributes{
			Keys: append(keysOf(five[1:3]), I("pk", "nope", "sk", "1")),
		}, Want{Items: five[1:3]}),
		BatchGetCase("batchget/hundred-keys", PKSK, numberedItems(100), types.KeysAndAttributes{Keys: keysOf(hundred)}, Want{Items: hundred}),
		BatchGetCase("batchget/projection", PKSK, numberedItems(5), types.KeysAndAttributes{
			Keys: keysOf(five[:2]), ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: Names("#n", "n"),
		}, Want{Items: Items(I("n", 0), I("n", 1))}),
		BatchGetCase("batchget/consistent", PKSK, numberedItems(5), types.KeysAndAttributes{Keys: keysOf(five[:1]), ConsistentRead: aws.Bool(true)}, Want{Items: five[:1]}),
		BatchGetCase("batchget-error/more-than-100-keys", PKSK, nil, types.KeysAndAttributes{Keys: keysOf(numberedItems(101))}, Want{Err: "ValidationException"}),
		BatchGetCase("batchget-error/duplicate-keys", PKSK, numberedItems(5), types.KeysAndAttributes{Keys: append(keysOf(five[:2]), keysOf(five[:1])...)},
			Want{Err: "ValidationException", Msg: "duplicates"}),
		BatchGetCase("batchget-error/no-keys", PKSK, nil, types.KeysAndAttributes{Keys: []Item{}}, Want{Err: "ValidationException"}),
		BatchGetCase("batchget-error/key-not-matching-schema", PKSK, nil, types.KeysAndAttributes{Keys: []Item{I("pk", "a")}}, Want{Err: "ValidationException"}),
		BatchGetCase("batchget-error/projection-unused-name", PKSK, nil, types.KeysAndAttributes{Keys: keysOf(five[:1]), ProjectionExpression: aws.String("n"),
			ExpressionAttributeNames: Names("#x", "x")}, Want{Err: "ValidationException"}),
		{Name: "batchget-error/empty-request", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}})
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "batchget-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				c.UniqueTableName("missing"): {Keys: []Item{I("pk", "a")}},
			}})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "batchget/two-tables", Seed: numberedItems(2), Run: func(c *C) {
			other := c.CreateTable(PK)
			_, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: aws.String(other), Item: I("pk", "x", "v", 1)})
			c.OK(err)
			out, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				c.Table: {Keys: keysOf(numberedItems(2))},
				other:   {Keys: []Item{I("pk", "x"), I("pk", "y")}},
			}})
			c.OK(err)
			c.ExpectSameItems(c.Table, out.Responses[c.Table], numberedItems(2))
			c.ExpectSameItems(other, out.Responses[other], Items(I("pk", "x", "v", 1)))
		}},

		BatchWriteCase("batchwrite/puts", PKSK, nil, puts(five), Want{After: five}),
		BatchWriteCase("batchwrite/twenty-five-puts", PKSK, nil, puts(numberedItems(25)), Want{After: numberedItems(25)}),
		BatchWriteCase("batchwrite/deletes", PKSK, numberedItems(5), deletes(keysOf(five[:3])), Want{After: five[3:]}),
		BatchWriteCase("batchwrite/delete-missing-is-not-an-error", PKSK, numberedItems(2), deletes(Items(I("pk", "nope", "sk", "1"))), Want{After: numberedItems(2)}),
		BatchWriteCase("batchwrite/puts-and-deletes", PKSK, numberedItems(3), append(deletes(keysOf(five[:1])), puts(five[3:])...), Want{After: five[1:]}),
		BatchWriteCase("batchwrite/put-replaces", PKSK, numberedItems(2), puts(Items(I("pk", "item000", "sk", "1", "v", "new"))),
			Want{After: Items(I("pk", "item000", "sk", "1", "v", "new"), five[1])}),
		BatchWriteCase("batchwrite-error/more-than-25", PKSK, nil, puts(numberedItems(26)), Want{Err: "ValidationException"}),
		BatchWriteCase("batchwrite-error/put-and-delete-same-key", PKSK, numberedItems(2), append(puts(five[:1]), deletes(keysOf(five[:1]))...),
			Want{Err: "ValidationException", Msg: "duplicates"}),
		BatchWriteCase("batchwrite-error/two-puts-same-key", PKSK, nil, puts(Items(five[0], I("pk", "item000", "sk", "1", "v", 2))),
			Want{Err: "ValidationException", Msg: "duplicates"}),
		BatchWriteCase("batchwrite-error/one-bad-item-writes-nothing", PKSK, numberedItems(1), puts(Items(five[1], I("pk", "x"))), Want{Err: "ValidationException"}),
		BatchWriteCase("batchwrite-error/one-too-large-item-writes-nothing", PKSK, numberedItems(1),
			puts(Items(five[1], I("pk", "big", "sk", "1", "d", strings.Repeat("x", 400*1024)))), Want{Err: "ValidationException"}),
		BatchWriteCase("batchwrite-error/empty-string-key", PKSK, nil, puts(Items(I("pk", "", "sk", "1"))), Want{Err: "ValidationException"}),
		// A WriteRequest is read as a union, in the words of an
		// AttributeValue with two types (dynalite's AWS-written "should
		// return ValidationException for empty item in RequestItems", on a
		// missing table; DynamoDB Local agrees), whether it holds no write
		// or two.
		BatchWriteCase("batchwrite-error/request-with-neither-put-nor-delete", PKSK, nil, []types.WriteRequest{{}},
			Want{Err: "ValidationException", Msg: oneWriteMsg}),
		BatchWriteCase("batchwrite-error/request-with-both-put-and-delete", PKSK, nil, []types.WriteRequest{{
			PutRequest: &types.PutRequest{Item: five[0]}, DeleteRequest: &types.DeleteRequest{Key: keysOf(five[:1])[0]}}},
			Want{Err: "ValidationException", Msg: oneWriteMsg}),
		{Name: "batchwrite-error/empty-write-request-on-a-missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				c.UniqueTableName("missing"): {{}}}})
			c.ExpectErr(err, "ValidationException", oneWriteMsg)
		}},
		{Name: "batchwrite-error/empty-request", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}})
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "batchwrite-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				c.UniqueTableName("missing"): puts(Items(I("pk", "a"))),
			}})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "batchwrite/two-tables", Run: func(c *C) {
			other := c.CreateTable(PK)
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				c.Table: puts(five[:2]),
				other:   puts(Items(I("pk", "x"))),
			}})
			c.OK(err)
			c.ExpectTable(five[:2])
			c.ExpectSameItems(other, c.AllOf(other), Items(I("pk", "x")))
		}},
	}
}
