package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/table"
)

// seedItem reads one of the seed's item examples from testdata.
func seedItem(t *testing.T, name string) map[string]any {
	t.Helper()
	var m map[string]any
	readTestJSON(t, name, &m)
	return m
}

func readTestJSON(t *testing.T, name string, out any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	err = decodeJSON(b, out)
	require.NoError(t, err, "%s: %v", name, err)
}

// storedItem reads the raw item with key pk, sk from the table, as the
// seed's plain JSON.
func storedItem(t *testing.T, s *Store, pk, sk string) map[string]any {
	t.Helper()
	var item table.Item
	err := s.t.Get(context.Background(), s.t.Key(pk, sk), &item, table.Consistent())
	require.NoError(t, err, "get %s %s: %v", pk, sk, err)
	m, err := itemToJSON(item)
	require.NoError(t, err)
	return m
}

// normalize makes JSON values comparable: numbers by value.
func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(v.String(), 64)
		return f
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// diffJSON lists the paths where got and want differ, skipping the paths
// in ignore ("Data.metrics.contentSize").
func diffJSON(path string, got, want any, ignore map[string]bool) []string {
	if ignore[path] {
		return nil
	}
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		var out []string
		names := map[string]bool{}
		for k := range gm {
			names[k] = true
		}
		for k := range wm {
			names[k] = true
		}
		for _, k := range sortedKeys(names) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			g, inG := gm[k]
			w, inW := wm[k]
			switch {
			case ignore[p]:
			case !inG:
				out = append(out, fmt.Sprintf("%s: missing, seed has %v", p, w))
			case !inW:
				out = append(out, fmt.Sprintf("%s: stored %v, not in the seed", p, g))
			default:
				out = append(out, diffJSON(p, g, w, ignore)...)
			}
		}
		return out
	}
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if gok && wok && len(gl) == len(wl) {
		var out []string
		for i := range gl {
			out = append(out, diffJSON(fmt.Sprintf("%s[%d]", path, i), gl[i], wl[i], ignore)...)
		}
		return out
	}
	if !reflect.DeepEqual(normalize(got), normalize(want)) {
		return []string{fmt.Sprintf("%s: stored %v, seed has %v", path, got, want)}
	}
	return nil
}

func assertSeedItem(t *testing.T, name string, got, want map[string]any, ignore ...string) {
	t.Helper()
	ig := map[string]bool{}
	for _, p := range ignore {
		ig[p] = true
	}
	d := diffJSON("", got, want, ig)
	assert.False(t, len(d) > 0, "%s differs from the seed:\n  %s", name, strings.Join(d, "\n  "))
}

// assertUnindexedSeedItem is assertSeedItem for a stage or a rule, which
// the store writes without the seed's GSI1 keys (JOURNEY#{id}#STAGES,
// JOURNEY#{id}#RULES: no call reads them; see the package doc): got has
// neither, and every other attribute is the seed's.
func assertUnindexedSeedItem(t *testing.T, name string, got, want map[string]any, ignore ...string) {
	t.Helper()
	assert.NotContains(t, got, attrGSI1PK, "%s: no GSI1 entry", name)
	assert.NotContains(t, got, attrGSI1SK, "%s: no GSI1 entry", name)
	assertSeedItem(t, name, got, want, append(ignore, attrGSI1PK, attrGSI1SK)...)
}

