package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// indexedItems populate the Indexed schema's three GSIs sparsely: g4 is in
// no index, g2 lacks tag, g3 lacks owner.
func indexedItems() []Item {
	return Items(
		I("pk", "g1", "sk", "1", "status", "open", "created", 3, "owner", "u1", "tag", "x", "rank", 2, "title", "T1", "body", "B1"),
		I("pk", "g2", "sk", "1", "status", "open", "created", 1, "owner", "u1", "title", "T2", "body", "B2"),
		I("pk", "g3", "sk", "1", "status", "done", "created", 2, "tag", "x", "rank", 1, "title", "T3", "body", "B3"),
		I("pk", "g4", "sk", "1", "title", "T4", "body", "B4"),
		I("pk", "g5", "sk", "1", "status", "open", "created", 10, "title", "T5"),
	)
}

func onIndex(index, expr string, vals map[string]types.AttributeValue) Q {
	return Q{IndexName: aws.String(index), KeyConditionExpression: aws.String(expr), ExpressionAttributeValues: vals}
}

func gsiCases() []Case {
	v := Vals
	g := indexedItems()
	keysOnly := func(it Item) Item { return I("pk", it["pk"], "sk", it["sk"], "owner", it["owner"]) }
	include := func(it Item) Item {
		return I("pk", it["pk"], "sk", it["sk"], "tag", it["tag"], "rank", it["rank"], "title", it["title"])
	}
	return []Case{
		QueryCase("gsi/query-orders-by-index-sort-key", Indexed, indexedItems(), onIndex("byStatus", "#s = :s", v(":s", "open")).withNames("#s", "status").in(),
			Want{Items: Items(g[1], g[0], g[4])}),
		QueryCase("gsi/query-descending", Indexed, indexedItems(), onIndex("byStatus", "#s = :s", v(":s", "open")).withNames("#s", "status").descending().in(),
			Want{Items: Items(g[4], g[0], g[1])}),
		QueryCase("gsi/query-sort-key-condition", Indexed, indexedItems(), onIndex("byStatus", "#s = :s AND created > :c", v(":s", "open", ":c", 2)).withNames("#s", "status").in(),
			Want{Items: Items(g[0], g[4])}),
		QueryCase("gsi/keys-only-projection", Indexed, indexedItems(), onIndex("byOwner", "#o = :o", v(":o", "u1")).withNames("#o", "owner").in(),
			Want{Items: Items(keysOnly(g[0]), keysOnly(g[1])), AnyOrder: true}),
		QueryCase("gsi/include-projection", Indexed, indexedItems(), onIndex("byTag", "tag = :t", v(":t", "x")).in(),
			Want{Items: Items(include(g[2]), include(g[0]))}),
		QueryCase("gsi/projection-of-projected-attribute", Indexed, indexedItems(),
			onIndex("byTag", "tag = :t", v(":t", "x")).withProjection("title").in(),
			Want{Items: Items(I("title", "T3"), I("title", "T1"))}),
		QueryCase("gsi-error/projection-of-unprojected-attribute", Indexed, indexedItems(),
			onIndex("byTag", "tag = :t", v(":t", "x")).withProjection("title, body").in(),
			Want{Err: "ValidationException", Msg: "does not project"}),
		QueryCase("gsi/limit-last-key-has-index-and-table-keys", Indexed, indexedItems(), onIndex("byStatus", "#s = :s", v(":s", "open")).withNames("#s", "status").withLimit(1).in(),
			Want{Items: Items(g[1]), More: true, LastKey: I("pk", "g2", "sk", "1", "status", "open", "created", 1)}),
		QueryCase("gsi/start-key-continues", Indexed, indexedItems(),
			onIndex("byStatus", "#s = :s", v(":s", "open")).withNames("#s", "status").withStart(I("pk", "g2", "sk", "1", "status", "open", "created", 1)).in(),
			Want{Items: Items(g[0], g[4])}),
		QueryCase("gsi/filter-on-index", Indexed, indexedItems(), dynamodb.QueryInput{
			IndexName: aws.String("byStatus"), KeyConditionExpression: aws.String("#s = :s"), FilterExpression: aws.String("attribute_exists(#o)"),
			ExpressionAttributeNames: Names("#s", "status", "#o", "owner"), ExpressionAttributeValues: v(":s", "open"),
		}, Want{Items: Items(g[1], g[0]), Scanned: i32(3)}),
		QueryCase("gsi/filter-on-table-key-allowed-on-index", Indexed, indexedItems(), dynamodb.QueryInput{
			IndexName: aws.String("byStatus"), KeyConditionExpression: aws.String("#s = :s"), FilterExpression: aws.String("pk = :p"),
			ExpressionAttributeNames: Names("#s", "status"), ExpressionAttributeValues: v(":s", "open", ":p", "g5"),
		}, Want{Items: Items(g[4]), Scanned: i32(3)}),
		QueryCase("gsi/missing-index-partition", Indexed, indexedItems(), onIndex("byTag", "tag = :t", v(":t", "nope")).in(), Want{Items: Items()}),
		ScanCase("gsi/scan-is-sparse", Indexed, indexedItems(), dynamodb.ScanInput{IndexName: aws.String("byTag")},
			Want{Items: Items(include(g[0]), include(g[2])), AnyOrder: true}),
		ScanCase("gsi/scan-all-projection", Indexed, indexedItems(), dynamodb.ScanInput{IndexName: aws.String("byStatus")},
			Want{Items: Items(g[0], g[1], g[2], g[4]), AnyOrder: true}),
		ScanCase("gsi/scan-keys-only", Indexed, indexedItems(), dynamodb.ScanInput{IndexName: aws.String("byOwner")},
			Want{Items: Items(keysOnly(g[0]), keysOnly(g[1])), AnyOrder: true}),
		QueryCase("gsi-error/consistent-read", Indexed, indexedItems(), onIndex("byTag", "tag = :t", v(":t", "x")).consistent().in(),
			Want{Err: "ValidationException", Msg: "Consistent reads are not supported on global secondary indexes"}),
		QueryCase("gsi-error/select-all-attributes-on-keys-only", Indexed, indexedItems(), onIndex("byOwner", "#o = :o", v(":o", "u1")).withNames("#o", "owner").withSelect(types.SelectAllAttributes).in(),
			Want{Err: "ValidationException"}),
		QueryCase("gsi/select-all-projected-attributes", Indexed, indexedItems(), onIndex("byTag", "tag = :t", v(":t", "x")).withSelect(types.SelectAllProjectedAttributes).in(),
			Want{Items: Items(include(g[2]), include(g[0]))}),
		QueryCase("gsi/select-count", Indexed, indexedItems(), onIndex("byOwner", "#o = :o", v(":o", "u1")).withNames("#o", "owner").withSelect(types.SelectCount).in(),
			Want{Count: i32(2), Scanned: i32(2)}),
		ScanCase("gsi/scan-filter-on-projected-attribute", Indexed, indexedItems(), dynamodb.ScanInput{IndexName: aws.String("byTag"),
			FilterExpression: aws.String("title = :t"), ExpressionAttributeValues: v(":t", "T1")},
			Want{Items: Items(include(g[0])), Scanned: i32(2)}),
		ScanCase("gsi/scan-limit-last-key-has-index-and-table-keys", Indexed, Items(indexedItems()[0]), dynamodb.ScanInput{IndexName: aws.String("byTag"), Limit: aws.Int32(1)},
			Want{Items: Items(include(g[0])), More: true, LastKey: I("pk", "g1", "sk", "1", "tag", "x", "rank", 2)}),
		QueryCase("gsi-error/table-key-in-index-key-condition", Indexed, indexedItems(), onIndex("byTag", "pk = :p", v(":p", "g1")).in(), Want{Err: "ValidationException"}),
		QueryCase("gsi-error/index-key-value-type-mismatch", Indexed, indexedItems(), onIndex("byTag", "tag = :t AND rank = :r", v(":t", "x", ":r", "2")).in(),
			Want{Err: "ValidationException"}),
		PutCase("gsi-error/put-index-key-wrong-type", Indexed, indexedItems(), dynamodb.PutItemInput{Item: I("pk", "g9", "sk", "1", "status", 7)},
			Want{Err: "ValidationException", Msg: "Type mismatch for Index Key"}),
		PutCase("gsi-error/put-index-key-empty-string", Indexed, indexedItems(), dynamodb.PutItemInput{Item: I("pk", "g9", "sk", "1", "owner", "")},
			Want{Err: "ValidationException"}),
		UpdateCase("gsi-error/update-index-key-wrong-type", Indexed, indexedItems(), dynamodb.UpdateItemInput{
			Key: I("pk", "g1", "sk", "1"), UpdateExpression: aws.String("SET #r = :r"), ExpressionAttributeNames: Names("#r", "rank"), ExpressionAttributeValues: v(":r", "high"),
		}, Want{Err: "ValidationException"}),

		// Indexes follow every write.
		{Name: "gsi/update-moves-item-between-index-partitions", Schema: Indexed, Seed: indexedItems(), Run: func(c *C) {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: c.TableName(), Key: I("pk", "g1", "sk", "1"),
				UpdateExpression: aws.String("SET #s = :s"), ExpressionAttributeNames: Names("#s", "status"), ExpressionAttributeValues: v(":s", "done")})
			c.OK(err)
			moved := copyItem(g[0])
			moved["status"] = S("done")
			c.ExpectItems("byStatus done", c.queryIndex("byStatus", "done"), Items(g[2], moved))
			c.ExpectItems("byStatus open", c.queryIndex("byStatus", "open"), Items(g[1], g[4]))
		}},
		{Name: "gsi/removing-index-key-drops-item-from-index", Schema: Indexed, Seed: indexedItems(), Run: func(c *C) {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: c.TableName(), Key: I("pk", "g1", "sk", "1"),
				UpdateExpression: aws.String("REMOVE tag")})
			c.OK(err)
			c.ExpectItems("byTag x", c.queryIndex("byTag", "x"), Items(include(g[2])))
		}},
		{Name: "gsi/adding-index-key-adds-item-to-index", Schema: Indexed, Seed: indexedItems(), Run: func(c *C) {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: c.TableName(), Key: I("pk", "g4", "sk", "1"),
				UpdateExpression: aws.String("SET tag = :t, #r = :r"), ExpressionAttributeNames: Names("#r", "rank"), ExpressionAttributeValues: v(":t", "x", ":r", 0)})
			c.OK(err)
			added := I("pk", "g4", "sk", "1", "tag", "x", "rank", 0, "title", "T4")
			c.ExpectItems("byTag x", c.queryIndex("byTag", "x"), Items(added, include(g[2]), include(g[0])))
		}},
		{Name: "gsi/delete-removes-item-from-index", Schema: Indexed, Seed: indexedItems(), Run: func(c *C) {
			_, err := c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: c.TableName(), Key: I("pk", "g2", "sk", "1")})
			c.OK(err)
			c.ExpectItems("byStatus open", c.queryIndex("byStatus", "open"), Items(g[0], g[4]))
		}},
		{Name: "gsi/put-replace-updates-projected-attributes", Schema: Indexed, Seed: indexedItems(), Run: func(c *C) {
			next := copyItem(g[2])
			next["title"] = S("T3 renamed")
			c.Put(next)
			c.ExpectItems("byTag x", c.queryIndex("byTag", "x"), Items(include(next), include(g[0])))
		}},
		{Name: "gsi/items-with-equal-index-keys-are-all-kept", Schema: Indexed, Run: func(c *C) {
			a := I("pk", "a", "sk", "1", "tag", "same", "rank", 1)
			b := I("pk", "b", "sk", "1", "tag", "same", "rank", 1)
			d := I("pk", "a", "sk", "2", "tag", "same", "rank", 1)
			c.Put(a, b, d)
			got := c.queryIndex("byTag", "same")
			c.ExpectSameItems("byTag same", got, Items(a, b, d))
		}},
		{Name: "gsi/pagination-over-equal-index-keys", Schema: Indexed, Run: func(c *C) {
			var want []Item
			for i := range 7 {
				it := I("pk", string(rune('a'+i)), "sk", "1", "tag", "same", "rank", 1)
				want = append(want, it)
				c.Put(it)
			}
			var got []Item
			var start Item
			for calls := 0; ; calls++ {
				if calls > 10 {
					c.Fatal("pagination did not end")
				}
				out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), IndexName: aws.String("byTag"),
					KeyConditionExpression: aws.String("tag = :t"), ExpressionAttributeValues: v(":t", "same"), Limit: aws.Int32(2), ExclusiveStartKey: start})
				c.OK(err)
				got = append(got, out.Items...)
				if len(out.LastEvaluatedKey) == 0 {
					break
				}
				start = out.LastEvaluatedKey
			}
			c.ExpectSameItems("items over all pages (each once)", got, want)
		}},
	}
}

