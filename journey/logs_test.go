package journey

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

func startedJob(t *testing.T, e *env) JobRef {
	t.Helper()
	e.newJourney(t)
	return must[*Job](t)(e.store.Jobs().Start(context.Background(), NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})).Ref()
}

// TestStepLoggerWritesFileSummariesAndCounts: entries buffered in memory
// land in the step's S3 file (the seed's JSON array), as LOG# items, and
// as per-level counts in the job's metrics and the journey's totals; a
// second Flush adds only what is new.
func TestStepLoggerWritesFileSummariesAndCounts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	l := must[*StepLogger](t)(e.store.Logs().Logger(ref, "schema_extraction", func(o *LoggerOptions) { o.Source = "schema_analyzer" }))
	e.db.ResetCalls()
	l.Debug("connecting", nil)
	e.db.Advance(time.Millisecond)
	l.Info("Processing table: products", map[string]any{"rows": 120})
	e.db.Advance(time.Millisecond)
	l.Warning("Missing index on product_id", nil)
	require.Zero(t, e.calls(), "DynamoDB requests before Flush")
	require.Empty(t, objects(t, e.logs), "objects written before Flush")
	require.NoError(t, l.Flush(ctx))
	e.db.Advance(time.Millisecond)
	l.Error("Table orders unreadable", map[string]any{"code": "E42"})
	require.NoError(t, l.Close(ctx))
	err := l.Close(ctx)
	require.NoError(t, err, "second Close: %v", err)
	err = l.Log(LevelInfo, "late", nil)
	assert.ErrorIs(t, err, ErrLoggerClosed, "Log after Close: %v", err)
	l.Info("late too", nil) // nothing to return the error to but the next Close
	err = l.Close(ctx)
	assert.ErrorIs(t, err, ErrLoggerClosed, "Close after a refused Info: %v", err)

	entries := must[[]LogEntry](t)(e.store.Logs().ReadStep(ctx, ref, "schema_extraction"))
	var levels []string
	for _, en := range entries {
		levels = append(levels, string(en.Level))
		assert.Equal(t, ref.JobID, en.JobID, "entry %+v: job", en)
		assert.Equal(t, "schema_extraction", en.StepID, "entry %+v: step", en)
	}
	assert.Equal(t, []string{"DEBUG", "INFO", "WARNING", "ERROR"}, levels, "the file's levels, upper case")
	if assert.Len(t, entries, 4, "entries in the file") {
		assert.Equal(t, "120", fmt.Sprint(entries[1].Details["rows"]), "the details of the second entry")
	}
	assert.Equal(t, 4, l.Len(), "Len %d", l.Len())
	assert.Equal(t, "s3://transformation-journey-logs/journeys/JRN-T/stages/raw_analysis/executions/"+ref.JobID+"/logs/schema_extraction.json", l.Location(), "location %s", l.Location())

	j := must[*Job](t)(e.store.Jobs().Get(ctx, ref))
	assert.Equal(t, (JobMetrics{TotalLogs: 4, ErrorCount: 1, WarningCount: 1, InfoCount: 1, DebugCount: 1}), j.Metrics, "metrics %+v", j.Metrics)
	a := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T")).Aggregates
	assert.Equal(t, 4, a.TotalLogs, "the journey's totalLogs")
	assert.Equal(t, 1, a.TotalErrors, "the journey's totalErrors")
	assert.Equal(t, 1, a.TotalWarnings, "the journey's totalWarnings")

	// Summaries in time order, newest first, a page at a time.
	all := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, ""))
	require.Len(t, all.Items, 4, "summaries")
	require.Equal(t, "debug", all.Items[0].Level, "the first summary's level, lower case")
	require.Equal(t, "error", all.Items[3].Level, "the last summary's level")
	require.Equal(t, "schema_analyzer", all.Items[1].Source, "the second summary's source")
	var newest []string
	cursor := ""
	for {
		p := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, cursor, NewestFirst(), Limit(3)))
		for _, s := range p.Items {
			newest = append(newest, s.Level)
		}
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, "[error warning info debug]", fmt.Sprint(newest), "newest first %v", newest)
}

