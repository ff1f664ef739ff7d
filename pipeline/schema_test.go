package pipeline_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
)

func TestSchemaIsTheSeedsTable(t *testing.T) {
	s := pipeline.Schema("pipelines")
	require.NoError(t, s.Validate())
	in := s.CreateTableInput()
	assert.Equal(t, "pipelines", aws.ToString(in.TableName))
	require.Len(t, in.KeySchema, 2)
	assert.Equal(t, "pk", aws.ToString(in.KeySchema[0].AttributeName))
	assert.Equal(t, "sk", aws.ToString(in.KeySchema[1].AttributeName))
	require.Len(t, in.GlobalSecondaryIndexes, 1)
	gsi := in.GlobalSecondaryIndexes[0]
	assert.Equal(t, "GSI-1", aws.ToString(gsi.IndexName))
	require.Len(t, gsi.KeySchema, 2)
	assert.Equal(t, "siKey1", aws.ToString(gsi.KeySchema[0].AttributeName))
	assert.Equal(t, "pk", aws.ToString(gsi.KeySchema[1].AttributeName))
	assert.EqualValues(t, "ALL", gsi.Projection.ProjectionType)
	seen := map[string]bool{}
	for _, ap := range pipeline.Patterns() {
		assert.False(t, seen[ap.Name], "access pattern %q declared twice", ap.Name)
		assert.NotEmpty(t, ap.KeyCondition, "access pattern %q", ap.Name)
		assert.NotEmpty(t, ap.Operation, "access pattern %q", ap.Name)
		seen[ap.Name] = true
	}
	for _, name := range []string{"create a new pipeline", "update an existing pipeline", "get an existing pipeline",
		"list pipelines", "get a specific pipeline version", "list existing pipeline versions", "list pipeline executions",
		"get a specific pipeline execution", "list tags", "list pipelines by tags"} {
		assert.True(t, seen[name], "the seed's access pattern %q is declared", name)
	}
	db := dynamotest.New()
	named := newStore(t, db, nil, pipeline.TableName("x-y"))
	assert.Equal(t, "x-y", named.Table().Name())
	assert.Equal(t, pipeline.Schema("x-y"), named.Schema())
	assert.Equal(t, pipeline.DefaultTableName, newStore(t, db, nil).Schema().Name)
	require.NoError(t, named.EnsureTable(context.Background()))
	_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("x-y")})
	assert.NoError(t, err, "EnsureTable creates the table the store uses")
}
