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
	"github.com/tablekit/tablekit/table"
)

// contextCalls makes one call of every operation under ctx, each of which
// would change the table or read from it if it ran.
func contextCalls(db *dynamotest.DB) map[string]func(ctx context.Context) error {
	name := aws.String("simple")
	key := item{"pk": S("a"), "sk": S("1")}
	fresh := item{"pk": S("new"), "sk": S("1")}
	return map[string]func(ctx context.Context) error{
		"PutItem": func(ctx context.Context) error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: fresh})
			return err
		},
		"UpdateItem": func(ctx context.Context) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: name, Key: key,
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": S("changed")}})
			return err
		},
		"DeleteItem": func(ctx context.Context) error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: name, Key: key})
			return err
		},
		"BatchWriteItem": func(ctx context.Context) error {
			_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"simple": {{PutRequest: &types.PutRequest{Item: fresh}}, {DeleteRequest: &types.DeleteRequest{Key: key}}},
			}})
			return err
		},
		"TransactWriteItems": func(ctx context.Context) error {
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: name, Item: fresh}},
			}})
			return err
		},
		"GetItem": func(ctx context.Context) error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: name, Key: key})
			return err
		},
		"Query": func(ctx context.Context) error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: name, KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: item{":p": S("a")}})
			return err
		},
		"Scan": func(ctx context.Context) error {
			_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: name})
			return err
		},
		"BatchGetItem": func(ctx context.Context) error {
			_, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				"simple": {Keys: []map[string]types.AttributeValue{key}},
			}})
			return err
		},
		"TransactGetItems": func(ctx context.Context) error {
			_, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: name, Key: key}},
			}})
			return err
		},
		"CreateTable": func(ctx context.Context) error {
			_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("other"),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				BillingMode:          types.BillingModePayPerRequest})
			return err
		},
		"DeleteTable": func(ctx context.Context) error {
			_, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name})
			return err
		},
		"DescribeTable": func(ctx context.Context) error {
			_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
			return err
		},
		"ListTables": func(ctx context.Context) error {
			_, err := db.ListTables(ctx, &dynamodb.ListTablesInput{})
			return err
		},
		"UpdateTimeToLive": func(ctx context.Context) error {
			_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: name,
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
			return err
		},
		"DescribeTimeToLive": func(ctx context.Context) error {
			_, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: name})
			return err
		},
	}
}

func TestCallsUnderADoneContextFailWithItsErrorAndChangeNothing(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelExpired()

	for ctxName, done := range map[string]context.Context{"canceled": canceled, "expired": expired} {
		db := newDB(t, simple)
		put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "v": S("seed")})
		before := scanAll(t, db, "simple")
		db.ResetCalls()
		for op, call := range contextCalls(db) {
			err := call(done)
			assert.ErrorIs(t, err, done.Err(), "%s under a %s context", op, ctxName)
			assert.Zero(t, db.Calls(op), "%s under a %s context was counted as a call that reached DynamoDB", op, ctxName)
		}
		assert.Equal(t, before, scanAll(t, db, "simple"), "calls under a %s context changed the table", ctxName)
		out, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		require.NoError(t, err)
		assert.Equal(t, []string{"simple"}, out.TableNames, "a CreateTable or DeleteTable under a %s context ran", ctxName)
		ttl, err := db.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("simple")})
		require.NoError(t, err)
		assert.Equal(t, types.TimeToLiveStatusDisabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	}
}

func TestCallsWithANilContextRunAsUnderBackground(t *testing.T) {
	db := newDB(t, simple)
	for op, call := range contextCalls(db) {
		assert.NotPanics(t, func() { _ = call(nil) }, op) //nolint:staticcheck // a nil context is bad input the fake must survive
	}
}

func TestParallelScanUnderACanceledContextReturnsItsError(t *testing.T) {
	db := dynamotest.New()
	schema := table.Schema{Name: "things", PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS}}
	require.NoError(t, schema.Create(context.Background(), db))
	tbl := table.New(db, schema)
	for i := range 20 {
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("things"),
			Item: item{"pk": S(string(rune('a' + i)))}})
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	seen := 0
	err := table.ParallelScan(ctx, tbl, 4, func(context.Context, int, table.Item) error {
		seen++
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, seen, "items were delivered from a scan under a canceled context")
}

// scanAll reads every item of a table with one consistent Scan under a
// live context.
func scanAll(t testing.TB, db *dynamotest.DB, tableName string) []item {
	t.Helper()
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tableName), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Items
}
