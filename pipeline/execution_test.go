package pipeline_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
)

// upload sends body to a presigned input URL the way any HTTP client would.
func upload(t testing.TB, u *pipeline.Upload, body string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, u.URL, strings.NewReader(body))
	require.NoError(t, err)
	for k, vs := range u.Header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "PUT %s: %s %s", u.Key, resp.Status, b)
}

func TestExecutionRoundTripWithFiles(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"})
	require.NoError(t, err)
	_, err = e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "n2"})
	require.NoError(t, err)
	up, err := e.store.PresignInputUpload(ctx, p.ID, 0)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(up.Key, "pipelines/p1/2/ingest/p1-2-20220810T235520."), "ingest key %s", up.Key)
	assert.Regexp(t, `Z-[0-9A-Z]{26}\.txt$`, up.Key, "the ingest key ends in the upload's id")
	upload(t, up, "a,b,c\n1,2,3\n")

	ex, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: p.ID, InputKey: up.Key, CreatedBy: "abc@xyz.com"})
	require.NoError(t, err)
	assert.Equal(t, 2, ex.Version)
	assert.Equal(t, pipeline.ExecutionCreated, ex.State)
	require.Equal(t, "pipelines/p1/2/exections/e1/input.txt", ex.InputKey)
	body, _, err := e.blobs.Get(ctx, ex.InputKey)
	require.NoError(t, err)
	copied, _ := io.ReadAll(body)
	body.Close()
	assert.Equal(t, "a,b,c\n1,2,3\n", string(copied), "copied input")
	got, err := e.store.Executions().Get(ctx, "e1")
	require.NoError(t, err)
	assert.Equal(t, *ex, *got)

	_, err = e.store.PresignOutputDownload(ctx, "e1")
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "download before any output")
	require.NoError(t, e.store.PutOutput(ctx, "e1", bytes.NewReader([]byte("result")), 6))
	url, err := e.store.PresignOutputDownload(ctx, "e1")
	require.NoError(t, err)
	resp, err := http.Get(url)
	require.NoError(t, err)
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "result", string(out), "download")
	_, _, err = e.blobs.Get(ctx, "pipelines/p1/2/exections/e1/output.txt")
	assert.NoError(t, err, "output at the seed's key")
}

func TestCreateExecutionOfMissingVersionWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"})
	require.NoError(t, err)
	before := e.snapshot(t)
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "p1", Version: 3})
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "execution of version 3")
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "nope"})
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "execution of a missing pipeline")
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "p1", InputKey: "pipelines/p1/1/ingest/never-uploaded.txt"})
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "execution with a missing input")
	assert.Len(t, e.snapshot(t), len(before), "a refused execution wrote nothing")
}

func TestExecutionsListsOnlyThatPipelinesExecutions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		_, err := e.store.Create(ctx, pipeline.Input{ID: id, Name: "n"})
		require.NoError(t, err)
	}
	var want []string
	for i := range 7 {
		pid := "a"
		if i%3 == 2 {
			pid = "b"
		}
		e.db.Advance(time.Millisecond) // each execution in its own millisecond, as the default ULIDs order them
		ex, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: pid})
		require.NoError(t, err)
		if pid == "a" {
			want = append(want, ex.ID)
		}
	}
	var got []string
	cursor := ""
	for {
		page, err := e.store.Executions().List("a", pipeline.Limit(2)).Page(ctx, cursor)
		require.NoError(t, err)
		for _, ex := range page.Items {
			got = append(got, ex.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, want, got, "executions of a in creation order")
	n := 0
	for ex, err := range e.store.Executions().List("b").All(ctx) {
		require.NoError(t, err)
		assert.Equal(t, "b", ex.PipelineID)
		n++
	}
	assert.Equal(t, 2, n, "b's executions")
	// Executions carry siKey1 P:<id> and current items siKey1 P: neither
	// listing shows the other's items.
	page, err := e.store.Pipelines().List().Page(ctx, "")
	require.NoError(t, err)
	assert.Len(t, page.Items, 2, "List after executions")
}

func TestPresignInputUploadChecksTheVersion(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"})
	require.NoError(t, err)
	_, err = e.store.PresignInputUpload(ctx, "p1", 2)
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "upload for version 2")
	up, err := e.store.PresignInputUpload(ctx, "p1", 1)
	require.NoError(t, err)
	assert.Equal(t, "text/plain", up.Header.Get("Content-Type"))
	assert.True(t, up.Expires.After(e.db.Now()), "expires %v", up.Expires)
	// The input of p1 cannot feed an execution of another pipeline.
	_, err = e.store.Create(ctx, pipeline.Input{ID: "p2", Name: "n"})
	require.NoError(t, err)
	e.db.ResetCalls()
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "p2", Version: 1, InputKey: up.Key})
	require.Error(t, err, "foreign input")
	assert.NotErrorIs(t, err, pipeline.ErrNotFound, "foreign input")
	assert.Zero(t, e.calls(), "a foreign input key reached DynamoDB")
}

func TestFileCallsWithoutBlobStoreAreUnsupported(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := newStore(t, e.db, nil)
	_, err := s.PresignInputUpload(ctx, "p", 1)
	assert.ErrorIs(t, err, blobstore.ErrUnsupported, "presign without a blob store")
	_, err = s.PresignOutputDownload(ctx, "e")
	assert.ErrorIs(t, err, blobstore.ErrUnsupported, "download without a blob store")
	err = s.PutOutput(ctx, "e", strings.NewReader("x"), 1)
	assert.ErrorIs(t, err, blobstore.ErrUnsupported, "output without a blob store")
}