func (c *C) queryIndex(index, hash string) []Item {
	c.Helper()
	attr := map[string]string{"byStatus": "status", "byOwner": "owner", "byTag": "tag"}[index]
	out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), IndexName: aws.String(index),
		KeyConditionExpression: aws.String("#h = :h"), ExpressionAttributeNames: Names("#h", attr), ExpressionAttributeValues: Vals(":h", hash)})
	c.OK(err)
	return out.Items
}

func copyItem(it Item) Item {
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = v
	}
	return out
}

// Q is a QueryInput with chainable modifiers; in() gives the input.
type Q dynamodb.QueryInput

func (q Q) in() dynamodb.QueryInput { return dynamodb.QueryInput(q) }

func (q Q) withNames(kv ...string) Q { q.ExpressionAttributeNames = Names(kv...); return q }

func (q Q) descending() Q { q.ScanIndexForward = aws.Bool(false); return q }

func (q Q) withProjection(p string) Q { q.ProjectionExpression = aws.String(p); return q }

func (q Q) withLimit(n int32) Q { q.Limit = aws.Int32(n); return q }

func (q Q) withStart(k Item) Q { q.ExclusiveStartKey = k; return q }

func (q Q) consistent() Q { q.ConsistentRead = aws.Bool(true); return q }

func (q Q) withSelect(s types.Select) Q { q.Select = s; return q }
