package jobs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func TestSchemaIsTheSeedsTable(t *testing.T) {
	s := jobs.Schema(jobs.TableNameForEnv("prod"))
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Name != "photoeditor-prod-jobs" || s.PartitionKey != (table.Attribute{Name: "jobId", Type: types.ScalarAttributeTypeS}) ||
		s.SortKey.Name != "" || s.TTLAttribute != "ttl" {
		t.Fatalf("schema %+v", s)
	}
	want := map[string][2]string{
		"userId-createdAt-index": {"userId", "createdAt"},
		"status-createdAt-index": {"status", "createdAt"},
	}
	if len(s.Indexes) != 2 {
		t.Fatalf("%d indexes, want 2", len(s.Indexes))
	}
	for _, ix := range s.Indexes {
		w, ok := want[ix.Name]
		if !ok || ix.PartitionKey.Name != w[0] || ix.PartitionKey.Type != types.ScalarAttributeTypeS ||
			ix.SortKey.Name != w[1] || ix.SortKey.Type != types.ScalarAttributeTypeN || ix.Projection != types.ProjectionTypeAll {
			t.Fatalf("index %+v", ix)
		}
	}
	ops := map[string]access.Op{}
	for _, ap := range jobs.Patterns() {
		ops[ap.Name] = ap.Operation
		if ap.ItemSize <= 0 || ap.RatePerSecond <= 0 {
			t.Errorf("access pattern %q has no size or rate", ap.Name)
		}
	}
	for name, op := range map[string]access.Op{
		"Get job by ID": access.GetItem, "List user jobs": access.Query, "List failed jobs": access.Query,
		"Update job status": access.UpdateItem, "Delete job": access.DeleteItem,
	} {
		if ops[name] != op {
			t.Errorf("seed access pattern %q: %q, want %q", name, ops[name], op)
		}
	}
}

func TestSchemaCreatesTableWithTTL(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	if err := jobs.Schema(jobs.TableNameForEnv("dev")).Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	out, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("photoeditor-dev-jobs")})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.TimeToLiveDescription; d == nil || aws.ToString(d.AttributeName) != "ttl" || d.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Fatalf("TTL description %+v, want enabled on ttl", out.TimeToLiveDescription)
	}
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("photoeditor-dev-jobs")})
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.Table.GlobalSecondaryIndexes) != 2 {
		t.Fatalf("created table has %d GSIs, want 2", len(desc.Table.GlobalSecondaryIndexes))
	}
}

func TestSchemaWithBadEnvFailsValidation(t *testing.T) {
	for _, env := range []string{"my env", "prod/eu", "ümlaut"} {
		if err := jobs.Schema(env).Validate(); !errors.Is(err, table.ErrInvalidInput) {
			t.Errorf("Schema(%q).Validate() = %v, want ErrInvalidInput", env, err)
		}
	}
}
