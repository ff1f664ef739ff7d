package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/tasks"
)

// fastClock runs speed times faster than real time from epoch, so a 30 s
// lease expires in 30/speed real seconds while workers heartbeat and
// complete at real speed.
func fastClock(speed float64) func() time.Time {
	start := time.Now()
	return func() time.Time {
		return epoch.Add(time.Duration(float64(time.Since(start)) * speed))
	}
}

// queueRun is the outcome of runQueue.
type queueRun struct {
	ids         []string
	completions map[string]int // successful Complete calls per task
	abandoned   int            // tasks claimed by crashed workers and never completed by them
	leaseLost   int            // late completions refused
	elapsed     time.Duration
}

// runQueue submits n tasks (each with its own idempotency key) while
// workers claim, heartbeat and complete them. The first `crash` workers
// die after two tasks: they claim a third and stop without completing it,
// as a killed process would; the others must pick those up once the lease
// runs out.
func runQueue(t *testing.T, store *tasks.Store, n, workers, crash int) *queueRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := &queueRun{completions: map[string]int{}}
	var (
		mu        sync.Mutex
		completed atomic.Int64
		wg        sync.WaitGroup
		errs      = make(chan error, workers+1)
	)
	start := time.Now()
	// The producer submits from four goroutines, as a service handling
	// concurrent requests would.
	next := atomic.Int64{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				task, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: fmt.Sprintf("load-%d", i), Payload: []byte(fmt.Sprintf(`{"n":%d}`, i))})
				if err != nil {
					errs <- fmt.Errorf("submit %d: %w", i, err)
					return
				}
				mu.Lock()
				run.ids = append(run.ids, task.ID)
				mu.Unlock()
			}
		}()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker := fmt.Sprintf("w-%02d", w)
			done := 0
			for completed.Load() < int64(n) {
				c, err := store.Claim(ctx, worker)
				if errors.Is(err, tasks.ErrNoTask) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if err != nil {
					errs <- fmt.Errorf("%s: claim: %w", worker, err)
					return
				}
				if w < crash && done == 2 {
					mu.Lock()
					run.abandoned++
					mu.Unlock()
					return // killed holding the task
				}
				// Every fourth task heartbeats before it completes, so
				// heartbeats race with takeovers too.
				lease := c.Lease
				if done%4 == 0 {
					lease, err = store.Heartbeat(ctx, c.Lease)
				}
				if err == nil {
					err = store.Complete(ctx, lease, []byte("ok"))
				}
				switch {
				case errors.Is(err, tasks.ErrLeaseLost):
					mu.Lock()
					run.leaseLost++
					mu.Unlock()
				case err != nil:
					errs <- fmt.Errorf("%s: complete %s: %w", worker, c.Task.ID, err)
					return
				default:
					done++
					completed.Add(1)
					mu.Lock()
					run.completions[c.Task.ID]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	run.elapsed = time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return run
}

// checkQueue asserts what a user of the queue relies on after a run: every
// task completed exactly once, every history gap-free and in order, no
// claim left behind, nothing pending.
func checkQueue(t *testing.T, store *tasks.Store, run *queueRun, n int) {
	t.Helper()
	ctx := context.Background()
	if len(run.ids) != n {
		t.Fatalf("%d tasks submitted, want %d", len(run.ids), n)
	}
	for _, id := range run.ids {
		if c := run.completions[id]; c != 1 {
			t.Fatalf("task %s completed %d times", id, c)
		}
		task, err := store.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if task.Status != tasks.StatusCompleted {
			t.Fatalf("task %s ended %s", id, task.Status)
		}
		h, err := store.History(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		completedEvents := 0
		for i, e := range h {
			if e.Seq != i+1 {
				t.Fatalf("task %s: event %d has seq %d: history has a gap", id, i+1, e.Seq)
			}
			if i > 0 && e.At.Before(h[i-1].At) {
				t.Fatalf("task %s: event %d is older than event %d", id, i+1, i)
			}
			if e.Type == tasks.EventCompleted {
				completedEvents++
			}
		}
		if h[0].Type != tasks.EventSubmitted || h[len(h)-1].Type != tasks.EventCompleted || completedEvents != 1 || len(h) != task.Events {
			t.Fatalf("task %s history %v (META counts %d events)", id, eventTypes(h), task.Events)
		}
	}
	if left := claimItems(t, store.Table()); len(left) != 0 {
		t.Fatalf("%d WORKER claim items left behind, e.g. %v", len(left), left[0])
	}
	p, err := store.ListPending(ctx, "")
	if err != nil || len(p.Items) != 0 {
		t.Fatalf("pending after the run: %d, %v", len(p.Items), err)
	}
}

func TestTwentyWorkersTwoThousandTasksEachCompletedOnce(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			n := 2000
			if shards > 1 || testing.Short() {
				n = 500
			}
			// 30 s leases at 100x: a crashed worker's task is free again
			// after 0.3 s of real time.
			db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = fastClock(100) })
			f := &fixture{db: db, store: newStore(t, db, db.Now, func(o *tasks.Options) {
				o.Shards = shards
				o.MaxAttempts = 20
			})}
			require.NoError(t, f.store.EnsureTable(context.Background()))
			run := runQueue(t, f.store, n, 20, 2)
			t.Logf("%d tasks, 20 workers (2 crashed), %d shards: %v, %.0f tasks/s; %d late completions refused; %d transactions, %d queries",
				n, shards, run.elapsed.Round(time.Millisecond), float64(n)/run.elapsed.Seconds(), run.leaseLost,
				f.db.Calls("TransactWriteItems"), f.db.Calls("Query"))
			checkQueue(t, f.store, run, n)
			if run.abandoned != 2 {
				t.Fatalf("%d tasks abandoned, want 2 (one per crashed worker)", run.abandoned)
			}
		})
	}
}
