// Command tasks runs the task queue of docs/systems/tasks.md end to end: a producer submits
// tasks (one of them twice, under the same idempotency key), several
// workers claim, heartbeat and complete them, and one worker is killed
// midway holding a task. Once that task's lease runs out another worker
// takes it over; the killed worker's claim is cleaned up in the same
// transaction. The program prints progress as it goes, then the history of
// the rescued task as its event items (EVENT#0001, ... in the task's
// partition: every status change is one), and checks that every task
// completed exactly once.
//
//	go run ./examples/tasks                      # in-memory fake
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 go run ./examples/tasks
//	go run ./examples/tasks -aws                 # real AWS, default config chain
//
// It creates the table (default tasks-example) when missing and exits
// non-zero on any failure or unexpected outcome.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/tasks"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tasks example:", err)
		os.Exit(1)
	}
}

type config struct {
	tasks, workers, shards int
	lease                  time.Duration
}

// run is the whole program. Its flags live in a FlagSet of its own, so run
// can be called more than once in a process (the test runs it twice).
func run(args []string) error {
	_, err := runQueue(args)
	return err
}

// runQueue is run, returning the run it made (for tests that read the
// table it leaves).
func runQueue(args []string) (*queue, error) {
	flags := flag.NewFlagSet("tasks", flag.ContinueOnError)
	useAWS := flags.Bool("aws", false, exampleenv.AWSFlagUsage)
	tableName := flags.String("table", "tasks-example", "table name")
	var cfg config
	flags.IntVar(&cfg.tasks, "tasks", 60, "tasks to submit")
	flags.IntVar(&cfg.workers, "workers", 4, "workers (the last one is killed midway)")
	flags.IntVar(&cfg.shards, "shards", 1, "write shards of the pending partition")
	flags.DurationVar(&cfg.lease, "lease", 2*time.Second, "lease duration")
	if err := flags.Parse(args); err != nil {
		return nil, err
	}
	if cfg.workers < 2 || cfg.tasks < cfg.workers {
		return nil, fmt.Errorf("need at least 2 workers and as many tasks as workers")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: "tablekit-examples"})
	if err != nil {
		return nil, err
	}
	fmt.Println("using", env)
	store, err := tasks.NewStore(env.DB, nil, tasks.TableName(*tableName), tasks.LeaseDuration(cfg.lease), tasks.Shards(cfg.shards))
	if err != nil {
		return nil, err
	}
	if err := store.EnsureTable(ctx); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	fmt.Printf("table %s, %d workers, lease %v, %d shard(s), finished tasks kept %v (TTL)\n", store.Table().Name(), cfg.workers, cfg.lease, cfg.shards, store.Options().Retention)

	q := &queue{store: store, cfg: cfg, runID: time.Now().UTC().Format("150405.000000"), completed: map[string]string{}}
	return q, q.run(ctx)
}

// queue is one run: its tasks, who completed them, and the killed worker's
// task.
type queue struct {
	store *tasks.Store
	cfg   config
	runID string

	mu        sync.Mutex
	ids       map[string]bool   // this run's tasks
	completed map[string]string // task id -> worker that completed it
	twice     int               // tasks completed more than once (must stay 0)
	abandoned string            // the task the killed worker held
	done      atomic.Int64
}

func (q *queue) run(ctx context.Context) error {
	q.ids = map[string]bool{}
	fmt.Println("\n== producer")
	for i := range q.cfg.tasks {
		key := fmt.Sprintf("example-%s-%03d", q.runID, i)
		task, created, err := q.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: key, Payload: []byte(fmt.Sprintf(`{"image":"photo-%03d.jpg"}`, i))})
		if err != nil {
			return err
		}
		if !created {
			return fmt.Errorf("key %s reported as a duplicate on its first submission", key)
		}
		q.ids[task.ID] = true
	}
	// A client retries its first request: the key returns the same task.
	first := fmt.Sprintf("example-%s-%03d", q.runID, 0)
	again, created, err := q.store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: first, Payload: []byte(`{"image":"photo-000.jpg"}`)})
	if err != nil {
		return err
	}
	fmt.Printf("submitted %d tasks; resubmitting key %s returned %s (created: %t)\n", q.cfg.tasks, first, again.ID, created)
	if created || !q.ids[again.ID] {
		return errors.New("the resubmitted key created a new task")
	}

	fmt.Println("\n== workers")
	var wg sync.WaitGroup
	errs := make(chan error, q.cfg.workers)
	stopProgress := q.progress(ctx)
	for w := 1; w <= q.cfg.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.work(ctx, fmt.Sprintf("w-%d", w), w == q.cfg.workers); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	stopProgress()
	close(errs)
	for err := range errs {
		return err
	}
	return q.check(ctx)
}

