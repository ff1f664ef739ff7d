package tasks

import (
	"context"
	"fmt"
	"math/rand/v2"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Trace context travels with a task: Submit and SubmitTx keep the W3C
// traceparent of the span their caller's context carries (the request
// that submitted the task) on META, attribute traceParent (about 60
// bytes, no extra write), and the worker runtime links each task's span to
// it. So a trace of the request shows where its work ran, however long the
// task waited, without the worker's span becoming a child of a request
// that ended long ago (the messaging conventions' producer-consumer link).

// traceParent is the W3C traceparent of the span ctx carries, "" when it
// carries none.
func traceParent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}

// submitter is the span context a task's traceParent names (invalid when
// it names none).
func submitter(t *Task) trace.SpanContext {
	if t.TraceParent == "" {
		return trace.SpanContext{}
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": t.TraceParent})
	return trace.SpanContextFromContext(ctx)
}

// processSpanName is the span of a task the worker runtime runs.
const processSpanName = "tasks.Process"

// startProcess begins the span of one claimed task under the worker's
// tracer (a no-op span without one): a new trace, linked to the span that
// submitted the task.
func (w *Worker) startProcess(ctx context.Context, c *Claim) (context.Context, trace.Span) {
	if w.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	opts := []trace.SpanStartOption{
		trace.WithNewRoot(),
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("db.collection.name", w.store.t.Name()),
			attribute.String("tablekit.tasks.id", c.Task.ID),
			attribute.Int("tablekit.tasks.attempt", c.Lease.Attempt),
			attribute.String("tablekit.tasks.worker", w.id),
		),
	}
	if sc := submitter(&c.Task); sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc,
			Attributes: []attribute.KeyValue{attribute.String("tablekit.tasks.link", "submitted")}}))
	}
	return w.tracer.Start(ctx, processSpanName, opts...)
}

// endProcess ends a task's span, with err as its error.
func endProcess(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// unsampled is ctx under a span context that is valid but not sampled, so
// that a sampler that follows its parent (the SDK's default) records no
// span beneath it: a worker's polls, an empty one every few seconds per
// worker, would otherwise each leave a store span and a span per request.
func unsampled(ctx context.Context) context.Context {
	var tid trace.TraceID
	var sid trace.SpanID
	for i := range tid {
		tid[i] = byte(rand.Uint32())
	}
	for i := range sid {
		sid[i] = byte(rand.Uint32())
	}
	tid[0] |= 1 // never the invalid all-zero id
	sid[0] |= 1
	return trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
}
