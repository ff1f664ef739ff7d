package table_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

func localIndexSchema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name: name, PartitionKey: s("pk"), SortKey: s("sk"),
		Indexes: []table.Index{
			{Name: "GSI1", PartitionKey: s("gsi1pk"), SortKey: s("gsi1sk")},
			{Name: "LSI1", PartitionKey: s("pk"), SortKey: s("lsi1sk"), Local: true,
				Projection: types.ProjectionTypeInclude, NonKeyAttributes: []string{"title"}},
		},
	}
}

// testALocalIndexIsCreatedWithTheTableAndReadConsistently: a schema's local
// index is created by CreateTable as a local secondary index, accepted by
// EnsureTable afterwards, and reported as ErrSchemaMismatch when the table
// has it as the other kind or lacks it; a Query or Scan of it may be
// strongly consistent, of a global index not (refused before sending, as
// DynamoDB refuses ConsistentRead there).
func testALocalIndexIsCreatedWithTheTableAndReadConsistently(t *testing.T, db table.API, name string) {
	ctx := context.Background()
	s := localIndexSchema(name)
	require.NoError(t, s.EnsureTable(ctx, db))
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	require.Len(t, out.Table.LocalSecondaryIndexes, 1)
	require.Len(t, out.Table.GlobalSecondaryIndexes, 1)
	assert.Equal(t, "LSI1", aws.ToString(out.Table.LocalSecondaryIndexes[0].IndexName))
	require.NoError(t, s.EnsureTable(ctx, db), "the table it created")
	require.NoError(t, s.Check(ctx, db))

	global := localIndexSchema(name)
	global.Indexes[1].Local = false
	err = global.EnsureTable(ctx, db)
	require.ErrorIs(t, err, table.ErrSchemaMismatch, "the index declared global")
	assert.ErrorContains(t, err, "local secondary index")
	missing := localIndexSchema(name)
	missing.Indexes = append(missing.Indexes, table.Index{Name: "LSI2", PartitionKey: s.PartitionKey,
		SortKey: table.Attribute{Name: "lsi2sk", Type: types.ScalarAttributeTypeS}, Local: true})
	require.ErrorIs(t, missing.EnsureTable(ctx, db), table.ErrSchemaMismatch, "a local index the table lacks")

	tbl := table.New(db, s)
	for _, it := range []table.Item{
		{"pk": sv("P"), "sk": sv("a"), "lsi1sk": sv("3"), "title": sv("A")},
		{"pk": sv("P"), "sk": sv("b"), "lsi1sk": sv("1"), "title": sv("B")},
		{"pk": sv("P"), "sk": sv("c"), "title": sv("C")}, // not in the index
		{"pk": sv("Q"), "sk": sv("d"), "lsi1sk": sv("2")},
	} {
		require.NoError(t, tbl.Put(ctx, it))
	}
	page, err := table.QueryPage[table.Item](ctx, tbl, table.Query{Index: "LSI1", Partition: "P", Consistent: true}, "")
	require.NoError(t, err, "a consistent read of a local index")
	var got []string
	for _, it := range page.Items {
		got = append(got, it["sk"].(*types.AttributeValueMemberS).Value)
	}
	assert.Equal(t, []string{"b", "a"}, got, "in the local index's order, within the partition")

	n := 0
	for _, err := range table.ScanAll[table.Item](ctx, tbl, table.Scan{Index: "LSI1", Consistent: true}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 3, n, "a consistent scan of a local index")

	var ie *table.InputError
	_, err = table.QueryPage[table.Item](ctx, tbl, table.Query{Index: "GSI1", Partition: "G", Consistent: true}, "")
	require.ErrorAs(t, err, &ie, "a consistent read of a global index")
	assert.Equal(t, "query.Consistent", ie.Field)
	for _, err = range table.ScanAll[table.Item](ctx, tbl, table.Scan{Index: "GSI1", Consistent: true}) {
		break
	}
	require.ErrorAs(t, err, &ie, "a consistent scan of a global index")
	assert.Equal(t, "scan.Consistent", ie.Field)
}

func sv(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestALocalIndexIsCreatedWithTheTableAndReadConsistently(t *testing.T) {
	testALocalIndexIsCreatedWithTheTableAndReadConsistently(t, dynamotest.New(), "projects")
}

func TestIntegrationALocalIndexIsCreatedWithTheTableAndReadConsistently(t *testing.T) {
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "projects")
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	testALocalIndexIsCreatedWithTheTableAndReadConsistently(t, client, name)
}

// TestCreateTableInputPutsLocalIndexesApart: local indexes go in
// LocalSecondaryIndexes, with their projection and no throughput of their
// own (they use the table's).
func TestCreateTableInputPutsLocalIndexesApart(t *testing.T) {
	s := localIndexSchema("projects")
	s.Provisioning.Capacity = &table.Capacity{Read: 5, Write: 5}
	in := s.CreateTableInput()
	require.Len(t, in.GlobalSecondaryIndexes, 1)
	require.Len(t, in.LocalSecondaryIndexes, 1)
	l := in.LocalSecondaryIndexes[0]
	assert.Equal(t, "LSI1", aws.ToString(l.IndexName))
	assert.Equal(t, []types.KeySchemaElement{
		{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String("lsi1sk"), KeyType: types.KeyTypeRange},
	}, l.KeySchema)
	assert.Equal(t, &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"title"}}, l.Projection)
	assert.NotNil(t, in.GlobalSecondaryIndexes[0].ProvisionedThroughput)
	var defined []string
	for _, d := range in.AttributeDefinitions {
		defined = append(defined, aws.ToString(d.AttributeName))
	}
	assert.ElementsMatch(t, []string{"pk", "sk", "gsi1pk", "gsi1sk", "lsi1sk"}, defined, "each attribute defined once")
}
