package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sized returns pk/sk item whose DynamoDB size is exactly total bytes: each
// attribute counts its name's length plus its value's (strings by UTF-8 bytes).
func sized(pk, sk string, total int) Item {
	fixed := len("pk") + len(pk) + len("sk") + len(sk) + len("d")
	return I("pk", pk, "sk", sk, "d", strings.Repeat("x", total-fixed))
}

// bigItems returns n items of about size bytes in partition p.
func bigItems(n, size int) []Item {
	items := make([]Item, n)
	for i := range n {
		items[i] = sized("p", fmt.Sprintf("%03d", i), size)
	}
	return items
}

func limitCases() []Case {
	const maxItem = 400 * 1024
	return []Case{
		PutCase("limit/item-of-exactly-400kb", PKSK, nil, dynamodb.PutItemInput{Item: sized("a", "1", maxItem)}, Want{After: Items(sized("a", "1", maxItem))}),
		PutCase("limit-error/item-one-byte-over-400kb", PKSK, nil, dynamodb.PutItemInput{Item: sized("a", "1", maxItem+1)}, Want{Err: "ValidationException", Msg: "Item size has exceeded the maximum allowed size"}),
		PutCase("limit-error/item-size-counts-attribute-names", PKSK, nil, dynamodb.PutItemInput{
			Item: with(sized("a", "1", maxItem), "longer-name", ""),
		}, Want{Err: "ValidationException", Msg: "Item size has exceeded the maximum allowed size"}),
		UpdateCase("limit/update-to-exactly-400kb", PKSK, Items(I("pk", "a", "sk", "1")), dynamodb.UpdateItemInput{
			Key: I("pk", "a", "sk", "1"), UpdateExpression: aws.String("SET d = :d"),
			ExpressionAttributeValues: Vals(":d", sized("a", "1", maxItem)["d"]),
		}, Want{After: Items(sized("a", "1", maxItem))}),
		{Name: "limit/query-page-stops-at-1mb", Seed: bigItems(5, 300*1024), Run: func(c *C) {
			all := bigItems(5, 300*1024)
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Vals(":p", "p")})
			c.OK(err)
			if len(out.LastEvaluatedKey) == 0 || len(out.Items) >= len(all) {
				c.Fatalf("first page: %d items, LastEvaluatedKey %s; want fewer than %d items of 300 KB and a LastEvaluatedKey (1 MB page limit)",
					len(out.Items), RenderItem(out.LastEvaluatedKey), len(all))
			}
			c.ExpectItems("first page", out.Items, all[:len(out.Items)])
			if len(out.Items) != 4 {
				c.Errorf("first page holds %d items of 300 KB; DynamoDB stops after the item that reaches 1 MB (4)", len(out.Items))
			}
			rest, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Vals(":p", "p"), ExclusiveStartKey: out.LastEvaluatedKey})
			c.OK(err)
			c.ExpectItems("second page", rest.Items, all[len(out.Items):])
		}},
		{Name: "limit/scan-page-stops-at-1mb", Seed: bigItems(5, 300*1024), Run: func(c *C) {
			got := c.scanAll(&dynamodb.ScanInput{TableName: c.TableName()}, 10)
			out, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: c.TableName()})
			c.OK(err)
			if len(out.LastEvaluatedKey) == 0 || len(out.Items) != 4 {
				c.Errorf("first page: %d items, LastEvaluatedKey %s; want 4 items of 300 KB and a LastEvaluatedKey (1 MB page limit)",
					len(out.Items), RenderItem(out.LastEvaluatedKey))
			}
			c.ExpectSameItems("items over all pages", got, bigItems(5, 300*1024))
		}},
		skipOn(Case{Name: "limit/filter-does-not-lift-the-1mb-read-limit", Seed: bigItems(5, 300*1024), Run: func(c *C) {
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
				FilterExpression: aws.String("size(d) < :n"), ExpressionAttributeValues: Vals(":p", "p", ":n", 1)})
			c.OK(err)
			if len(out.Items) != 0 || out.ScannedCount != 4 || len(out.LastEvaluatedKey) == 0 {
				c.Errorf("Count %d ScannedCount %d LastEvaluatedKey %s; want 0 items, 4 scanned and a LastEvaluatedKey",
					out.Count, out.ScannedCount, RenderItem(out.LastEvaluatedKey))
			}
		}}, DynamoDBLocal, "DynamoDB Local counts only the items a filter keeps toward the 1 MB page; DynamoDB applies the limit to what it reads, before the filter"),
		{Name: "limit/select-count-is-per-1mb-page", Seed: bigItems(5, 300*1024), Run: func(c *C) {
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
				Select: types.SelectCount, ExpressionAttributeValues: Vals(":p", "p")})
			c.OK(err)
			if out.Count != 4 || len(out.LastEvaluatedKey) == 0 {
				c.Errorf("Count %d LastEvaluatedKey %s; want 4 and a LastEvaluatedKey", out.Count, RenderItem(out.LastEvaluatedKey))
			}
		}},
		{Name: "limit/batchget-over-16mb-leaves-unprocessed-keys", Run: func(c *C) {
			items := bigItems(44, 390*1024) // 17 MB: just past the 16 MB a BatchGetItem returns
			for i := 0; i < len(items); i += 25 {
				end := min(i+25, len(items))
				_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{c.Table: puts(items[i:end])}})
				c.OK(err)
			}
			out, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{c.Table: {Keys: keysOf(items)}}})
			c.OK(err)
			got := out.Responses[c.Table]
			left := out.UnprocessedKeys[c.Table].Keys
			if len(left) == 0 {
				c.Errorf("BatchGetItem of %d items of 390 KB returned them all; want UnprocessedKeys past 16 MB", len(items))
			}
			if len(got)+len(left) != len(items) {
				c.Errorf("%d returned + %d unprocessed; want %d in all", len(got), len(left), len(items))
			}
			var size int
			for _, it := range got {
				size += len(it["d"].(*types.AttributeValueMemberS).Value)
			}
			if size > 16*1024*1024 {
				c.Errorf("BatchGetItem returned %d bytes; limit is 16 MB", size)
			}
		}},
		TxWriteCase("limit-error/transaction-over-4mb", PKSK, nil, dynamodb.TransactWriteItemsInput{TransactItems: func() []types.TransactWriteItem {
			var actions []types.TransactWriteItem
			for _, it := range bigItems(12, 390*1024) {
				actions = append(actions, TxPut(it, "", nil))
			}
			return actions
		}()}, Want{Err: "ValidationException"}),
	}
}
