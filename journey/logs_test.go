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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
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
	e.clock.Advance(time.Millisecond)
	l.Info("Processing table: products", map[string]any{"rows": 120})
	e.clock.Advance(time.Millisecond)
	l.Warning("Missing index on product_id", nil)
	if e.calls() != 0 || len(objects(t, e.logs)) != 0 {
		t.Fatal("logging sent something before Flush")
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Millisecond)
	l.Error("Table orders unreadable", map[string]any{"code": "E42"})
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := l.Log(LevelInfo, "late", nil); !errors.Is(err, ErrLoggerClosed) {
		t.Errorf("Log after Close: %v", err)
	}
	l.Info("late too", nil) // nothing to return the error to but the next Close
	if err := l.Close(ctx); !errors.Is(err, ErrLoggerClosed) {
		t.Errorf("Close after a refused Info: %v", err)
	}

	entries := must[[]LogEntry](t)(e.store.Logs().ReadStep(ctx, ref, "schema_extraction"))
	var levels []string
	for _, en := range entries {
		levels = append(levels, string(en.Level))
		if en.JobID != ref.JobID || en.StepID != "schema_extraction" {
			t.Errorf("entry %+v", en)
		}
	}
	if fmt.Sprint(levels) != "[DEBUG INFO WARNING ERROR]" || fmt.Sprint(entries[1].Details["rows"]) != "120" {
		t.Errorf("file holds %v %v", levels, entries[1].Details)
	}
	if l.Len() != 4 {
		t.Errorf("Len %d", l.Len())
	}
	if l.Location() != "s3://transformation-journey-logs/journeys/JRN-T/stages/raw_analysis/executions/"+ref.JobID+"/logs/schema_extraction.json" {
		t.Errorf("location %s", l.Location())
	}

	j := must[*Job](t)(e.store.Jobs().Get(ctx, ref))
	if j.Metrics != (JobMetrics{TotalLogs: 4, ErrorCount: 1, WarningCount: 1, InfoCount: 1, DebugCount: 1}) {
		t.Errorf("metrics %+v", j.Metrics)
	}
	a := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T")).Aggregates
	if a.TotalLogs != 4 || a.TotalErrors != 1 || a.TotalWarnings != 1 {
		t.Errorf("aggregates %+v", a)
	}

	// Summaries in time order, newest first, a page at a time.
	all := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, ""))
	if len(all.Items) != 4 || all.Items[0].Level != "debug" || all.Items[3].Level != "error" || all.Items[1].Source != "schema_analyzer" {
		t.Fatalf("summaries %+v", all.Items)
	}
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
	if fmt.Sprint(newest) != "[error warning info debug]" {
		t.Errorf("newest first %v", newest)
	}
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
	down := mustStore(t, e.db, failingStore{e.logs}, func(o *Options) { o.Clock = e.clock.Now })
	l := must[*StepLogger](t)(down.Logs().Logger(ref, "s1"))
	l.Info("x", nil)
	e.db.ResetCalls()
	if err := l.Flush(ctx); err == nil || !strings.Contains(err.Error(), "S3 is down") {
		t.Fatalf("flush with S3 down: %v", err)
	}
	if e.calls() != 0 {
		t.Fatalf("%d DynamoDB requests after the file failed", e.calls())
	}

	l = must[*StepLogger](t)(e.store.Logs().Logger(ref, "s2"))
	for i := range 30 {
		l.Info(fmt.Sprint(i), nil)
	}
	e.db.Inject(dynamotest.FailNth("TransactWriteItems", 1, &types.InternalServerError{Message: aws.String("injected")}))
	if err := l.Flush(ctx); err == nil {
		t.Fatal("flush succeeded through an injected failure")
	}
	if len(objects(t, e.logs)) != 1 {
		t.Fatal("the log file was not written first")
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if m := must[*Job](t)(e.store.Jobs().Get(ctx, ref)).Metrics; m.TotalLogs != 30 || m.InfoCount != 30 {
		t.Errorf("metrics after the retried flush %+v", m)
	}
	if p := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")); len(p.Items) != 30 {
		t.Errorf("%d summaries", len(p.Items))
	}
}

func TestLogSummariesCanBeTurnedOff(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.DisableLogSummaries = true })
	ctx := context.Background()
	ref := startedJob(t, e)
	l := must[*StepLogger](t)(e.store.Logs().Logger(ref, "s1"))
	l.Warning("w", nil)
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if e.db.Calls("BatchWriteItem") != 0 || len(must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")).Items) != 0 {
		t.Error("summaries written although disabled")
	}
	if m := must[*Job](t)(e.store.Jobs().Get(ctx, ref)).Metrics; m.WarningCount != 1 {
		t.Errorf("metrics %+v", m)
	}
	// Turned on for one logger.
	l = must[*StepLogger](t)(e.store.Logs().Logger(ref, "s2", func(o *LoggerOptions) { o.Summaries = true }))
	l.Info("i", nil)
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")).Items); n != 1 {
		t.Errorf("%d summaries", n)
	}
}

// TestJobLogsMergesStepsInTimeOrder reads every step file back.
func TestJobLogsMergesStepsInTimeOrder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	a := must[*StepLogger](t)(e.store.Logs().Logger(ref, "schema_extraction"))
	b := must[*StepLogger](t)(e.store.Logs().Logger(ref, "metadata_analysis"))
	for i := range 6 {
		e.clock.Advance(time.Second)
		[]*StepLogger{a, b}[i%2].Info(fmt.Sprint(i), nil)
	}
	for _, l := range []*StepLogger{a, b} {
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	entries := must[[]LogEntry](t)(e.store.Logs().Read(ctx, ref))
	var msgs []string
	for _, en := range entries {
		msgs = append(msgs, en.Message)
	}
	if fmt.Sprint(msgs) != "[0 1 2 3 4 5]" {
		t.Errorf("merged %v", msgs)
	}
	if _, err := e.store.Logs().ReadStep(ctx, ref, "data_profiling"); !errors.Is(err, blobstore.ErrNotFound) {
		t.Errorf("a step that logged nothing: %v", err)
	}
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
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	sum := must[table.Page[LogSummary]](t)(e.store.Logs().ListSummaries(ctx, ref.JobID, "")).Items[0]
	if len(sum.Message) > maxSummaryMessage || !strings.HasPrefix(long, sum.Message) || sum.Details != nil {
		t.Errorf("summary message %d bytes, details %v", len(sum.Message), sum.Details != nil)
	}
	if full := must[[]LogEntry](t)(e.store.Logs().ReadStep(ctx, ref, "s")); full[0].Message != long {
		t.Error("the file lost the message")
	}
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
	at := time.Date(2025, 11, 1, 20, 0, 0, 0, time.UTC)
	s := localStore(t, func(o *Options) { o.Clock = func() time.Time { return at } })
	ctx := context.Background()
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-TIES", Name: "ties"})
	require.NoError(t, err)
	j, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-TIES", StageID: "raw_analysis"})
	require.NoError(t, err)
	tiedSummaries(t, s, j.Ref(), 200)
}
