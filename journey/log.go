package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Log summary keys (declared in declare).
const (
	// SK "LOG#JOB-456#schema_extraction#2025-11-01T20:30:15.234567Z#LOG-789".
	logSortKey = "LOG#{jobId}#{stepName}#{timestamp:time}#{logId}"
	// GSI1SK "2025-11-01T20:30:15.234567Z", under the job's GSI1PK JOB#{jobId}.
	logIndexSort = "{timestamp:time}"
)

// logSK tells a log summary's sort key (backups, patterns).
var logSK = keys.MustSort(logSortKey)

// Level is a log entry's severity, written upper case in log files
// ("INFO") and lower case in the DynamoDB summaries ("info"), as the seed
// does.
type Level string

// The seed's levels.
const (
	LevelDebug   Level = "DEBUG"
	LevelInfo    Level = "INFO"
	LevelWarning Level = "WARNING"
	LevelError   Level = "ERROR"
)

func (l Level) valid() bool {
	return l == LevelDebug || l == LevelInfo || l == LevelWarning || l == LevelError
}

// LogEntry is one entry of a step's log file in S3.
type LogEntry struct {
	JobID     string         `json:"jobId"`
	StepID    string         `json:"step_id"`
	Level     Level          `json:"level"`
	Message   string         `json:"message"`
	Timestamp Time           `json:"timestamp"`
	Details   map[string]any `json:"details,omitempty"`
}

// LogSummary is the optional DynamoDB item of one log entry (SK LOG#...),
// found through GSI1 by job.
type LogSummary struct {
	JobID      string         `dynamodbav:"jobId" json:"jobId"`
	Step       string         `dynamodbav:"step" json:"step"`
	Level      string         `dynamodbav:"level" json:"level"`
	Message    string         `dynamodbav:"message" json:"message"`
	Timestamp  Time           `dynamodbav:"timestamp" json:"timestamp"`
	Source     string         `dynamodbav:"source,omitempty" json:"source,omitempty"`
	S3Location string         `dynamodbav:"s3Location" json:"s3Location"`
	Details    map[string]any `dynamodbav:"details,omitempty" json:"details,omitempty"`

	// From the key.
	LogID     string `dynamodbav:"-" json:"logId"`
	JourneyID string `dynamodbav:"-" json:"journeyId"`
	// ExpiresAt is when DynamoDB may delete the summary (its ttl); zero
	// when it is kept (KeepLogSummaries, or written by others).
	ExpiresAt Time `dynamodbav:"-" json:"expiresAt"`
}

// Summaries keep DynamoDB items small, as the seed asks ("keep log
// messages concise"): the full message and details are in the S3 file.
const (
	maxSummaryMessage = 1024
	maxSummaryDetails = 2048
)

// logItem is a log summary as stored (declare): the summary is Data, and
// its key parts, kept in the keys only, are copies of the summary's
// fields. TTL is the table's ttl, set from the entry's time (0: kept).
type logItem struct {
	JourneyID string     `dynamodbav:"journeyId"`
	JobID     string     `dynamodbav:"jobId"`
	Step      string     `dynamodbav:"stepName"`
	Timestamp time.Time  `dynamodbav:"timestamp"`
	LogID     string     `dynamodbav:"logId"`
	CreatedAt string     `dynamodbav:"CreatedAt"`
	Data      LogSummary `dynamodbav:"Data"`
	TTL       int64      `dynamodbav:"ttl,omitempty"`
}

func (it logItem) summary() (LogSummary, error) {
	sum := it.Data
	sum.LogID, sum.JourneyID = it.LogID, it.JourneyID
	if it.TTL > 0 {
		sum.ExpiresAt = Time{time.Unix(it.TTL, 0).UTC()}
	}
	return sum, nil
}

// LoggerOptions configure a StepLogger.
type LoggerOptions struct {
	// Source names the component that logs ("schema_analyzer"), stored in
	// the summaries.
	Source string
	// Summaries writes a LOG# item per entry; the default is the store's
	// (on unless Options.DisableLogSummaries).
	Summaries bool
}

