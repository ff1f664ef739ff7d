package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/pipeline"
)

func TestEveryStoreCallIsOneSpanWithItsError(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	e := newEnv(t)
	s := newStore(t, e.db, e.blobs, pipeline.Clock(e.db.Now), pipeline.TracerProvider(tp))
	ctx := context.Background()

	p, err := s.Create(ctx, pipeline.Input{ID: "traced", Name: "n", Tags: []pipeline.Tag{{Key: "k", Value: "v"}}})
	require.NoError(t, err)
	up, err := s.PresignInputUpload(ctx, p.ID, 0)
	require.NoError(t, err)
	require.NoError(t, e.blobs.Put(ctx, up.Key, strings.NewReader("input")))
	ex, err := s.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: up.Key})
	require.NoError(t, err)
	_, err = s.Executions().Start(ctx, ex.ID)
	require.NoError(t, err)
	_, err = s.Get(ctx, "nosuch")
	require.ErrorIs(t, err, pipeline.ErrNotFound)
	require.NoError(t, s.Delete(ctx, p.ID))

	byName := map[string]sdktrace.ReadOnlySpan{}
	var names []string
	for _, sp := range spans.Ended() {
		if sp.Parent().IsValid() {
			continue
		}
		names = append(names, sp.Name())
		byName[sp.Name()] = sp
	}
	assert.Equal(t, []string{"pipeline.Create", "pipeline.PresignInputUpload", "pipeline.Executions.Create",
		"pipeline.Executions.Start", "pipeline.Get", "pipeline.Delete"}, names, "one top-level span per call, in order")
	assert.Equal(t, codes.Error, byName["pipeline.Get"].Status().Code, "the failed call's span records its error")
	assert.NotEqual(t, codes.Error, byName["pipeline.Create"].Status().Code)
	var children []string
	for _, sp := range spans.Ended() {
		if sp.Parent().SpanID() == byName["pipeline.Delete"].SpanContext().SpanID() {
			children = append(children, sp.Name())
		}
	}
	assert.Contains(t, children, "pipeline.Executions.List", "calls a call makes nest under it")
}
