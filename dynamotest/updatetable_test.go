package dynamotest_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

func addByColor(t *testing.T, db *dynamotest.DB) *dynamodb.UpdateTableOutput {
	t.Helper()
	out, err := db.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("simple"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("color"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byColor"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("color"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}}})
	require.NoError(t, err)
	return out
}

func indexStatus(t *testing.T, d *types.TableDescription, name string) types.IndexStatus {
	t.Helper()
	for _, g := range d.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == name {
			return g.IndexStatus
		}
	}
	return ""
}

func queryColor(db *dynamotest.DB) (*dynamodb.QueryOutput, error) {
	return db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("simple"), IndexName: aws.String("byColor"),
		KeyConditionExpression: aws.String("color = :c"), ExpressionAttributeValues: item{":c": S("red")}})
}

func TestNewIndexIsCreatingUntilDescribedThenActive(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "color": S("red")})

	out := addByColor(t, db)
	assert.Equal(t, types.TableStatusUpdating, out.TableDescription.TableStatus)
	assert.Equal(t, types.IndexStatusCreating, indexStatus(t, out.TableDescription, "byColor"))
	_, err := queryColor(db)
	assert.ErrorContains(t, err, "Cannot read from backfilling global secondary index: byColor")

	d, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	assert.Equal(t, types.IndexStatusCreating, indexStatus(t, d.Table, "byColor"), "the first DescribeTable still sees CREATING")
	d, err = db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	assert.Equal(t, types.IndexStatusActive, indexStatus(t, d.Table, "byColor"))

	q, err := queryColor(db)
	require.NoError(t, err)
	assert.Len(t, q.Items, 1, "the backfilled item")
}

func TestNewIndexIsActiveOnceTheClockMoves(t *testing.T) {
	db := newDB(t, simple)
	addByColor(t, db)
	db.Advance(time.Second)
	_, err := queryColor(db)
	assert.NoError(t, err)
}

func TestUpdateTableChangesNothingWhenRefused(t *testing.T) {
	db := newDB(t, simple)
	_, err := db.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("simple"),
		BillingMode: types.BillingModeProvisioned})
	require.Error(t, err, "PROVISIONED without throughput")
	d, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	assert.Equal(t, types.BillingModePayPerRequest, d.Table.BillingModeSummary.BillingMode)

	_, err = db.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("simple"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
			{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("a")}},
			{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("b")}},
		}})
	var limit *types.LimitExceededException
	assert.ErrorAs(t, err, &limit, "two index changes in one call")
}
