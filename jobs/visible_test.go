package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tablekit/tablekit/internal/testkit"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/tasks"
)

// records is a slog.Handler that keeps every record.
type records struct {
	mu    sync.Mutex
	list  []slog.Record
	attrs []slog.Attr
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec = rec.Clone()
	rec.AddAttrs(r.attrs...)
	r.list = append(r.list, rec)
	return nil
}
func (r *records) WithAttrs(as []slog.Attr) slog.Handler {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &sharedRecords{r, append(append([]slog.Attr(nil), r.attrs...), as...)}
}
func (r *records) WithGroup(string) slog.Handler { return r }

// sharedRecords is a records handler with attributes, keeping its records
// in the parent's list.
type sharedRecords struct {
	parent *records
	attrs  []slog.Attr
}

func (s *sharedRecords) Enabled(context.Context, slog.Level) bool { return true }
func (s *sharedRecords) Handle(ctx context.Context, rec slog.Record) error {
	rec = rec.Clone()
	rec.AddAttrs(s.attrs...)
	return s.parent.Handle(ctx, rec)
}
func (s *sharedRecords) WithAttrs(as []slog.Attr) slog.Handler {
	return &sharedRecords{s.parent, append(append([]slog.Attr(nil), s.attrs...), as...)}
}
func (s *sharedRecords) WithGroup(string) slog.Handler { return s }

// keys returns the "key" attributes of the records at level whose message
// contains text.
func (r *records) keys(level slog.Level, text string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.list {
		if rec.Level != level || !strings.Contains(rec.Message, text) {
			continue
		}
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "key" {
				out = append(out, a.Value.String())
			}
			return true
		})
	}
	return out
}

// TestJobWorkerLogsAndCountsFailedAttemptsFailuresAndTakeovers: the job
// worker's failed attempts (retried), the jobs it fails (the jobs' dead
// letters) and the jobs it takes over from dead workers are logged and
// counted, each once.
func TestJobWorkerLogsAndCountsFailedAttemptsFailuresAndTakeovers(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	recs := &records{}
	w := newJobWorld(t, jobs.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
		jobs.Logger(slog.New(recs)))
	ctx := context.Background()
	retried, _, err := w.jobs.Create(ctx, upload("u-retried"))
	require.NoError(t, err)
	failed, _, err := w.jobs.Create(ctx, upload("u-failed"))
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[string]int{}
	handler := func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		mu.Lock()
		seen[a.Job().ID]++
		first := seen[a.Job().ID] == 1
		mu.Unlock()
		switch {
		case a.Job().ID == failed.ID:
			return jobs.EditResult{}, jobs.Permanent(&jobs.JobError{Code: "BAD_IMAGE", Message: "corrupt"})
		case first:
			return jobs.EditResult{}, errors.New("the provider timed out")
		}
		return editor(ctx, a)
	}
	p := w.start(t, "w1", handler)
	w.waitStatus(t, failed.ID, jobs.StatusFailed)
	waitFor(t, "the retry", func() bool {
		task, err := w.tasks.Get(ctx, retried.TaskID)
		require.NoError(t, err)
		return task.Status == tasks.StatusPending && task.Attempt == 1
	})
	w.fake.Advance(2 * time.Second)
	w.waitStatus(t, retried.ID, jobs.StatusCompleted)
	p.stop()

	// A worker dies holding a job; another takes it over.
	taken, _, err := w.jobs.Create(ctx, upload("u-taken"))
	require.NoError(t, err)
	dying := w.startCrashing(t, "dies", func(c call) string {
		return when(c.op == "UpdateItem" && c.table == jobsTable && setsStatus(c.in), "after")
	}, handler)
	waitFor(t, "the crash", dying.conn.dead.Load)
	dying.stop()
	w.fake.Advance(2 * testLease)
	w.start(t, "w2", editor)
	w.waitStatus(t, taken.ID, jobs.StatusCompleted)
	w.waitTask(t, taken.TaskID, tasks.StatusCompleted)

	got := testkit.Counts(t, reader, "github.com/tablekit/tablekit/jobs")
	assert.Equal(t, map[string]int64{
		"tablekit.jobs.outcome=completed": 2,
		"tablekit.jobs.outcome=retried":   1,
		"tablekit.jobs.outcome=failed":    1,
	}, got["tablekit.jobs.attempts"])
	assert.Equal(t, map[string]int64{"": 1}, got["tablekit.jobs.takeovers"])
	assert.Equal(t, map[string]int64{"error.type=BAD_IMAGE": 1}, got["tablekit.jobs.failed"])

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	scopes := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		scopes[sm.Scope.Name] = len(sm.Metrics) > 0
	}
	assert.True(t, scopes["github.com/tablekit/tablekit/tasks"], "the work queue's own instruments record through the same provider")

	assert.Equal(t, []string{retried.ID}, recs.keys(slog.LevelWarn, "attempt failed"))
	assert.Equal(t, []string{failed.ID}, recs.keys(slog.LevelError, "job failed"))
	assert.Equal(t, []string{taken.ID}, recs.keys(slog.LevelWarn, "taking over"))
}
