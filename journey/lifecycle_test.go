package journey

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestSetupCreatesTheTableAndArchivesLogsToGlacierAfter90Days: the
// store's setup creates its table and applies the seed's lifecycle rule to
// the logs bucket: objects under journeys/ to Glacier after 90 days.
func TestSetupCreatesTheTableAndArchivesLogsToGlacierAfter90Days(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New()
	logs, reports := blobstore.NewMemory(), blobstore.NewMemory()
	s := mustStore(t, db, logs, WithReports(reports))
	require.NoError(t, s.Setup(ctx))
	require.NoError(t, Schema("").Check(ctx, db), "the table is there as its schema says")
	assert.Equal(t, []blobstore.LifecycleRule{{Prefix: "journeys/", TransitionAfterDays: 90, StorageClass: "GLACIER"}}, logs.Lifecycle())
	assert.Nil(t, reports.Lifecycle(), "the seed archives logs; the reports bucket is left alone")
	require.NoError(t, s.Setup(ctx), "Setup again changes nothing")
	assert.Len(t, logs.Lifecycle(), 1)
}

// TestArchiveLogsAfterDaysSetsOrDropsTheRule: another number of days is
// another rule; NoLogArchive applies none (the bucket's configuration is
// left as it is); a number S3 cannot hold is refused by NewStore.
func TestArchiveLogsAfterDaysSetsOrDropsTheRule(t *testing.T) {
	ctx := context.Background()
	logs := blobstore.NewMemory()
	s := mustStore(t, dynamotest.New(), logs, func(o *Options) { o.ArchiveLogsAfterDays = 30 })
	require.NoError(t, s.Setup(ctx))
	assert.Equal(t, []blobstore.LifecycleRule{blobstore.GlacierAfter("journeys/", 30)}, logs.Lifecycle())

	kept := []blobstore.LifecycleRule{{ID: "the-operators", Prefix: "other/", ExpireAfterDays: 7}}
	require.NoError(t, logs.ApplyLifecycle(ctx, kept...))
	none := mustStore(t, dynamotest.New(), logs, func(o *Options) { o.ArchiveLogsAfterDays = NoLogArchive })
	require.NoError(t, none.Setup(ctx))
	require.NoError(t, none.ApplyLifecycle(ctx))
	assert.Equal(t, kept, logs.Lifecycle(), "no rule declared: the bucket's configuration stays")

	_, err := NewStore(dynamotest.New(), logs, func(o *Options) { o.ArchiveLogsAfterDays = math.MaxInt32 + 1 })
	assert.ErrorIs(t, err, table.ErrInvalidInput)
}

// TestSetupOnALogsStoreWithoutLifecycleSaysSo: a Dir keeps no lifecycle
// rules: Setup creates the table, then fails with blobstore.ErrUnsupported
// rather than leaving the logs unarchived without a word.
func TestSetupOnALogsStoreWithoutLifecycleSaysSo(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New()
	dir, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	s := mustStore(t, db, dir)
	err = s.Setup(ctx)
	assert.ErrorIs(t, err, blobstore.ErrUnsupported)
	require.NoError(t, Schema("").Check(ctx, db), "the table is created first")
}

// TestIntegrationSetupOnDynamoDBLocalAndS3rver: Setup creates the table on
// DynamoDB Local and keeps the rule in a memory logs store; s3rver
// implements no lifecycle rules, which Setup reports as
// blobstore.ErrUnsupported after the table is made. On AWS the same call
// sends PutBucketLifecycleConfiguration (s3blob's tests check the request).
func TestIntegrationSetupOnDynamoDBLocalAndS3rver(t *testing.T) {
	ctx := context.Background()
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, DefaultTableName)
	logs := blobstore.NewMemory()
	s := mustStore(t, client, logs, TableName(name))
	require.NoError(t, s.Setup(ctx))
	require.NoError(t, Schema(name).Check(ctx, client))
	assert.Equal(t, []blobstore.LifecycleRule{blobstore.GlacierAfter("journeys/", 90)}, logs.Lifecycle())

	bucket, err := s3blob.New(testenv.S3(t), testenv.Bucket(t, "journey-logs"), func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	onS3rver := mustStore(t, client, bucket, TableName(name))
	assert.ErrorIs(t, onS3rver.Setup(ctx), blobstore.ErrUnsupported, "s3rver has no lifecycle rules")
}
