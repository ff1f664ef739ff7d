package blobstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
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

func integrationReportsTable(t *testing.T) (table.API, *table.Table, table.Schema) {
	t.Helper()
	ddb := testenv.DynamoDB(t)
	schema := reportsSchema.WithName(testenv.TableName(t, "Reports"))
	require.NoError(t, schema.Create(t.Context(), ddb))
	t.Cleanup(func() {
		_, _ = ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(schema.Name)})
	})
	return ddb, table.New(ddb, schema), schema
}

// TestOffloadIntegration runs the hybrid split against DynamoDB Local and
// s3rver (both endpoints must be set).
func TestOffloadIntegration(t *testing.T) {
	ddb, tb, schema := integrationReportsTable(t)
	st, err := s3blob.New(testenv.S3(t), testenv.Bucket(t, "offload"))
	require.NoError(t, err)
	off := newOffloader(t, st, func(o *blobstore.OffloadOptions) {
		o.Prefix = "attrs/"
		o.OrphanMinAge = 0
	})

	record := table.Item{"PK": s("JOB#1"), "SK": s("LOG"), "log": s(strings.Repeat("step ok\n", 1<<17))} // 1 MB
	require.NoError(t, off.Put(t.Context(), tb, "JOB#1/LOG", record))
	stored := rawItem(t, tb, "JOB#1", "LOG")
	assert.LessOrEqual(t, table.ItemSize(stored), blobstore.DefaultOffloadThreshold, "item in DynamoDB Local")
	got, err := off.Get(t.Context(), tb, table.Key{"PK": s("JOB#1"), "SK": s("LOG")}, func(o *table.GetOptions) { o.Consistent = true })
	require.NoError(t, err)
	assert.Equal(t, record, got, "record read back from DynamoDB Local and s3rver")

	failing := table.New(failingPuts{ddb}, schema)
	other := table.Item{"PK": s("JOB#2"), "SK": s("LOG"), "log": s(strings.Repeat("failed\n", 1<<17))}
	require.ErrorIs(t, off.Put(t.Context(), failing, "JOB#2/LOG", other), errWriteRefused)
	var item table.Item
	err = tb.Get(t.Context(), table.Key{"PK": s("JOB#2"), "SK": s("LOG")}, &item)
	assert.ErrorIs(t, err, table.ErrNotFound, "item after the failed write")
	orphans := orphanKeys(t, off, tb)
	require.Len(t, orphans, 1, "JOB#2's log object only")
	assert.True(t, strings.HasPrefix(orphans[0], "attrs/JOB#2/LOG/log/"), orphans[0])
}

// TestOffloadIntegrationMissingBucketWritesNoItem: s3rver refuses the
// upload (the bucket does not exist), so DynamoDB Local must not receive
// the item that would point at it.
func TestOffloadIntegrationMissingBucketWritesNoItem(t *testing.T) {
	_, tb, _ := integrationReportsTable(t)
	st, err := s3blob.New(testenv.S3(t), testenv.BucketName(t, "never-created"))
	require.NoError(t, err)
	off := newOffloader(t, st)
	record := table.Item{"PK": s("JOB#3"), "SK": s("LOG"), "log": s(strings.Repeat("lost\n", 1<<17))}
	require.Error(t, off.Put(t.Context(), tb, "JOB#3/LOG", record))
	n := 0
	for _, err := range table.ScanAll[table.Item](t.Context(), tb, table.Scan{Consistent: true}) {
		require.NoError(t, err)
		n++
	}
	assert.Zero(t, n, "items in DynamoDB Local after the upload failed")
}