// failingStore refuses every Put.
type failingStore struct{ blobstore.Store }

func (failingStore) Put(context.Context, string, io.Reader, ...func(*blobstore.PutOptions)) error {
	return errors.New("S3 is down")
}

// TestStepLoggerWritesS3BeforeDynamoDB: when the log file cannot be
// written, no summary or count reaches DynamoDB; when DynamoDB fails after
// the file is written, a second Flush completes the rest exactly once.
func TestStepLoggerWritesS3BeforeDynamoDB(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	down := mustStore(t, e.db, failingStore{e.logs}, func(o *Options) { o.Clock = e.db.Now })
	l := must[*StepLogger](t)(down.Logs().Logger(ref, "s1"))
	l.Info("x", nil)
	e.db.ResetCalls()
	err := l.Flush(ctx)
	require.Error(t, err, "flush with S3 down")
	require.Contains(t, err.Error(), "S3 is down", "flush with S3 down")
	require.Equal(t, 0, e.calls(), "%d DynamoDB requests after the file failed", e.calls())

	l = must[*StepLogger](t)(e.store.Logs().Logger(ref, "s2"))
	for i := range 30 {
		l.Info(fmt.Sprint(i), nil)
	}
	e.db.Inject(dynamotest.FailNth("TransactWriteItems", 1, &types.InternalServerError{Message: aws.String("injected")}))
	err = l.Flush(ctx)
	require.Error(t, err, "flush succeeded through an injected failure")
	require.Equal(t, 1, len(objects(t, e.logs)), "the log file was not written first")
	require.NoError(t, l.Flush(ctx))
	m := must[*Job](t)(e.store.Jobs().Get(ctx, ref)).Metrics
	assert.Equal(t, 30, m.TotalLogs, "totalLogs after the retried flush")
	assert.Equal(t, 30, m.InfoCount, "infoCount after the retried flush")
	p := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, ""))
	assert.Equal(t, 30, len(p.Items), "%d summaries", len(p.Items))
}

func TestLogSummariesCanBeTurnedOff(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.DisableLogSummaries = true })
	ctx := context.Background()
	ref := startedJob(t, e)
	l := must[*StepLogger](t)(e.store.Logs().Logger(ref, "s1"))
	l.Warning("w", nil)
	require.NoError(t, l.Close(ctx))
	assert.Zero(t, e.db.Calls("BatchWriteItem"), "summary writes although disabled")
	assert.Empty(t, must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")).Items, "summaries although disabled")
	m := must[*Job](t)(e.store.Jobs().Get(ctx, ref)).Metrics
	assert.Equal(t, 1, m.WarningCount, "metrics %+v", m)
	// Turned on for one logger.
	l = must[*StepLogger](t)(e.store.Logs().Logger(ref, "s2", func(o *LoggerOptions) { o.Summaries = true }))
	l.Info("i", nil)
	require.NoError(t, l.Close(ctx))
	n := len(must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")).Items)
	assert.Equal(t, 1, n, "%d summaries", n)
}

// TestJobLogsMergesStepsInTimeOrder reads every step file back.
func TestJobLogsMergesStepsInTimeOrder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	a := must[*StepLogger](t)(e.store.Logs().Logger(ref, "schema_extraction"))
	b := must[*StepLogger](t)(e.store.Logs().Logger(ref, "metadata_analysis"))
	for i := range 6 {
		e.db.Advance(time.Second)
		[]*StepLogger{a, b}[i%2].Info(fmt.Sprint(i), nil)
	}
	for _, l := range []*StepLogger{a, b} {
		require.NoError(t, l.Close(ctx))
	}
	entries := must[[]LogEntry](t)(e.store.Logs().Read(ctx, ref))
	var msgs []string
	for _, en := range entries {
		msgs = append(msgs, en.Message)
	}
	assert.Equal(t, "[0 1 2 3 4 5]", fmt.Sprint(msgs), "merged %v", msgs)
	_, err := e.store.Logs().ReadStep(ctx, ref, "data_profiling")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "a step that logged nothing: %v", err)
}