// StepLogger collects one step's log entries in memory, as the seed's
// base_stage.py does, and writes them out on Flush and Close: the step's
// log file to the logs store (S3 first), then, optionally, one DynamoDB
// summary per entry (BatchWriteItem, 25 a request), then the per-level
// counts, added to the job's metrics and the journey's aggregates in one
// transaction. It is safe for concurrent use.
type StepLogger struct {
	s         *Store
	ref       JobRef
	step      string
	source    string
	summaries bool
	key       string
	location  string
	// sequential writes summaries one PutItem at a time (benchmarks).
	sequential bool

	mu      sync.Mutex
	entries []LogEntry
	ids     []string
	err     error // first error of Debug/Info/Warning/Error, reported by Flush and Close
	closed  bool

	flushMu    sync.Mutex // one Flush at a time
	summarized int        // entries whose summaries are written
	counted    int        // entries added to the metrics
}

// stepLogger implements [Logs.Logger].
func (s *Store) stepLogger(ref JobRef, stepID string, opts ...func(*LoggerOptions)) (*StepLogger, error) {
	if err := ref.check(); err != nil {
		return nil, err
	}
	if err := checkID("stepId", stepID); err != nil {
		return nil, err
	}
	o := LoggerOptions{Summaries: !s.opts.DisableLogSummaries}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	key, err := objectKey(logObjects, ref.JourneyID, ref.StageID, ref.JobID, stepID)
	if err != nil {
		return nil, err
	}
	return &StepLogger{s: s, ref: ref, step: stepID, source: o.Source, summaries: o.Summaries,
		key: key, location: s3Location(s.opts.LogsBucket, key)}, nil
}

// Debug logs diagnostic detail. details (may be nil) must not be changed
// afterwards: it is encoded when the logger flushes.
func (l *StepLogger) Debug(message string, details map[string]any) {
	l.record(LevelDebug, message, details)
}

// Info logs a general message.
func (l *StepLogger) Info(message string, details map[string]any) {
	l.record(LevelInfo, message, details)
}

// Warning logs a potential issue that does not stop the step.
func (l *StepLogger) Warning(message string, details map[string]any) {
	l.record(LevelWarning, message, details)
}

// Error logs an error that needs attention.
func (l *StepLogger) Error(message string, details map[string]any) {
	l.record(LevelError, message, details)
}

func (l *StepLogger) record(level Level, message string, details map[string]any) {
	if err := l.Log(level, message, details); err != nil && l != nil {
		l.mu.Lock()
		if l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}
}

// Log adds one entry. It fails, recording nothing, after Close or for a
// level that is not one of the four.
func (l *StepLogger) Log(level Level, message string, details map[string]any) error {
	if l == nil || l.s == nil {
		return inputError("StepLogger", "nil", "use Logs.Logger")
	}
	if !level.valid() {
		return inputError("level", fmt.Sprintf("%q", level), "must be DEBUG, INFO, WARNING or ERROR")
	}
	id, err := l.s.newID("LOG")
	if err != nil {
		return err
	}
	now := l.s.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrLoggerClosed
	}
	l.entries = append(l.entries, LogEntry{JobID: l.ref.JobID, StepID: l.step, Level: level, Message: message,
		Timestamp: Time{now}, Details: details})
	l.ids = append(l.ids, id)
	return nil
}

// Len is the number of entries logged so far.
func (l *StepLogger) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Location is the s3:// location of the step's log file.
func (l *StepLogger) Location() string {
	if l == nil {
		return ""
	}
	return l.location
}

// Flush writes what was logged so far: the whole log file (S3 objects
// cannot be appended to, so each Flush rewrites it), then the summaries and
// counts of the entries not yet written. After a failure, Flush again
// retries what is missing; the file and summaries are idempotent writes.
func (l *StepLogger) Flush(ctx context.Context) (err error) {
	if err := l.ready(ctx); err != nil {
		return err
	}
	ctx, span := l.s.t.Start(ctx, "journey.StepLogger.Flush")
	defer span.End(&err)
	return l.flush(ctx)
}

