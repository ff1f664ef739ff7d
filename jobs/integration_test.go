package jobs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/blobstore"
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
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, "jobs")
	clock := &manualClock{now: time.Now().UTC().Truncate(time.Millisecond)}
	all := append([]func(*jobs.Options){func(o *jobs.Options) {
		o.TableName = name
		o.Clock = clock.Now
	}}, opts...)
	store := newStore(t, client, blobstore.NewMemory(), all...)
	ctx := context.Background()
	if err := store.Table().Schema().Create(ctx, client); err != nil {
		t.Fatalf("create table %s: %v", name, err)
	}
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return store, clock
}

func TestIntegrationClaimFiftyWorkersOneWins(t *testing.T) {
	store, _ := localStore(t)
	job, _, err := store.Create(context.Background(), upload("u1"))
	if err != nil {
		t.Fatal(err)
	}
	raceToProcess(t, store, job.ID)
	got, err := store.Get(context.Background(), job.ID, jobs.Consistent())
	if err != nil || got.Status != jobs.StatusProcessing {
		t.Fatalf("after the race: %+v, %v; want PROCESSING", got, err)
	}
}

func TestIntegrationLifecycleFailReplayComplete(t *testing.T) {
	store, clock := localStore(t)
	ctx := context.Background()
	job, _, err := store.Create(ctx, upload("u1"))
	if err != nil {
		t.Fatal(err)
	}
	for attempt := range 2 {
		moved(t)(store.StartProcessing(ctx, job.ID))
		moved(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), analysis))
		clock.Advance(time.Second)
		failed := moved(t)(store.Fail(ctx, leaseOf(t, store, job.ID), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "timeout", Stack: "at x"}))
		if failed.Error.RetryCount != attempt {
			t.Fatalf("failure %d has retryCount %d", attempt+1, failed.Error.RetryCount)
		}
		replayed := moved(t)(store.Replay(ctx, job.ID))
		if replayed.Error.RetryCount != attempt+1 || !replayed.ProcessingStartedAt.IsZero() {
			t.Fatalf("replay %d: %+v", attempt+1, replayed)
		}
	}
	moved(t)(store.StartProcessing(ctx, job.ID))
	moved(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), analysis))
	done := moved(t)(store.Complete(ctx, leaseOf(t, store, job.ID), edit))
	if done.Status != jobs.StatusCompleted || done.Error.RetryCount != 2 || done.S3FinalKey != edit.S3Key {
		t.Fatalf("completed job %+v", done)
	}
	_, err = store.StartProcessing(ctx, job.ID)
	var te *jobs.TransitionError
	if !errors.As(err, &te) || te.Current != jobs.StatusCompleted {
		t.Fatalf("move of a completed job: %v", err)
	}
	if _, err := store.StartProcessing(ctx, "missing-job"); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("move of a missing job: %v", err)
	}
}

func TestIntegrationListPagesNewestFirstAndHidesExpired(t *testing.T) {
	store, clock := localStore(t, func(o *jobs.Options) { o.TTL = time.Hour })
	ctx := context.Background()
	var ids []string
	for range 60 {
		j, _, err := store.Create(ctx, upload("u1"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
		clock.Advance(time.Millisecond)
	}
	seen, pages := 0, 0
	for cursor := ""; ; {
		page, err := store.ListByUser(ctx, "u1", cursor, jobs.Limit(25))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, j := range page.Items {
			if want := ids[len(ids)-1-seen]; j.ID != want {
				t.Fatalf("item %d is %s, want %s (newest first)", seen, j.ID, want)
			}
			seen++
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if seen != 60 || pages != 3 {
		t.Fatalf("%d jobs in %d pages, want 60 in 3", seen, pages)
	}
	// DynamoDB Local never expires items; the store hides them on its own.
	clock.Advance(time.Hour)
	page, err := store.ListByUser(ctx, "u1", "")
	if err != nil || len(page.Items) != 0 || page.Next != "" {
		t.Fatalf("after the ttl: %d jobs, next %q, %v; want none", len(page.Items), page.Next, err)
	}
	if _, err := store.Get(ctx, ids[0]); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("Get after the ttl: %v", err)
	}
}

func TestIntegrationBackfillNeverOverwritesAConcurrentStatusMove(t *testing.T) {
	store, _ := localStore(t)
	ctx := context.Background()
	job, _, err := store.Create(ctx, upload("u1"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	prog, err := store.Backfill(ctx, func(j *jobs.Job) (bool, error) {
		calls++
		if calls == 1 {
			if _, err := store.StartProcessing(ctx, j.ID); err != nil {
				return false, err
			}
		}
		j.TraceID = "backfilled"
		return true, nil
	}, jobs.Segments(1))
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Get(ctx, job.ID, jobs.Consistent())
	if err != nil {
		t.Fatal(err)
	}
	if prog.Conflicts != 1 || got.Status != jobs.StatusProcessing || got.TraceID != "backfilled" {
		t.Fatalf("progress %+v, job %+v", prog, got)
	}
}

func TestIntegrationLargeAnalysisOffloadedToS3(t *testing.T) {
	s3client := testenv.S3(t)
	bucket := testenv.Bucket(t, "jobs")
	blobs, err := blobstore.NewS3(s3client, bucket, func(o *blobstore.S3Options) { o.PathStyle = true })
	if err != nil {
		t.Fatal(err)
	}
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, "jobs")
	store := newStore(t, client, blobs, func(o *jobs.Options) { o.TableName = name })
	ctx := context.Background()
	if err := store.Table().Schema().Create(ctx, client); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})

	job, _, err := store.Create(ctx, upload("u1"))
	if err != nil {
		t.Fatal(err)
	}
	moved(t)(store.StartProcessing(ctx, job.ID))
	big := bigAnalysis(200 * 1024)
	moved(t)(store.StartEditing(ctx, leaseOf(t, store, job.ID), big))
	got, err := store.Get(ctx, job.ID, jobs.Consistent())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.AnalysisResult.Labels) != len(big.Labels) || got.AnalysisResult.Description != big.Description {
		t.Fatal("the analysis did not come back whole from S3")
	}
	objects := 0
	for _, err := range blobs.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		objects++
	}
	if objects != 1 {
		t.Fatalf("%d objects in the bucket, want 1", objects)
	}
}
