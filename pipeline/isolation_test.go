package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// adversarialID builds an id (no ':', the table's delimiter) from pieces
// that collide when joined naively into an object key: the seed's own
// folder names, separators, dot segments, escape-like text, control bytes
// and composed and decomposed characters.
func adversarialID(r *rand.Rand) string {
	pieces := []string{
		"/1/exections/", "/1/exections/", "/1/exections/", "/", ".", "..", "%", "%2F", "%2E", "1", "exections",
		"ingest", "output.txt", "a", "a", "a", "y", "z", "-", " ", "\x00", "\n", "\\", "é", "e\u0301", "#",
	}
	var b strings.Builder
	for range 1 + r.Intn(4) {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// outputVia reads an execution's output the way a client does: through its
// presigned URL.
func outputVia(t *testing.T, s *pipeline.Store, executionID string) string {
	t.Helper()
	url, err := s.PresignOutputDownload(context.Background(), executionID)
	require.NoError(t, err, "presign %q", executionID)
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", url, body)
	return string(body)
}

func TestOutputsOfTheIssue17PairStayApart(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// Joined naively, both are pipelines/a/1/exections/y/1/exections/z/output.txt.
	pairs := [][2]string{{"a", "y/1/exections/z"}, {"a/1/exections/y", "z"}}
	for _, p := range pairs {
		_, err := e.store.Create(ctx, pipeline.Input{ID: p[0], Name: "n"})
		require.NoError(t, err)
		_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{ID: p[1], PipelineID: p[0]})
		require.NoError(t, err)
		out := "output of " + p[0] + " " + p[1]
		require.NoError(t, e.store.PutOutput(ctx, p[1], strings.NewReader(out), int64(len(out))))
	}
	for _, p := range pairs {
		assert.Equal(t, "output of "+p[0]+" "+p[1], outputVia(t, e.store, p[1]))
	}
	assert.Equal(t, 2, countObjects(t, e.blobs))
}

func TestAdversarialIDsNeverShareAnObject(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(17))
	pipelines := map[string]bool{}
	executions := map[string]string{} // execution id -> pipeline id
	add := func(pid, eid string) {
		if _, taken := executions[eid]; taken {
			return
		}
		if !pipelines[pid] {
			_, err := e.store.Create(ctx, pipeline.Input{ID: pid, Name: "n"})
			require.NoError(t, err, "create %q", pid)
			pipelines[pid] = true
		}
		_, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{ID: eid, PipelineID: pid})
		require.NoError(t, err, "execution %q of %q", eid, pid)
		executions[eid] = pid
		out := fmt.Sprintf("%q/%q", pid, eid)
		require.NoError(t, e.store.PutOutput(ctx, eid, strings.NewReader(out), int64(len(out))))
	}
	for len(executions) < 150 {
		// Random ids, and pairs built to collide when joined naively: every
		// split of a/1/exections/b/1/exections/c at a "/1/exections/" is a
		// (pipeline, execution) pair naming the same path.
		add(adversarialID(r), adversarialID(r))
		parts := []string{adversarialID(r), adversarialID(r), adversarialID(r)}
		for i := 1; i < len(parts); i++ {
			add(strings.Join(parts[:i], "/1/exections/"), strings.Join(parts[i:], "/1/exections/"))
		}
	}
	keys := map[string]bool{}
	for eid, pid := range executions {
		assert.Equal(t, fmt.Sprintf("%q/%q", pid, eid), outputVia(t, e.store, eid), "execution %q of %q", eid, pid)
		ex, err := e.store.Executions().Get(ctx, eid)
		require.NoError(t, err)
		key, err := pipeline.ExecutionOutputKey(ex)
		require.NoError(t, err)
		keys[key] = true
	}
	assert.Len(t, keys, len(executions), "distinct executions share output keys")
	assert.Equal(t, len(executions), countObjects(t, e.blobs), "an output overwrote another")
}

