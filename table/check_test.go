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
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// testCheckReportsEveryDifferenceAndChangesNothing makes a table by hand
// that differs from jobsSchema in an index's projection, a missing index,
// TTL and deletion protection, and expects Check to list exactly those.
func testCheckReportsEveryDifferenceAndChangesNothing(t *testing.T, db table.API, name string) {
	ctx := t.Context()
	s := jobsSchema(name)
	require.ErrorIs(t, s.Check(ctx, db), table.ErrTableNotFound)

	created := s.CreateTableInput()
	created.GlobalSecondaryIndexes[0].Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	_, err := db.CreateTable(ctx, created)
	require.NoError(t, err)

	want := s
	want.Indexes = append(want.Indexes, table.Index{
		Name:         "GSI2",
		PartitionKey: table.Attribute{Name: "GSI2PK", Type: types.ScalarAttributeTypeS},
	})
	want.Provisioning.DeletionProtection = true
	err = want.Check(ctx, db)
	require.ErrorIs(t, err, table.ErrDrift)
	var de *table.DriftError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []table.Drift{
		{Setting: "index GSI1 projection", Want: "ALL", Got: "KEYS_ONLY"},
		{Setting: "index GSI2", Want: "present", Got: "missing"},
		{Setting: "TTL", Want: "expiresAt", Got: "off"},
		{Setting: "DeletionProtection", Want: "enabled", Got: "disabled"},
	}, de.Drifts)

	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	require.NoError(t, err)
	require.NotNil(t, ttl.TimeToLiveDescription)
	assert.NotEqual(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus, "Check enabled nothing")

	err = want.EnsureTable(ctx, db)
	assert.ErrorIs(t, err, table.ErrSchemaMismatch, "EnsureTable refuses an index with another projection")
	assert.NotErrorIs(t, err, table.ErrDrift, "a key mismatch is not a drift an operator may let stand")
	assert.Contains(t, err.Error(), "index GSI1 projection is KEYS_ONLY, want ALL")
}

func TestCheckReportsEveryDifferenceAndChangesNothingOnTheFake(t *testing.T) {
	testCheckReportsEveryDifferenceAndChangesNothing(t, dynamotest.New(), "jobs-check")
}

func TestCheckIntegration(t *testing.T) {
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, "check")
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	testCheckReportsEveryDifferenceAndChangesNothing(t, client, name)
}

func TestCheckPassesOnTheTableEnsureTableMade(t *testing.T) {
	db := dynamotest.New()
	s := jobsSchema("jobs-ok")
	require.NoError(t, s.EnsureTable(t.Context(), db))
	assert.NoError(t, s.Check(t.Context(), db))
}

func TestCheckRefusesNilInputs(t *testing.T) {
	s := jobsSchema("jobs")
	assert.ErrorIs(t, s.Check(t.Context(), nil), table.ErrInvalidInput)
	assert.ErrorIs(t, s.Check(nil, dynamotest.New()), table.ErrInvalidInput)
	assert.ErrorIs(t, table.Schema{}.Check(t.Context(), dynamotest.New()), table.ErrInvalidInput)
}
