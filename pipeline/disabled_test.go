package pipeline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// A disabled pipeline (state "disabled", the seed's state attribute) takes
// no new executions. The refusal is a condition of the execution's own
// transaction, so a pipeline disabled between CreateExecution's read and
// its write is refused as well; a refused execution leaves nothing behind:
// no item, no reference, no input copy.

func TestCreateExecutionOfADisabledPipelineIsRefusedAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	disabledTakesNoExecutions(t, e.store, e.blobs)
}

func TestIntegrationCreateExecutionOfADisabledPipelineIsRefusedAndWritesNothing(t *testing.T) {
	store, _, files := localEnv(t, nil)
	disabledTakesNoExecutions(t, store, files)
}

func TestCreateExecutionOfAPipelineDisabledAfterItsReadIsRefused(t *testing.T) {
	e := newEnv(t)
	disabledBetweenReadAndWrite(t, e.store, func(api *laggingIndex) *pipeline.Store {
		return newStore(t, api, e.blobs, pipeline.Clock(e.db.Now))
	}, e.db)
}

func TestIntegrationCreateExecutionOfAPipelineDisabledAfterItsReadIsRefused(t *testing.T) {
	var hooked *laggingIndex
	store, client, files := localEnv(t, func(api table.API) table.API {
		hooked = &laggingIndex{API: api}
		return hooked
	})
	healthy := newStore(t, client, files, pipeline.TableName(store.Table().Name()))
	disabledBetweenReadAndWrite(t, healthy, func(api *laggingIndex) *pipeline.Store {
		hooked.beforeWrite = api.beforeWrite
		return store
	}, nil)
}

// disabledTakesNoExecutions disables a pipeline and asks it for
// executions every way there is: the current version (read first), a
// version by number (no read), with an uploaded input. Each is refused
// with a *DisabledError and writes nothing; enabled again, it takes them.
func disabledTakesNoExecutions(t *testing.T, store *pipeline.Store, blobs blobstore.Store) {
	t.Helper()
	ctx := context.Background()
	p, err := store.Create(ctx, pipeline.Input{ID: "p-off", Name: "n"})
	require.NoError(t, err)
	up, err := store.PresignInputUpload(ctx, p.ID, 1)
	require.NoError(t, err)
	upload(t, up, "a,b\n")
	p, err = store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "n", State: pipeline.StateDisabled})
	require.NoError(t, err)
	before := tableSnapshot(t, store)
	objects := objectKeys(t, blobs, "pipelines/p-off/")

	for name, in := range map[string]pipeline.ExecutionInput{
		"current version":   {PipelineID: p.ID, ID: "e-current"},
		"version 1":         {PipelineID: p.ID, ID: "e-v1", Version: 1},
		"version 2":         {PipelineID: p.ID, ID: "e-v2", Version: 2},
		"version 1, input":  {PipelineID: p.ID, ID: "e-input", Version: 1, InputKey: up.Key},
		"current, no input": {PipelineID: p.ID},
	} {
		ex, err := store.Executions().Create(ctx, in)
		var de *pipeline.DisabledError
		require.ErrorAs(t, err, &de, name)
		assert.ErrorIs(t, err, pipeline.ErrDisabled, name)
		assert.Equal(t, p.ID, de.PipelineID, name)
		assert.Nil(t, ex, name)
		if in.Version != 0 {
			assert.ErrorIs(t, err, table.ErrConditionFailed, "%s: refused by the transaction's condition", name)
		}
	}
	assert.Equal(t, before, tableSnapshot(t, store), "a disabled pipeline's refused executions wrote nothing")
	assert.Equal(t, objects, objectKeys(t, blobs, "pipelines/p-off/"), "and left no input copy")

	p, err = store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "n", State: pipeline.StateEnabled})
	require.NoError(t, err)
	ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, Version: 1, InputKey: up.Key})
	require.NoError(t, err, "enabled again, it takes executions")
	assert.Equal(t, pipeline.ExecutionCreated, ex.State)
}

// disabledBetweenReadAndWrite disables a pipeline after CreateExecution
// read it as enabled and before its transaction: the transaction refuses.
// healthy is a store that sends requests unhooked; hooked makes a store
// whose requests go through api, whose beforeWrite runs before each
// write. db, when not nil, is what api wraps.
func disabledBetweenReadAndWrite(t *testing.T, healthy *pipeline.Store, hooked func(*laggingIndex) *pipeline.Store, db table.API) {
	t.Helper()
	ctx := context.Background()
	p, err := healthy.Create(ctx, pipeline.Input{ID: "p-race", Name: "n"})
	require.NoError(t, err)
	api := &laggingIndex{API: db}
	var disableErr error
	api.beforeWrite = func(n int) {
		if n == 1 { // CreateExecution has read the pipeline: enabled, version 1
			_, disableErr = healthy.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "n", State: pipeline.StateDisabled})
		}
	}
	store := hooked(api)
	before := tableSnapshot(t, healthy)
	ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, ID: "e-late"})
	require.NoError(t, disableErr, "the pipeline was disabled between the read and the write")
	require.ErrorIs(t, err, pipeline.ErrDisabled)
	assert.ErrorIs(t, err, table.ErrConditionFailed, "refused by the transaction's condition, not by the read")
	assert.Nil(t, ex)
	after := tableSnapshot(t, healthy)
	_, err = healthy.Executions().Get(ctx, "e-late")
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
	assert.Len(t, after, len(before)+1, "the refused execution wrote nothing; the update wrote its version")
}

// tableSnapshot is every item of the store's table rendered as text, keyed
// by pk and sk.
func tableSnapshot(t testing.TB, store *pipeline.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for it, err := range table.ScanAll[map[string]any](context.Background(), store.Table(), table.Scan{Consistent: true}) {
		require.NoError(t, err)
		out[fmt.Sprint(it["pk"], "|", it["sk"])] = fmt.Sprint(it)
	}
	return out
}

// objectKeys lists the blob store's keys under prefix.
func objectKeys(t testing.TB, blobs blobstore.Store, prefix string) []string {
	t.Helper()
	var keys []string
	for o, err := range blobs.List(context.Background(), prefix) {
		require.NoError(t, err)
		keys = append(keys, o.Key)
	}
	return keys
}