// TestSummariesStayConcise: a long message is cut in the summary and kept
// whole in the file.
func TestSummariesStayConcise(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	l := must[*StepLogger](t)(e.store.Logs().Logger(ref, "s"))
	long := strings.Repeat("é", 2000)
	l.Error(long, map[string]any{"blob": strings.Repeat("x", 5000)})
	require.NoError(t, l.Close(ctx))
	sum := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")).Items[0]
	assert.LessOrEqual(t, len(sum.Message), maxSummaryMessage, "the summary's message, bytes")
	assert.True(t, strings.HasPrefix(long, sum.Message), "the summary's message is the start of the entry's")
	assert.Nil(t, sum.Details, "the summary's details")
	full := must[[]LogEntry](t)(e.store.Logs().ReadStep(ctx, ref, "s"))
	assert.Equal(t, long, full[0].Message, "the file lost the message")
}

// tiedSummaries logs n entries in one microsecond (the clock stands
// still) and pages through the job's summaries 7 at a time, oldest first
// and newest first: each exactly once, by SK, and newest first the exact
// reverse.
func tiedSummaries(t *testing.T, s *Store, ref JobRef, n int) {
	ctx := context.Background()
	l, err := s.Logs().Logger(ref, "tied")
	require.NoError(t, err)
	for i := range n {
		l.Info("tied", map[string]any{"i": i})
	}
	require.NoError(t, l.Close(ctx))
	read := func(newest bool) []string {
		var sks []string
		for cursor := ""; ; {
			page, err := s.Logs().ListSummaries(ctx, ref.JobID, cursor, func(o *ListOptions) { o.NewestFirst = newest }, Limit(7))
			require.NoError(t, err)
			for _, sum := range page.Items {
				sks = append(sks, sum.LogID)
			}
			if cursor = page.Next; cursor == "" {
				return sks
			}
		}
	}
	oldest, newest := read(false), read(true)
	require.Len(t, oldest, n)
	assert.True(t, slices.IsSorted(oldest), "ties not by log id (the SK's last part) ascending")
	slices.Reverse(newest)
	assert.Equal(t, oldest, newest, "newest first is not the reverse of oldest first")
}

// TestLogSummariesOfOneInstantHaveATotalOrder: 200 entries of one
// microsecond, paged 7 at a time both ways, on the fake.
func TestLogSummariesOfOneInstantHaveATotalOrder(t *testing.T) {
	e := newEnv(t)
	tiedSummaries(t, e.store, startedJob(t, e), 200)
}

// TestIntegrationLogSummariesOfOneInstantHaveATotalOrder is the same on
// DynamoDB Local, with a clock that stands still.
func TestIntegrationLogSummariesOfOneInstantHaveATotalOrder(t *testing.T) {
	// DynamoDB Local's clock cannot be stopped; a fake's, used as a clock
	// only, can.
	clock := localClock()
	s := localStore(t, func(o *Options) { o.Clock = clock.Now })
	ctx := context.Background()
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-TIES", Name: "ties"})
	require.NoError(t, err)
	j, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-TIES", StageID: "raw_analysis"})
	require.NoError(t, err)
	tiedSummaries(t, s, j.Ref(), 200)
}