// TestSeedExamplesRoundTripExactly restores the seed's six example items
// through the store (ImportBackup) and finds every attribute stored as the
// seed shows it: PK, SK, GSI1PK, GSI1SK, EntityType, CreatedAt, UpdatedAt
// and every field of Data. Then the typed reads see the seed's values and
// Export writes them back unchanged.
func TestSeedExamplesRoundTripExactly(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	names := []string{"journey.json", "stage.json", "rule.json", "job.json", "log.json", "report.json"}
	b := Backup{Format: BackupFormat, JourneyID: "JRN-ABC123456789"}
	for _, n := range names {
		b.Items = append(b.Items, seedItem(t, n))
	}
	doc, err := json.Marshal(b)
	require.NoError(t, err)
	_, err = e.store.Backups().ImportFrom(ctx, "JRN-ABC123456789", bytes.NewReader(doc))
	require.NoError(t, err)
	for _, n := range names {
		want := seedItem(t, n)
		got := storedItem(t, e.store, want["PK"].(string), want["SK"].(string))
		if n != "journey.json" {
			// Every restored item but the metadata carries the import's id
			// for the change feed (ProgressEvents); Export leaves it out.
			assert.NotEmpty(t, got[attrRestoredBy], "%s: the import's mark", n)
		}
		assertSeedItem(t, n, got, want, attrRestoredBy)
	}

	c, err := e.store.Journeys().Load(ctx, "JRN-ABC123456789", IncludeLogSummaries())
	require.NoError(t, err)
	j := c.Journey
	assert.Equal(t, StatusRunning, j.Status, "the seed journey's status")
	assert.Equal(t, PriorityHigh, j.Priority, "the seed journey's priority")
	assert.Equal(t, 2, j.CurrentStageIndex, "the seed journey's currentStageIndex")
	assert.Equal(t, "tmf_mapping", j.CurrentStageID, "the seed journey's currentStageId")
	assert.Equal(t, 45, j.OverallProgress, "the seed journey's overallProgress")
	assert.Equal(t, "JOB-457", j.CurrentJobs["stripped_schema"], "the seed journey's currentJobs")
	assert.Equal(t, 12, j.Aggregates.TotalJobs, "the seed journey's totalJobs")
	assert.Equal(t, "125m", j.Aggregates.TotalExecutionTime, "the seed journey's totalExecutionTime")
	assert.Equal(t, 1800, j.Configuration.Timeout, "the seed journey's timeout")
	assert.True(t, j.CreatedAt.Equal(t0), "the seed journey's createdAt %v, want %v", j.CreatedAt, t0)
	if assert.Len(t, c.Stages, 1, "stages") && assert.Len(t, c.Stages[0].Steps, 3, "the stage's steps") {
		assert.Equal(t, "15m", c.Stages[0].Steps[1].EstimatedDuration, "the second step's estimatedDuration")
	}
	if assert.Len(t, c.Rules, 1, "rules") {
		assert.Equal(t, 1, c.Rules[0].Index, "the rule's index")
		assert.Equal(t, PriorityHigh, c.Rules[0].Priority, "the rule's priority")
		assert.Equal(t, []string{"raw_analysis", "tmf_mapping"}, c.Rules[0].Metadata.ApplicableStages, "the rule's applicableStages")
	}
	if assert.Len(t, c.Jobs, 1, "jobs") {
		job := c.Jobs[0]
		assert.Equal(t, 125.5, job.Duration, "the job's duration")
		assert.EqualValues(t, 9998, job.Results["recordsSucceeded"], "the job's recordsSucceeded")
		assert.Nil(t, job.ErrorMessage, "the job's errorMessage")
		if assert.Greater(t, len(job.Steps), 1, "the job's steps") {
			assert.Equal(t, 65.5, job.Steps[1].Duration, "the second step's duration")
		}
		assert.Equal(t, 1, job.Order, "the job's stage order")
	}
	if assert.Len(t, c.Logs, 1, "log summaries") {
		assert.Equal(t, "LOG-789", c.Logs[0].LogID, "the summary's logId")
		assert.Equal(t, "info", c.Logs[0].Level, "the summary's level")
	}
	if assert.Len(t, c.Reports, 1, "report entries") {
		assert.Equal(t, 2048, c.Reports[0].Metrics.ContentSize, "the entry's contentSize")
		assert.Equal(t, ReportPerformance, c.Reports[0].ReportType, "the entry's reportType")
	}

	info, err := e.store.Backups().Export(ctx, "JRN-ABC123456789")
	require.NoError(t, err)
	var back Backup
	rc, _, err := e.backups.Get(ctx, info.Key)
	require.NoError(t, err)
	body, _ := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, decodeJSON(body, &back))
	require.Equal(t, len(names), len(back.Items), "export holds %d items, want %d", len(back.Items), len(names))
	for _, got := range back.Items {
		for _, n := range names {
			if want := seedItem(t, n); want["SK"] == got["SK"] {
				assertSeedItem(t, "exported "+n, got, want)
			}
		}
	}
}

