package table

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the spans stores start.
const tracerName = "github.com/tablekit/tablekit"

// TracerProvider makes the stores built on a Table start one span per
// store call (Start), under which the requests' own spans nest when the
// API is wrapped by observe.DynamoDB. Nil, the default, starts none and
// costs nothing.
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) { o.TracerProvider = tp }
}

// OperationObserver is implemented by API wrappers that label each request
// with the store call it serves (observe.DynamoDB does). When a Table's API
// implements it, Start records the operation in the context even with
// tracing off, so per-operation metrics need no tracer.
type OperationObserver interface {
	ObservesOperations()
}

type operationKey struct{}

// OperationFromContext returns the store call ctx belongs to, as Start named
// it ("jobs.Create"), or "" when ctx carries none.
func OperationFromContext(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	op, _ := ctx.Value(operationKey{}).(string)
	return op
}

// Span is the span of one store call; the zero Span (tracing off) does
// nothing.
type Span struct {
	span trace.Span
}

// Start begins one store call named operation, by convention
// "<package>.<Method>" ("jobs.Create", "journey.Jobs.Start"). With a
// TracerProvider it starts a span, with the table's name as an attribute;
// with an observed API it records the operation in the returned context.
// Otherwise it returns ctx unchanged and a zero Span, without allocating.
// A store method uses it as
//
//	ctx, span := s.t.Start(ctx, "jobs.Create")
//	defer span.End(&err)
//
// Start is safe on a nil Table and a nil context (both return as given).
func (t *Table) Start(ctx context.Context, operation string) (context.Context, Span) {
	if t == nil || ctx == nil || (t.tracer == nil && !t.observed) {
		return ctx, Span{}
	}
	ctx = context.WithValue(ctx, operationKey{}, operation)
	if t.tracer == nil {
		return ctx, Span{}
	}
	ctx, span := t.tracer.Start(ctx, operation,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("db.collection.name", t.schema.Name)))
	return ctx, Span{span: span}
}

// End ends the span, recording *err as its error when err points at a
// non-nil error. A nil err pointer ends it as successful.
func (s Span) End(err *error) {
	if s.span == nil {
		return
	}
	if err != nil && *err != nil {
		s.span.RecordError(*err)
		s.span.SetStatus(codes.Error, (*err).Error())
	}
	s.span.End()
}

// XRayTraceID returns the trace id of the span ctx carries in AWS X-Ray's
// form, "1-{first 8 hex digits}-{other 24}", the form the jobs design (docs/systems/jobs.md) keeps in a
// job's traceId (X-Ray reads OpenTelemetry trace ids this way when they
// come from its id generator, whose first 8 digits are the start time).
// It returns "" when ctx is nil or carries no span with a trace id.
//
// It reads the span context the way the stores' spans do (Start), from
// OpenTelemetry's API alone, so a store records a trace id without
// importing the instrumentation package (observe), as it takes its
// TracerProvider as an option rather than from observe.
func XRayTraceID(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	id := sc.TraceID().String()
	return "1-" + id[:8] + "-" + id[8:]
}