// ready refuses a nil or zero StepLogger and a nil context.
func (l *StepLogger) ready(ctx context.Context) error {
	if l == nil || l.s == nil {
		return inputError("StepLogger", "nil", "use Logs.Logger")
	}
	return l.s.ready(ctx)
}

func (l *StepLogger) flush(ctx context.Context) error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	entries, ids, logErr := l.entries[:len(l.entries):len(l.entries)], l.ids[:len(l.ids):len(l.ids)], l.err
	l.mu.Unlock()
	if len(entries) == 0 {
		return logErr
	}
	body, err := json.Marshal(entries)
	if err != nil {
		return fmt.Errorf("journey: encode log file %s: %w", l.key, err)
	}
	if err := l.s.logs.Put(ctx, l.key, bytes.NewReader(body), blobstore.WithContentType("application/json"),
		blobstore.WithSize(int64(len(body)))); err != nil {
		return fmt.Errorf("journey: write log file %s: %w", l.key, err)
	}
	if l.summaries && l.summarized < len(entries) {
		if err := l.writeSummaries(ctx, entries[l.summarized:], ids[l.summarized:]); err != nil {
			return err
		}
		l.summarized = len(entries)
	}
	if l.counted < len(entries) {
		if err := l.addCounts(ctx, entries[l.counted:]); err != nil {
			return err
		}
		l.counted = len(entries)
	}
	// A refused Log (after Close, a bad level) is reported once the
	// entries that were accepted are safe.
	return logErr
}

// Close flushes and stops the logger; later Log calls fail with
// ErrLoggerClosed. Closing twice flushes nothing new.
func (l *StepLogger) Close(ctx context.Context) (err error) {
	if err := l.ready(ctx); err != nil {
		return err
	}
	ctx, span := l.s.t.Start(ctx, "journey.StepLogger.Close")
	defer span.End(&err)
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return l.flush(ctx)
}

