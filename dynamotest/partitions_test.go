package dynamotest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// plTable creates "events" (pk, sk) with GSI "byKind" on kind, in the
// given billing mode, and returns the fake and a limiter over it with
// small limits (10 reads, 5 writes a second; 30 s of burst), so that a
// test reaches them with a few hundred requests.
func plTable(t *testing.T, billing types.BillingMode) (*dynamotest.DB, *dynamotest.PartitionLimiter) {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	key := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(sk), KeyType: types.KeyTypeRange}}
	}
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String("events"),
		AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("sk"), s("kind")},
		KeySchema:            key("pk", "sk"),
		BillingMode:          billing,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byKind"), KeySchema: key("kind", "sk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	}
	if billing == types.BillingModeProvisioned {
		tp := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(100), WriteCapacityUnits: aws.Int64(100)}
		in.ProvisionedThroughput, in.GlobalSecondaryIndexes[0].ProvisionedThroughput = tp, tp
	}
	_, err := db.CreateTable(context.Background(), in)
	require.NoError(t, err)
	l, err := dynamotest.LimitPartitions(db, func(o *dynamotest.PartitionLimits) {
		o.ReadPerSecond, o.WritePerSecond, o.Burst = 10, 5, 30*time.Second
	})
	require.NoError(t, err)
	return db, l
}

func plPut(l *dynamotest.PartitionLimiter, pk, sk, kind string) error {
	it := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}
	if kind != "" {
		it["kind"] = &types.AttributeValueMemberS{Value: kind}
	}
	_, err := l.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("events"), Item: it})
	return err
}

// plCount counts the items of partition pk, reading the fake directly.
func plCount(t *testing.T, db *dynamotest.DB, pk string) int {
	t.Helper()
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("events"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}}})
	require.NoError(t, err)
	return len(out.Items)
}

func TestPartitionLimitThrottlesAHotKeyWithTheOnDemandError(t *testing.T) {
	db, l := plTable(t, types.BillingModePayPerRequest)
	// One second's capacity (5 WCU) serves five 1-unit writes; the sixth
	// finds the bucket empty.
	for i := range 5 {
		require.NoError(t, plPut(l, "hot", fmt.Sprint(i), ""))
	}
	err := plPut(l, "hot", "5", "")
	var te *types.ThrottlingException
	require.ErrorAs(t, err, &te, "an on-demand table throttles with ThrottlingException")
	assert.Contains(t, aws.ToString(te.Message), "check if you have a hot key")
	require.Len(t, te.ThrottlingReasons, 1)
	assert.Equal(t, "TableWriteKeyRangeThroughputExceeded", aws.ToString(te.ThrottlingReasons[0].Reason))
	assert.True(t, strings.HasSuffix(aws.ToString(te.ThrottlingReasons[0].Resource), ":table/events"), aws.ToString(te.ThrottlingReasons[0].Resource))
	assert.ErrorIs(t, table.WrapError("Put", err), table.ErrThrottled, "table maps it to ErrThrottled, so stores retry it")
	assert.Equal(t, 5, plCount(t, db, "hot"), "the throttled write changed nothing")
	// Another key is its own partition.
	require.NoError(t, plPut(l, "cold", "0", ""))
	// A second on the fake's clock refills the hot key.
	db.Advance(time.Second)
	require.NoError(t, plPut(l, "hot", "5", ""))
	assert.Equal(t, []dynamotest.PartitionThrottle{{Table: "events", Partition: "hot", Writes: 1}}, l.Throttles())
}

func TestPartitionLimitUsesTheProvisionedErrorForProvisionedTables(t *testing.T) {
	_, l := plTable(t, types.BillingModeProvisioned)
	var err error
	for i := 0; i < 6 && err == nil; i++ {
		err = plPut(l, "hot", fmt.Sprint(i), "")
	}
	var pte *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, err, &pte)
	assert.Contains(t, aws.ToString(pte.Message), "The level of configured provisioned throughput for the table was exceeded")
	assert.Equal(t, "TableWriteKeyRangeThroughputExceeded", aws.ToString(pte.ThrottlingReasons[0].Reason))
}

func TestPartitionLimitThrottlesAHotIndexKeyWhileTableKeysAreSpread(t *testing.T) {
	db, l := plTable(t, types.BillingModePayPerRequest)
	// Every item has its own table partition but the same GSI partition:
	// the index entry writes concentrate on kind = "job".
	var err error
	n := 0
	for ; n < 20 && err == nil; n++ {
		err = plPut(l, fmt.Sprint("item-", n), "0", "job")
	}
	var te *types.ThrottlingException
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 6, n, "five index writes fit the second")
	assert.Equal(t, "IndexWriteKeyRangeThroughputExceeded", aws.ToString(te.ThrottlingReasons[0].Reason))
	assert.True(t, strings.HasSuffix(aws.ToString(te.ThrottlingReasons[0].Resource), "/index/byKind"), aws.ToString(te.ThrottlingReasons[0].Resource))
	assert.Contains(t, aws.ToString(te.Message), "global secondary indexes")
	assert.Equal(t, []dynamotest.PartitionThrottle{{Table: "events", Index: "byKind", Partition: "job", Writes: 1}}, l.Throttles())
	assert.Zero(t, plCount(t, db, "item-5"))
}

