package jobs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
)

// manualClock is a clock tests move by hand, shared by the store and the
// test, since DynamoDB Local has no clock to share.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// localStore is a store on its own table in DynamoDB Local, or a skip when
// TABLEKIT_DYNAMODB_ENDPOINT is unset.
func localStore(t *testing.T, opts ...func(*jobs.Options)) (*jobs.Store, *manualClock) {
	t.Helper()
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "jobs")
	clock := &manualClock{now: time.Now().UTC().Truncate(time.Millisecond)}
	all := append([]func(*jobs.Options){func(o *jobs.Options) {
		o.TableName = name
		o.Clock = clock.Now
	}}, opts...)
	store := newStore(t, client, blobstore.NewMemory(), all...)
	ctx := context.Background()
	require.NoError(t, store.Table().Schema().Create(ctx, client), "create table")
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return store, clock
}

func TestIntegrationClaimFiftyWorkersOneWins(t *testing.T) {
	store, _ := localStore(t)
	job, _, err := store.Create(context.Background(), upload("u1"))
	require.NoError(t, err)
	raceToProcess(t, store, job.ID)
	got, err := store.Get(context.Background(), job.ID, jobs.Consistent())
	require.Falsef(t, err != nil || got.Status != jobs.StatusProcessing, "after the race: %+v, %v; want PROCESSING", got, err)
}

func TestIntegrationLifecycleFailReplayComplete(t *testing.T) {
	store, clock := localStore(t)
	ctx := context.Background()
	job, _, err := store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	for attempt := range 2 {
		moved(t)(store.StartProcessing(ctx, job.ID))
		moved(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), analysis))
		clock.Advance(time.Second)
		failed := moved(t)(store.Fail(ctx, leaseOf(t, store, job.ID), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "timeout", Stack: "at x"}))
		require.Equal(t, attempt, failed.Error.RetryCount, "failure")
		replayed := moved(t)(store.Maintenance().Replay(ctx, job.ID))
		require.Falsef(t, replayed.Error.RetryCount != attempt+1 || !replayed.ProcessingStartedAt.IsZero(), "replay %d: %+v", attempt+1, replayed)
	}
	moved(t)(store.StartProcessing(ctx, job.ID))
	moved(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), analysis))
	done := moved(t)(store.Complete(ctx, leaseOf(t, store, job.ID), edit))
	require.Falsef(t, done.Status != jobs.StatusCompleted || done.Error.RetryCount != 2 || done.S3FinalKey != edit.S3Key, "completed job %+v", done)
	_, err = store.StartProcessing(ctx, job.ID)
	var te *jobs.TransitionError
	require.Falsef(t, !errors.As(err, &te) || te.Current != jobs.StatusCompleted, "move of a completed job: %v", err)
	_, err = store.StartProcessing(ctx, "missing-job")
	require.ErrorIs(t, err, jobs.ErrNotFound, "move of a missing job")
}

func TestIntegrationListPagesNewestFirstAndHidesExpired(t *testing.T) {
	store, clock := localStore(t, func(o *jobs.Options) { o.Retention = time.Hour })
	ctx := context.Background()
	var ids []string
	for range 60 {
		j, _, err := store.Create(ctx, upload("u1"))
		require.NoError(t, err)
		ids = append(ids, j.ID)
		clock.Advance(time.Millisecond)
	}
	seen, pages := 0, 0
	for cursor := ""; ; {
		page, err := store.ByUser("u1", jobs.Limit(25)).Page(ctx, cursor)
		require.NoError(t, err)
		pages++
		for _, j := range page.Items {
			want := ids[len(ids)-1-seen]
			require.Equal(t, want, j.ID, "item")
			seen++
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	require.Falsef(t, seen != 60 || pages != 3, "%d jobs in %d pages, want 60 in 3", seen, pages)
	// DynamoDB Local never expires items; the store hides them on its own.
	clock.Advance(time.Hour)
	page, err := store.ByUser("u1").Page(ctx, "")
	require.Falsef(t, err != nil || len(page.Items) != 0 || page.Next != "", "after the ttl: %d jobs, next %q, %v; want none", len(page.Items), page.Next, err)
	_, err = store.Get(ctx, ids[0])
	require.ErrorIs(t, err, jobs.ErrNotFound, "Get after the ttl")
}

func TestIntegrationBackfillNeverOverwritesAConcurrentStatusMove(t *testing.T) {
	store, _ := localStore(t)
	ctx := context.Background()
	job, _, err := store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	calls := 0
	prog, err := store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		calls++
		if calls == 1 {
			if _, err := store.StartProcessing(ctx, j.ID); err != nil {
				return false, err
			}
		}
		j.TraceID = "backfilled"
		return true, nil
	}, jobs.Segments(1))
	require.NoError(t, err)
	got, err := store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	require.Falsef(t, prog.Conflicts != 1 || got.Status != jobs.StatusProcessing || got.TraceID != "backfilled", "progress %+v, job %+v", prog, got)
}

func TestIntegrationLargeAnalysisOffloadedToS3(t *testing.T) {
	s3client := testenv.S3(t)
	bucket := testenv.Bucket(t, "jobs")
	blobs, err := s3blob.New(s3client, bucket, func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "jobs")
	store := newStore(t, client, blobs, func(o *jobs.Options) { o.TableName = name })
	ctx := context.Background()
	require.NoError(t, store.Table().Schema().Create(ctx, client))
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})

	job, _, err := store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	moved(t)(store.StartProcessing(ctx, job.ID))
	big := bigAnalysis(200 * 1024)
	moved(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), big))
	got, err := store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	require.Falsef(t, len(got.AnalysisResult.Labels) != len(big.Labels) || got.AnalysisResult.Description != big.Description, "%v", "the analysis did not come back whole from S3")
	objects := 0
	for _, err := range blobs.List(ctx, "") {
		require.NoError(t, err)
		objects++
	}
	require.Equal(t, 1, objects)
}
