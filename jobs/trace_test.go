package jobs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/jobs"
)

func TestEveryStoreCallStartsOneSpanNamedForItAndRecordsItsError(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	f := newFixture(t, jobs.TracerProvider(tp))
	ctx := context.Background()

	job, _, err := f.store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	_, err = f.store.Get(ctx, job.ID)
	require.NoError(t, err)
	started, err := f.store.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	_, err = f.store.Heartbeat(ctx, started.Lease())
	require.NoError(t, err)
	_, err = f.store.StartEditing(ctx, started.Lease(), nil)
	require.NoError(t, err)
	_, err = f.store.Fail(ctx, started.Lease(), jobs.JobError{Code: "X", Message: "x"})
	require.NoError(t, err)
	_, err = f.store.Maintenance().Replay(ctx, job.ID)
	require.NoError(t, err)
	_, err = f.store.ByUser("u1").Page(ctx, "")
	require.NoError(t, err)
	_, err = f.store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	_, err = f.store.Complete(ctx, started.Lease(), jobs.EditResult{S3Key: "k", Width: 1, Height: 1, Format: jobs.FormatWebP})
	require.ErrorIs(t, err, jobs.ErrLeaseLost, "the replayed job no longer honours the failed attempt's lease")
	require.NoError(t, f.store.Delete(ctx, job.ID))

	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
		assert.False(t, s.EndTime().Before(s.StartTime()), "span %s ends before it starts", s.Name())
		if s.Name() == "jobs.Complete" {
			assert.Equal(t, codes.Error, s.Status().Code, "the refused move is the span's error")
		} else {
			assert.Equal(t, codes.Unset, s.Status().Code, s.Name())
		}
	}
	assert.Equal(t, []string{"jobs.Create", "jobs.Get", "jobs.StartProcessing", "jobs.Heartbeat", "jobs.StartEditing",
		"jobs.Fail", "jobs.Maintenance.Replay", "jobs.ByUser", "jobs.Maintenance.Recover", "jobs.Complete", "jobs.Delete"}, names)
}

func TestCreateRecordsTheRequestsTraceIDInXRayForm(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	for name, traced := range map[string]bool{"the store traced": true, "the store not traced": false} {
		var opts []func(*jobs.Options)
		if traced {
			opts = append(opts, jobs.TracerProvider(tp))
		}
		f := newFixture(t, opts...)
		ctx, span := tp.Tracer("request").Start(context.Background(), "POST /jobs")
		in := upload("u1")
		in.TraceID = ""
		job, _, err := f.store.Create(ctx, in)
		span.End()
		require.NoError(t, err)
		id := span.SpanContext().TraceID().String()
		assert.Equalf(t, "1-"+id[:8]+"-"+id[8:], job.TraceID, "%s: the request's trace id, as X-Ray writes it", name)
		got, err := f.store.Get(context.Background(), job.ID)
		require.NoError(t, err)
		assert.Equal(t, job.TraceID, got.TraceID, "%s: and stored", name)

		// A request without a span: the store's own span, when it has
		// one, begins the trace.
		untraced, _, err := f.store.Create(context.Background(), in)
		require.NoError(t, err)
		assert.Equalf(t, traced, untraced.TraceID != "", "%s: trace id %q of a request without a span", name, untraced.TraceID)
	}
}
