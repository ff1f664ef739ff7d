package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// storeCall is a store method as every store writes one: a span around the
// call, ended with the call's error.
func storeCall(ctx context.Context, t *table.Table, fail error) (err error) {
	ctx, span := t.Start(ctx, "things.Save")
	defer span.End(&err)
	if err := t.Put(ctx, Job{UserID: "USER#1", JobID: "JOB#1", Status: "queued"}); err != nil {
		return err
	}
	return fail
}

func TestStartWithoutTracingReturnsTheContextUnchangedAndAllocatesNothing(t *testing.T) {
	tbl := table.New(dynamotest.New(), jobs)
	ctx := context.Background()

	got, span := tbl.Start(ctx, "things.Save")
	assert.Equal(t, ctx, got, "the caller's context comes back as it was")
	assert.Empty(t, table.OperationFromContext(got))

	allocs := testing.AllocsPerRun(100, func() {
		_, span := tbl.Start(ctx, "things.Save")
		var err error
		span.End(&err)
	})
	assert.Zero(t, allocs, "tracing off must cost no allocation")
	span.End(nil)
}

func TestStartSpansOneStoreCallAndRecordsItsError(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	db := dynamotest.New()
	require.NoError(t, jobs.EnsureTable(context.Background(), db))
	tbl := table.New(db, jobs, table.TracerProvider(tp))

	require.NoError(t, storeCall(context.Background(), tbl, nil))
	boom := errors.New("handler refused")
	require.ErrorIs(t, storeCall(context.Background(), tbl, boom), boom)

	ended := spans.Ended()
	require.Len(t, ended, 2)
	for _, s := range ended {
		assert.Equal(t, "things.Save", s.Name())
		assert.Contains(t, s.Attributes(), semconvCollection(jobs.Name))
	}
	assert.Equal(t, codes.Unset, ended[0].Status().Code)
	assert.Equal(t, codes.Error, ended[1].Status().Code)
	assert.Equal(t, boom.Error(), ended[1].Status().Description)
	require.Len(t, ended[1].Events(), 1, "the error is recorded as an exception event")
}

func TestStartRecordsTheOperationForTheSpanAndNilInputsDoNotPanic(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	tbl := table.New(dynamotest.New(), jobs, table.TracerProvider(tp))

	ctx, span := tbl.Start(context.Background(), "things.Save")
	assert.Equal(t, "things.Save", table.OperationFromContext(ctx))
	span.End(nil)

	var nilTable *table.Table
	assert.NotPanics(t, func() {
		ctx, span := nilTable.Start(context.Background(), "x")
		span.End(nil)
		assert.NotNil(t, ctx)
		// A nil context is what this checks: it comes back nil, no span.
		got, span2 := tbl.Start(nil, "x")
		assert.Nil(t, got)
		span2.End(nil)
		assert.Empty(t, table.OperationFromContext(nil))
	})
}

func semconvCollection(name string) attribute.KeyValue {
	return attribute.String("db.collection.name", name)
}

// BenchmarkStart is the cost of a store call's span: none when tracing is
// off, one recorded span when on.
//
//	go test -run '^$' -bench Start -benchmem ./table
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		opts []func(*table.Options)
	}{
		{"off", nil},
		{"sdk", []func(*table.Options){table.TracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder())))}},
	} {
		tbl := table.New(dynamotest.New(), jobs, bc.opts...)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, span := tbl.Start(ctx, "things.Save")
				var err error
				span.End(&err)
			}
		})
	}
}