// work claims and processes tasks until every task of the run is done. The
// doomed worker is killed while processing its third task: its context is
// cancelled, its heartbeats stop, and it never completes.
func (q *queue) work(ctx context.Context, worker string, doomed bool) error {
	processed := 0
	for q.done.Load() < int64(q.cfg.tasks) {
		c, err := q.store.Claim(ctx, worker)
		if errors.Is(err, tasks.ErrNoTask) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", worker, err)
		}
		if c.Lease.Attempt > 1 {
			fmt.Printf("%s: took over %s, attempt %d (%s)\n", worker, c.Task.ID, c.Lease.Attempt, c.Task.LastError)
		}
		if doomed && processed == 2 {
			killed, kill := context.WithCancel(ctx)
			go func() { time.Sleep(20 * time.Millisecond); kill() }()
			// Its work would take an hour, so the kill always comes first.
			q.processFor(killed, c, time.Hour)
			q.mu.Lock()
			q.abandoned = c.Task.ID
			q.mu.Unlock()
			fmt.Printf("%s: KILLED while holding %s (lease until %s)\n", worker, c.Task.ID, c.Lease.ExpiresAt.Format("15:04:05.000"))
			return nil
		}
		if err := q.process(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", worker, err)
		}
		processed++
	}
	return nil
}

// process does a task's work for 20-120 ms, heartbeating every third of a
// lease, then completes it. A lost lease is reported, not an error: another
// worker has the task.
func (q *queue) process(ctx context.Context, c *tasks.Claim) error {
	return q.processFor(ctx, c, time.Duration(20+rand.IntN(100))*time.Millisecond)
}

// processFor is process with work of a given length.
func (q *queue) processFor(ctx context.Context, c *tasks.Claim, length time.Duration) error {
	lease := c.Lease
	work := time.After(length)
	beat := time.NewTicker(q.cfg.lease / 3)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-beat.C:
			var err error
			if lease, err = q.store.Heartbeat(ctx, lease); err != nil {
				return err
			}
		case <-work:
			err := q.store.Complete(ctx, lease, []byte(`{"ok":true}`))
			if errors.Is(err, tasks.ErrLeaseLost) {
				fmt.Printf("%s: lost %s before completing: %v\n", lease.Worker, lease.TaskID, err)
				return nil
			}
			if err != nil {
				return err
			}
			q.mu.Lock()
			if q.ids[lease.TaskID] {
				if _, again := q.completed[lease.TaskID]; again {
					q.twice++
				} else {
					q.done.Add(1)
				}
				q.completed[lease.TaskID] = lease.Worker
			}
			q.mu.Unlock()
			return nil
		}
	}
}

// progress prints the count of completed tasks twice a second until stopped.
func (q *queue) progress(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				fmt.Printf("progress: %d/%d completed\n", q.done.Load(), q.cfg.tasks)
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// check makes the example fail loudly when the queue did not do what it
// printed.
func (q *queue) check(ctx context.Context) error {
	fmt.Printf("progress: %d/%d completed\n", q.done.Load(), q.cfg.tasks)
	if q.twice != 0 {
		return fmt.Errorf("%d tasks completed more than once", q.twice)
	}
	if q.abandoned == "" {
		return errors.New("the doomed worker was never killed")
	}
	for id := range q.ids {
		task, err := q.store.Get(ctx, id)
		if err != nil {
			return err
		}
		if task.Status != tasks.StatusCompleted {
			return fmt.Errorf("task %s ended %s", id, task.Status)
		}
	}
	fmt.Printf("\n== history of %s, the task the killed worker held\n", q.abandoned)
	history, err := q.store.History(ctx, q.abandoned)
	if err != nil {
		return err
	}
	expired := false
	for _, e := range history {
		fmt.Printf("EVENT#%04d %-13s %-10s attempt %d  %s  %s\n", e.Seq, e.Type, e.Status, e.Attempt, e.Worker, e.At.Format("15:04:05.000"))
		expired = expired || e.Type == tasks.EventLeaseExpired
	}
	if !expired || history[len(history)-1].Type != tasks.EventCompleted {
		return errors.New("the killed worker's task was not taken over and completed")
	}
	killed := fmt.Sprintf("w-%d", q.cfg.workers)
	if held, err := q.store.Maintenance().WorkerTasks(ctx, killed); err != nil || len(held) != 0 {
		return fmt.Errorf("the killed worker still has claims %v (%v)", held, err)
	}
	fmt.Printf("\nok: %d tasks completed exactly once; %s's task rescued by %s after its lease expired\n",
		q.cfg.tasks, killed, q.completed[q.abandoned])
	return nil
}
