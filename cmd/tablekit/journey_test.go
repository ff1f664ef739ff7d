package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/journey"
)

// journeyCLI is a journey table on the fake's HTTP server and its three
// buckets on gofakes3, with a store whose clock is an hour behind (its
// jobs' timeouts are over when the operator looks), and the command line
// that reaches them.
type journeyCLI struct {
	store *journey.Store
	args  func(sub string, more ...string) []string
}

func newJourneyCLI(t *testing.T) *journeyCLI {
	t.Helper()
	srv := fakeServer(t)
	ctx := context.Background()
	client, s3URL := fakeS3(t)
	buckets := map[string]blobstore.Store{}
	for _, b := range []string{"logs", "reports", "backups"} {
		_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)})
		require.NoError(t, err)
		buckets[b], _ = s3blob.New(client, b)
	}
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	store, err := journey.NewStore(srv.DB, buckets["logs"], journey.WithReports(buckets["reports"]),
		journey.WithBackups(buckets["backups"]), journey.Clock(behind))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	return &journeyCLI{store: store, args: func(sub string, more ...string) []string {
		return append([]string{"journey", sub, "-endpoint", srv.URL, "-s3-endpoint", s3URL,
			"-logs-bucket", "logs", "-reports-bucket", "reports", "-backups-bucket", "backups"}, more...)
	}}
}

// deadJob creates a journey with a 60-second timeout and starts a job an
// hour ago whose worker never came back.
func (c *journeyCLI) deadJob(t *testing.T, id string) *journey.Job {
	t.Helper()
	ctx := context.Background()
	_, err := c.store.Journeys().Create(ctx, journey.NewJourney{ID: id, Name: id, Configuration: journey.Configuration{Timeout: 60, RetryAttempts: 2}})
	require.NoError(t, err)
	j, err := c.store.Jobs().Start(ctx, journey.NewJob{JourneyID: id, StageID: "raw_analysis"})
	require.NoError(t, err)
	return j
}

func TestJourneyRecoverFailsTimedOutJobs(t *testing.T) {
	c := newJourneyCLI(t)
	ctx := context.Background()
	dead := c.deadJob(t, "JRN-DEAD")
	other := c.deadJob(t, "JRN-OTHER")

	dry := runCLI(t, c.args("recover", "-dry-run", "-output", "json")...)
	require.Equal(t, exitOK, dry.code, dry.stderr)
	assertCamelCase(t, "journey recover -dry-run", dry.stdout)
	var planned dryRunOut[journey.Job]
	require.NoError(t, json.Unmarshal([]byte(dry.stdout), &planned))
	assert.True(t, planned.DryRun)
	assert.Equal(t, 2, planned.Count)
	j, err := c.store.Jobs().Get(ctx, dead.Ref(), journey.Consistent())
	require.NoError(t, err)
	assert.Equal(t, journey.JobRunning, j.Status, "a dry run changes nothing")

	assert.Equal(t, exitNotConfirmed, runCLI(t, c.args("recover")...).code)
	one := runCLI(t, c.args("recover", "-yes", "-journey", "JRN-DEAD", "-output", "json")...)
	require.Equal(t, exitOK, one.code, one.stderr)
	assertCamelCase(t, "journey recover", one.stdout)
	var res journey.RecoverResult
	require.NoError(t, json.Unmarshal([]byte(one.stdout), &res))
	assert.Equal(t, 1, res.Found)
	require.Len(t, res.Failed, 1)
	assert.Equal(t, dead.JobID, res.Failed[0].JobID)
	assert.True(t, res.Failed[0].TimedOut)
	j, err = c.store.Jobs().Get(ctx, other.Ref(), journey.Consistent())
	require.NoError(t, err)
	assert.Equal(t, journey.JobRunning, j.Status, "-journey limits the sweep")

	text := runCLI(t, c.args("recover", "-yes")...)
	require.Equal(t, exitOK, text.code, text.stderr)
	assert.Contains(t, text.stdout, "failed 1 timed-out jobs (1 found, 0 finished meanwhile)")
	assert.Contains(t, text.stdout, other.JobID)

	// The stage of a recovered job starts again.
	retry, err := c.store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-DEAD", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 2, retry.ExecutionNumber)

	assert.Equal(t, exitUsage, runCLI(t, c.args("recover", "-yes", "-journey", "bad id")...).code)
	assert.Equal(t, exitNotFound, runCLI(t, c.args("recover", "-yes", "-journey", "JRN-NONE")...).code)
	assert.Equal(t, exitUsage, runCLI(t, c.args("recover", "-yes", "JRN-DEAD")...).code, "takes no argument")
}