func TestPlainIDsKeepTheSeedsObjectKeys(t *testing.T) {
	ex := &pipeline.Execution{ID: "01JD5Z3W7Q8X9Y0ZABCDEFGHJK", PipelineID: "sap-emissions_01.v2", Version: 3}
	in, err := pipeline.ExecutionInputKey(ex)
	require.NoError(t, err)
	assert.Equal(t, "pipelines/sap-emissions_01.v2/3/exections/01JD5Z3W7Q8X9Y0ZABCDEFGHJK/input.txt", in)
	out, err := pipeline.ExecutionOutputKey(ex)
	require.NoError(t, err)
	assert.Equal(t, "pipelines/sap-emissions_01.v2/3/exections/01JD5Z3W7Q8X9Y0ZABCDEFGHJK/output.txt", out)
	ingest, err := pipeline.IngestKey("sap-emissions_01.v2", 3, time.Date(2022, 8, 10, 23, 55, 20, 323_000_000, time.UTC), "01JD5Z3W7Q8X9Y0ZABCDEFGHJM")
	require.NoError(t, err)
	assert.Equal(t, "pipelines/sap-emissions_01.v2/3/ingest/sap-emissions_01.v2-3-20220810T235520.323Z-01JD5Z3W7Q8X9Y0ZABCDEFGHJM.txt", ingest)
	_, err = pipeline.IngestKey("sap-emissions_01.v2", 3, time.Time{}, "")
	assert.ErrorIs(t, err, table.ErrInvalidInput, "an ingest key needs an upload id")
	_, err = pipeline.ExecutionOutputKey(nil)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
}

func TestExecutionCannotTakeAnotherPipelinesInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, id := range []string{"a", "a/1/ingest"} {
		_, err := e.store.Create(ctx, pipeline.Input{ID: id, Name: "n"})
		require.NoError(t, err)
	}
	// Pipeline "a/1/ingest"'s upload, which a prefix check for "pipelines/a/1/ingest/" would take for a's.
	up, err := e.store.PresignInputUpload(ctx, "a/1/ingest", 1)
	require.NoError(t, err)
	require.NoError(t, e.blobs.Put(ctx, up.Key, strings.NewReader("theirs")))
	for _, key := range []string{up.Key, "pipelines/a/1/ingest/a%2F1%2Fingest/x.txt", "pipelines/a/1/ingest/../x.txt", "pipelines/a/01/ingest/x.txt"} {
		_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "a", InputKey: key})
		assert.ErrorIs(t, err, table.ErrInvalidInput, "input key %q", key)
	}
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: "a/1/ingest", InputKey: up.Key})
	assert.NoError(t, err, "the owner's own upload")
}

func TestIDsTooLongForAnObjectKeyAreRefusedBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	plain := strings.Repeat("x", 200)
	_, err := e.store.Create(ctx, pipeline.Input{ID: plain, Name: "n"})
	require.NoError(t, err, "a plain id of 200 bytes escapes to itself")
	e.db.ResetCalls()
	_, err = e.store.Create(ctx, pipeline.Input{ID: strings.Repeat("/", 100), Name: "n"})
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{ID: strings.Repeat("é", 50), PipelineID: plain})
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	assert.Zero(t, e.calls())
	var ke *blobstore.KeyError
	_, err = pipeline.IngestKey(strings.Repeat("/", 80), 1, start, "u1")
	assert.ErrorAs(t, err, &ke)
}

// Two uploads presigned in one millisecond of the store's clock get two
// keys: the seed's timestamp alone would give them one, and the second PUT
// would replace the first file.
func TestUploadsPresignedInOneMillisecondGetTwoKeys(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{Name: "n"})
	require.NoError(t, err)
	first, err := e.store.PresignInputUpload(ctx, p.ID, 0)
	require.NoError(t, err)
	second, err := e.store.PresignInputUpload(ctx, p.ID, 0)
	require.NoError(t, err)
	assert.NotEqual(t, first.Key, second.Key)
	require.NoError(t, e.blobs.Put(ctx, first.Key, strings.NewReader("first")))
	require.NoError(t, e.blobs.Put(ctx, second.Key, strings.NewReader("second")))
	a, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: first.Key})
	require.NoError(t, err)
	b, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: second.Key})
	require.NoError(t, err)
	assert.NotEqual(t, a.InputKey, b.InputKey)
}
