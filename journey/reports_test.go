package journey

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestWriteReportFileThenCatalog: the report file lands at the seed's key
// in the reports store (not the logs store), then the catalog item, found
// by job through GSI1, points at it.
func TestWriteReportFileThenCatalog(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	for _, step := range []string{"schema_extraction", "metadata_analysis"} {
		e.db.Advance(1000)
		if _, err := e.store.Reports().Write(ctx, ref, step, Report{ReportType: ReportSummary, Title: step + " report",
			Summary: "ok", Recommendations: []string{"none"}}); err != nil {
			require.NoError(t, err)
		}
	}
	keys := objects(t, e.reports)
	want := "journeys/JRN-T/stages/raw_analysis/executions/" + ref.JobID + "/reports/"
	require.Len(t, keys, 2, "report objects")
	require.Equal(t, want+"metadata_analysis/RPT-2.json", keys[0], "the first report object")
	require.Empty(t, objects(t, e.logs), "report objects in the logs store")
	reports := must[[]Report](t)(e.store.Reports().Read(ctx, ref))
	if assert.Len(t, reports, 2, "reports read") {
		assert.Equal(t, ref.JobID+"_schema_extraction", reports[1].ReportID, "the file's reportId is {jobId}_{stepId}")
		assert.Equal(t, []string{"none"}, reports[1].Recommendations, "recommendations")
	}
	cat := must[table.Page[ReportEntry]](t)(e.store.Reports().ListCatalog(ctx, ref.JobID, ""))
	if assert.Len(t, cat.Items, 2, "catalog entries") {
		first := cat.Items[0]
		assert.Equal(t, "schema_extraction report", first.Title, "the first entry's title")
		assert.Equal(t, "generated", first.Status, "the first entry's status")
		assert.Equal(t, "s3://transformation-journey-reports/"+want+"schema_extraction/RPT-1.json", first.S3Location, "the first entry's s3Location")
		assert.Equal(t, 2, first.Metrics.ReportSections, "the first entry's reportSections")
		assert.NotZero(t, first.Metrics.ContentSize, "the first entry's contentSize")
	}
	page := must[table.Page[ReportEntry]](t)(e.store.Reports().ListCatalog(ctx, ref.JobID, "", Limit(1)))
	assert.Len(t, page.Items, 1, "first page")
	assert.NotEmpty(t, page.Next, "first page's cursor")
}

func TestWriteReportWithoutFileWritesNoCatalog(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	down := mustStore(t, e.db, e.logs, func(o *Options) { o.Reports = failingStore{e.reports} })
	e.db.ResetCalls()
	_, err := down.Reports().Write(ctx, ref, "s", Report{ReportType: ReportTimeline, Title: "t"})
	require.Error(t, err, "a report with S3 down")
	require.Contains(t, err.Error(), "S3 is down", "a report with S3 down")
	assert.Equal(t, 0, e.calls(), "%d DynamoDB requests after the file failed", e.calls())
	_, err = e.store.Reports().Write(ctx, ref, "s", Report{ReportType: "pdf", Title: "t"})
	assert.ErrorIs(t, err, table.ErrInvalidInput, "unknown report type: %v", err)
}

// TestTwoReportsOfOneStepAreBothReadable: a second report of the same step
// (another type) gets its own file; the first file and its catalog entry
// are untouched (issue 17: one file per step replaced the first report).
func TestTwoReportsOfOneStepAreBothReadable(t *testing.T) {
	e := newEnv(t)
	twoReportsOfOneStep(t, e.store, e.reports, startedJob(t, e))
}