// TestJourneyDeleteRemovesTheJourney: journey delete removes the
// journey's items and keeps its files; with -purge-files it deletes them.
func TestJourneyDeleteRemovesTheJourney(t *testing.T) {
	c := newJourneyCLI(t)
	ctx := context.Background()
	withFiles := func(id string) *journey.Job {
		job := c.deadJob(t, id)
		l, err := c.store.Logs().Logger(job.Ref(), "schema_extraction")
		require.NoError(t, err)
		for range 30 {
			l.Info("entry", nil)
		}
		require.NoError(t, l.Close(ctx))
		_, err = c.store.Reports().Write(ctx, job.Ref(), "schema_extraction", journey.Report{ReportType: journey.ReportSummary, Title: "s"})
		require.NoError(t, err)
		return job
	}
	job := withFiles("JRN-DEL")

	running := runCLI(t, c.args("delete", "JRN-DEL", "-yes")...)
	assert.Equal(t, exitFailed, running.code, "refused while a job runs")
	assert.Contains(t, running.stderr, "a job is running")
	_, err := c.store.Jobs().Finish(ctx, job.Ref(), journey.Finish{Status: journey.JobCompleted})
	require.NoError(t, err)

	dry := runCLI(t, c.args("delete", "JRN-DEL", "-dry-run", "-output", "json")...)
	require.Equal(t, exitOK, dry.code, dry.stderr)
	assertCamelCase(t, "journey delete -dry-run", dry.stdout)
	var planned dryRunOut[journey.DeleteResult]
	require.NoError(t, json.Unmarshal([]byte(dry.stdout), &planned))
	assert.True(t, planned.DryRun)
	assert.Equal(t, "delete", planned.Action)
	// metadata, six stages, the job, 30 summaries, the catalog entry; the
	// log file and the report file stay.
	assert.Equal(t, 1, planned.Count)
	assert.Equal(t, []journey.DeleteResult{{JourneyID: "JRN-DEL", Items: 39, FilesKept: true, DryRun: true}}, planned.Items)
	_, err = c.store.Journeys().Get(ctx, "JRN-DEL")
	require.NoError(t, err, "a dry run deletes nothing")

	assert.Equal(t, exitNotConfirmed, runCLI(t, c.args("delete", "JRN-DEL")...).code)
	done := runCLI(t, c.args("delete", "JRN-DEL", "-yes")...)
	require.Equal(t, exitOK, done.code, done.stderr)
	assert.Contains(t, done.stdout, "deleted journey JRN-DEL: 39 items; its log and report files stay")
	_, err = c.store.Journeys().Get(ctx, "JRN-DEL")
	assert.ErrorIs(t, err, journey.ErrJourneyNotFound)
	entries, err := c.store.Logs().Read(ctx, job.Ref())
	require.NoError(t, err)
	assert.Len(t, entries, 30, "the log file stays (the audit trail)")

	purged := withFiles("JRN-PUR")
	_, err = c.store.Jobs().Finish(ctx, purged.Ref(), journey.Finish{Status: journey.JobCompleted})
	require.NoError(t, err)
	done = runCLI(t, c.args("delete", "JRN-PUR", "-yes", "-purge-files")...)
	require.Equal(t, exitOK, done.code, done.stderr)
	assert.Contains(t, done.stdout, "deleted journey JRN-PUR: 39 items, 2 files")
	entries, err = c.store.Logs().Read(ctx, purged.Ref())
	require.NoError(t, err)
	assert.Empty(t, entries, "-purge-files deleted the log file")

	assert.Equal(t, exitNotFound, runCLI(t, c.args("delete", "JRN-DEL", "-yes")...).code)
	assert.Equal(t, exitUsage, runCLI(t, c.args("delete", "-yes")...).code)
	assert.Equal(t, exitUsage, runCLI(t, c.args("delete", "bad id", "-yes")...).code)
}
