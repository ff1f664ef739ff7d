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

	"github.com/tablekit/tablekit/dynamotest"
)

// sized returns an item in "simple" whose size by DynamoDB's rules is
// exactly size bytes.
func sized(sk string, size int) item {
	overhead := len("pk") + 1 + len("sk") + len(sk) + len("data")
	return item{"pk": S("a"), "sk": S(sk), "data": S(strings.Repeat("x", size-overhead))}
}

func units(c *types.ConsumedCapacity) float64 { return aws.ToFloat64(c.CapacityUnits) }

func TestReadCapacityRoundsUpTo4KB(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", sized("small", 1000))
	put(t, db, "simple", sized("big", 5000))
	read := func(sk string, consistent bool) float64 {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S(sk)},
			ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		require.NoError(t, err)
		assert.EqualValuesf(t, "simple", aws.ToString(out.ConsumedCapacity.TableName), "table name %v", out.ConsumedCapacity.TableName)
		return units(out.ConsumedCapacity)
	}
	for _, c := range []struct {
		sk         string
		consistent bool
		want       float64
	}{{"small", false, 0.5}, {"small", true, 1}, {"big", false, 1}, {"big", true, 2}, {"missing", false, 0.5}} {
		got := read(c.sk, c.consistent)
		assert.EqualValuesf(t, c.want, got, "GetItem %s consistent=%v: %v units, want %v", c.sk, c.consistent, got, c.want)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("small")}})
	assert.Falsef(t, err != nil || out.ConsumedCapacity != nil, "capacity returned without being asked: %v %v", out.ConsumedCapacity, err)
}

func TestQueryCapacitySumsSizesBeforeRounding(t *testing.T) {
	db := newDB(t, simple)
	for _, sk := range []string{"1", "2", "3", "4", "5"} {
		put(t, db, "simple", sized(sk, 1000))
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("simple"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("a")}, ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	// 5,000 bytes is two 4 KB units, not five.
	got := units(out.ConsumedCapacity)
	assert.EqualValuesf(t, 2, got, "Query of 5 x 1000 bytes: %v units, want 2", got)
	bg, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"simple": {
		Keys: []item{{"pk": S("a"), "sk": S("1")}, {"pk": S("a"), "sk": S("2")}}}}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	// BatchGetItem rounds each item on its own.
	assert.Falsef(t, len(bg.ConsumedCapacity) != 1 || units(&bg.ConsumedCapacity[0]) != 1, "BatchGetItem capacity %+v", bg.ConsumedCapacity)
}

func TestWriteCapacity(t *testing.T) {
	db := newDB(t, simple)
	putCost := func(it item, cond *string) float64 {
		out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: it, ConditionExpression: cond,
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				return -1
			}
			require.NoError(t, err)
		}
		return units(out.ConsumedCapacity)
	}
	got := putCost(sized("k", 1500), nil)
	assert.EqualValuesf(t, 2, got, "1,500-byte put: %v units, want 2", got)
	// Replacing it with a small item costs by the larger of the two.
	got = putCost(sized("k", 500), nil)
	assert.EqualValuesf(t, 2, got, "replacing 1,500 bytes with 500: %v units, want 2", got)
	db.ResetConsumed()
	// A failed condition still costs the stored item's size.
	got = putCost(sized("k", 500), aws.String("attribute_not_exists(pk)"))
	require.EqualValues(t, -1, got, "condition did not fail")
	c := db.Consumed("simple")
	assert.Falsef(t, c.WriteUnits != 1 || c.ReadUnits != 0, "after failed put, consumed %+v", c)
	out, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("k")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	assert.Falsef(t, err != nil || units(out.ConsumedCapacity) != 1, "delete: %v %v", out, err)
}

