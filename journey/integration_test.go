package journey

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
)

// localStore is a store on the DynamoDB at TABLEKIT_DYNAMODB_ENDPOINT
// (skipping without it), on a table of its own.
func localStore(t *testing.T, opts ...func(*Options)) *Store {
	t.Helper()
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, DefaultTableName)
	ctx := context.Background()
	require.NoError(t, Schema(name).EnsureTable(ctx, client))
	return mustStore(t, client, blobstore.NewMemory(), append([]func(*Options){func(o *Options) { o.TableName = name }}, opts...)...)
}

// localClock is a fake serving as a store's clock on DynamoDB Local, so a
// test can stop or advance time there. It starts at testenv.Now, not at t0
// (a year back), whose summaries' ttl Local would act on.
func localClock() *dynamotest.DB {
	start := testenv.Now()
	return dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
}

// TestIntegrationConcurrentFinishesLoseNothing is
// TestConcurrentFinishesLoseNothing against DynamoDB Local, whose
// transactions really conflict and are retried.
func TestIntegrationConcurrentFinishesLoseNothing(t *testing.T) {
	s := localStore(t, inAnyOrder)
	concurrentFinishes(t, s, "JRN-LOCAL")
}

// TestSeedLayoutOnDynamoDBLocal writes the seed's journey through the
// store and loads it back in one Query.
func TestIntegrationLoadJourney(t *testing.T) {
	s := localStore(t)
	ctx := context.Background()
	c, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-LOCAL", Name: "load"})
	require.NoError(t, err)
	for _, st := range c.Stages[:3] {
		j, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-LOCAL", StageID: st.StageID})
		require.NoError(t, err)
		_, err = s.Rules().Add(ctx, NewRule{JourneyID: "JRN-LOCAL", StageID: st.StageID, Title: "r", Type: RuleValidation})
		require.NoError(t, err)
		l, err := s.Logs().Logger(j.Ref(), "run")
		require.NoError(t, err)
		l.Info("hello", map[string]any{"n": 1})
		require.NoError(t, l.Close(ctx))
		_, err = s.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobCompleted})
		require.NoError(t, err)
	}
	got, err := s.Journeys().Load(ctx, "JRN-LOCAL", Consistent(), IncludeLogSummaries())
	require.NoError(t, err)
	require.Len(t, got.Stages, 6, "loaded stages")
	require.Len(t, got.Rules, 3, "loaded rules")
	require.Len(t, got.Jobs, 3, "loaded jobs")
	require.Len(t, got.Logs, 3, "loaded log summaries")
	require.Equal(t, 3, got.Journey.Aggregates.CompletedJobs, "completedJobs")
	require.Equal(t, 3, got.Journey.Aggregates.TotalLogs, "totalLogs")
	require.Equal(t, 1, got.Jobs[0].Metrics.InfoCount, "the first job's infoCount")
	logs, err := s.Logs().ListSummaries(ctx, got.Jobs[0].JobID, "", NewestFirst(), Limit(10))
	require.NoError(t, err, "log summaries")
	require.Len(t, logs.Items, 1, "log summaries")
}

// TestIntegrationFilesOnS3rverAndBackupRestore runs a step's log and report through
// s3rver (TABLEKIT_S3_ENDPOINT) and DynamoDB Local, reads them back, and
// restores an export into a second table.
func TestIntegrationFilesOnS3rverAndBackupRestore(t *testing.T) {
	client := testenv.S3(t)
	logs, err := s3blob.New(client, testenv.Bucket(t, "journey-logs"), func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	reports, err := s3blob.New(client, testenv.Bucket(t, "journey-reports"), func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	s := localStore(t, func(o *Options) { o.Reports = reports })
	backups, err := s3blob.New(client, testenv.Bucket(t, "journey-backups"), func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	s.logs, s.backups = logs, backups
	ctx := context.Background()
	_, err = s.Journeys().Create(ctx, NewJourney{ID: "JRN-S3", Name: "files"})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-S3", StageID: "raw_analysis"})
	require.NoError(t, err)
	l, err := s.Logs().Logger(job.Ref(), "schema_extraction")
	require.NoError(t, err)
	for i := range 300 {
		l.Info("entry", map[string]any{"i": i})
	}
	require.NoError(t, l.Close(ctx))
	_, err = s.Reports().Write(ctx, job.Ref(), "schema_extraction", Report{ReportType: ReportPerformance, Title: "perf"})
	require.NoError(t, err)
	entries, err := s.Logs().Read(ctx, job.Ref())
	require.NoError(t, err, "Logs.Read")
	require.Len(t, entries, 300, "Logs.Read")
	reps, err := s.Reports().Read(ctx, job.Ref())
	require.NoError(t, err, "Reports.Read")
	require.Len(t, reps, 1, "Reports.Read")
	require.Equal(t, "perf", reps[0].Title, "the report read back")
	_, err = s.Backups().Export(ctx, "JRN-S3")
	require.NoError(t, err)
	other := localStore(t)
	other.backups = backups
	c, err := other.Backups().Import(ctx, "JRN-S3")
	require.NoError(t, err)
	require.Len(t, c.Logs, 300, "restored log summaries")
	require.Len(t, c.Reports, 1, "restored report entries")
	require.Len(t, c.Jobs, 1, "restored jobs")
}
