package pipeline_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

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
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT %s: %s %s", u.Key, resp.Status, b)
	}
}

func TestExecutionRoundTripWithFiles(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"})
	require.NoError(t, err)
	if _, err := e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "n2"}); err != nil {
		t.Fatal(err)
	}
	up, err := e.store.PresignInputUpload(ctx, p.ID, 0)
	require.NoError(t, err)
	if want := "pipelines/p1/2/ingest/p1-2-20220810T235520."; !strings.HasPrefix(up.Key, want) || !strings.HasSuffix(up.Key, "Z.txt") {
		t.Fatalf("ingest key %s, want %s...Z.txt", up.Key, want)
	}
	upload(t, up, "a,b,c\n1,2,3\n")

	ex, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{ID: "e1", PipelineID: p.ID, InputKey: up.Key, CreatedBy: "abc@xyz.com"})
	require.NoError(t, err)
	if ex.Version != 2 || ex.State != pipeline.ExecutionCreated || ex.InputKey != "pipelines/p1/2/exections/e1/input.txt" {
		t.Fatalf("execution %+v", ex)
	}
	body, _, err := e.blobs.Get(ctx, ex.InputKey)
	require.NoError(t, err)
	copied, _ := io.ReadAll(body)
	body.Close()
	if string(copied) != "a,b,c\n1,2,3\n" {
		t.Fatalf("copied input %q", copied)
	}
	got, err := e.store.GetExecution(ctx, "e1")
	if err != nil || *got != *ex {
		t.Fatalf("GetExecution %+v %v, want %+v", got, err, ex)
	}

	if _, err := e.store.PresignOutputDownload(ctx, "e1"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("download before any output: %v", err)
	}
	require.NoError(t, e.store.PutOutput(ctx, "e1", bytes.NewReader([]byte("result")), 6))
	url, err := e.store.PresignOutputDownload(ctx, "e1")
	require.NoError(t, err)
	resp, err := http.Get(url)
	require.NoError(t, err)
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(out) != "result" {
		t.Fatalf("download: %s %q", resp.Status, out)
	}
	if _, _, err := e.blobs.Get(ctx, "pipelines/p1/2/exections/e1/output.txt"); err != nil {
		t.Fatalf("output not at the seed's key: %v", err)
	}
}

func TestCreateExecutionOfMissingVersionWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot(t)
	if _, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: "p1", Version: 3}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("execution of version 3: %v", err)
	}
	if _, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: "nope"}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("execution of a missing pipeline: %v", err)
	}
	if _, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: "p1", InputKey: "pipelines/p1/1/ingest/never-uploaded.txt"}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("execution with a missing input: %v", err)
	}
	if after := e.snapshot(t); len(after) != len(before) {
		t.Fatal("a refused execution wrote something")
	}
}

func TestExecutionsListsOnlyThatPipelinesExecutions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if _, err := e.store.Create(ctx, pipeline.Input{ID: id, Name: "n"}); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i := range 7 {
		pid := "a"
		if i%3 == 2 {
			pid = "b"
		}
		ex, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: pid})
		require.NoError(t, err)
		if pid == "a" {
			want = append(want, ex.ID)
		}
	}
	var got []string
	cursor := ""
	for {
		page, err := e.store.ListExecutions(ctx, "a", cursor, pipeline.Limit(2))
		require.NoError(t, err)
		for _, ex := range page.Items {
			got = append(got, ex.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("executions of a: %v, want %v (creation order)", got, want)
	}
	n := 0
	for ex, err := range e.store.Executions(ctx, "b") {
		if err != nil || ex.PipelineID != "b" {
			t.Fatal(ex, err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("b has %d executions, want 2", n)
	}
	// Executions carry siKey1 P:<id> and current items siKey1 P: neither
	// listing shows the other's items.
	page, err := e.store.ListPipelines(ctx, "")
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("List after executions: %d %v", len(page.Items), err)
	}
}

func TestPresignInputUploadChecksTheVersion(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.store.Create(ctx, pipeline.Input{ID: "p1", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PresignInputUpload(ctx, "p1", 2); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("upload for version 2: %v", err)
	}
	up, err := e.store.PresignInputUpload(ctx, "p1", 1)
	if err != nil || up.Header.Get("Content-Type") != "text/plain" || !up.Expires.After(e.clock.Now()) {
		t.Fatalf("upload %+v %v", up, err)
	}
	// The input of p1 cannot feed an execution of another pipeline.
	if _, err := e.store.Create(ctx, pipeline.Input{ID: "p2", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	e.db.ResetCalls()
	if _, err := e.store.CreateExecution(ctx, pipeline.ExecutionInput{PipelineID: "p2", Version: 1, InputKey: up.Key}); err == nil || errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("foreign input: %v", err)
	}
	if e.calls() != 0 {
		t.Fatal("a foreign input key reached DynamoDB")
	}
}

func TestFileCallsWithoutBlobStoreAreUnsupported(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := newStore(t, e.db, nil)
	if _, err := s.PresignInputUpload(ctx, "p", 1); !errors.Is(err, blobstore.ErrUnsupported) {
		t.Fatal("presign without a blob store")
	}
	if _, err := s.PresignOutputDownload(ctx, "e"); !errors.Is(err, blobstore.ErrUnsupported) {
		t.Fatal("download without a blob store")
	}
	if err := s.PutOutput(ctx, "e", strings.NewReader("x"), 1); !errors.Is(err, blobstore.ErrUnsupported) {
		t.Fatal("output without a blob store")
	}
}
