package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// laggingIndex is a table.API whose GSI-1 does not show the executions
// hide picks yet, as GSI-1 may for a moment after they were written (index
// updates propagate asynchronously; index reads are eventually
// consistent). Before its writes it runs beforeWrite with the write's
// number, so a test can slip another caller's request between a Delete's
// reads and its writes.
type laggingIndex struct {
	table.API
	hide        func(pk string) bool
	mu          sync.Mutex
	writes      int
	beforeWrite func(n int)
}

func (a *laggingIndex) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := a.API.Query(ctx, in, o...)
	if err != nil || aws.ToString(in.IndexName) != pipeline.IndexGSI1 || a.hide == nil {
		return out, err
	}
	shown := out.Items[:0:0]
	for _, it := range out.Items {
		if pk, ok := it["pk"].(*types.AttributeValueMemberS); ok && a.hide(pk.Value) {
			continue
		}
		shown = append(shown, it)
	}
	out.Items, out.Count = shown, int32(len(shown))
	return out, nil
}

func (a *laggingIndex) write() {
	a.mu.Lock()
	a.writes++
	n, hook := a.writes, a.beforeWrite
	a.mu.Unlock()
	if hook != nil {
		hook(n)
	}
}

func (a *laggingIndex) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	a.write()
	return a.API.PutItem(ctx, in, o...)
}

func (a *laggingIndex) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	a.write()
	return a.API.UpdateItem(ctx, in, o...)
}

func (a *laggingIndex) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	a.write()
	return a.API.DeleteItem(ctx, in, o...)
}

func (a *laggingIndex) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.write()
	return a.API.BatchWriteItem(ctx, in, o...)
}

func (a *laggingIndex) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	a.write()
	return a.API.TransactWriteItems(ctx, in, o...)
}

// seedExecutionPK is the pk of an execution written the way a service
// following the seed writes it: no reference in the pipeline's partition,
// so only GSI-1 lists it.
const seedExecutionPrefix = "PE:seed-"

// hideNewExecutions hides every execution from GSI-1 but those written as
// the seed writes them: Delete has only the references to find them by.
func hideNewExecutions(pk string) bool {
	return strings.HasPrefix(pk, "PE:") && !strings.HasPrefix(pk, seedExecutionPrefix)
}

// putSeedExecution writes an execution of pipeline id as a service following
// the seed does: the execution item alone.
func putSeedExecution(t *testing.T, s *pipeline.Store, id, round string) {
	t.Helper()
	it, err := table.Marshal(map[string]any{"pk": seedExecutionPrefix + round, "sk": "PE:P", "siKey1": "P:" + id,
		"version": 1, "state": "created", "createdAt": "2022-08-10T23:55:20.322Z", "updatedAt": "2022-08-10T23:55:20.322Z"})
	require.NoError(t, err)
	require.NoError(t, s.Table().Put(context.Background(), it))
}

// deleteRacingCreateExecution runs one round: a Delete through an index
// that shows none of the pipeline's recent executions, with a
// CreateExecution slipped in before Delete's injectAt-th write. The
// creation succeeds before the mark (the first write) and is refused
// after it; either way nothing of the pipeline is left.
func deleteRacingCreateExecution(t *testing.T, healthy *pipeline.Store, lagging func(*laggingIndex) *pipeline.Store, db table.API, blobs blobstore.Store, round string, injectAt int) int {
	t.Helper()
	ctx := context.Background()
	w := buildDeleteWorld(t, healthy, blobs, round)
	putSeedExecution(t, healthy, w.victim.ID, round)
	var injected *pipeline.Execution
	var injectErr error
	api := &laggingIndex{API: db, hide: hideNewExecutions}
	api.beforeWrite = func(n int) {
		if n == injectAt {
			injected, injectErr = healthy.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: w.victim.ID, Version: 1, ID: "late-" + round})
		}
	}
	require.NoError(t, lagging(api).Delete(ctx, w.victim.ID))
	switch {
	case injectAt == 1:
		require.NoError(t, injectErr, "created before the mark")
		require.NotNil(t, injected)
		_, err := healthy.Executions().Get(ctx, injected.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "the execution created just before Delete's mark is deleted with the pipeline")
	case injectAt > 1 && injectAt <= api.writes:
		assert.ErrorIs(t, injectErr, pipeline.ErrNotFound, "no execution is created once Delete has begun")
		assert.Nil(t, injected)
	}
	w.checkDeleted(t, healthy, blobs)
	return api.writes
}

