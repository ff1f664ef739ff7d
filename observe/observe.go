package observe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/table"
)

// instrumentation is the name tracers and meters are obtained under.
const instrumentation = "github.com/tablekit/tablekit/observe"

// ErrNilBackend is returned by DynamoDB and Blobs when there is nothing to wrap.
var ErrNilBackend = errors.New("observe: nil backend")

// Options configure the wrappers. The zero value uses the global providers
// and logs nothing.
type Options struct {
	// TracerProvider creates the spans; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider creates the instruments; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Logger receives throttles and failures; nil logs nothing.
	Logger *slog.Logger
}

// TracerProvider sets the provider spans come from.
func TracerProvider(tp trace.TracerProvider) func(*Options) {
	return func(o *Options) { o.TracerProvider = tp }
}

// MeterProvider sets the provider instruments come from.
func MeterProvider(mp metric.MeterProvider) func(*Options) {
	return func(o *Options) { o.MeterProvider = mp }
}

// Logger sets where throttles and failures are logged.
func Logger(l *slog.Logger) func(*Options) {
	return func(o *Options) { o.Logger = l }
}

// TraceID returns the hex trace id of the span ctx carries, or "" when it
// carries none (or a span that is not sampled into any trace).
func TraceID(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	return sc.TraceID().String()
}

// XRayTraceID returns the trace id of the span ctx carries in AWS X-Ray's
// form, "1-{first 8 hex digits}-{other 24}", or "" when ctx carries no
// span: table.XRayTraceID, the one implementation, which the stores call
// without importing this package.
func XRayTraceID(ctx context.Context) string { return table.XRayTraceID(ctx) }

// Outcomes, the values of the tablekit.outcome attribute.
const (
	OutcomeOK                  = "ok"
	OutcomeConditionFailed     = "condition_failed"
	OutcomeTransactionConflict = "transaction_conflict"
	OutcomeThrottled           = "throttled"
	OutcomeNotFound            = "not_found"
	OutcomeCanceled            = "canceled"
	OutcomeError               = "error"
)

// Attribute keys of tablekit's own (the rest are semantic conventions).
const (
	OutcomeKey      = attribute.Key("tablekit.outcome")
	CapacityKindKey = attribute.Key("tablekit.capacity.kind")
	BlobOpKey       = attribute.Key("blobstore.operation")
	// StoreOperationKey names the store call a request serves
	// ("jobs.Create", "tasks.Claim"): table.Table.Start records it, so
	// requests and consumed capacity split per access pattern.
	StoreOperationKey = attribute.Key("tablekit.operation")
)

// telemetry is what both wrappers share: a tracer, the instruments and the logger.
type telemetry struct {
	tracer trace.Tracer
	log    *slog.Logger

	requests    metric.Int64Counter
	duration    metric.Float64Histogram
	capacity    metric.Float64Counter
	unprocessed metric.Int64Counter
	blobReqs    metric.Int64Counter
	blobBytes   metric.Int64Counter

	// attrs caches measurement options by their attribute values: building
	// an attribute set hashes and sorts it, and a service sees only a few
	// dozen distinct combinations of operation, table and outcome.
	attrs sync.Map // [5]string -> metric.MeasurementOption
}

func newTelemetry(opts []func(*Options)) (*telemetry, error) {
	var o Options
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	tp, mp := o.TracerProvider, o.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(instrumentation)
	t := &telemetry{tracer: tp.Tracer(instrumentation), log: o.Logger}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	t.requests, err = m.Int64Counter("tablekit.dynamodb.requests", metric.WithUnit("{request}"),
		metric.WithDescription("DynamoDB requests by operation, table and outcome"))
	add(err)
	t.duration, err = m.Float64Histogram("tablekit.dynamodb.duration", metric.WithUnit("s"),
		metric.WithDescription("DynamoDB request latency"))
	add(err)
	t.capacity, err = m.Float64Counter("tablekit.dynamodb.consumed_capacity", metric.WithUnit("{capacity_unit}"),
		metric.WithDescription("Read and write capacity units DynamoDB reported as consumed"))
	add(err)
	t.unprocessed, err = m.Int64Counter("tablekit.dynamodb.unprocessed", metric.WithUnit("{item}"),
		metric.WithDescription("Items or keys a batch request left unprocessed"))
	add(err)
	t.blobReqs, err = m.Int64Counter("tablekit.blobstore.requests", metric.WithUnit("{request}"),
		metric.WithDescription("Blob store requests by operation and outcome"))
	add(err)
	t.blobBytes, err = m.Int64Counter("tablekit.blobstore.bytes", metric.WithUnit("By"),
		metric.WithDescription("Bytes written to the blob store"))
	add(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("observe: creating instruments: %w", err)
	}
	return t, nil
}

