package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

// capacityCase runs one request with ReturnConsumedCapacity TOTAL and
// checks the capacity units it reports, by DynamoDB's rules: reads cost one
// unit per 4 KB (rounded up; half for eventually consistent reads, double in
// a transaction; a Query or Scan rounds the sum of its items, not each),
// writes one unit per 1 KB (double in a transaction).
func capacityCase(name string, s Schema, seed []Item, want float64, op func(c *C) ([]types.ConsumedCapacity, error)) Case {
	return Case{Name: "capacity/" + name, Schema: s, Seed: seed, Run: func(c *C) {
		got, err := op(c)
		c.OK(err)
		var total float64
		for _, cc := range got {
			if aws.ToString(cc.TableName) != c.Table {
				c.Errorf("ConsumedCapacity names table %q; want %q", aws.ToString(cc.TableName), c.Table)
			}
			total += aws.ToFloat64(cc.CapacityUnits)
		}
		if len(got) == 0 {
			c.Fatalf("no ConsumedCapacity in the output; want %v units", want)
		}
		if total != want {
			c.Errorf("CapacityUnits = %v; want %v", total, want)
		}
	}}
}

func one(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

func capacityCases() []Case {
	small := sized("a", "1", 1000)
	five := sized("b", "1", 5000)
	get := func(key Item, consistent bool) func(c *C) ([]types.ConsumedCapacity, error) {
		return func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: c.TableName(), Key: key, ConsistentRead: aws.Bool(consistent),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return nil, err
			}
			return one(out.ConsumedCapacity), nil
		}
	}
	put := func(item Item) func(c *C) ([]types.ConsumedCapacity, error) {
		return func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: c.TableName(), Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return nil, err
			}
			return one(out.ConsumedCapacity), nil
		}
	}
	query := func(consistent bool) func(c *C) ([]types.ConsumedCapacity, error) {
		return func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Vals(":p", "q"), ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return nil, err
			}
			return one(out.ConsumedCapacity), nil
		}
	}
	batchGet := func(keys ...Item) func(c *C) ([]types.ConsumedCapacity, error) {
		return func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				RequestItems: map[string]types.KeysAndAttributes{c.Table: {Keys: keys}}})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}
	}
	// DynamoDB charges a read that finds nothing the minimum, per its
	// capacity documentation ("If you perform a read operation on an item
	// that does not exist, DynamoDB still consumes provisioned read
	// throughput"); BatchGetItem reads each key as a GetItem.
	var localChargesNothing = dynamotest.LocalDeviationWhy(dynamotest.LocalChargesNothing)
	var tenSmall []Item
	for i := range 10 {
		tenSmall = append(tenSmall, sized("q", fmt.Sprint(i), 1000))
	}
	return []Case{
		capacityCase("get-eventually-consistent-small-item", PKSK, Items(small), 0.5, get(I("pk", "a", "sk", "1"), false)),
		capacityCase("get-consistent-small-item", PKSK, Items(small), 1, get(I("pk", "a", "sk", "1"), true)),
		capacityCase("get-consistent-5kb-item-rounds-up", PKSK, Items(five), 2, get(I("pk", "b", "sk", "1"), true)),
		capacityCase("get-missing-item-costs-the-minimum", PKSK, nil, 0.5, get(I("pk", "z", "sk", "1"), false)),
		skipOn(capacityCase("query-matching-nothing-costs-the-minimum", PKSK, Items(small), 0.5, query(false)), DynamoDBLocal, localChargesNothing),
		skipOn(capacityCase("consistent-query-matching-nothing-costs-the-minimum", PKSK, Items(small), 1, query(true)), DynamoDBLocal, localChargesNothing),
		skipOn(capacityCase("batch-get-missing-keys-cost-the-minimum-each", PKSK, Items(small), 1,
			batchGet(I("pk", "z", "sk", "1"), I("pk", "y", "sk", "1"))), DynamoDBLocal, localChargesNothing),
		capacityCase("put-1kb-item", PKSK, nil, 1, put(sized("a", "1", 1000))),
		capacityCase("put-just-over-1kb-item", PKSK, nil, 2, put(sized("a", "1", 1025))),
		capacityCase("put-replacing-counts-the-larger-item", PKSK, Items(five), 5, put(sized("b", "1", 100))),
		capacityCase("query-rounds-the-sum-of-items", PKSK, tenSmall, 3, query(true)),
		capacityCase("query-eventually-consistent-halves", PKSK, tenSmall, 1.5, query(false)),
		skipOn(capacityCase("transaction-write-doubles", PKSK, nil, 4, func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: c.FillTx([]types.TransactWriteItem{TxPut(sized("a", "1", 1000), "", nil), TxPut(sized("a", "2", 1000), "", nil)})})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}), DynamoDBLocal, dynamotest.LocalDeviationWhy(dynamotest.LocalTransactionCapacity)),
		capacityCase("transaction-get-doubles", PKSK, Items(small, five), 6, func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.TransactGetItems(c.Ctx, &dynamodb.TransactGetItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: []types.TransactGetItem{
					{Get: &types.Get{TableName: c.TableName(), Key: I("pk", "a", "sk", "1")}},
					{Get: &types.Get{TableName: c.TableName(), Key: I("pk", "b", "sk", "1")}},
				}})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}),
		capacityCase("batch-write-sums-items", PKSK, nil, 3, func(c *C) ([]types.ConsumedCapacity, error) {
			out, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				RequestItems: map[string][]types.WriteRequest{c.Table: puts(Items(sized("a", "1", 1000), sized("a", "2", 2000)))}})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}),
	}
}