func TestIndexWriteCapacity(t *testing.T) {
	db := newDB(t, jobs)
	cost := func(in *dynamodb.UpdateItemInput) *types.ConsumedCapacity {
		in.TableName = aws.String("jobs")
		in.Key = item{"pk": S("JOB#1"), "sk": S("META")}
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		out, err := db.UpdateItem(ctx, in)
		require.NoError(t, err)
		return out.ConsumedCapacity
	}
	gsiUnits := func(c *types.ConsumedCapacity, index string) float64 {
		g, ok := c.GlobalSecondaryIndexes[index]
		if !ok {
			return 0
		}
		return aws.ToFloat64(g.CapacityUnits)
	}
	// Entering the three indexes: one write each.
	c := cost(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET #s = :s, updated = :u"),
		ExpressionAttributeNames: map[string]string{"#s": "status"}, ExpressionAttributeValues: item{":s": S("queued"), ":u": N("1")}})
	assert.Falsef(t, units(c) != 4 || aws.ToFloat64(c.Table.CapacityUnits) != 1 || gsiUnits(c, "all") != 1 || gsiUnits(c, "keys") != 1 || gsiUnits(c, "include") != 1, "entering indexes: %+v %+v", c, c.GlobalSecondaryIndexes)
	// Moving the index key: a delete and a put in each index.
	c = cost(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET updated = :u"), ExpressionAttributeValues: item{":u": N("2")}})
	assert.Falsef(t, units(c) != 7 || gsiUnits(c, "keys") != 2, "moving index key: %+v %+v", c, c.GlobalSecondaryIndexes)
	// An attribute only ALL projects: the other indexes are not written.
	c = cost(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET body = :b"), ExpressionAttributeValues: item{":b": S("x")}})
	assert.Falsef(t, units(c) != 2 || gsiUnits(c, "all") != 1 || gsiUnits(c, "keys") != 0 || gsiUnits(c, "include") != 0, "unprojected attribute: %+v %+v", c, c.GlobalSecondaryIndexes)
	// An INCLUDEd attribute: ALL and INCLUDE are written.
	c = cost(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET #o = :o"), ExpressionAttributeNames: map[string]string{"#o": "owner"}, ExpressionAttributeValues: item{":o": S("bob")}})
	assert.Falsef(t, units(c) != 3 || gsiUnits(c, "include") != 1 || gsiUnits(c, "keys") != 0, "included attribute: %+v %+v", c, c.GlobalSecondaryIndexes)
	// Leaving the indexes: one delete each.
	c = cost(&dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE #s"), ExpressionAttributeNames: map[string]string{"#s": "status"}})
	assert.EqualValuesf(t, 4, units(c), "leaving indexes: %+v %+v", c, c.GlobalSecondaryIndexes)
	// Queries on an index are charged to the index.
	put(t, db, "jobs", job("2", "queued", 1))
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("keys"),
		KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: item{":s": S("queued")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	require.NoError(t, err)
	assert.Falsef(t, gsiUnits(q.ConsumedCapacity, "keys") != 0.5 || aws.ToFloat64(q.ConsumedCapacity.Table.CapacityUnits) != 0, "index query: %+v %+v", q.ConsumedCapacity, q.ConsumedCapacity.GlobalSecondaryIndexes)
}

func TestTransactionsCostDouble(t *testing.T) {
	db := newDB(t, simple)
	out, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("simple"), Item: sized("1", 1000)}},
			{Put: &types.Put{TableName: aws.String("simple"), Item: sized("2", 2000)}},
		}})
	require.NoError(t, err)
	assert.Falsef(t, len(out.ConsumedCapacity) != 1 || units(&out.ConsumedCapacity[0]) != 6, "transactional writes of 1 and 2 KB: %+v", out.ConsumedCapacity)
	got, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactGetItem{{Get: &types.Get{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}}}}})
	require.NoError(t, err)
	assert.EqualValuesf(t, 2, units(&got.ConsumedCapacity[0]), "transactional read: %+v", got.ConsumedCapacity)
}

// A transaction cancelled by a failed condition has written each item
// once, to prepare it, and never commits: each action costs what it would
// as a plain write (a failed one the stored item's size), no index writes,
// and the error carries no ConsumedCapacity.
func TestACancelledTransactionCostsItsPreparePhase(t *testing.T) {
	db := newDB(t, tableSpec{name: "simple", pk: "pk", pkType: "S", sk: "sk", skType: "S",
		gsis: []types.GlobalSecondaryIndex{gsi("bySk", "sk", "", types.ProjectionTypeAll)}}, numbered)
	put(t, db, "simple", sized("1", 2000))
	before := db.Consumed("simple").WriteUnits
	m := dynamotest.NewMeter(db)

	_, err := m.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("simple"), Item: sized("1", 500), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Put: &types.Put{TableName: aws.String("simple"), Item: sized("2", 3000)}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("numbered"), Key: item{"pk": S("a"), "n": N("1")},
				ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		}})
	var canceled *types.TransactionCanceledException
	require.ErrorAs(t, err, &canceled)

	assert.Equal(t, 2.0+3.0, db.Consumed("simple").WriteUnits-before, "the failed put is billed the stored 2 KB, the passing one its 3 KB, once; no index write")
	assert.Equal(t, 1.0, db.Consumed("numbered").WriteUnits, "a check of a missing item costs one unit")
	u := m.Usage()
	assert.Equal(t, 6.0, u.WriteUnits, "the meter sees what the fake billed")
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("2")}), "nothing was written")
}

func TestConsumedKeepsRunningTotalsPerTable(t *testing.T) {
	db := newDB(t, simple, numbered)
	put(t, db, "simple", sized("1", 1000))
	put(t, db, "simple", sized("2", 3000))
	get(t, db, "simple", item{"pk": S("a"), "sk": S("1")})
	put(t, db, "numbered", item{"pk": S("a"), "n": N("1")})
	c := db.Consumed("simple")
	assert.EqualValuesf(t, (dynamotest.Capacity{ReadUnits: 1, WriteUnits: 4}), c, "simple consumed %+v", c)
	c = db.Consumed("numbered")
	assert.EqualValuesf(t, (dynamotest.Capacity{WriteUnits: 1}), c, "numbered consumed %+v", c)
	db.ResetConsumed()
	c = db.Consumed("simple")
	assert.EqualValuesf(t, (dynamotest.Capacity{}), c, "after reset %+v", c)
}
