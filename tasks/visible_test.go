package tasks_test

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
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testkit"
	"github.com/tablekit/tablekit/observe"
	"github.com/tablekit/tablekit/tasks"
)

// records is a slog handler that keeps every record.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// find returns the records at level whose message contains text.
func (r *records) find(level slog.Level, text string) []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slog.Record
	for _, rec := range r.list {
		if rec.Level == level && strings.Contains(rec.Message, text) {
			out = append(out, rec)
		}
	}
	return out
}

func TestWorkerLogsAndCountsFailedAttemptsDeadLettersAndTakeovers(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	logs := &records{}
	f := newFixture(t, tasks.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
		tasks.Logger(slog.New(logs)), tasks.MaxAttempts(2))
	tm := newTimers()

	// A worker died holding this task: its lease runs out.
	orphan := f.submit(t, "orphan")
	f.claim(t, "w-dead")
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	// This one fails every attempt.
	doomed := f.submit(t, "doomed")

	done := make(chan string, 10)
	r := startWorker(t, f, tm, "w1", func(_ context.Context, task *tasks.Task) ([]byte, error) {
		defer func() { done <- string(task.Payload) }()
		if string(task.Payload) == "doomed" {
			return nil, errors.New("provider returned 503")
		}
		return []byte("ok"), nil
	})
	// The fake's clock moves on while the worker polls, so the failed
	// attempt's backoff ends.
	timeout := time.After(20 * time.Second)
	for seen := map[string]int{}; seen["doomed"] < 2 || seen["orphan"] < 1; {
		select {
		case p := <-done:
			seen[p]++
		case <-time.After(time.Millisecond):
			f.db.Advance(time.Second)
		case <-timeout:
			require.FailNow(t, "timed out", "handled %v", seen)
		}
	}
	r.stop(t, tm, false)
	require.Equal(t, tasks.StatusCompleted, f.get(t, orphan.ID).Status)
	require.Equal(t, tasks.StatusDead, f.get(t, doomed.ID).Status)

	c := testkit.Counts(t, reader, "github.com/tablekit/tablekit/tasks")
	assert.Equal(t, map[string]int64{
		"tablekit.tasks.outcome=completed": 1, "tablekit.tasks.outcome=expired": 1,
		"tablekit.tasks.outcome=failed": 1, "tablekit.tasks.outcome=dead": 1,
	}, c["tablekit.tasks.attempts"])
	assert.Equal(t, map[string]int64{"": 1}, c["tablekit.tasks.takeovers"])
	assert.Equal(t, map[string]int64{"tablekit.tasks.cause=failed": 1}, c["tablekit.tasks.dead"])

	assert.Len(t, logs.find(slog.LevelWarn, "took over a task whose worker's lease expired"), 1)
	assert.Len(t, logs.find(slog.LevelWarn, "the handler failed; the task is retried"), 1)
	assert.Len(t, logs.find(slog.LevelError, "the handler failed the task's last attempt"), 1)
	dead := logs.find(slog.LevelWarn, "dead letter")
	require.Len(t, dead, 1)
	dead[0].Attrs(func(a slog.Attr) bool {
		if a.Key == "error" {
			assert.Equal(t, "provider returned 503", a.Value.String())
		}
		return true
	})
}

func TestAReclaimedLeaseThatRanOutOnItsLastAttemptIsCountedDead(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	f := newFixture(t, tasks.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
		tasks.MaxAttempts(1))
	f.submit(t, "x")
	f.claim(t, "w-dead")
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	n, err := f.store.Maintenance().ReclaimExpired(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	c := testkit.Counts(t, reader, "github.com/tablekit/tablekit/tasks")
	assert.Equal(t, map[string]int64{"tablekit.tasks.outcome=expired": 1}, c["tablekit.tasks.attempts"])
	assert.Equal(t, map[string]int64{"": 1}, c["tablekit.tasks.takeovers"])
	assert.Equal(t, map[string]int64{"tablekit.tasks.cause=lease_expired": 1}, c["tablekit.tasks.dead"])
}

func TestTheHandlersSpanIsLinkedToTheSpanThatSubmittedTheTask(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	f := newFixture(t, tasks.TracerProvider(tp))
	tm := newTimers()

	ctx, request := tp.Tracer("service").Start(context.Background(), "POST /photos")
	task, _, err := f.store.Submit(ctx, tasks.SubmitInput{Payload: []byte("resize")})
	require.NoError(t, err)
	request.End()
	assert.Equal(t, "00-"+request.SpanContext().TraceID().String()+"-"+request.SpanContext().SpanID().String()+"-01",
		f.get(t, task.ID).TraceParent, "the submitting span's trace context is stored with the task")

	var handlerSpan trace.SpanContext
	handled := make(chan struct{}, 1)
	r := startWorker(t, f, tm, "w1", func(ctx context.Context, _ *tasks.Task) ([]byte, error) {
		handlerSpan = trace.SpanContextFromContext(ctx)
		handled <- struct{}{}
		return nil, nil
	})
	receive(t, handled, "the handler")
	r.stop(t, tm, false)

	var process sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.Name() == "tasks.Process" {
			process = s
		}
	}
	require.NotNil(t, process, "the worker records a span per task it runs")
	assert.Equal(t, process.SpanContext(), handlerSpan, "the handler runs in it")
	assert.Equal(t, trace.SpanKindConsumer, process.SpanKind())
	assert.NotEqual(t, request.SpanContext().TraceID(), process.SpanContext().TraceID(), "a trace of its own")
	require.Len(t, process.Links(), 1)
	link := process.Links()[0].SpanContext
	assert.Equal(t, request.SpanContext().TraceID(), link.TraceID(), "linked to the request that submitted it")
	assert.Equal(t, request.SpanContext().SpanID(), link.SpanID())
	assert.Contains(t, process.Attributes(), attribute.String("tablekit.tasks.id", task.ID))
	var complete sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.Name() == "tasks.Complete" {
			complete = s
		}
	}
	require.NotNil(t, complete)
	assert.Equal(t, process.SpanContext().SpanID(), complete.Parent().SpanID(), "the completion nests in the task's span")
}

func TestAnIdleWorkerRecordsNoSpanPerPoll(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	api, err := observe.DynamoDB(db, observe.TracerProvider(tp)) // a span per request too
	require.NoError(t, err)
	f := &fixture{db: db, store: newStore(t, api, db.Now, tasks.TracerProvider(tp))}
	require.NoError(t, f.store.EnsureTable(context.Background()))
	setup := len(spans.Ended())
	tm := newTimers()
	handled := make(chan struct{}, 1)
	r := startWorker(t, f, tm, "w1", func(context.Context, *tasks.Task) ([]byte, error) {
		handled <- struct{}{}
		return nil, nil
	})
	for len(tm.pollDelays()) < 20 {
		time.Sleep(time.Millisecond) // waits for polls to happen; asserts nothing
	}
	assert.Equal(t, setup, len(spans.Ended()), "twenty empty polls, and not one span: no store span, no request span")
	f.submit(t, "work")
	receive(t, handled, "the task")
	r.stop(t, tm, false)

	var roots []string
	for _, s := range spans.Ended()[setup:] {
		if !s.Parent().IsValid() {
			roots = append(roots, s.Name())
		}
	}
	// The worker may finish the task before Submit's span ends (Submit
	// waits for its readiness signal after META is written): any order.
	assert.ElementsMatch(t, []string{"tasks.Submit", "tasks.Process"}, roots,
		"the submission and the task's run, each with its requests beneath it; the claim is the task's")
}
