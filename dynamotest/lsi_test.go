package dynamotest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/dynamotest/conformance"
)

// newLocalDB returns a DB with a conformance.Local table named "local"
// whose item collections are limited to limit bytes.
func newLocalDB(t *testing.T, limit int64) *dynamotest.DB {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.ItemCollectionSizeLimit = limit })
	_, err := db.CreateTable(context.Background(), conformance.Local.CreateTableInput("local"))
	require.NoError(t, err)
	return db
}

func padded(pk, sk string, n int) item {
	return item{"pk": S(pk), "sk": S(sk), "ord": N("1"), "pad": S(strings.Repeat("x", n))}
}

func TestItemCollectionOverTheLimitIsRefusedAndChangesNothing(t *testing.T) {
	db := newLocalDB(t, 3000)
	ctx := context.Background()
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("local"), Item: padded("a", "1", 1000)})
	require.NoError(t, err)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("local"), Item: padded("a", "2", 1000)})
	require.NoError(t, err)

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("local"), Item: padded("a", "3", 1000)})
	var tooLarge *types.ItemCollectionSizeLimitExceededException
	require.ErrorAs(t, err, &tooLarge, "a third 1 KB item passes the 3000-byte collection")
	assert.Nil(t, get(t, db, "local", item{"pk": S("a"), "sk": S("3")}), "the refused item was stored")

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("local"), Item: padded("b", "1", 1000)})
	assert.NoError(t, err, "another partition key is another collection")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("local"), Item: padded("a", "1", 10)})
	assert.NoError(t, err, "a write that shrinks the collection")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("local"), Item: padded("a", "3", 1000)})
	assert.NoError(t, err, "the shrunk collection has room again")
}

func TestItemCollectionLimitCancelsATransactionWithItsReason(t *testing.T) {
	db := newLocalDB(t, 1500)
	_, err := db.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("local"), Item: padded("b", "1", 10)}},
		{Put: &types.Put{TableName: aws.String("local"), Item: padded("a", "1", 2000)}},
	}})
	codes, _ := conformance.CancellationCodes(err)
	assert.Equal(t, []string{"None", "ItemCollectionSizeLimitExceeded"}, codes)
	assert.Nil(t, get(t, db, "local", item{"pk": S("b"), "sk": S("1")}), "the canceled transaction wrote")
}

func TestItemCollectionMetricsEstimateTheCollection(t *testing.T) {
	db := newLocalDB(t, 0)
	out, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String("local"),
		Key: item{"pk": S("a"), "sk": S("1")}, UpdateExpression: aws.String("SET x = :x"),
		ExpressionAttributeValues: item{":x": S("v")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	require.NoError(t, err)
	require.NotNil(t, out.ItemCollectionMetrics)
	assert.Equal(t, item{"pk": S("a")}, out.ItemCollectionMetrics.ItemCollectionKey)
	assert.Equal(t, []float64{0, 1}, out.ItemCollectionMetrics.SizeEstimateRangeGB)

	bw, err := db.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		RequestItems: map[string][]types.WriteRequest{"local": {{PutRequest: &types.PutRequest{Item: padded("c", "1", 10)}}}}})
	require.NoError(t, err)
	assert.Len(t, bw.ItemCollectionMetrics["local"], 1)

	plain := newDB(t, simple)
	po, err := plain.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	require.NoError(t, err)
	assert.Nil(t, po.ItemCollectionMetrics, "a table without local indexes has no item collections to report")
}
