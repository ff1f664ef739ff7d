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
	if aws.ToString(in.TableName) != "pipelines" || len(in.KeySchema) != 2 ||
		aws.ToString(in.KeySchema[0].AttributeName) != "pk" || aws.ToString(in.KeySchema[1].AttributeName) != "sk" {
		t.Fatalf("table keys %+v", in.KeySchema)
	}
	if len(in.GlobalSecondaryIndexes) != 1 {
		t.Fatalf("indexes %+v", in.GlobalSecondaryIndexes)
	}
	gsi := in.GlobalSecondaryIndexes[0]
	if aws.ToString(gsi.IndexName) != "GSI-1" || aws.ToString(gsi.KeySchema[0].AttributeName) != "siKey1" ||
		aws.ToString(gsi.KeySchema[1].AttributeName) != "pk" || gsi.Projection.ProjectionType != "ALL" {
		t.Fatalf("GSI-1 %+v", gsi)
	}
	seen := map[string]bool{}
	for _, ap := range pipeline.Patterns() {
		if seen[ap.Name] || ap.KeyCondition == "" || ap.Operation == "" {
			t.Errorf("access pattern %+v: duplicate or incomplete", ap)
		}
		seen[ap.Name] = true
	}
	for _, name := range []string{"create a new pipeline", "update an existing pipeline", "get an existing pipeline",
		"list pipelines", "get a specific pipeline version", "list existing pipeline versions", "list pipeline executions",
		"get a specific pipeline execution", "list tags", "list pipelines by tags"} {
		if !seen[name] {
			t.Errorf("the seed's access pattern %q is not declared", name)
		}
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
