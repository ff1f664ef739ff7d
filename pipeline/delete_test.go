package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

var errInjected = errors.New("injected failure")

// faults counts every write to DynamoDB and every object deletion, and
// fails the failAt-th (never, when failAt is 0), so a test can stop a
// Delete after any of its steps.
type faults struct {
	n      atomic.Int32
	failAt int32
}

func (f *faults) next() error {
	if n := f.n.Add(1); n == f.failAt {
		return fmt.Errorf("write %d: %w", n, errInjected)
	}
	return nil
}

type faultyAPI struct {
	table.API
	f *faults
}

func (a faultyAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := a.f.next(); err != nil {
		return nil, err
	}
	return a.API.PutItem(ctx, in, o...)
}

func (a faultyAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := a.f.next(); err != nil {
		return nil, err
	}
	return a.API.UpdateItem(ctx, in, o...)
}

func (a faultyAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := a.f.next(); err != nil {
		return nil, err
	}
	return a.API.DeleteItem(ctx, in, o...)
}

func (a faultyAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := a.f.next(); err != nil {
		return nil, err
	}
	return a.API.BatchWriteItem(ctx, in, o...)
}

func (a faultyAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := a.f.next(); err != nil {
		return nil, err
	}
	return a.API.TransactWriteItems(ctx, in, o...)
}

type faultyBlobs struct {
	blobstore.Store
	f *faults
}

func (b faultyBlobs) Delete(ctx context.Context, key string) error {
	if err := b.f.next(); err != nil {
		return err
	}
	return b.Store.Delete(ctx, key)
}

// deleteWorld is a pipeline to delete and one to keep, sharing some tags,
// with versions (one in the seed's unpadded form), groups, executions and
// files. Tag keys carry the round's name, so rounds on one table do not
// share counts.
type deleteWorld struct {
	round        string
	victim, keep *pipeline.Pipeline
	victimExecs  []string
	keepExec     string
}

func buildDeleteWorld(t *testing.T, s *pipeline.Store, blobs blobstore.Store, round string) *deleteWorld {
	t.Helper()
	ctx := context.Background()
	tag := func(k, v string) pipeline.Tag { return pipeline.Tag{Key: round + k, Value: v} }
	w := &deleteWorld{round: round}
	var err error
	w.keep, err = s.Create(ctx, pipeline.Input{ID: round + "-keep", Name: "keep", Tags: []pipeline.Tag{tag("src", "sap"), tag("region", "usa/northwest")}, Groups: []string{round + "g1"}})
	require.NoError(t, err)
	w.victim, err = s.Create(ctx, pipeline.Input{ID: round + "-victim/1", Name: "victim",
		Tags: []pipeline.Tag{tag("src", "sap"), tag("region", "usa/northwest"), tag("only", "me")}, Groups: []string{round + "g1", round + "g2"}})
	require.NoError(t, err)
	w.victim, err = s.Update(ctx, w.victim.ID, 1, pipeline.Input{Name: "victim",
		Tags:   []pipeline.Tag{tag("src", "sap"), tag("region", "usa/northwest/seattle"), tag("only", "me")},
		Groups: []string{round + "g2", round + "g3"}})
	require.NoError(t, err)
	// Version 3 as a service following the seed writes it: PV:3, unpadded.
	pk := "P:" + w.victim.ID
	seedVersion, err := table.Marshal(map[string]any{"pk": pk, "sk": "PV:3", "siKey1": "P", "name": "victim", "state": "enabled",
		"createdAt": "2022-08-10T23:55:20.322Z", "updatedAt": "2022-08-10T23:55:20.322Z", "version": 3})
	require.NoError(t, err)
	require.NoError(t, s.Table().Put(ctx, seedVersion))

	execute := func(p *pipeline.Pipeline) string {
		later(s)
		up, err := s.PresignInputUpload(ctx, p.ID, 0)
		require.NoError(t, err)
		require.NoError(t, blobs.Put(ctx, up.Key, strings.NewReader("input")))
		ex, err := s.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: up.Key})
		require.NoError(t, err)
		_, err = s.Executions().Start(ctx, ex.ID)
		require.NoError(t, err)
		require.NoError(t, s.PutOutput(ctx, ex.ID, strings.NewReader("output"), 6))
		return ex.ID
	}
	w.victimExecs = []string{execute(w.victim), execute(w.victim)}
	w.keepExec = execute(w.keep)
	return w
}

// later moves the fake's clock on by a millisecond, so that an upload's
// ingest key, stamped to the millisecond, differs from the previous one's.
// On DynamoDB Local the store's clock is the wall clock and moves itself.
func later(s *pipeline.Store) {
	if db, ok := s.Table().DB().(*dynamotest.DB); ok {
		db.Advance(time.Millisecond)
	}
}