// measure returns the measurement option for kvs (at most four, always the
// same keys in the same order for one instrument), built once per distinct
// list of values.
func (t *telemetry) measure(kvs ...attribute.KeyValue) metric.MeasurementOption {
	var key [5]string
	for i, kv := range kvs {
		key[i] = kv.Value.Emit()
	}
	key[4] = string(kvs[0].Key) // instruments with the same values but other keys stay apart
	if o, ok := t.attrs.Load(key); ok {
		return o.(metric.MeasurementOption)
	}
	o, _ := t.attrs.LoadOrStore(key, metric.WithAttributeSet(attribute.NewSet(kvs...)))
	return o.(metric.MeasurementOption)
}

// outcome classifies an error the way the metrics and logs report it.
func outcome(err error) (kind, code string) {
	if err == nil {
		return OutcomeOK, ""
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return OutcomeCanceled, ""
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return OutcomeConditionFailed, ccf.ErrorCode()
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && *r.Code == "ConditionalCheckFailed" {
				return OutcomeConditionFailed, tce.ErrorCode()
			}
		}
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && (*r.Code == "ThrottlingError" || *r.Code == "ProvisionedThroughputExceeded") {
				return OutcomeThrottled, tce.ErrorCode()
			}
		}
		return OutcomeTransactionConflict, tce.ErrorCode()
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
			return OutcomeThrottled, api.ErrorCode()
		case "TransactionConflictException", "TransactionInProgressException":
			return OutcomeTransactionConflict, api.ErrorCode()
		}
		return OutcomeError, api.ErrorCode()
	}
	return OutcomeError, ""
}

// call is one request being observed: its span, start time and the
// attributes its metrics carry.
type call struct {
	t     *telemetry
	span  trace.Span
	start time.Time
	op    string
	table string
	// storeOp is the store call the request serves ("jobs.Create"), from
	// table.OperationFromContext; "" for a request made outside a store.
	storeOp string
}

// withStoreOp appends the store call's attribute to kvs when there is one,
// so the metrics split per access pattern.
func (c *call) withStoreOp(kvs ...attribute.KeyValue) []attribute.KeyValue {
	if c.storeOp == "" {
		return kvs
	}
	return append(kvs, StoreOperationKey.String(c.storeOp))
}

// end records the request's outcome on the span, the metrics and the log.
func (c *call) end(ctx context.Context, err error) {
	kind, code := outcome(err)
	opAttr := semconv.DBOperationName(c.op)
	c.t.requests.Add(ctx, 1, c.t.measure(c.withStoreOp(opAttr, semconv.DBCollectionName(c.table), OutcomeKey.String(kind))...))
	c.t.duration.Record(ctx, time.Since(c.start).Seconds(), c.t.measure(opAttr, OutcomeKey.String(kind)))
	if err != nil {
		c.span.RecordError(err)
		c.span.SetStatus(codes.Error, err.Error())
		typ := code
		if typ == "" {
			typ = kind
		}
		c.span.SetAttributes(semconv.ErrorTypeKey.String(typ), OutcomeKey.String(kind))
		c.logFailure(ctx, kind, code, err)
	}
	c.span.End()
}

func (c *call) logFailure(ctx context.Context, kind, code string, err error) {
	if c.t.log == nil {
		return
	}
	level := slog.LevelWarn
	if kind == OutcomeConditionFailed || kind == OutcomeCanceled {
		level = slog.LevelDebug
	}
	c.t.log.Log(ctx, level, "dynamodb request failed",
		slog.String("operation", c.op), slog.String("table", c.table),
		slog.String("outcome", kind), slog.String("code", code), slog.Any("error", err))
}