func TestPartitionBurstKeepsUnusedCapacityUpToTheBurstWindow(t *testing.T) {
	db, l := plTable(t, types.BillingModePayPerRequest)
	assert.InDelta(t, 5, l.Credit("events", "", "hot", true), 1e-9, "a new partition has one second's capacity")
	// 10 idle seconds bank 50 more units; 1,000 idle seconds stop at the
	// 30-second burst window (150 units).
	require.NoError(t, plPut(l, "hot", "first", ""))
	db.Advance(10 * time.Second)
	assert.InDelta(t, 54, l.Credit("events", "", "hot", true), 1e-9)
	db.Advance(1000 * time.Second)
	assert.InDelta(t, 150, l.Credit("events", "", "hot", true), 1e-9)
	// Twice the limit (10 writes a second) runs on the banked credit: the
	// 150 units shrink by the 5-a-second deficit and are gone during
	// second 29 (150 + 29 x 5 = 295 writes served, 290 before it).
	throttledAt := -1
	for sec := 0; sec < 40 && throttledAt < 0; sec++ {
		for i := range 10 {
			if err := plPut(l, "hot", fmt.Sprint(sec, "-", i), ""); err != nil {
				throttledAt = sec
				break
			}
		}
		db.Advance(time.Second)
	}
	assert.Equal(t, 29, throttledAt)
}

func TestPartitionLimitCancelsATransactionWithThrottlingError(t *testing.T) {
	db, l := plTable(t, types.BillingModePayPerRequest)
	// A transaction's writes cost double: two 1-unit puts draw 4 units.
	put := func(pk, sk string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("events"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}}}
	}
	tx := func(sk string) error {
		_, err := l.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("hot", sk), put("cold-"+sk, sk)}})
		return err
	}
	require.NoError(t, tx("a")) // hot: 5 - 2 = 3 left
	require.NoError(t, tx("b")) // 1 left
	require.NoError(t, tx("c")) // -1: in debt
	err := tx("d")
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.CancellationReasons, 2)
	assert.Equal(t, "ThrottlingError", aws.ToString(tce.CancellationReasons[0].Code))
	assert.Equal(t, "None", aws.ToString(tce.CancellationReasons[1].Code))
	assert.ErrorIs(t, table.WrapError("Put", err), table.ErrThrottled)
	assert.Equal(t, 3, plCount(t, db, "hot"))
	assert.Zero(t, plCount(t, db, "cold-d"), "nothing of a throttled transaction is written")
}

func TestPartitionLimitReturnsThrottledBatchItemsUnprocessed(t *testing.T) {
	db, l := plTable(t, types.BillingModePayPerRequest)
	for i := range 5 {
		require.NoError(t, plPut(l, "hot", fmt.Sprint(i), ""))
	}
	req := func(pk, sk string) types.WriteRequest {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}}}
	}
	out, err := l.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"events": {req("hot", "x"), req("cold", "x")}}})
	require.NoError(t, err)
	require.Len(t, out.UnprocessedItems["events"], 1)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "hot"}, out.UnprocessedItems["events"][0].PutRequest.Item["pk"])
	assert.Equal(t, 1, plCount(t, db, "cold"))
	assert.Equal(t, 5, plCount(t, db, "hot"))
	// Nothing admitted: the batch fails as a write would.
	_, err = l.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"events": {req("hot", "y")}}})
	var te *types.ThrottlingException
	assert.ErrorAs(t, err, &te)
}

func TestPartitionLimitThrottlesQueriesOfAHotKeyByConsumedCapacity(t *testing.T) {
	db, l := plTable(t, types.BillingModePayPerRequest)
	for i := range 5 {
		require.NoError(t, plPut(l, "hot", fmt.Sprint(i), "job"))
	}
	db.Advance(time.Second)
	q := func(index, name, value string) error {
		in := &dynamodb.QueryInput{TableName: aws.String("events"),
			KeyConditionExpression:    aws.String("#k = :v"),
			ExpressionAttributeNames:  map[string]string{"#k": name},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: value}}}
		if index != "" {
			in.IndexName = aws.String(index)
		}
		out, err := l.Query(context.Background(), in)
		if err == nil {
			assert.Nil(t, out.ConsumedCapacity, "the caller did not ask for consumed capacity")
		}
		return err
	}
	// Each eventually consistent query of the small partition costs 0.5:
	// 10 units serve 20 queries, the 21st is throttled.
	for i := range 20 {
		require.NoError(t, q("", "pk", "hot"), "query %d", i)
	}
	var te *types.ThrottlingException
	require.ErrorAs(t, q("", "pk", "hot"), &te)
	assert.Equal(t, "TableReadKeyRangeThroughputExceeded", aws.ToString(te.ThrottlingReasons[0].Reason))
	// The index partition has its own bucket.
	require.NoError(t, q("byKind", "kind", "job"))
}

func TestLimitPartitionsRefusesANilDBAndNegativeLimits(t *testing.T) {
	_, err := dynamotest.LimitPartitions(nil)
	var ie *table.InputError
	assert.ErrorAs(t, err, &ie)
	_, err = dynamotest.LimitPartitions(dynamotest.New(), func(o *dynamotest.PartitionLimits) { o.WritePerSecond = -1 })
	assert.ErrorAs(t, err, &ie)
}