func (l *StepLogger) writeSummaries(ctx context.Context, entries []LogEntry, ids []string) error {
	items := make([]logItem, 0, len(entries))
	for i, e := range entries {
		msg := e.Message
		if len(msg) > maxSummaryMessage {
			msg = truncateUTF8(msg, maxSummaryMessage)
		}
		details := e.Details
		if b, err := json.Marshal(details); err != nil || len(b) > maxSummaryDetails {
			details = nil
		}
		sum := LogSummary{JobID: e.JobID, Step: e.StepID, Level: strings.ToLower(string(e.Level)), Message: msg,
			Timestamp: e.Timestamp, Source: l.source, S3Location: l.location, Details: details, LogID: ids[i]}
		it := logItem{JourneyID: l.ref.JourneyID, JobID: e.JobID, Step: e.StepID, Timestamp: e.Timestamp.Time,
			LogID: ids[i], CreatedAt: e.Timestamp.String(), Data: sum}
		if r := l.s.opts.LogSummaryRetention; r > 0 {
			// Rounded up to the second: never before the retention ends.
			it.TTL = e.Timestamp.Add(r + time.Second - 1).Unix()
		}
		if l.sequential {
			if _, err := l.s.ents.logs.Put(ctx, it); err != nil {
				return err
			}
			continue
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil
	}
	_, err := l.s.ents.logs.BatchPut(ctx, items)
	return err
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// addCounts ADDs the entries' per-level counts to the job's metrics and
// the journey's totals, in one transaction.
func (l *StepLogger) addCounts(ctx context.Context, entries []LogEntry) error {
	var debug, info, warning, errs int
	for _, e := range entries {
		switch e.Level {
		case LevelDebug:
			debug++
		case LevelInfo:
			info++
		case LevelWarning:
			warning++
		case LevelError:
			errs++
		}
	}
	n := len(entries)
	jobKey, err := l.s.jobKey(l.ref)
	if err != nil {
		return err
	}
	journeyKey, _ := l.s.journeyKey(l.ref.JourneyID)
	ts := expression.Value(stamp(l.s.now()))
	add := func(u expression.UpdateBuilder, path string, v int) expression.UpdateBuilder {
		if v == 0 {
			return u
		}
		return u.Add(expression.Name(path), expression.Value(v))
	}
	ju := expression.Set(expression.Name(attrUpdatedAt), ts).Add(expression.Name("Data.metrics.totalLogs"), expression.Value(n))
	ju = add(ju, "Data.metrics.debugCount", debug)
	ju = add(ju, "Data.metrics.infoCount", info)
	ju = add(ju, "Data.metrics.warningCount", warning)
	ju = add(ju, "Data.metrics.errorCount", errs)
	agg := expression.Set(expression.Name(attrUpdatedAt), ts).Add(expression.Name("Data.aggregates.totalLogs"), expression.Value(n))
	agg = add(agg, "Data.aggregates.totalWarnings", warning)
	agg = add(agg, "Data.aggregates.totalErrors", errs)
	err = l.s.t.WriteTx().Update(jobKey, ju, table.IfExists()).
		Update(journeyKey, agg, table.IfExists(), table.If(journeyOwn()), table.ItemOnConditionFailure()).Run(ctx)
	switch failedAction(err) {
	case 0:
		return notFound(ErrJobNotFound, l.ref.JobID, err)
	case 1:
		return metadataRefused(l.ref.JourneyID, err, 1)
	}
	return err
}

// checkFilesRef checks the parts of a JobRef that name a job's files.
func checkFilesRef(ref JobRef) error {
	if err := checkID("JobRef.JourneyID", ref.JourneyID); err != nil {
		return err
	}
	if err := checkID("JobRef.StageID", ref.StageID); err != nil {
		return err
	}
	return checkID("JobRef.JobID", ref.JobID)
}

// jobLogs implements [Logs.Read].
func (s *Store) jobLogs(ctx context.Context, ref JobRef) ([]LogEntry, error) {
	if err := checkFilesRef(ref); err != nil {
		return nil, err
	}
	var out []LogEntry
	prefix, err := jobFilesPrefix(logObjects, "logs", ref)
	if err != nil {
		return nil, err
	}
	for info, err := range s.logs.List(ctx, prefix) {
		if err != nil {
			return nil, fmt.Errorf("journey: list log files of %s: %w", ref.JobID, err)
		}
		var entries []LogEntry
		if err := readJSON(ctx, s.logs, info.Key, &entries); err != nil {
			return nil, err
		}
		out = append(out, entries...)
	}
	slices.SortStableFunc(out, func(a, b LogEntry) int { return a.Timestamp.Compare(b.Timestamp.Time) })
	return out, nil
}

// stepLogs implements [Logs.ReadStep].
func (s *Store) stepLogs(ctx context.Context, ref JobRef, stepID string) ([]LogEntry, error) {
	if err := checkFilesRef(ref); err != nil {
		return nil, err
	}
	if err := checkID("stepId", stepID); err != nil {
		return nil, err
	}
	var entries []LogEntry
	key, err := objectKey(logObjects, ref.JourneyID, ref.StageID, ref.JobID, stepID)
	if err != nil {
		return nil, err
	}
	err = readJSON(ctx, s.logs, key, &entries)
	return entries, err
}

func readJSON(ctx context.Context, store blobstore.Store, key string, out any) error {
	rc, _, err := store.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("journey: read %s: %w", key, err)
	}
	defer rc.Close()
	body, err := io.ReadAll(rc)
	if err != nil {
		return fmt.Errorf("journey: read %s: %w", key, err)
	}
	if err := decodeJSON(body, out); err != nil {
		return fmt.Errorf("journey: decode %s: %w", key, err)
	}
	return nil
}

// listSummaries implements [Logs.ListSummaries].
func (s *Store) listSummaries(ctx context.Context, jobID, cursor string, o ListOptions) (table.Page[LogSummary], error) {
	if err := checkID("jobId", jobID); err != nil {
		return table.Page[LogSummary]{}, err
	}
	page, err := s.ents.logs.List(ctx, logItem{JobID: jobID}, cursor, entityList(IndexGSI1, o)...)
	if err != nil {
		return table.Page[LogSummary]{}, err
	}
	return pageOf(page, logItem.summary)
}