// TestIntegrationTwoReportsOfOneStepAreBothReadable is
// TestTwoReportsOfOneStepAreBothReadable on DynamoDB Local and s3rver.
func TestIntegrationTwoReportsOfOneStepAreBothReadable(t *testing.T) {
	client := testenv.S3(t)
	reports, err := s3blob.New(client, testenv.Bucket(t, "journey-reports"), func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	s := localStore(t, func(o *Options) { o.Reports = reports })
	ctx := context.Background()
	_, err = s.Journeys().Create(ctx, NewJourney{ID: "JRN-REPORTS", Name: "reports"})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-REPORTS", StageID: "raw_analysis"})
	require.NoError(t, err)
	twoReportsOfOneStep(t, s, reports, job.Ref())
}

func twoReportsOfOneStep(t *testing.T, s *Store, reportStore blobstore.Store, ref JobRef) {
	ctx := context.Background()
	perf, err := s.Reports().Write(ctx, ref, "schema_extraction", Report{ReportType: ReportPerformance, Title: "perf", Summary: "fast"})
	require.NoError(t, err)
	errs, err := s.Reports().Write(ctx, ref, "schema_extraction", Report{ReportType: ReportErrorAnalysis, Title: "errors", Summary: "none"})
	require.NoError(t, err)
	assert.NotEqual(t, perf.S3Location, errs.S3Location)

	reports, err := s.Reports().Read(ctx, ref)
	require.NoError(t, err)
	require.Len(t, reports, 2)
	titles := []string{reports[0].Title, reports[1].Title}
	assert.ElementsMatch(t, []string{"perf", "errors"}, titles)

	cat, err := s.Reports().ListCatalog(ctx, ref.JobID, "")
	require.NoError(t, err)
	require.Len(t, cat.Items, 2)
	for _, entry := range cat.Items {
		// The pointer names the bucket that holds the file (on s3rver a
		// test bucket, in memory the default); the key follows it.
		_, key, found := strings.Cut(strings.TrimPrefix(entry.S3Location, "s3://"), "/")
		require.True(t, found, "catalog entry %s: location %q names no key", entry.ReportID, entry.S3Location)
		var r Report
		require.NoError(t, readJSON(ctx, reportStore, key, &r), "catalog entry %s points at a missing file", entry.ReportID)
		assert.Equal(t, entry.Title, r.Title, "catalog entry %s points at another report's file", entry.ReportID)
	}
}

// TestWriteReportWithoutCatalogWritesTheFileOnly: the seed saves a
// report's catalog entry "optionally": with SkipCatalog the file is
// written and read back by Reports.Read, and DynamoDB gets no request; a
// bad report is refused before the file too.
func TestWriteReportWithoutCatalogWritesTheFileOnly(t *testing.T) {
	e := newEnv(t)
	reportWithoutCatalog(t, e.store, e.reports, e.calls)
}

// TestIntegrationWriteReportWithoutCatalog is
// TestWriteReportWithoutCatalogWritesTheFileOnly on DynamoDB Local (and
// the memory reports store).
func TestIntegrationWriteReportWithoutCatalog(t *testing.T) {
	reports := blobstore.NewMemory()
	reportWithoutCatalog(t, localStore(t, WithReports(reports)), reports, nil)
}

func reportWithoutCatalog(t *testing.T, s *Store, reports *blobstore.Memory, calls func() int) {
	ctx := context.Background()
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "reports"})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	ref := job.Ref()
	before := tableItems(t, s)
	n := 0
	if calls != nil {
		n = calls()
	}

	e, err := s.Reports().Write(ctx, ref, "schema_extraction", Report{ReportType: ReportPerformance, Title: "file only"}, SkipCatalog())
	require.NoError(t, err)
	_, err = s.Reports().Write(ctx, ref, "schema_extraction", Report{ReportType: "bogus", Title: "bad"}, SkipCatalog())
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	if calls != nil {
		assert.Equal(t, n, calls(), "no request to DynamoDB")
	}
	assert.Equal(t, before, tableItems(t, s), "no catalog item")
	keys := objects(t, reports)
	require.Len(t, keys, 1, "the file, and only the good report's")
	assert.Equal(t, "s3://"+s.opts.ReportsBucket+"/"+keys[0], e.S3Location, "the entry names the file")
	read, err := s.Reports().Read(ctx, ref)
	require.NoError(t, err)
	require.Len(t, read, 1)
	assert.Equal(t, "file only", read[0].Title)
	cat, err := s.Reports().ListCatalog(ctx, ref.JobID, "")
	require.NoError(t, err)
	assert.Empty(t, cat.Items)

	_, err = s.Reports().Write(ctx, ref, "schema_extraction", Report{ReportType: ReportSummary, Title: "cataloged"})
	require.NoError(t, err)
	cat, err = s.Reports().ListCatalog(ctx, ref.JobID, "")
	require.NoError(t, err)
	assert.Len(t, cat.Items, 1, "without the option the entry is written")
}
