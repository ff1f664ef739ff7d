package journey

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/fakes3"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// pointersNameTheirObjects writes a step's log and a report through s and
// checks that every s3Location (log summaries, report catalog entries) and
// the job's s3Config name the bucket that holds the object, and that the
// object is there: buckets maps bucket names to their stores.
func pointersNameTheirObjects(t *testing.T, s *Store, buckets map[string]blobstore.Store, wantLogs, wantReports string) {
	t.Helper()
	ctx := context.Background()
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-P", Name: "pointers"})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-P", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, &S3Config{LogsBucket: wantLogs, ReportsBucket: wantReports}, job.S3Config)
	l, err := s.Logs().Logger(job.Ref(), "schema_extraction")
	require.NoError(t, err)
	l.Info("entry", nil)
	require.NoError(t, l.Close(ctx))
	_, err = s.Reports().Write(ctx, job.Ref(), "schema_extraction", Report{ReportType: ReportSummary, Title: "s"})
	require.NoError(t, err)

	exists := func(location, want string) {
		t.Helper()
		rest, ok := strings.CutPrefix(location, "s3://")
		require.True(t, ok, location)
		bucket, key, _ := strings.Cut(rest, "/")
		assert.Equal(t, want, bucket, "the pointer's bucket")
		store, ok := buckets[bucket]
		require.True(t, ok, "no store on bucket %s", bucket)
		_, err := store.Head(ctx, key)
		assert.NoError(t, err, "%s: no object there", location)
	}
	sums, err := collect(s.Logs().Summaries(ctx, job.JobID))
	require.NoError(t, err)
	require.Len(t, sums, 1)
	exists(sums[0].S3Location, wantLogs)
	entries, err := collect(s.Reports().Catalog(ctx, job.JobID))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	exists(entries[0].S3Location, wantReports)
}

// TestReportPointersNameTheLogsBucketWithoutWithReports: without
// WithReports the report files go to the logs store, so the catalog's
// s3Location and the job's s3Config.reportsBucket name the logs bucket
// (they named the reports bucket, which did not hold them).
func TestReportPointersNameTheLogsBucketWithoutWithReports(t *testing.T) {
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
	require.NoError(t, Schema("").Create(context.Background(), db))
	logs := blobstore.NewMemory()
	s := mustStore(t, db, logs, Clock(db.Now))
	pointersNameTheirObjects(t, s, map[string]blobstore.Store{DefaultLogsBucket: logs}, DefaultLogsBucket, DefaultLogsBucket)
}

// TestPointersNameTheBucketsTheS3StoresAreOn: the stores' own buckets,
// whatever their names, not the design's defaults.
func TestPointersNameTheBucketsTheS3StoresAreOn(t *testing.T) {
	f := fakes3.New(t)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
	require.NoError(t, Schema("").Create(context.Background(), db))
	stores := map[string]blobstore.Store{}
	open := func() (string, blobstore.Store) {
		name := f.Bucket(t)
		b, err := s3blob.New(f.Client, name, func(o *s3blob.Options) { o.PathStyle = true })
		require.NoError(t, err)
		stores[name] = b
		return name, b
	}
	logsName, logs := open()
	reportsName, reports := open()
	s := mustStore(t, db, logs, WithReports(reports), Clock(db.Now))
	pointersNameTheirObjects(t, s, stores, logsName, reportsName)
}

// TestIntegrationPointersNameTheBucketsTheS3StoresAreOn: on DynamoDB Local
// and s3rver, with and without WithReports.
func TestIntegrationPointersNameTheBucketsTheS3StoresAreOn(t *testing.T) {
	client := testenv.S3(t)
	clock := localClock()
	for _, separate := range []bool{true, false} {
		stores := map[string]blobstore.Store{}
		open := func(base string) (string, blobstore.Store) {
			name := testenv.Bucket(t, base)
			b, err := s3blob.New(client, name, func(o *s3blob.Options) { o.PathStyle = true })
			require.NoError(t, err)
			stores[name] = b
			return name, b
		}
		logsName, logs := open("journey-logs")
		opts := []func(*Options){Clock(clock.Now)}
		reportsName := logsName
		if separate {
			var reports blobstore.Store
			reportsName, reports = open("journey-reports")
			opts = append(opts, WithReports(reports))
		}
		db := compared.DynamoDB(t)
		name := testenv.TableName(t, DefaultTableName)
		require.NoError(t, Schema(name).EnsureTable(context.Background(), db))
		s := mustStore(t, db, logs, append(opts, TableName(name))...)
		pointersNameTheirObjects(t, s, stores, logsName, reportsName)
	}
}

// TestNewStoreRefusesBucketNamesThatAreNotWhereTheFilesGo: a LogsBucket or
// ReportsBucket other than its store's bucket, or a ReportsBucket other
// than the logs bucket when reports go to the logs store, is a
// *table.InputError from NewStore.
func TestNewStoreRefusesBucketNamesThatAreNotWhereTheFilesGo(t *testing.T) {
	f := fakes3.New(t)
	on := func() blobstore.Store {
		b, err := s3blob.New(f.Client, f.Bucket(t), func(o *s3blob.Options) { o.PathStyle = true })
		require.NoError(t, err)
		return b
	}
	db := dynamotest.New()
	for name, opts := range map[string][]func(*Options){
		"logs elsewhere":    {func(o *Options) { o.LogsBucket = "elsewhere" }},
		"reports elsewhere": {WithReports(on()), func(o *Options) { o.ReportsBucket = "elsewhere" }},
		"reports in logs":   {func(o *Options) { o.ReportsBucket = DefaultReportsBucket }},
	} {
		_, err := NewStore(db, on(), opts...)
		assert.ErrorIs(t, err, table.ErrInvalidInput, name)
	}
	// On stores that do not say their bucket (memory), the names are the
	// caller's word.
	s, err := NewStore(db, blobstore.NewMemory(), WithReports(blobstore.NewMemory()),
		func(o *Options) { o.LogsBucket, o.ReportsBucket = "acme-logs", "acme-reports" })
	require.NoError(t, err)
	assert.Equal(t, "acme-logs", s.opts.LogsBucket)
	assert.Equal(t, "acme-reports", s.opts.ReportsBucket)
}
