package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

// localSeed is partition "a" of a [Local] table: ord orders the items
// differently from sk, and "3" has no ord (it is not in byOrd). No two
// items share an ord: DynamoDB does not document the order of ties in an
// index (DynamoDB Local's differs from the fake's, which breaks them by the
// table's sort key).
func localSeed() []Item {
	return Items(
		I("pk", "a", "sk", "1", "ord", 3, "title", "t3", "x", "x1", "y", "y1"),
		I("pk", "a", "sk", "2", "ord", 1, "title", "t1", "x", "x2"),
		I("pk", "a", "sk", "3", "title", "t0", "x", "x3"),
		I("pk", "a", "sk", "4", "ord", 2),
		I("pk", "a", "sk", "5", "ord", 4),
		I("pk", "b", "sk", "1", "ord", 0, "title", "t"),
	)
}

func lsiCases() []Case {
	seed := localSeed()
	keys := func(item Item) Item {
		out := I("pk", item["pk"], "sk", item["sk"])
		if v, ok := item["ord"]; ok {
			out["ord"] = v
		}
		return out
	}
	q := func(index string, extra func(*dynamodb.QueryInput)) dynamodb.QueryInput {
		in := dynamodb.QueryInput{IndexName: aws.String(index), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Vals(":p", "a")}
		if extra != nil {
			extra(&in)
		}
		return in
	}
	byOrdOrder := Items(keys(seed[1]), keys(seed[3]), keys(seed[0]), keys(seed[4]))
	createErr := func(name, msg string, change func(*dynamodb.CreateTableInput)) Case {
		return Case{Name: "lsi-create/" + name, NoTable: true, Run: func(c *C) {
			in := Local.CreateTableInput(c.UniqueTableName("lsi"))
			change(in)
			_, err := c.API.CreateTable(c.Ctx, in)
			if err == nil {
				_, _ = c.API.DeleteTable(c.Ctx, &dynamodb.DeleteTableInput{TableName: in.TableName})
			}
			c.ExpectErr(err, "ValidationException", msg)
		}}
	}
	var localNoMetrics = dynamotest.LocalDeviationWhy(dynamotest.LocalNoCollectionMetrics)
	return []Case{
		{Name: "lsi/describe-table-lists-local-indexes", Schema: Local, Seed: seed, Run: func(c *C) {
			out, err := c.API.DescribeTable(c.Ctx, &dynamodb.DescribeTableInput{TableName: c.TableName()})
			c.OK(err)
			got := map[string]string{}
			for _, l := range out.Table.LocalSecondaryIndexes {
				got[aws.ToString(l.IndexName)] = fmt.Sprintf("%s/%s %s %v items=%d arn=%v", aws.ToString(l.KeySchema[0].AttributeName),
					aws.ToString(l.KeySchema[1].AttributeName), l.Projection.ProjectionType, l.Projection.NonKeyAttributes,
					aws.ToInt64(l.ItemCount), aws.ToString(l.IndexArn) != "")
			}
			want := map[string]string{"byOrd": "pk/ord KEYS_ONLY [] items=5 arn=true", "byTitle": "pk/title INCLUDE [x] items=4 arn=true"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				c.Errorf("LocalSecondaryIndexes %v; want %v", got, want)
			}
			if len(out.Table.GlobalSecondaryIndexes) != 0 {
				c.Errorf("local indexes also described as global: %v", out.Table.GlobalSecondaryIndexes)
			}
		}},
		QueryCase("lsi/query-orders-by-the-index-sort-key", Local, seed, q("byOrd", nil), Want{Items: byOrdOrder}),
		QueryCase("lsi/ties-on-the-index-sort-key-all-come-back", Local, Items(I("pk", "a", "sk", "1", "ord", 1), I("pk", "a", "sk", "2", "ord", 1),
			I("pk", "a", "sk", "3", "ord", 0)), q("byOrd", func(in *dynamodb.QueryInput) {
			in.KeyConditionExpression = aws.String("pk = :p AND ord = :one")
			in.ExpressionAttributeValues[":one"] = Ni(1)
		}), Want{Items: Items(I("pk", "a", "sk", "1", "ord", 1), I("pk", "a", "sk", "2", "ord", 1)), AnyOrder: true}),
		QueryCase("lsi/query-descending", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) { in.ScanIndexForward = aws.Bool(false) }),
			Want{Items: Items(byOrdOrder[3], byOrdOrder[2], byOrdOrder[1], byOrdOrder[0])}),
		QueryCase("lsi/consistent-read-is-allowed", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) { in.ConsistentRead = aws.Bool(true) }),
			Want{Items: byOrdOrder}),
		QueryCase("lsi/range-condition-on-the-index-sort-key", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) {
			in.KeyConditionExpression = aws.String("pk = :p AND ord BETWEEN :lo AND :hi")
			in.ExpressionAttributeValues[":lo"], in.ExpressionAttributeValues[":hi"] = Ni(2), Ni(3)
		}), Want{Items: Items(keys(seed[3]), keys(seed[0]))}),
		QueryCase("lsi/include-projection-returns-the-included-attributes", Local, seed, q("byTitle", nil),
			Want{Items: Items(I("pk", "a", "sk", "3", "title", "t0", "x", "x3"), I("pk", "a", "sk", "2", "title", "t1", "x", "x2"),
				I("pk", "a", "sk", "1", "title", "t3", "x", "x1"))}),
		QueryCase("lsi/projection-of-unprojected-attributes-fetches-them", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) {
			in.ProjectionExpression = aws.String("sk, x")
		}), Want{Items: Items(I("sk", "2", "x", "x2"), I("sk", "4"), I("sk", "1", "x", "x1"), I("sk", "5"))}),
		QueryCase("lsi/select-all-attributes-fetches-whole-items", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) {
			in.Select = types.SelectAllAttributes
		}), Want{Items: Items(seed[1], seed[3], seed[0], seed[4])}),
		QueryCase("lsi/filter-on-unprojected-attribute-is-refused", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) {
			in.FilterExpression = aws.String("x = :x")
			in.ExpressionAttributeValues[":x"] = S("x1")
		}), Want{Err: "ValidationException", Msg: "Secondary index byOrd does not project one or more filter attributes: [x]"}),
		QueryCase("lsi/limit-page-last-key-carries-the-index-key", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(2) }),
			Want{Items: byOrdOrder[:2], More: true, LastKey: I("pk", "a", "sk", "4", "ord", 2)}),
		QueryCase("lsi/next-page-starts-after-the-last-key", Local, seed, q("byOrd", func(in *dynamodb.QueryInput) {
			in.ExclusiveStartKey = I("pk", "a", "sk", "4", "ord", 2)
		}), Want{Items: byOrdOrder[2:]}),
		PutCase("lsi/index-key-of-another-type-is-refused", Local, seed, dynamodb.PutItemInput{Item: I("pk", "a", "sk", "9", "ord", "soon")},
			Want{Err: "ValidationException", Msg: "Type mismatch for Index Key"}),
		{Name: "lsi/writes-keep-the-index-in-step", Schema: Local, Seed: seed, Run: func(c *C) {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: c.TableName(), Key: I("pk", "a", "sk", "1"),
				UpdateExpression: aws.String("SET ord = :z"), ExpressionAttributeValues: Vals(":z", 0)})
			c.OK(err)
			_, err = c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: c.TableName(), Key: I("pk", "a", "sk", "4")})
			c.OK(err)
			_, err = c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: c.TableName(), Key: I("pk", "a", "sk", "5"),
				UpdateExpression: aws.String("REMOVE ord")})
			c.OK(err)
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), IndexName: aws.String("byOrd"),
				KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Vals(":p", "a")})
			c.OK(err)
			c.ExpectItems("byOrd after the writes", out.Items, Items(I("pk", "a", "sk", "1", "ord", 0), I("pk", "a", "sk", "2", "ord", 1)))
		}},
		{Name: "lsi/scan-reads-only-indexed-items", Schema: Local, Seed: seed, Run: func(c *C) {
			out, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: c.TableName(), IndexName: aws.String("byTitle"), ConsistentRead: aws.Bool(true)})
			c.OK(err)
			if out.Count != 4 {
				c.Errorf("Scan of byTitle counted %d; want the 4 items with a title", out.Count)
			}
		}},
		{Name: "lsi/capacity-of-fetched-items", Schema: Local, Seed: seed, Run: func(c *C) {
			in := q("byOrd", func(in *dynamodb.QueryInput) {
				in.ProjectionExpression = aws.String("x")
				in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			})
			in.TableName = c.TableName()
			out, err := c.API.Query(c.Ctx, &in)
			c.OK(err)
			cc := out.ConsumedCapacity
			if cc == nil || cc.Table == nil || cc.LocalSecondaryIndexes["byOrd"].CapacityUnits == nil {
				c.Fatalf("ConsumedCapacity %+v; want the table's and byOrd's", cc)
			}
			// One eventually consistent read for the index's page, and one
			// per item fetched from the table (4 items under 4 KB).
			if got := aws.ToFloat64(cc.LocalSecondaryIndexes["byOrd"].CapacityUnits); got != 0.5 {
				c.Errorf("byOrd units %v; want 0.5", got)
			}
			if got := aws.ToFloat64(cc.Table.CapacityUnits); got != 2 {
				c.Errorf("table units %v; want 2 (0.5 per fetched item)", got)
			}
			if got := aws.ToFloat64(cc.CapacityUnits); got != 2.5 {
				c.Errorf("total units %v; want 2.5", got)
			}
		}},
		skipOn(Case{Name: "lsi/item-collection-metrics", Schema: Local, Seed: seed, Run: func(c *C) {
			out, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: c.TableName(), Item: I("pk", "a", "sk", "7", "ord", 7),
				ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
			c.OK(err)
			m := out.ItemCollectionMetrics
			if m == nil {
				c.Fatalf("no ItemCollectionMetrics")
			}
			c.ExpectItem("ItemCollectionKey", m.ItemCollectionKey, I("pk", "a"))
			if len(m.SizeEstimateRangeGB) != 2 || m.SizeEstimateRangeGB[0] != 0 || m.SizeEstimateRangeGB[1] <= 0 {
				c.Errorf("SizeEstimateRangeGB %v; want [0, upper]", m.SizeEstimateRangeGB)
			}
			plain, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: c.TableName(), Item: I("pk", "a", "sk", "8")})
			c.OK(err)
			if plain.ItemCollectionMetrics != nil {
				c.Errorf("ItemCollectionMetrics without ReturnItemCollectionMetrics: %+v", plain.ItemCollectionMetrics)
			}
		}}, DynamoDBLocal, localNoMetrics),
		createErr("hash-key-must-be-the-tables", "Local Secondary indices must have the same hash key as the main table", func(in *dynamodb.CreateTableInput) {
			in.LocalSecondaryIndexes[0].KeySchema[0].AttributeName = aws.String("sk")
		}),
		createErr("table-needs-a-sort-key", "Local Secondary indices are not allowed on hash tables", func(in *dynamodb.CreateTableInput) {
			in.KeySchema = in.KeySchema[:1]
			in.AttributeDefinitions = in.AttributeDefinitions[:1:1]
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("ord"), AttributeType: "N"},
				types.AttributeDefinition{AttributeName: aws.String("title"), AttributeType: "S"})
		}),
		createErr("index-needs-a-sort-key", "Local secondary indices must have a range key", func(in *dynamodb.CreateTableInput) {
			in.LocalSecondaryIndexes[0].KeySchema = in.LocalSecondaryIndexes[0].KeySchema[:1]
		}),
		createErr("at-most-five", "Cannot have more than 5 local secondary indexes per table", func(in *dynamodb.CreateTableInput) {
			for i := range 4 {
				l := in.LocalSecondaryIndexes[0]
				l.IndexName = aws.String(fmt.Sprintf("more%d", i))
				in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, l)
			}
		}),
		createErr("names-are-unique", "Two local secondary indices have the same name", func(in *dynamodb.CreateTableInput) {
			in.LocalSecondaryIndexes[1].IndexName = in.LocalSecondaryIndexes[0].IndexName
		}),
		createErr("names-differ-from-global-indexes", "Local Secondary Indices AND Global Secondary Indices must have different names", func(in *dynamodb.CreateTableInput) {
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byOrd"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("title"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
		}),
	}
}
