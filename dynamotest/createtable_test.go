package dynamotest_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

var _ table.API = dynamotest.New()

func TestCreateTableIsActiveAndDescribed(t *testing.T) {
	spec := simple
	spec.gsis = []types.GlobalSecondaryIndex{gsi("GSI1", "g1pk", "g1sk", types.ProjectionTypeAll)}
	spec.extraAttrDefs = []types.AttributeDefinition{attrDef("g1pk", "S"), attrDef("g1sk", "N")}
	db := newDB(t, spec)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "g1pk": S("x"), "g1sk": N("5")})
	put(t, db, "simple", item{"pk": S("a"), "sk": S("2")})

	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	d := out.Table
	assert.EqualValuesf(t, types.TableStatusActive, d.TableStatus, "status %s, want ACTIVE", d.TableStatus)
	assert.EqualValuesf(t, 2, aws.ToInt64(d.ItemCount), "ItemCount %d, want 2", aws.ToInt64(d.ItemCount))
	assert.Falsef(t, len(d.KeySchema) != 2 || aws.ToString(d.KeySchema[0].AttributeName) != "pk" || d.KeySchema[1].KeyType != types.KeyTypeRange, "KeySchema %+v", d.KeySchema)
	require.NotNil(t, d.BillingModeSummary)
	assert.Equal(t, types.BillingModePayPerRequest, d.BillingModeSummary.BillingMode)
	require.Lenf(t, d.GlobalSecondaryIndexes, 1, "GSIs %+v", d.GlobalSecondaryIndexes)
	g := d.GlobalSecondaryIndexes[0]
	assert.Equal(t, "GSI1", aws.ToString(g.IndexName))
	assert.Equal(t, types.IndexStatusActive, g.IndexStatus)
	assert.EqualValues(t, 1, aws.ToInt64(g.ItemCount))
	assert.Equal(t, types.ProjectionTypeAll, g.Projection.ProjectionType)
}

// A table created with a class is described with it; one created without
// is described without a TableClassSummary (STANDARD), as DynamoDB does.
func TestCreateTableKeepsItsTableClass(t *testing.T) {
	db := dynamotest.New()
	in := simple.input()
	in.TableClass = types.TableClassStandardInfrequentAccess
	_, err := db.CreateTable(ctx, in)
	require.NoError(t, err)
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	require.NotNil(t, out.Table.TableClassSummary)
	assert.Equal(t, types.TableClassStandardInfrequentAccess, out.Table.TableClassSummary.TableClass)

	plain := newDB(t, simple)
	out, err = plain.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	assert.Nil(t, out.Table.TableClassSummary)
}

func TestCreateTableTwiceIsResourceInUse(t *testing.T) {
	db := newDB(t, simple)
	_, err := db.CreateTable(ctx, simple.input())
	var inUse *types.ResourceInUseException
	require.ErrorAsf(t, err, &inUse, "want ResourceInUseException, got %v", err)
}

func TestCreateTableRejectsBadDefinitions(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*dynamodb.CreateTableInput)
		msg    string
	}{
		{"short name", func(in *dynamodb.CreateTableInput) { in.TableName = aws.String("ab") },
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"bad name characters", func(in *dynamodb.CreateTableInput) { in.TableName = aws.String("a b c") },
			"1 validation error detected: Value 'a b c' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"range first", func(in *dynamodb.CreateTableInput) {
			in.KeySchema[0].KeyType, in.KeySchema[1].KeyType = types.KeyTypeRange, types.KeyTypeHash
		}, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"undefined key attribute", func(in *dynamodb.CreateTableInput) { in.AttributeDefinitions = in.AttributeDefinitions[:1] },
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [pk, sk], AttributeDefinitions: [pk]"},
		{"unused definition", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, attrDef("other", "S"))
		}, "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"on-demand with throughput", func(in *dynamodb.CreateTableInput) {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
		}, "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"provisioned without throughput", func(in *dynamodb.CreateTableInput) { in.BillingMode = types.BillingModeProvisioned },
			"One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"include without attributes", func(in *dynamodb.CreateTableInput) {
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{gsi("GSI1", "sk", "", types.ProjectionTypeInclude)}
		}, "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified"},
		{"unknown table class", func(in *dynamodb.CreateTableInput) { in.TableClass = "GLACIER" },
			"1 validation error detected: Value 'GLACIER' at 'tableClass' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, STANDARD_INFREQUENT_ACCESS]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := dynamotest.New()
			in := simple.input()
			c.modify(in)
			_, err := db.CreateTable(ctx, in)
			wantValidation(t, err, c.msg)
			list, _ := db.ListTables(ctx, &dynamodb.ListTablesInput{})
			assert.Lenf(t, list.TableNames, 0, "a rejected CreateTable left tables %v", list.TableNames)
		})
	}
}

func TestListTablesPaginates(t *testing.T) {
	db := dynamotest.New()
	for i := 0; i < 5; i++ {
		spec := simple
		spec.name = fmt.Sprintf("table%d", 4-i)
		_, err := db.CreateTable(ctx, spec.input())
		require.NoError(t, err)
	}
	var all []string
	var start *string
	pages := 0
	for {
		out, err := db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(2), ExclusiveStartTableName: start})
		require.NoError(t, err)
		pages++
		all = append(all, out.TableNames...)
		if out.LastEvaluatedTableName == nil {
			break
		}
		start = out.LastEvaluatedTableName
	}
	assert.Falsef(t, fmt.Sprint(all) != "[table0 table1 table2 table3 table4]" || pages != 3, "got %v in %d pages", all, pages)
	_, err := db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	wantValidation(t, err, "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")
}

func TestDeleteTableRemovesTableAndItems(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	out, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	assert.EqualValuesf(t, types.TableStatusDeleting, out.TableDescription.TableStatus, "status %s, want DELETING", out.TableDescription.TableStatus)
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("b")}})
	wantNotFound(t, err)
	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	wantNotFound(t, err)
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("simple")})
	wantNotFound(t, err)
	// The name is free again, and the new table starts empty.
	_, err = db.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	it := get(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	assert.Nilf(t, it, "recreated table holds %v", it)
}

func TestEveryOperationOnMissingTableIsResourceNotFound(t *testing.T) {
	db := dynamotest.New()
	name := aws.String("missing")
	key := item{"pk": S("a")}
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: name, Key: key})
	wantNotFound(t, err)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: key})
	wantNotFound(t, err)
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: name, Key: key})
	wantNotFound(t, err)
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: name, Key: key})
	wantNotFound(t, err)
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: name})
	wantNotFound(t, err)
	_, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: name})
	wantNotFound(t, err)
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"missing": {Keys: []item{key}}}})
	wantNotFound(t, err)
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"missing": {{PutRequest: &types.PutRequest{Item: key}}}}})
	wantNotFound(t, err)
	_, err = db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{TableName: name, Key: key}}}})
	wantNotFound(t, err)
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: name, Item: key}}}})
	wantNotFound(t, err)
	_, err = db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: name})
	wantNotFound(t, err)
}
