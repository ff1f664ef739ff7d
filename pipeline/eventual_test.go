package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
)

// TestCallsThatActOnARecordFindOneWrittenAMomentBefore: on DynamoDB a read
// without ConsistentRead may miss a write made a moment before; the fake's
// eventual mode (a one-second lag here, on a clock that stands still) does
// too. A worker's PutOutput right after CreateExecution, a download right
// after it, and an upload presigned for the version an Update just wrote
// must not answer ErrNotFound.
func TestCallsThatActOnARecordFindOneWrittenAMomentBefore(t *testing.T) {
	t.Setenv(dynamotest.EventualEnv, "1s")
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"})
	require.NoError(t, err)
	p, err = e.store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "renamed"})
	require.NoError(t, err)
	_, err = e.store.PresignInputUpload(ctx, p.ID, p.Version)
	require.NoError(t, err, "the version Update wrote a moment before")

	ex, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: p.ID})
	require.NoError(t, err)
	require.NoError(t, e.store.PutOutput(ctx, ex.ID, strings.NewReader("output"), 6), "the execution created a moment before")
	_, err = e.store.PresignOutputDownload(ctx, ex.ID)
	require.NoError(t, err)
}
