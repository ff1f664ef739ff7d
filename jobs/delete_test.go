package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
)

func TestDeleteRemovesTheJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	require.NoError(t, f.store.Delete(ctx, job.ID))
	_, err := f.store.Get(ctx, job.ID)
	require.ErrorIs(t, err, jobs.ErrNotFound, "Get after Delete")
	require.ErrorIs(t, f.store.Delete(ctx, job.ID), jobs.ErrNotFound, "second Delete")
}

func TestDeleteOfExpiredJobIsNotFound(t *testing.T) {
	f := newFixture(t, func(o *jobs.Options) { o.Retention = time.Minute })
	job := f.create(t, "u1")
	late := newStore(t, f.db, f.blobs, func(o *jobs.Options) {
		o.TableName = jobs.TableNameForEnv("test")
		o.Clock = func() time.Time { return epoch.Add(time.Hour) }
	})
	require.ErrorIs(t, late.Delete(context.Background(), job.ID), jobs.ErrNotFound, "Delete of an expired job")
}

func TestDeleteRejectsBadIDBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() { wantInputError(t, f.store.Delete(context.Background(), ""), "jobId") })
}
