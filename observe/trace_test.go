package observe_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/observe"
	"github.com/tablekit/tablekit/tasks"
)

// TestTraceOfOnePhotoEditorJobFromPostToCompleted follows one job of the
// photo editor (the jobs design (docs/systems/jobs.md)) through a service instrumented with observe: the
// POST handler creates the job and queues its work with the W3C trace
// context in the task's payload, and the worker that claims the task
// continues that trace through every status move. The in-memory exporter
// then holds one trace with every DynamoDB request of the job's life in
// order, and the job records the trace's id as its traceId.
func TestTraceOfOnePhotoEditorJobFromPostToCompleted(t *testing.T) {
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	tracer := tp.Tracer("photoeditor")
	prop := propagation.TraceContext{}
	ctx := context.Background()

	db, err := observe.DynamoDB(dynamotest.New(), observe.TracerProvider(tp))
	require.NoError(t, err)
	blobs, err := observe.Blobs(blobstore.NewMemory(), observe.TracerProvider(tp))
	require.NoError(t, err)
	jobStore, err := jobs.NewStore(db, blobs)
	require.NoError(t, err)
	require.NoError(t, jobStore.EnsureTable(ctx))
	queue, err := tasks.NewStore(db, nil)
	require.NoError(t, err)
	require.NoError(t, queue.EnsureTable(ctx))
	exporter.Reset() // the tables' creation is not part of the job's trace

	// POST /jobs: create the job, queue its work, carrying the trace.
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := tracer.Start(r.Context(), "POST /jobs", trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		job, _, err := jobStore.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", FileSize: 2048, Provider: "stub"})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		carrier := propagation.MapCarrier{"jobId": job.ID}
		prop.Inject(ctx, carrier)
		payload, _ := json.Marshal(carrier)
		if _, _, err := queue.Submit(ctx, tasks.SubmitInput{Payload: payload}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(job)
	})
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/jobs", strings.NewReader(`{}`)))
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())

	// The worker: claim the task, continue the trace, run the job to the end.
	claim, err := queue.Claim(ctx, "worker-1")
	require.NoError(t, err)
	var carrier propagation.MapCarrier
	require.NoError(t, json.Unmarshal(claim.Task.Payload, &carrier))
	wctx, span := tracer.Start(prop.Extract(ctx, carrier), "process job", trace.WithSpanKind(trace.SpanKindConsumer))
	job, err := jobStore.StartProcessing(wctx, carrier["jobId"])
	require.NoError(t, err)
	job, err = jobStore.StartEditing(wctx, job.Lease(), &jobs.AnalysisResult{Description: "a cat"})
	require.NoError(t, err)
	require.NoError(t, blobs.Put(wctx, "final/"+job.ID+".jpg", strings.NewReader("jpeg bytes")))
	job, err = jobStore.Complete(wctx, job.Lease(), jobs.EditResult{S3Key: "final/" + job.ID + ".jpg", Width: 10, Height: 10, Format: jobs.FormatJPEG, Size: 10})
	require.NoError(t, err)
	require.NoError(t, queue.Complete(wctx, claim.Lease, nil))
	span.End()
	assert.Equal(t, jobs.StatusCompleted, job.Status)

	spans := exporter.GetSpans()
	require.NotEmpty(t, spans)
	var root tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "POST /jobs" {
			root = s
		}
	}
	require.Equal(t, "POST /jobs", root.Name)
	traceID := root.SpanContext.TraceID()
	var names []string
	for _, s := range spans {
		if s.SpanContext.TraceID() != traceID {
			continue // the worker's Claim ran before it knew the trace
		}
		names = append(names, s.Name)
	}
	// tasks.Submit sends its META put, its SUBMITTED event's put and the
	// queue's readiness bump (the CONFIG item's activeAt) side by side,
	// and tasks.Complete its claim item's delete and its COMPLETED event's
	// put, so those spans end in either order; everything else is one
	// request after another.
	require.Len(t, names, 13, "spans of the trace: %v", names)
	assert.Equal(t, "DynamoDB.PutItem", names[0], "jobs.Create")
	assert.ElementsMatch(t, []string{
		"DynamoDB.PutItem",    // tasks.Submit: META
		"DynamoDB.PutItem",    // tasks.Submit: EVENT#0001 (SUBMITTED)
		"DynamoDB.UpdateItem", // tasks.Submit: the CONFIG item's readiness signal
	}, names[1:4])
	assert.Equal(t, []string{
		"POST /jobs",
		"DynamoDB.UpdateItem", // QUEUED → PROCESSING
		"DynamoDB.UpdateItem", // → EDITING
		"blobstore.Put",       // the edited image
		"DynamoDB.UpdateItem", // → COMPLETED
		"DynamoDB.UpdateItem", // tasks.Complete: META
	}, names[4:10], "one trace from POST to COMPLETED, in order (a span is exported when it ends)")
	assert.ElementsMatch(t, []string{
		"DynamoDB.DeleteItem", // tasks.Complete: the WORKER claim item
		"DynamoDB.PutItem",    // tasks.Complete: the COMPLETED event
	}, names[10:12])
	assert.Equal(t, "process job", names[12])

	stored, err := jobStore.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	id := traceID.String()
	assert.Equal(t, "1-"+id[:8]+"-"+id[8:], stored.TraceID, "the job keeps the trace's id, as the jobs design (docs/systems/jobs.md) keeps traceId")
}