func TestDeleteRemovesExecutionsGSI1DoesNotShowYet(t *testing.T) {
	e := newEnv(t)
	lagging := func(a *laggingIndex) *pipeline.Store {
		return newStore(t, a, e.blobs, pipeline.Clock(e.db.Now))
	}
	writes := deleteRacingCreateExecution(t, e.store, lagging, e.db, e.blobs, "lag0", 0)
	for k := 1; k <= writes; k++ {
		deleteRacingCreateExecution(t, e.store, lagging, e.db, e.blobs, fmt.Sprintf("lag%d", k), k)
	}
}

func TestIntegrationDeleteRacingCreateExecutionLeavesNoExecution(t *testing.T) {
	store, client, files := localEnv(t, nil)
	name := store.Table().Name()
	lagging := func(a *laggingIndex) *pipeline.Store {
		return newStore(t, a, files, pipeline.TableName(name))
	}
	writes := deleteRacingCreateExecution(t, store, lagging, client, files, "lag0", 0)
	for _, k := range []int{1, 2, 3, writes} {
		deleteRacingCreateExecution(t, store, lagging, client, files, fmt.Sprintf("lag%d", k), k)
	}
}

// blobHooks runs beforePut before the first Put of a key ending in suffix
// and fails the Delete of such keys when failDelete is set.
type blobHooks struct {
	blobstore.Store
	suffix     string
	beforePut  func()
	once       sync.Once
	failDelete bool
}

func (b *blobHooks) Put(ctx context.Context, key string, body io.Reader, opts ...func(*blobstore.PutOptions)) error {
	if strings.HasSuffix(key, b.suffix) && b.beforePut != nil {
		b.once.Do(b.beforePut)
	}
	return b.Store.Put(ctx, key, body, opts...)
}

func (b *blobHooks) Delete(ctx context.Context, key string) error {
	if b.failDelete && strings.HasSuffix(key, b.suffix) {
		return errInjected
	}
	return b.Store.Delete(ctx, key)
}

// victimObjects lists the objects under the victim's files prefix.
func victimObjects(t *testing.T, blobs blobstore.Store, w *deleteWorld) []string {
	t.Helper()
	var out []string
	for info, err := range blobs.List(context.Background(), "pipelines/") {
		require.NoError(t, err)
		if !strings.HasPrefix(info.Key, "pipelines/"+w.keep.ID+"/") && strings.Contains(info.Key, w.round) {
			out = append(out, info.Key)
		}
	}
	return out
}

func TestCreateExecutionCopyingAfterDeleteSweptLeavesNoInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := buildDeleteWorld(t, e.store, e.blobs, "copy")
	up, err := e.store.PresignInputUpload(ctx, w.victim.ID, 0)
	require.NoError(t, err)
	require.NoError(t, e.blobs.Put(ctx, up.Key, strings.NewReader("input")))
	// CreateExecution has read the input; its copy lands after a whole
	// Delete, sweep included.
	hooks := &blobHooks{Store: e.blobs, suffix: "/input.txt", beforePut: func() {
		require.NoError(t, e.store.Delete(ctx, w.victim.ID))
	}}
	s := newStore(t, e.db, hooks, pipeline.Clock(e.db.Now))
	_, err = s.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: w.victim.ID, InputKey: up.Key})
	require.ErrorIs(t, err, pipeline.ErrNotFound)
	assert.Empty(t, victimObjects(t, e.blobs, w), "the refused execution's input copy is removed")
	w.checkDeleted(t, e.store, e.blobs)
}

func TestDeleteAgainRemovesFilesThatArrivedAfterItsSweep(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := buildDeleteWorld(t, e.store, e.blobs, "late")
	up, err := e.store.PresignInputUpload(ctx, w.victim.ID, 0)
	require.NoError(t, err)
	require.NoError(t, e.blobs.Put(ctx, up.Key, strings.NewReader("input")))
	late, err := e.store.PresignInputUpload(ctx, w.victim.ID, 0)
	require.NoError(t, err)
	// The copy lands after Delete's sweep and cannot be removed by
	// CreateExecution either (its blob store fails the delete).
	hooks := &blobHooks{Store: e.blobs, suffix: "/input.txt", failDelete: true, beforePut: func() {
		require.NoError(t, e.store.Delete(ctx, w.victim.ID))
	}}
	s := newStore(t, e.db, hooks, pipeline.Clock(e.db.Now))
	_, err = s.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: w.victim.ID, InputKey: up.Key})
	require.ErrorIs(t, err, pipeline.ErrNotFound)
	// A presigned upload handed out before the Delete, used after it.
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, late.URL, strings.NewReader("late input"))
	require.NoError(t, err)
	req.Header = late.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, victimObjects(t, e.blobs, w), 2, "the orphaned copy and the late upload")

	require.NoError(t, e.store.Delete(ctx, w.victim.ID), "Delete of a pipeline already gone")
	assert.Empty(t, victimObjects(t, e.blobs, w))
	w.checkDeleted(t, e.store, e.blobs)
}