// TestStoreWritesTheSeedsLayout builds the seed's example through the
// store's own calls, with the seed's ids and times, and compares each
// stored item with the seed's JSON. The only differences allowed are the
// ones the package documents: runtime values the seed shows mid-journey,
// the stage's lastExecution/lastRuleIndex counters and lastJob, the job's s3Config and
// log counts, and report figures that depend on the file written.
func TestStoreWritesTheSeedsLayout(t *testing.T) {
	e := newEnv(t)
	require.Equal(t, DefaultLogSummaryRetention, e.store.opts.LogSummaryRetention, "the default's ttl is the one checked")
	storeWritesTheSeedsLayout(t, e)
}

// TestIntegrationStoreWritesTheSeedsLayout is TestStoreWritesTheSeedsLayout
// on DynamoDB Local: the items DynamoDB stores are the seed's, byte for
// byte but for the documented differences. A fake stands still as the
// store's clock, so the seed's times can be set. Log summaries are kept
// for decades here: with the default week, the seed's 2025 entry has a
// ttl the real clock has passed, and DynamoDB Local's TTL sweeper,
// which runs on the real clock, deleted it at a random moment of the
// test (one run in five failed).
func TestIntegrationStoreWritesTheSeedsLayout(t *testing.T) {
	e := &env{db: localClock(), logs: blobstore.NewMemory(), reports: blobstore.NewMemory(), backups: blobstore.NewMemory(), ids: newIDs()}
	e.store = localStore(t, func(o *Options) {
		o.Clock, o.NewID, o.Reports, o.Backups = e.db.Now, e.ids.NewID, e.reports, e.backups
		o.LogSummaryRetention = 50 * 365 * 24 * time.Hour
	})
	e.store.logs = e.logs
	storeWritesTheSeedsLayout(t, e)
}

