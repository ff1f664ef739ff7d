package tasks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestEveryStoreCallIsOneSpanAndARefusedOneRecordsItsError(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	f := newFixture(t, tasks.TracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
	ctx := context.Background()

	f.submit(t, "resize")
	c := f.claim(t, "worker-1")
	lease, err := f.store.Heartbeat(ctx, c.Lease)
	require.NoError(t, err)
	require.NoError(t, f.store.Complete(ctx, lease, nil))
	_, err = f.store.Fail(ctx, c.Lease, "too late") // the spent lease: refused
	require.ErrorIs(t, err, tasks.ErrLeaseLost)

	var names []string
	for _, s := range spans.Ended() {
		if s.Name() != "tasks.EnsureTable" {
			names = append(names, s.Name())
		}
	}
	assert.Equal(t, []string{"tasks.Submit", "tasks.Claim", "tasks.Heartbeat", "tasks.Complete", "tasks.Fail"}, names)
	last := spans.Ended()[len(spans.Ended())-1]
	assert.Equal(t, codes.Error, last.Status().Code)
	assert.Contains(t, last.Status().Description, "lease")
}

func TestANilStoreWithTracingReturnsItsErrorWithoutPanicking(t *testing.T) {
	var s *tasks.Store
	assert.NotPanics(t, func() {
		_, err := s.Claim(context.Background(), "worker-1")
		assert.ErrorIs(t, err, table.ErrInvalidInput)
	})
}
