package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// bigAnalysis is an analysis result of roughly n bytes.
func bigAnalysis(n int) *jobs.AnalysisResult {
	a := &jobs.AnalysisResult{Description: strings.Repeat("d", n/2)}
	for i := 0; len(a.Labels)*40 < n/2; i++ {
		a.Labels = append(a.Labels, jobs.Label{Name: fmt.Sprintf("label-%06d-%s", i, strings.Repeat("x", 20)), Confidence: 0.5})
	}
	return a
}

func TestLargeAnalysisGoesToTheBlobStoreAndReadsBack(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	big := bigAnalysis(150 * 1024)
	editing := moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), big))
	require.Falsef(t, len(editing.AnalysisResult.Labels) != len(big.Labels) || editing.AnalysisResult.Description != big.Description, "%v", "the move's result does not carry the whole analysis")
	raw := f.getRaw(t, job.ID)
	size := table.ItemSize(raw)
	require.Falsef(t, size > jobs.DefaultOffloadThreshold, "stored item is %d bytes, over the %d threshold", size, jobs.DefaultOffloadThreshold)
	objects := 0
	for _, err := range f.blobs.List(ctx, "") {
		require.NoError(t, err)
		objects++
	}
	require.Equal(t, 1, objects)
	for _, read := range []func() (*jobs.Job, error){
		func() (*jobs.Job, error) { return f.store.Get(ctx, job.ID) },
		func() (*jobs.Job, error) {
			p, err := f.store.ByUser("u1").Page(ctx, "")
			if err != nil || len(p.Items) != 1 {
				return nil, fmt.Errorf("list: %v, %d items", err, len(p.Items))
			}
			return &p.Items[0], nil
		},
	} {
		got, err := read()
		require.NoError(t, err)
		require.Falsef(t, len(got.AnalysisResult.Labels) != len(big.Labels) || got.AnalysisResult.Description != big.Description, "%v", "a read did not restore the offloaded analysis")
	}
	// The job still moves normally with a pointer in it.
	moved(t)(f.store.Complete(ctx, leaseOf(t, f.store, job.ID), edit))
}

func TestSmallAnalysisStaysInline(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), bigAnalysis(10*1024)))
	for _, err := range f.blobs.List(ctx, "") {
		require.Fail(t, "a 10 KB analysis was offloaded", "%v", err)
	}
}

func TestLargeAnalysisWithoutBlobStoreIsRefusedBeforeWriting(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	store := newStore(t, db, nil)
	require.NoError(t, store.Table().Schema().Create(ctx, db))
	job, _, err := store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	moved(t)(store.StartProcessing(ctx, job.ID))
	updates := db.Calls("UpdateItem")
	_, err = store.StartEditing(ctx, leaseOf(t, store, job.ID), bigAnalysis(150*1024))
	require.Falsef(t, !errors.Is(err, table.ErrItemTooLarge) || !errors.Is(err, table.ErrInvalidInput), "got %v, want ErrItemTooLarge", err)
	require.Equal(t, updates, db.Calls("UpdateItem"))
	got, _ := store.Get(ctx, job.ID, jobs.Consistent())
	require.Equal(t, jobs.StatusProcessing, got.Status, "status")
}

func TestBackfillOffloadsAResultThatGrewPastTheThreshold(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), analysis))
	big := bigAnalysis(150 * 1024)
	prog, err := f.store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		j.AnalysisResult = big // a migration re-running analysis with a richer model
		return true, nil
	})
	require.Falsef(t, err != nil || prog.Changed != 1, "backfill: %+v, %v", prog, err)
	raw := f.getRaw(t, job.ID)
	_, ok := blobstore.PointerOf(raw["analysisResult"])
	require.Falsef(t, !ok || table.ItemSize(raw) > jobs.DefaultOffloadThreshold, "after the backfill the item is %d bytes and analysisResult is not a pointer", table.ItemSize(raw))
	got, err := f.store.Get(ctx, job.ID)
	require.Falsef(t, err != nil || got.AnalysisResult.Description != big.Description, "Get after the backfill: %v", err)
}

func TestRemoveOrphansDeletesResultsOfDeletedJobs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	keep, gone := f.create(t, "u1"), f.create(t, "u1")
	for _, j := range []*jobs.Job{keep, gone} {
		moved(t)(f.store.StartProcessing(ctx, j.ID))
		moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, j.ID), bigAnalysis(150*1024)))
	}
	require.NoError(t, f.store.Delete(ctx, gone.ID))
	// Young objects may belong to a move in flight: left alone.
	removed, err := f.store.Maintenance().RemoveOrphans(ctx)
	require.Falsef(t, err != nil || len(removed) != 0, "RemoveOrphans right away removed %v (%v), want nothing", removed, err)
	f.db.Advance(time.Hour)
	removed, err = f.store.Maintenance().RemoveOrphans(ctx)
	require.Falsef(t, err != nil || len(removed) != 1 || !strings.Contains(removed[0], gone.ID), "RemoveOrphans removed %v (%v), want the deleted job's analysis", removed, err)
	got, err := f.store.Get(ctx, keep.ID)
	require.Falsef(t, err != nil || len(got.AnalysisResult.Labels) == 0, "the kept job lost its analysis: %v", err)
}

func TestReadingOffloadedResultWithoutBlobStoreFails(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), bigAnalysis(150*1024)))
	blind := newStore(t, f.db, nil, func(o *jobs.Options) { o.TableName = jobs.TableNameForEnv("test"); o.Clock = f.db.Now })
	_, err := blind.Get(ctx, job.ID)
	require.ErrorIs(t, err, jobs.ErrNoBlobStore, "Get without the blob store")
	_, err = blind.ByUser("u1").Page(ctx, "")
	require.ErrorIs(t, err, jobs.ErrNoBlobStore, "ListByUser without the blob store")
}
