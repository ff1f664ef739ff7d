package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// exampleStore is a store on a fresh in-memory fake with the table created.
func exampleStore() (*jobs.Store, *dynamotest.DB) {
	db := dynamotest.New()
	store, err := jobs.NewStore(db, blobstore.NewMemory())
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(context.Background()); err != nil {
		panic(err)
	}
	return store, db
}

func Example() {
	ctx := context.Background()
	store, _ := exampleStore()

	// The upload handler creates the job.
	job, _, err := store.Create(ctx, jobs.CreateInput{
		UserID:   "user-12345",
		FileSize: 3_145_728,
		FileType: "image/jpeg",
		Provider: "gemini",
	})
	if err != nil {
		panic(err)
	}

	// A worker takes it through the seed's states.
	job, err = store.StartProcessing(ctx, job.ID)
	if err != nil {
		panic(err)
	}
	lease := job.Lease() // the worker's hold on the job; renew it with Heartbeat
	store.StartEditing(ctx, lease, &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "cat", Confidence: 0.98}}})
	job, err = store.Complete(ctx, lease, jobs.EditResult{
		S3Key: "final/user-12345/cat.webp", Width: 1024, Height: 768, Format: jobs.FormatWebP, Size: 201_114,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(job.Status, job.S3FinalKey, job.AnalysisResult.Labels[0].Name)
	// Output: COMPLETED final/user-12345/cat.webp cat
}

func ExampleStore_ByUser() {
	ctx := context.Background()
	store, _ := exampleStore()
	for range 3 {
		store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileType: "image/png", Provider: "stub"})
	}
	// Page through the user's history, newest first, two at a time.
	cursor, pages := "", 0
	for {
		page, err := store.ByUser("user-12345", jobs.Limit(2)).Page(ctx, cursor)
		if err != nil {
			panic(err)
		}
		pages++
		fmt.Println("page", pages, "has", len(page.Items), "jobs")
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	// The same listing read whole; a bad option fails it before any read.
	n := 0
	for _, err := range store.ByUser("user-12345").All(ctx) {
		if err != nil {
			panic(err)
		}
		n++
	}
	_, err := store.ByUser("user-12345", jobs.Limit(-1)).Page(ctx, "")
	fmt.Println(n, "jobs;", errors.Is(err, table.ErrInvalidInput))
	// Output:
	// page 1 has 2 jobs
	// page 2 has 1 jobs
	// 3 jobs; true
}

func ExampleMaintenance_ByStatus() {
	ctx := context.Background()
	store, _ := exampleStore()
	job, _, _ := store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/png", Provider: "stub"})
	job, _ = store.StartProcessing(ctx, job.ID)
	store.Fail(ctx, job.Lease(), jobs.JobError{Code: "PROVIDER_ERROR", Message: "500 from provider"})

	// The admin's failed list, every page.
	for j, err := range store.Maintenance().ByStatus(jobs.StatusFailed).All(ctx) {
		if err != nil {
			panic(err)
		}
		fmt.Println(j.UserID, j.Error.Code)
	}
	// Output: user-1 PROVIDER_ERROR
}

func ExampleMaintenance_Backfill() {
	ctx := context.Background()
	store, _ := exampleStore()
	for range 5 {
		store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/png", Provider: "stub"})
	}
	// Migration "adding a field": jobs created before correlation ids get one.
	progress, err := store.Maintenance().Backfill(ctx, func(j *jobs.Job) (bool, error) {
		if j.CorrelationID != "" {
			return false, nil
		}
		j.CorrelationID = "backfill-" + j.ID[:4]
		return true, nil
	}, jobs.Segments(2))
	if err != nil {
		panic(err)
	}
	fmt.Println(progress.Scanned, "scanned,", progress.Changed, "changed")
	// Output: 5 scanned, 5 changed
}

func ExampleStore_Get() {
	ctx := context.Background()
	db := dynamotest.New()
	// The store reads the fake's clock, so moving it expires jobs for both.
	store, err := jobs.NewStore(db, nil, jobs.Clock(db.Now), jobs.Retention(time.Hour))
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(ctx); err != nil {
		panic(err)
	}
	job, _, _ := store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/png", Provider: "stub"})

	got, err := store.Get(ctx, job.ID)
	fmt.Println(got.Status, err)

	db.Advance(2 * time.Hour)
	_, err = store.Get(ctx, job.ID)
	fmt.Println(errors.Is(err, jobs.ErrNotFound))
	// Output:
	// QUEUED <nil>
	// true
}

// ExampleStore_NewWorker is the photo editor as the library binds it: the
// store queues each job's work as a task (Work), and a job worker runs
// the handler on each job under its task's one lease, retrying and taking
// over dead workers' jobs by itself.
func ExampleStore_NewWorker() {
	ctx := context.Background()
	db := dynamotest.New()
	store, err := jobs.NewStore(db, blobstore.NewMemory(), jobs.Work(""), jobs.LeaseDuration(time.Minute))
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(ctx); err != nil { // the jobs table and the tasks table
		panic(err)
	}

	// The upload handler: the job and its task, in one transaction.
	job, _, err := store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileSize: 3_145_728, FileType: "image/jpeg", Provider: "gemini"})
	if err != nil {
		panic(err)
	}
	fmt.Println(job.Status, "with its work on the tasks table:", job.TaskID != "")

	// The worker process: the service's own work only.
	worker, err := store.NewWorker("worker-1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		if _, err := a.StartEditing(ctx, &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "cat", Confidence: 0.98}}}); err != nil {
			return jobs.EditResult{}, err
		}
		return jobs.EditResult{S3Key: "final/user-12345/cat.webp", Width: 1024, Height: 768, Format: jobs.FormatWebP, Size: 201_114}, nil
	})
	if err != nil {
		panic(err)
	}
	run, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- worker.Run(run) }()
	for job.Status != jobs.StatusCompleted {
		time.Sleep(time.Millisecond)
		if job, err = store.Get(ctx, job.ID, jobs.Consistent()); err != nil {
			panic(err)
		}
	}
	stop() // a graceful stop: running jobs finish or go back to the queue
	if err := <-done; err != nil {
		panic(err)
	}
	fmt.Println(job.Status, job.S3FinalKey, "attempt", job.Attempt)
	// Output:
	// QUEUED with its work on the tasks table: true
	// COMPLETED final/user-12345/cat.webp attempt 1
}
