package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// newExampleStore is a queue on the in-memory fake, whose clock the
// example moves with db.Advance.
func newExampleStore(opts ...func(*tasks.Options)) (*tasks.Store, *dynamotest.DB) {
	start := time.Date(2026, 9, 23, 10, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	store, err := tasks.NewStore(db, nil, append([]func(*tasks.Options){tasks.Clock(db.Now)}, opts...)...)
	if err != nil {
		panic(err)
	}
	if err := store.EnsureTable(context.Background()); err != nil {
		panic(err)
	}
	return store, db
}

func ExampleStore_Submit() {
	store, _ := newExampleStore()
	ctx := context.Background()
	in := tasks.SubmitInput{IdempotencyKey: "checkout-7f3a", Payload: []byte(`{"order":42}`)}
	first, created, _ := store.Submit(ctx, in)
	fmt.Println(first.Status, created)
	// The client retries after a timeout: same task, nothing written.
	again, created, _ := store.Submit(ctx, in)
	fmt.Println(again.ID == first.ID, created)
	// Another payload under the same key is refused.
	_, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "checkout-7f3a", Payload: []byte(`{"order":43}`)})
	fmt.Println(errors.Is(err, tasks.ErrIdempotencyMismatch))
	// Output:
	// PENDING true
	// true false
	// true
}

func ExampleStore_Claim() {
	store, clock := newExampleStore()
	ctx := context.Background()
	task, _, _ := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("resize photo.jpg")})

	c, err := store.Claim(ctx, "w-abc")
	if err != nil {
		panic(err)
	}
	fmt.Printf("w-abc got %q, attempt %d, lease until %s\n", c.Task.Payload, c.Lease.Attempt, c.Lease.ExpiresAt.Format(time.TimeOnly))
	clock.Advance(10 * time.Second)
	lease, _ := store.Heartbeat(ctx, c.Lease)
	fmt.Println("extended to", lease.ExpiresAt.Format(time.TimeOnly))
	if err := store.Complete(ctx, lease, []byte("done")); err != nil {
		panic(err)
	}
	history, _ := store.History(ctx, task.ID)
	for _, e := range history {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("EVENT#%04d %s %s", e.Seq, e.Type, e.Worker)))
	}
	_, err = store.Claim(ctx, "w-abc")
	fmt.Println(err)
	// Output:
	// w-abc got "resize photo.jpg", attempt 1, lease until 10:00:30
	// extended to 10:00:40
	// EVENT#0001 SUBMITTED
	// EVENT#0002 PROCESSING w-abc
	// EVENT#0003 COMPLETED w-abc
	// tasks: no task to claim
}

// A worker crashes holding a task; once its lease has run out the next
// claim takes the task over, and the crashed worker's late completion is
// refused.
func ExampleLeaseLostError() {
	store, clock := newExampleStore()
	ctx := context.Background()
	store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	crashed, _ := store.Claim(ctx, "w-1")
	clock.Advance(tasks.DefaultLeaseDuration)
	taker, _ := store.Claim(ctx, "w-2")
	fmt.Println("w-2 took it over, attempt", taker.Lease.Attempt)

	err := store.Complete(ctx, crashed.Lease, nil)
	var lost *tasks.LeaseLostError
	if errors.As(err, &lost) {
		fmt.Println("w-1 refused; task held by", lost.Owner)
	}
	// Output:
	// w-2 took it over, attempt 2
	// w-1 refused; task held by w-2
}