// checkDeleted asserts that nothing of the victim is left anywhere and
// that the kept pipeline, its files and its exact tag counts are intact.
func (w *deleteWorld) checkDeleted(t *testing.T, s *pipeline.Store, blobs blobstore.Store) {
	t.Helper()
	ctx := context.Background()
	for it, err := range table.ScanAll[map[string]any](ctx, s.Table(), table.Scan{}) {
		require.NoError(t, err)
		text := fmt.Sprint(it["pk"], " ", it["sk"], " ", it["siKey1"])
		assert.NotContains(t, text, w.victim.ID, "left behind: %v", it)
		for _, ex := range w.victimExecs {
			assert.NotContains(t, text, ex, "execution left behind: %v", it)
		}
	}
	counts := map[string]int{}
	for it, err := range table.ScanAll[map[string]any](ctx, s.Table(), table.Scan{}) {
		require.NoError(t, err)
		if key, ok := strings.CutPrefix(fmt.Sprint(it["pk"]), "TA:"+w.round); ok {
			counts[key+"="+strings.TrimPrefix(fmt.Sprint(it["sk"]), "TA:")] = int(it["count"].(float64))
		}
	}
	assert.Equal(t, map[string]int{"src=sap": 1, "region=usa": 1, "region=usa/northwest": 1}, counts,
		"counts are the kept pipeline's alone, zero counts removed")
	var objects []string
	for info, err := range blobs.List(ctx, "pipelines/") {
		require.NoError(t, err)
		if strings.Contains(info.Key, w.round) {
			objects = append(objects, info.Key)
		}
	}
	assert.Len(t, objects, 3, "the kept pipeline's ingest, input and output: %v", objects)
	for _, k := range objects {
		assert.Contains(t, k, "pipelines/"+w.keep.ID+"/")
	}
	_, err := s.Get(ctx, w.keep.ID)
	assert.NoError(t, err)
	_, err = s.Executions().Get(ctx, w.keepExec)
	assert.NoError(t, err)
	_, err = s.Get(ctx, w.victim.ID)
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
}

// deleteInterruptedAt runs one round: a Delete that fails at its
// failAt-th write (0: never), then a Delete on a healthy store, and the
// checks. It returns how many writes the first Delete sent.
func deleteInterruptedAt(t *testing.T, healthy *pipeline.Store, faulty func(*faults) *pipeline.Store, blobs blobstore.Store, round string, failAt int32) int32 {
	t.Helper()
	ctx := context.Background()
	w := buildDeleteWorld(t, healthy, blobs, round)
	f := &faults{failAt: failAt}
	err := faulty(f).Delete(ctx, w.victim.ID)
	if failAt > 0 && failAt <= f.n.Load() {
		require.ErrorIs(t, err, errInjected, "round %s", round)
		require.NoError(t, healthy.Delete(ctx, w.victim.ID), "the retry of round %s", round)
	} else {
		require.NoError(t, err)
	}
	w.checkDeleted(t, healthy, blobs)
	// Deleting again is a no-op.
	require.NoError(t, healthy.Delete(ctx, w.victim.ID))
	return f.n.Load()
}

func TestDeleteInterruptedAtEveryWriteAndRetriedLeavesNothing(t *testing.T) {
	e := newEnv(t)
	faulty := func(f *faults) *pipeline.Store {
		return newStore(t, faultyAPI{e.db, f}, faultyBlobs{e.blobs, f}, pipeline.Clock(e.db.Now))
	}
	writes := deleteInterruptedAt(t, e.store, faulty, e.blobs, "r0", 0)
	require.Greater(t, writes, int32(8), "a delete of this world takes many writes")
	for k := int32(1); k <= writes; k++ {
		deleteInterruptedAt(t, e.store, faulty, e.blobs, fmt.Sprintf("r%d", k), k)
	}
}

