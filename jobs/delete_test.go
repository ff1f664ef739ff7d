package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit/jobs"
)

func TestDeleteRemovesTheJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	if err := f.store.Delete(ctx, job.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Get(ctx, job.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := f.store.Delete(ctx, job.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("second Delete: %v, want ErrNotFound", err)
	}
}

func TestDeleteOfExpiredJobIsNotFound(t *testing.T) {
	f := newFixture(t, func(o *jobs.Options) { o.TTL = time.Minute })
	job := f.create(t, "u1")
	late := newStore(t, f.db, f.blobs, func(o *jobs.Options) {
		o.TableName = jobs.TableNameForEnv("test")
		o.Clock = func() time.Time { return epoch.Add(time.Hour) }
	})
	if err := late.Delete(context.Background(), job.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("Delete of an expired job: %v, want ErrNotFound", err)
	}
}

func TestDeleteRejectsBadIDBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() { wantInputError(t, f.store.Delete(context.Background(), ""), "jobId") })
}
