package jobs_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func TestSchemaIsTheSeedsTable(t *testing.T) {
	s := jobs.Schema(jobs.TableNameForEnv("prod"))
	require.NoError(t, s.Validate())
	require.Falsef(t, s.Name != "photoeditor-prod-jobs" || s.PartitionKey != (table.Attribute{Name: "jobId", Type: types.ScalarAttributeTypeS}) || s.SortKey.Name != "" || s.TTLAttribute != "ttl", "schema %+v", s)
	want := map[string][2]string{
		"userId-createdAt-index": {"userId", "createdAt"},
		"status-createdAt-index": {"status", "createdAt"},
	}
	require.Len(t, s.Indexes, 2)
	for _, ix := range s.Indexes {
		w, ok := want[ix.Name]
		require.Falsef(t, !ok || ix.PartitionKey.Name != w[0] || ix.PartitionKey.Type != types.ScalarAttributeTypeS || ix.SortKey.Name != w[1] || ix.SortKey.Type != types.ScalarAttributeTypeN || ix.Projection != types.ProjectionTypeAll, "index %+v", ix)
	}
	ops := map[string]access.Op{}
	for _, ap := range jobs.Patterns() {
		ops[ap.Name] = ap.Operation
		assert.Falsef(t, ap.ItemSize <= 0 || ap.RatePerSecond <= 0, "access pattern %q has no size or rate", ap.Name)
	}
	for name, op := range map[string]access.Op{
		"Get job by ID": access.GetItem, "List user jobs": access.Query, "List failed jobs": access.Query,
		"Update job status": access.UpdateItem, "Delete job": access.DeleteItem,
	} {
		assert.Equal(t, op, ops[name], "seed access pattern")
	}
}

func TestSchemaCreatesTableWithTTL(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	require.NoError(t, jobs.Schema(jobs.TableNameForEnv("dev")).Create(ctx, db))
	out, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("photoeditor-dev-jobs")})
	require.NoError(t, err)
	d := out.TimeToLiveDescription
	require.Falsef(t, d == nil || aws.ToString(d.AttributeName) != "ttl" || d.TimeToLiveStatus != types.TimeToLiveStatusEnabled, "TTL description %+v, want enabled on ttl", out.TimeToLiveDescription)
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("photoeditor-dev-jobs")})
	require.NoError(t, err)
	require.Len(t, desc.Table.GlobalSecondaryIndexes, 2, "created table has")
}

func TestSchemaWithBadEnvFailsValidation(t *testing.T) {
	for _, env := range []string{"my env", "prod/eu", "ümlaut"} {
		assert.ErrorIs(t, jobs.Schema(env).Validate(), table.ErrInvalidInput, "Schema(")
	}
}