func TestDeletingPipelineRefusesUpdatesAndExecutions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := buildDeleteWorld(t, e.store, e.blobs, "d")
	// Stop Delete right after its mark: the first write.
	f := &faults{failAt: 2}
	s := newStore(t, faultyAPI{e.db, f}, faultyBlobs{e.blobs, f}, pipeline.Clock(e.db.Now))
	require.ErrorIs(t, s.Delete(ctx, w.victim.ID), errInjected)

	_, err := e.store.Get(ctx, w.victim.ID)
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "a pipeline being deleted is gone for readers")
	_, err = e.store.Update(ctx, w.victim.ID, w.victim.Version, pipeline.Input{Name: "late"})
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
	_, err = e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: w.victim.ID, Version: 1})
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
	all, err := e.store.Pipelines().List().Page(ctx, "")
	require.NoError(t, err)
	for _, p := range all.Items {
		assert.NotEqual(t, w.victim.ID, p.ID, "listed while deleting")
	}
	group, err := e.store.Pipelines().InGroup("dg2").Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, group.Items)
	byTag, err := e.store.Pipelines().ByTags([]pipeline.Tag{{Key: "donly", Value: "me"}}).Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, byTag.Items)
	_, err = e.store.Create(ctx, pipeline.Input{ID: w.victim.ID, Name: "again"})
	assert.ErrorIs(t, err, table.ErrAlreadyExists, "the id is taken until Delete finishes")

	require.NoError(t, e.store.Delete(ctx, w.victim.ID))
	w.checkDeleted(t, e.store, e.blobs)
	_, err = e.store.Create(ctx, pipeline.Input{ID: w.victim.ID, Name: "again"})
	assert.NoError(t, err, "the id is free once Delete finished")
}

func TestDeleteWithoutBlobStoreChangesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{Name: "n"})
	require.NoError(t, err)
	before := e.snapshot(t)
	err = newStore(t, e.db, nil).Delete(ctx, p.ID)
	assert.ErrorIs(t, err, blobstore.ErrUnsupported)
	assert.Equal(t, before, e.snapshot(t))
}

func TestDeleteRemovesSeedFormVersionsAndReadsThemFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := buildDeleteWorld(t, e.store, e.blobs, "v")
	v3, err := e.store.Versions().Get(ctx, w.victim.ID, 3)
	require.NoError(t, err, "PV:3 as the seed writes it")
	assert.Equal(t, 3, v3.Version)
	var versions []int
	for v, err := range e.store.Versions().List(w.victim.ID).All(ctx) {
		require.NoError(t, err)
		versions = append(versions, v.Version)
	}
	assert.Equal(t, []int{1, 2, 3}, versions)
	all, err := e.store.Pipelines().List().Page(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all.Items, 2, "the seed's version item (siKey1 P) is not listed as a pipeline")
	require.NoError(t, e.store.Delete(ctx, w.victim.ID))
	w.checkDeleted(t, e.store, e.blobs)
}

func TestIntegrationDeleteInterruptedAndRetriedLeavesNothing(t *testing.T) {
	store, client, files := localEnv(t, nil)
	name := store.Table().Name()
	faulty := func(f *faults) *pipeline.Store {
		return newStore(t, faultyAPI{client, f}, faultyBlobs{files, f}, pipeline.TableName(name))
	}
	writes := deleteInterruptedAt(t, store, faulty, files, "r0", 0)
	require.Greater(t, writes, int32(8))
	// Every write on the fake (above); here the first, the mark's
	// neighbours, the middle and the last.
	for _, k := range []int32{1, 2, 3, writes / 2, writes - 1, writes} {
		deleteInterruptedAt(t, store, faulty, files, fmt.Sprintf("r%d", k), k)
	}
}

func TestDeleteReportsEachStepWithWhatItRemoved(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := buildDeleteWorld(t, e.store, e.blobs, "p")
	var steps []pipeline.DeleteProgress
	require.NoError(t, e.store.Delete(ctx, w.victim.ID, pipeline.Progress(func(p pipeline.DeleteProgress) { steps = append(steps, p) })))
	// 2 executions with an ingest, an input and an output each; 3 tags
	// over 5 levels; versions 1, 2 and the seed's PV:3, groups g2 and g3,
	// 2 execution references, and the current item.
	want := []pipeline.DeleteProgress{
		{Step: pipeline.DeleteStepMark, StepsDone: 1},
		{Step: pipeline.DeleteStepExecutions, Removed: 2, StepsDone: 2},
		{Step: pipeline.DeleteStepFiles, Removed: 6, StepsDone: 3},
		{Step: pipeline.DeleteStepTags, Removed: 5, StepsDone: 4},
		{Step: pipeline.DeleteStepPartition, Removed: 8, StepsDone: 5},
	}
	for i := range want {
		want[i].PipelineID, want[i].Steps = w.victim.ID, 5
	}
	assert.Equal(t, want, steps)
	w.checkDeleted(t, e.store, e.blobs)

	steps = nil
	require.NoError(t, e.store.Delete(ctx, w.victim.ID, pipeline.Progress(func(p pipeline.DeleteProgress) { steps = append(steps, p) })))
	assert.Equal(t, []pipeline.DeleteProgress{{PipelineID: w.victim.ID, Step: pipeline.DeleteStepFiles, StepsDone: 1, Steps: 1}}, steps,
		"a pipeline already gone: only its files prefix is swept")
}
