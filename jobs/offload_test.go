package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
	if len(editing.AnalysisResult.Labels) != len(big.Labels) || editing.AnalysisResult.Description != big.Description {
		t.Fatal("the move's result does not carry the whole analysis")
	}
	raw := f.getRaw(t, job.ID)
	if size := table.ItemSize(raw); size > jobs.DefaultOffloadThreshold {
		t.Fatalf("stored item is %d bytes, over the %d threshold", size, jobs.DefaultOffloadThreshold)
	}
	objects := 0
	for _, err := range f.blobs.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		objects++
	}
	if objects != 1 {
		t.Fatalf("%d objects in the blob store, want the analysis in 1", objects)
	}
	for _, read := range []func() (*jobs.Job, error){
		func() (*jobs.Job, error) { return f.store.Get(ctx, job.ID) },
		func() (*jobs.Job, error) {
			p, err := f.store.ListByUser(ctx, "u1", "")
			if err != nil || len(p.Items) != 1 {
				return nil, fmt.Errorf("list: %v, %d items", err, len(p.Items))
			}
			return &p.Items[0], nil
		},
	} {
		got, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if len(got.AnalysisResult.Labels) != len(big.Labels) || got.AnalysisResult.Description != big.Description {
			t.Fatal("a read did not restore the offloaded analysis")
		}
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
		t.Fatalf("a 10 KB analysis was offloaded (%v)", err)
	}
}

func TestLargeAnalysisWithoutBlobStoreIsRefusedBeforeWriting(t *testing.T) {
	db := dynamotest.New()
	ctx := context.Background()
	store := newStore(t, db, nil)
	if err := store.Table().Schema().Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	job, _, err := store.Create(ctx, upload("u1"))
	if err != nil {
		t.Fatal(err)
	}
	moved(t)(store.StartProcessing(ctx, job.ID))
	updates := db.Calls("UpdateItem")
	_, err = store.StartEditing(ctx, leaseOf(t, store, job.ID), bigAnalysis(150*1024))
	if !errors.Is(err, table.ErrItemTooLarge) || !errors.Is(err, table.ErrInvalidInput) {
		t.Fatalf("got %v, want ErrItemTooLarge", err)
	}
	if db.Calls("UpdateItem") != updates {
		t.Fatal("the refused move was sent")
	}
	got, _ := store.Get(ctx, job.ID, jobs.Consistent())
	if got.Status != jobs.StatusProcessing {
		t.Fatalf("status %s after a refused move, want PROCESSING", got.Status)
	}
}

func TestBackfillOffloadsAResultThatGrewPastTheThreshold(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), analysis))
	big := bigAnalysis(150 * 1024)
	prog, err := f.store.Backfill(ctx, func(j *jobs.Job) (bool, error) {
		j.AnalysisResult = big // a migration re-running analysis with a richer model
		return true, nil
	})
	if err != nil || prog.Changed != 1 {
		t.Fatalf("backfill: %+v, %v", prog, err)
	}
	raw := f.getRaw(t, job.ID)
	if _, ok := blobstore.PointerOf(raw["analysisResult"]); !ok || table.ItemSize(raw) > jobs.DefaultOffloadThreshold {
		t.Fatalf("after the backfill the item is %d bytes and analysisResult is not a pointer", table.ItemSize(raw))
	}
	got, err := f.store.Get(ctx, job.ID)
	if err != nil || got.AnalysisResult.Description != big.Description {
		t.Fatalf("Get after the backfill: %v", err)
	}
}

func TestRemoveOrphansDeletesResultsOfDeletedJobs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	keep, gone := f.create(t, "u1"), f.create(t, "u1")
	for _, j := range []*jobs.Job{keep, gone} {
		moved(t)(f.store.StartProcessing(ctx, j.ID))
		moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, j.ID), bigAnalysis(150*1024)))
	}
	if err := f.store.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	// Young objects may belong to a move in flight: left alone.
	if removed, err := f.store.RemoveOrphans(ctx); err != nil || len(removed) != 0 {
		t.Fatalf("RemoveOrphans right away removed %v (%v), want nothing", removed, err)
	}
	f.db.Advance(time.Hour)
	removed, err := f.store.RemoveOrphans(ctx)
	if err != nil || len(removed) != 1 || !strings.Contains(removed[0], gone.ID) {
		t.Fatalf("RemoveOrphans removed %v (%v), want the deleted job's analysis", removed, err)
	}
	if got, err := f.store.Get(ctx, keep.ID); err != nil || len(got.AnalysisResult.Labels) == 0 {
		t.Fatalf("the kept job lost its analysis: %v", err)
	}
}

func TestReadingOffloadedResultWithoutBlobStoreFails(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), bigAnalysis(150*1024)))
	blind := newStore(t, f.db, nil, func(o *jobs.Options) { o.TableName = jobs.TableNameForEnv("test"); o.Clock = f.db.Now })
	if _, err := blind.Get(ctx, job.ID); !errors.Is(err, jobs.ErrNoBlobStore) {
		t.Fatalf("Get without the blob store: %v, want ErrNoBlobStore rather than an empty analysis", err)
	}
	if _, err := blind.ListByUser(ctx, "u1", ""); !errors.Is(err, jobs.ErrNoBlobStore) {
		t.Fatalf("ListByUser without the blob store: %v, want ErrNoBlobStore", err)
	}
}