// TestLogSummariesExpireAfterTheirRetention: a summary carries a ttl a
// week (DefaultLogSummaryRetention) after its entry, or the store's
// retention, or none with KeepLogSummaries; DynamoDB (here the fake, when
// its clock passes the ttl) deletes it, while the S3 file keeps the entry.
func TestLogSummariesExpireAfterTheirRetention(t *testing.T) {
	for _, tc := range []struct {
		name      string
		retention time.Duration
		kept      time.Duration // how long the summary lives (0: for ever)
	}{
		{"Default", 0, DefaultLogSummaryRetention},
		{"OneDay", 24 * time.Hour, 24 * time.Hour},
		{"Kept", KeepLogSummaries, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(o *Options) { o.LogSummaryRetention = tc.retention })
			ctx := context.Background()
			e.newJourney(t)
			job := must[*Job](t)(e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}))
			l := must[*StepLogger](t)(e.store.Logs().Logger(job.Ref(), "schema_extraction"))
			l.Info("one", nil)
			require.NoError(t, l.Close(ctx))
			sums := must[[]LogSummary](t)(collect(e.store.Logs().Summaries(ctx, job.JobID)))
			require.Len(t, sums, 1)
			if tc.kept == 0 {
				assert.True(t, sums[0].ExpiresAt.IsZero())
				e.db.Advance(10 * 365 * 24 * time.Hour)
				assert.Len(t, must[[]LogSummary](t)(collect(e.store.Logs().Summaries(ctx, job.JobID))), 1, "kept")
				return
			}
			assert.Equal(t, t0.Add(tc.kept), sums[0].ExpiresAt.Time)
			e.db.Advance(tc.kept)
			assert.Len(t, must[[]LogSummary](t)(collect(e.store.Logs().Summaries(ctx, job.JobID))), 1, "at its ttl")
			e.db.Advance(time.Second) // DynamoDB expires an item once its ttl is past
			assert.Empty(t, must[[]LogSummary](t)(collect(e.store.Logs().Summaries(ctx, job.JobID))), "after its ttl")
			entries := must[[]LogEntry](t)(e.store.Logs().Read(ctx, job.Ref()))
			assert.Len(t, entries, 1, "the log file keeps the entry")
		})
	}
}

// TestIntegrationLogSummariesCarryATTL: on DynamoDB Local the table's TTL
// is on, on ttl, and a summary carries its entry's time plus the
// retention. (Local deletes expired items on its own clock, when its TTL
// job gets a thread: the expiry itself is
// TestLogSummariesExpireAfterTheirRetention's, on the fake.)
func TestIntegrationLogSummariesCarryATTL(t *testing.T) {
	clock := localClock()
	s := localStore(t, Clock(clock.Now))
	ctx := context.Background()
	ttl, err := testenv.DynamoDB(t).DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(s.Schema().Name)})
	require.NoError(t, err)
	require.NotNil(t, ttl.TimeToLiveDescription)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, "ttl", aws.ToString(ttl.TimeToLiveDescription.AttributeName))

	_, err = s.Journeys().Create(ctx, NewJourney{ID: "JRN-TTL", Name: "ttl"})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-TTL", StageID: "raw_analysis"})
	require.NoError(t, err)
	l, err := s.Logs().Logger(job.Ref(), "schema_extraction")
	require.NoError(t, err)
	l.Info("one", nil)
	require.NoError(t, l.Close(ctx))
	sums, err := collect(s.Logs().Summaries(ctx, job.JobID))
	require.NoError(t, err)
	require.Len(t, sums, 1)
	assert.Equal(t, clock.Now().Add(DefaultLogSummaryRetention), sums[0].ExpiresAt.Time)
}

// TestListingSummariesCostsNoMoreRequestsThanItsPages: the job's own item
// shares the summaries' GSI1 partition; listing them (a page at a time,
// both orders, and the whole walk) sends as many Query requests as the
// seed's server-side EntityType filter did: DynamoDB's Limit and 1 MB
// count the items read, before any filter, so dropping the job item by
// its type costs no request, wherever it is dropped.
func TestListingSummariesCostsNoMoreRequestsThanItsPages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	l := must[*StepLogger](t)(e.store.Logs().Logger(ref, "s1"))
	for i := range 10 {
		l.Info(fmt.Sprint(i), nil)
	}
	require.NoError(t, l.Close(ctx))
	for _, tc := range []struct {
		name    string
		opts    []func(*ListOptions)
		queries int
	}{
		{"OnePage", nil, 1},
		{"ByFour", []func(*ListOptions){Limit(4)}, 6},
		{"ByFourNewestFirst", []func(*ListOptions){Limit(4), NewestFirst()}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.db.ResetCalls()
			sums := must[[]LogSummary](t)(collect(e.store.Logs().Summaries(ctx, ref.JobID, tc.opts...)))
			assert.Len(t, sums, 10)
			assert.Equal(t, tc.queries, e.db.Calls("Query"), "Query requests")
		})
	}
}
