package observe

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/blobstore"
)

// Blobs wraps a blob store so that every request is a span and is counted,
// and every Put's bytes are counted (see the package documentation).
func Blobs(s blobstore.Store, opts ...func(*Options)) (blobstore.Store, error) {
	if s == nil {
		return nil, ErrNilBackend
	}
	t, err := newTelemetry(opts)
	if err != nil {
		return nil, err
	}
	return &blobs{next: s, t: t}, nil
}

type blobs struct {
	next blobstore.Store
	t    *telemetry
}

func (b *blobs) begin(ctx context.Context, op, key string) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{BlobOpKey.String(op)}
	if key != "" {
		attrs = append(attrs, semconv.AWSS3Key(key))
	}
	return b.t.tracer.Start(ctx, "blobstore."+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func (b *blobs) end(ctx context.Context, span trace.Span, op string, err error) {
	kind := OutcomeOK
	switch {
	case err == nil:
	case errors.Is(err, blobstore.ErrNotFound):
		kind = OutcomeNotFound
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		kind = OutcomeCanceled
	default:
		kind = OutcomeError
	}
	b.t.blobReqs.Add(ctx, 1, b.t.measure(BlobOpKey.String(op), OutcomeKey.String(kind)))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(semconv.ErrorTypeKey.String(kind), OutcomeKey.String(kind))
		if b.t.log != nil && kind != OutcomeNotFound {
			b.t.log.WarnContext(ctx, "blob store request failed", "operation", op, "outcome", kind, "error", err)
		}
	}
	span.End()
}

// countingReader counts the bytes a Put reads from its body.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (b *blobs) Put(ctx context.Context, key string, body io.Reader, opts ...func(*blobstore.PutOptions)) error {
	ctx, span := b.begin(ctx, "Put", key)
	var cr *countingReader
	if body != nil {
		cr = &countingReader{r: body}
		body = cr
	}
	err := b.next.Put(ctx, key, body, opts...)
	if err == nil && cr != nil {
		b.t.blobBytes.Add(ctx, cr.n, b.t.measure(BlobOpKey.String("Put")))
	}
	b.end(ctx, span, "Put", err)
	return err
}

func (b *blobs) Get(ctx context.Context, key string, opts ...func(*blobstore.GetOptions)) (io.ReadCloser, blobstore.Info, error) {
	ctx, span := b.begin(ctx, "Get", key)
	rc, info, err := b.next.Get(ctx, key, opts...)
	b.end(ctx, span, "Get", err)
	return rc, info, err
}

func (b *blobs) Head(ctx context.Context, key string) (blobstore.Info, error) {
	ctx, span := b.begin(ctx, "Head", key)
	info, err := b.next.Head(ctx, key)
	b.end(ctx, span, "Head", err)
	return info, err
}

func (b *blobs) Delete(ctx context.Context, key string) error {
	ctx, span := b.begin(ctx, "Delete", key)
	err := b.next.Delete(ctx, key)
	b.end(ctx, span, "Delete", err)
	return err
}

// ApplyLifecycle passes lifecycle rules on to the wrapped store
// (blobstore.ApplyLifecycle: ErrUnsupported when it keeps none), in a span.
func (b *blobs) ApplyLifecycle(ctx context.Context, rules ...blobstore.LifecycleRule) error {
	ctx, span := b.begin(ctx, "ApplyLifecycle", "")
	err := blobstore.ApplyLifecycle(ctx, b.next, rules...)
	b.end(ctx, span, "ApplyLifecycle", err)
	return err
}

// List is one span for the whole listing, ended when the caller stops.
func (b *blobs) List(ctx context.Context, prefix string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) {
		ctx, span := b.begin(ctx, "List", "")
		span.SetAttributes(attribute.String("blobstore.prefix", prefix))
		var err error
		for info, e := range b.next.List(ctx, prefix) {
			if e != nil {
				err = e
			}
			if !yield(info, e) {
				break
			}
		}
		b.end(ctx, span, "List", err)
	}
}

func (b *blobs) PresignGet(ctx context.Context, key string, expires time.Duration) (string, error) {
	ctx, span := b.begin(ctx, "PresignGet", key)
	url, err := b.next.PresignGet(ctx, key, expires)
	b.end(ctx, span, "PresignGet", err)
	return url, err
}

func (b *blobs) PresignPut(ctx context.Context, key string, expires time.Duration, opts ...func(*blobstore.PutOptions)) (string, error) {
	ctx, span := b.begin(ctx, "PresignPut", key)
	url, err := b.next.PresignPut(ctx, key, expires, opts...)
	b.end(ctx, span, "PresignPut", err)
	return url, err
}