func storeWritesTheSeedsLayout(t *testing.T, e *env) {
	ctx := context.Background()
	s := e.store
	at := func(ts string) {
		v, err := time.Parse(time.RFC3339Nano, ts)
		require.NoError(t, err)
		e.db.SetTime(v)
	}
	seedJourney := seedItem(t, "journey.json")
	var jd Journey
	require.NoError(t, table.Unmarshal(must[table.Item](t)(jsonToItem(seedJourney["Data"].(map[string]any))), &jd))
	at("2025-11-01T20:00:00Z")
	if _, err := s.Journeys().Create(ctx, NewJourney{ID: jd.ID, Name: jd.Name, Description: jd.Description, Priority: jd.Priority,
		CreatedBy: jd.CreatedBy, ODAComponentType: jd.ODAComponentType, Source: jd.Source, Configuration: jd.Configuration}); err != nil {
		require.NoError(t, err)
	}
	pk := "JOURNEY#JRN-ABC123456789"
	got := storedItem(t, s, pk, "METADATA")
	// Status, progress, current stage and jobs, aggregates and UpdatedAt
	// are runtime values; the seed shows them mid-run. Their names must match.
	assertSeedItem(t, "journey", got, seedJourney, "UpdatedAt", "Data.status", "Data.currentStageIndex",
		"Data.currentStageId", "Data.overallProgress", "Data.currentJobs", "Data.aggregates")
	if g, w := sortedKeys(got["Data"].(map[string]any)["aggregates"].(map[string]any)),
		sortedKeys(seedJourney["Data"].(map[string]any)["aggregates"].(map[string]any)); !slices.Equal(g, w) {
		assert.Fail(t, fmt.Sprintf("aggregates hold %v, the seed %v", g, w))
	}

	seedRule := seedItem(t, "rule.json")
	var rd Rule
	require.NoError(t, table.Unmarshal(must[table.Item](t)(jsonToItem(seedRule["Data"].(map[string]any))), &rd))
	if _, err := s.Rules().Add(ctx, NewRule{JourneyID: rd.JourneyID, StageID: rd.StageID, RuleID: rd.RuleID, Title: rd.Title,
		Description: rd.Description, Type: rd.Type, Priority: rd.Priority, Scope: rd.Scope, Status: rd.Status,
		Context: rd.Context, Content: rd.Content, Metadata: rd.Metadata}); err != nil {
		require.NoError(t, err)
	}
	assertUnindexedSeedItem(t, "rule", storedItem(t, s, pk, seedRule["SK"].(string)), seedRule)

	at("2025-11-01T20:30:00Z")
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: jd.ID, StageID: "raw_analysis", JobID: "JOB-456",
		Configuration: JobConfiguration{Timeout: 1800, RetryAttempts: 3, EnableDetailedLogging: true}})
	require.NoError(t, err)
	ref := job.Ref()
	step := func(ts, id string, st StepStatus) {
		t.Helper()
		at(ts)
		_, err := s.Jobs().SetStepStatus(ctx, ref, id, st)
		require.NoError(t, err)
	}
	step("2025-11-01T20:30:00Z", "schema_extraction", StepRunning)

	// The seed's log file: two entries of schema_extraction; the first is
	// also the seed's LOG# item.
	var seedFile []map[string]any
	readTestJSON(t, "log_file.json", &seedFile)
	e.ids.Queue("LOG", "LOG-789", "LOG-790")
	logger := must[*StepLogger](t)(s.Logs().Logger(ref, "schema_extraction", func(o *LoggerOptions) { o.Source = "schema_analyzer" }))
	for _, entry := range seedFile {
		at(entry["timestamp"].(string))
		logger.Info(entry["message"].(string), entry["details"].(map[string]any))
	}
	require.NoError(t, logger.Close(ctx))
	var file []map[string]any
	readLogFile := func() {
		rc, _, err := e.logs.Get(ctx, "journeys/JRN-ABC123456789/stages/raw_analysis/executions/JOB-456/logs/schema_extraction.json")
		require.NoError(t, err)
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		require.NoError(t, decodeJSON(b, &file))
	}
	readLogFile()
	require.Equal(t, len(seedFile), len(file), "log file has %d entries, the seed %d", len(file), len(seedFile))
	for i := range file {
		assertSeedItem(t, fmt.Sprintf("log file entry %d", i), file[i], seedFile[i])
	}
	// The LOG# item's details are the whole entry's; the seed's summary
	// shows a subset of the file's details, which must be among them.
	seedLog := seedItem(t, "log.json")
	gotLog := storedItem(t, s, pk, seedLog["SK"].(string))
	assertSeedItem(t, "log entry", gotLog, seedLog, "Data.details", "ttl")
	// The summary expires its retention (a week by default) after the
	// entry (not in the seed: the S3 file keeps the entry).
	entryAt, err := time.Parse(time.RFC3339Nano, seedLog["Data"].(map[string]any)["timestamp"].(string))
	require.NoError(t, err)
	assert.Equal(t, json.Number(fmt.Sprint(entryAt.Add(s.opts.LogSummaryRetention+time.Second-1).Unix())), gotLog["ttl"])
	for k, v := range seedLog["Data"].(map[string]any)["details"].(map[string]any) {
		d := diffJSON(k, gotLog["Data"].(map[string]any)["details"].(map[string]any)[k], v, nil)
		assert.False(t, len(d) > 0, "log entry details: %v", d)
	}

	step("2025-11-01T20:30:45Z", "schema_extraction", StepCompleted)
	step("2025-11-01T20:30:45Z", "metadata_analysis", StepRunning)
	step("2025-11-01T20:31:50.5Z", "metadata_analysis", StepCompleted)
	step("2025-11-01T20:31:50.5Z", "data_profiling", StepRunning)
	step("2025-11-01T20:32:05.5Z", "data_profiling", StepCompleted)
	if _, err := s.Jobs().Finish(ctx, ref, Finish{Status: JobCompleted, Results: map[string]float64{
		"recordsProcessed": 10000, "recordsSucceeded": 9998, "recordsFailed": 2, "tablesAnalyzed": 45, "fieldsExtracted": 450,
	}}); err != nil {
		require.NoError(t, err)
	}
	seedJob := seedItem(t, "job.json")
	gotJob := storedItem(t, s, pk, seedJob["SK"].(string))
	// metrics count what this test logged (2 entries), not the seed's 145.
	assertSeedItem(t, "job", gotJob, seedJob, "Data.metrics", "Data.s3Config")
	m := gotJob["Data"].(map[string]any)["metrics"].(map[string]any)
	assert.Equal(t, "2 2", fmt.Sprintf("%v %v", m["totalLogs"], m["infoCount"]), "job metrics %v, want the 2 info entries logged", m)

	seedStage := seedItem(t, "stage.json")
	// UpdatedAt moved with the job; the counters are the package's.
	assertUnindexedSeedItem(t, "stage", storedItem(t, s, pk, seedStage["SK"].(string)), seedStage,
		"UpdatedAt", "Data.lastExecution", "Data.lastRuleIndex", "Data.lastJob")

	at("2025-11-01T20:35:00Z")
	e.ids.Queue("RPT", "RPT-ABC")
	seedReport := seedItem(t, "report.json")
	sd := seedReport["Data"].(map[string]any)
	if _, err := s.Reports().Write(ctx, ref, "schema_extraction", Report{ReportType: ReportPerformance,
		Title: sd["title"].(string), Summary: sd["summary"].(string),
		ExecutionSummary:   map[string]any{"stepId": "schema_extraction"},
		PerformanceMetrics: map[string]any{"throughput": 0.99}, DetailedResults: map[string]any{"tablesExtracted": 45},
		Recommendations: []string{"Schema extraction performed well"}}); err != nil {
		require.NoError(t, err)
	}
	// contentSize is the size of the file this test wrote and
	// generationTime the test clock's (standing still). The file has a
	// key of its own under the step (.../reports/{step_id}/{report_id}.json,
	// not the seed's .../reports/{step_id}.json, which a second report of
	// the step would replace): see reportObjects.
	gotReport := storedItem(t, s, pk, seedReport["SK"].(string))
	assertSeedItem(t, "report", gotReport, seedReport,
		"Data.metrics.contentSize", "Data.metrics.generationTime", "Data.s3Location")
	gotLoc, wantLoc := gotReport["Data"].(map[string]any)["s3Location"], strings.TrimSuffix(sd["s3Location"].(string), ".json")+"/RPT-ABC.json"
	assert.Equal(t, wantLoc, gotLoc, "report s3Location")

	// The seed's report file, written as a second report of the step.
	var seedReportFile map[string]any
	readTestJSON(t, "report_file.json", &seedReportFile)
	var rf Report
	b, _ := json.Marshal(seedReportFile)
	require.NoError(t, json.Unmarshal(b, &rf))
	_, err = s.Reports().Write(ctx, ref, "schema_extraction", rf)
	require.NoError(t, err)
	reports, err := s.Reports().Read(ctx, ref)
	require.NoError(t, err, "Reports.Read")
	require.Len(t, reports, 2, "Reports.Read")
	fromSeed := reports[0]
	if fromSeed.Title != rf.Title {
		fromSeed = reports[1]
	}
	var gotFile map[string]any
	b, _ = json.Marshal(fromSeed)
	require.NoError(t, decodeJSON(b, &gotFile))
	assertSeedItem(t, "report file", gotFile, seedReportFile)

	// Every key of the six entities, as the seed spells them.
	c := must[*Complete](t)(s.Journeys().Load(ctx, jd.ID, IncludeLogSummaries()))
	var sks []string
	for _, item := range []map[string]any{seedJourney, seedStage, seedRule, seedJob, seedLog, seedReport} {
		sks = append(sks, item["SK"].(string))
	}
	sort.Strings(sks)
	assert.Len(t, c.Stages, 6, "the partition's stages")
	assert.Len(t, c.Rules, 1, "the partition's rules")
	assert.Len(t, c.Jobs, 1, "the partition's jobs")
	assert.Len(t, c.Logs, 2, "the partition's log summaries")
	assert.Len(t, c.Reports, 2, "the partition's report entries")
	for _, sk := range sks {
		storedItem(t, s, pk, sk) // fails the test if missing
	}
}