func ExampleMaintenance_Pending() {
	store, clock := newExampleStore(func(o *tasks.Options) { o.Shards = 4 })
	ctx := context.Background()
	for i := range 5 {
		clock.Advance(time.Second)
		store.Submit(ctx, tasks.SubmitInput{Payload: []byte(fmt.Sprint("job ", i))})
	}
	// Four shards, one list, oldest first, two to a page.
	pending := store.Maintenance().Pending(tasks.Limit(2))
	cursor := ""
	for {
		page, err := pending.Page(ctx, cursor)
		if err != nil {
			panic(err)
		}
		for _, t := range page.Items {
			fmt.Printf("%s %s\n", t.CreatedAt.Format(time.TimeOnly), t.Payload)
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	// The same listing read whole, its pages read as the loop goes.
	n := 0
	for _, err := range pending.All(ctx) {
		if err != nil {
			panic(err)
		}
		n++
	}
	fmt.Println(n, "pending")
	// A bad option fails the listing before anything is read.
	_, err := store.Maintenance().Pending(tasks.Limit(-1)).Page(ctx, "")
	fmt.Println(errors.Is(err, table.ErrInvalidInput))
	// Output:
	// 10:00:01 job 0
	// 10:00:02 job 1
	// 10:00:03 job 2
	// 10:00:04 job 3
	// 10:00:05 job 4
	// 5 pending
	// true
}

func ExampleStore_Fail() {
	store, db := newExampleStore(func(o *tasks.Options) { o.MaxAttempts = 2 })
	ctx := context.Background()
	store.Submit(ctx, tasks.SubmitInput{Payload: []byte("flaky")})
	for range 2 {
		db.Advance(tasks.DefaultRetryBackoff.Max) // past the retry's backoff
		c, _ := store.Claim(ctx, "w-1")
		status, _ := store.Fail(ctx, c.Lease, "upstream timeout")
		fmt.Println("attempt", c.Lease.Attempt, "->", status)
	}
	// Output:
	// attempt 1 -> PENDING
	// attempt 2 -> DEAD
}

func ExampleWorker_Run() {
	store, _ := newExampleStore()
	ctx, stop := context.WithCancel(context.Background())
	store.Submit(ctx, tasks.SubmitInput{Payload: []byte("photo-1.jpg")})
	done := make(chan struct{})
	w, err := store.NewWorker("w-resizer", func(ctx context.Context, task *tasks.Task) ([]byte, error) {
		defer close(done)
		return []byte("resized " + string(task.Payload)), nil
	}, tasks.Concurrency(8))
	if err != nil {
		panic(err)
	}
	go func() { <-done; stop() }() // a service stops on SIGTERM instead
	if err := w.Run(ctx); err != nil {
		panic(err)
	}
	page, _ := store.Maintenance().Pending().Page(context.Background(), "")
	fmt.Println(len(page.Items), "pending")
	// Output: 0 pending
}

// A job store moves a job back to QUEUED and enqueues its work in one
// transaction (the jobs design's Replay on the seed's queue): both apply, or
// neither does. The queue's table and the jobs table share one DynamoDB.
func ExampleStore_SubmitTx() {
	store, db := newExampleStore()
	ctx := context.Background()
	jobsSchema := table.Schema{
		Name:         "photoeditor-dev-jobs",
		PartitionKey: table.Attribute{Name: "jobId", Type: types.ScalarAttributeTypeS},
	}
	if err := jobsSchema.EnsureTable(ctx, db); err != nil {
		panic(err)
	}
	jobsTable := table.New(db, jobsSchema)
	type job struct {
		ID     string `dynamodbav:"jobId"`
		Status string `dynamodbav:"status"`
	}
	if err := jobsTable.Put(ctx, job{ID: "j-1", Status: "FAILED"}); err != nil {
		panic(err)
	}

	replay := func() error {
		wasFailed := expression.Name("status").Equal(expression.Value("FAILED"))
		tx := jobsTable.WriteTx().Update(jobsTable.Key("j-1"),
			expression.Set(expression.Name("status"), expression.Value("QUEUED")), table.If(wasFailed))
		task, created, err := store.SubmitTx(ctx, tx, tasks.SubmitInput{
			IdempotencyKey: "replay-j-1-1", Payload: []byte(`{"jobId":"j-1"}`),
		})
		if err != nil {
			return err
		}
		if err := tx.Run(ctx); err != nil {
			return err
		}
		fmt.Println("job QUEUED, task", task.Status, "created:", created)
		return nil
	}
	if err := replay(); err != nil {
		panic(err)
	}
	// The job is no longer FAILED: the second replay's transaction is
	// canceled by its condition, so it enqueues nothing either.
	err := replay()
	fmt.Println(errors.Is(err, table.ErrConditionFailed))
	pending, _ := store.Maintenance().Pending().Page(ctx, "")
	fmt.Println(len(pending.Items), "task pending")
	// Output:
	// job QUEUED, task PENDING created: true
	// true
	// 1 task pending
}
