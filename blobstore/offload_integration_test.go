package blobstore_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// failingPuts is DynamoDB Local with PutItem failing, to show what a real
// client sees when the write after the upload fails.
type failingPuts struct{ table.API }

var errWriteRefused = errors.New("PutItem refused by the test")

func (f failingPuts) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errWriteRefused
}

// TestOffloadIntegration runs the hybrid split against DynamoDB Local and
// s3rver (both endpoints must be set).
func TestOffloadIntegration(t *testing.T) {
	ddb := testenv.DynamoDB(t)
	st := blobstore.NewS3(testenv.S3(t), testenv.Bucket(t, "offload"))
	schema := reportsSchema.WithName(testenv.TableName(t, "Reports"))
	if err := schema.Create(t.Context(), ddb); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(schema.Name)})
	})
	tb := table.New(ddb, schema)
	off := blobstore.NewOffloader(st, func(o *blobstore.OffloadOptions) {
		o.Prefix = "attrs/"
		o.OrphanMinAge = 0
	})

	record := table.Item{"PK": s("JOB#1"), "SK": s("LOG"), "log": s(strings.Repeat("step ok\n", 1<<17))} // 1 MB
	if err := off.Put(t.Context(), tb, "JOB#1/LOG", record); err != nil {
		t.Fatal(err)
	}
	stored := rawItem(t, tb, "JOB#1", "LOG")
	if n := table.ItemSize(stored); n > blobstore.DefaultOffloadThreshold {
		t.Fatalf("item in DynamoDB Local is %d bytes", n)
	}
	got, err := off.Get(t.Context(), tb, table.Key{"PK": s("JOB#1"), "SK": s("LOG")}, func(o *table.GetOptions) { o.Consistent = true })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, record) {
		t.Fatal("record read back from DynamoDB Local and s3rver differs")
	}

	failing := table.New(failingPuts{ddb}, schema)
	other := table.Item{"PK": s("JOB#2"), "SK": s("LOG"), "log": s(strings.Repeat("failed\n", 1<<17))}
	if err := off.Put(t.Context(), failing, "JOB#2/LOG", other); !errors.Is(err, errWriteRefused) {
		t.Fatalf("Put with PutItem failing: %v", err)
	}
	var item table.Item
	if err := tb.Get(t.Context(), table.Key{"PK": s("JOB#2"), "SK": s("LOG")}, &item); !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("item after failed write: %v, want ErrNotFound", err)
	}
	var orphans []string
	for k, err := range off.Orphans(t.Context(), tb, "") {
		if err != nil {
			t.Fatal(err)
		}
		orphans = append(orphans, k)
	}
	if len(orphans) != 1 || !strings.HasPrefix(orphans[0], "attrs/JOB#2/LOG/log/") {
		t.Fatalf("Orphans = %q, want JOB#2's log object only", orphans)
	}
}
