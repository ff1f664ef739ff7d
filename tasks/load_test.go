package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/tasks"
)

// queueRun is the outcome of runQueue.
type queueRun struct {
	ids         []string
	completions map[string]int // successful Complete calls per task
	abandoned   int            // tasks claimed by crashed workers and never completed by them
	leaseLost   int            // late completions refused
	advances    int            // times the clock was moved past the leases
}

// idleGate parks workers that found no task until something changes (a
// submission, a worker gone, the clock moved), and moves the clock when
// every live worker is parked with all tasks submitted: then nobody holds a
// live lease, the only tasks left are those the crashed workers held, and
// moving the clock a lease ahead expires exactly those. So whatever the
// scheduling, no live worker ever loses its lease, and the run ends when
// every task is done.
type idleGate struct {
	mu       sync.Mutex
	cond     *sync.Cond
	gen      int // bumped by every change a parked worker should retry after
	parked   int
	live     int
	produced bool // every task submitted
	stop     bool // every task completed
	advance  func()
	advances int
}

func newIdleGate(workers int, advance func()) *idleGate {
	g := &idleGate{live: workers, advance: advance}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// generation is the change count a worker reads before it claims.
func (g *idleGate) generation() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gen
}

// changed records a change and wakes the parked workers.
func (g *idleGate) changed(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f != nil {
		f()
	}
	g.gen++
	g.cond.Broadcast()
}

// park waits, after a claim found nothing at generation seen, until
// something changed; it reports false when the run is over. The last live
// worker to park with everything submitted moves the clock instead of
// waiting, or ends the run when done() says every task completed.
func (g *idleGate) park(seen int, done func() bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.stop && g.gen == seen {
		if g.produced && g.parked+1 == g.live {
			if done() {
				g.stop = true
			} else {
				g.advance()
				g.advances++
			}
			g.gen++
			g.cond.Broadcast()
			break
		}
		g.parked++
		g.cond.Wait()
		g.parked--
	}
	return !g.stop
}

// runQueue submits n tasks (each with its own idempotency key) from four
// goroutines while workers claim, heartbeat and complete them. The first
// `crash` workers die after two tasks: they claim a third and stop without
// completing it, as a killed process would; the others pick those up once
// the clock, moved by advance, has run their leases out. n must be at
// least 3*crash. Time moves only
// by advance, so the run is the same whatever the machine's load.
func runQueue(t *testing.T, store *tasks.Store, n, workers, crash int, advance func(time.Duration)) *queueRun {
	t.Helper()
	ctx := context.Background()
	run := &queueRun{completions: map[string]int{}}
	var (
		mu        sync.Mutex
		completed atomic.Int64
		producers sync.WaitGroup
		wg        sync.WaitGroup
		errs      = make(chan error, workers+4)
	)
	lease := store.Options().LeaseDuration
	gate := newIdleGate(workers, func() { advance(lease + time.Millisecond) })
	fail := func(err error) {
		errs <- err
		gate.changed(func() { gate.stop = true })
	}
	next := atomic.Int64{}
	for range 4 {
		producers.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				task, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: fmt.Sprintf("load-%d", i), Payload: fmt.Appendf(nil, `{"n":%d}`, i)})
				if err != nil {
					fail(fmt.Errorf("submit %d: %w", i, err))
					return
				}
				mu.Lock()
				run.ids = append(run.ids, task.ID)
				mu.Unlock()
				gate.changed(nil)
			}
		})
	}
	wg.Go(func() {
		producers.Wait()
		gate.changed(func() { gate.produced = true })
	})
	// The crashing workers run first, alone, so each surely gets its three
	// tasks however the goroutines are scheduled; the others start once
	// they are dead.
	var crashed sync.WaitGroup
	crashed.Add(crash)
	for w := range workers {
		wg.Go(func() {
			defer gate.changed(func() { gate.live-- })
			if w < crash {
				defer crashed.Done()
			} else {
				crashed.Wait()
			}
			worker := fmt.Sprintf("w-%02d", w)
			done := 0
			for {
				seen := gate.generation()
				c, err := store.Claim(ctx, worker)
				if errors.Is(err, tasks.ErrNoTask) {
					if !gate.park(seen, func() bool { return completed.Load() == int64(n) }) {
						return
					}
					continue
				}
				if err != nil {
					fail(fmt.Errorf("%s: claim: %w", worker, err))
					return
				}
				if w < crash && done == 2 {
					mu.Lock()
					run.abandoned++
					mu.Unlock()
					return // killed holding the task
				}
				// Every fourth task heartbeats before it completes.
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
					fail(fmt.Errorf("%s: complete %s: %w", worker, c.Task.ID, err))
					return
				default:
					done++
					completed.Add(1)
					mu.Lock()
					run.completions[c.Task.ID]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	producers.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	run.advances = gate.advances
	return run
}

// checkQueue asserts what a user of the queue relies on after a run: every
// task completed exactly once, every history gap-free and in order, no
// claim left behind, nothing pending.
func checkQueue(t *testing.T, store *tasks.Store, run *queueRun, n int) {
	t.Helper()
	ctx := context.Background()
	require.Len(t, run.ids, n, "tasks submitted")
	for _, id := range run.ids {
		require.Equal(t, 1, run.completions[id], "completions of task %s", id)
		task, err := store.Get(ctx, id)
		require.NoError(t, err)
		require.Equal(t, tasks.StatusCompleted, task.Status, "task %s", id)
		h, err := store.History(ctx, id)
		require.NoError(t, err)
		completedEvents := 0
		for i, e := range h {
			require.Equal(t, i+1, e.Seq, "task %s: history has a gap", id)
			if i > 0 {
				require.False(t, e.At.Before(h[i-1].At), "task %s: event %d is older than event %d", id, i+1, i)
			}
			if e.Type == tasks.EventCompleted {
				completedEvents++
			}
		}
		require.Equal(t, tasks.EventSubmitted, h[0].Type, "task %s history %v", id, eventTypes(h))
		require.Equal(t, tasks.EventCompleted, h[len(h)-1].Type, "task %s history %v", id, eventTypes(h))
		require.Equal(t, 1, completedEvents, "task %s history %v", id, eventTypes(h))
		require.Len(t, h, task.Events, "task %s: META counts %d events", id, task.Events)
	}
	assert.Empty(t, heldClaims(t, store), "WORKER claim items left behind")
	p, err := store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, p.Items, "pending after the run")
}

// checkRecovery asserts that the crashed workers' tasks, and only those,
// were taken over after their leases ran out: one LEASE_EXPIRED each, and
// no live worker lost a lease.
func checkRecovery(t *testing.T, store *tasks.Store, run *queueRun, crashed int) {
	t.Helper()
	assert.Equal(t, crashed, run.abandoned, "tasks abandoned (one per crashed worker)")
	assert.Zero(t, run.leaseLost, "live workers lost leases")
	expired := 0
	for _, id := range run.ids {
		h, err := store.History(context.Background(), id)
		require.NoError(t, err)
		for _, e := range h {
			if e.Type == tasks.EventLeaseExpired {
				expired++
			}
		}
	}
	assert.Equal(t, crashed, expired, "LEASE_EXPIRED events")
}

func TestTwentyWorkersTwoThousandTasksEachCompletedOnce(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			n := 2000
			if shards > 1 || testing.Short() {
				n = 500
			}
			f := newFixture(t, tasks.Shards(shards))
			run := runQueue(t, f.store, n, 20, 2, f.db.Advance)
			t.Logf("%d tasks, 20 workers (2 crashed), %d shards: %d clock moves; %d transactions, %d queries",
				n, shards, run.advances, f.db.Calls("TransactWriteItems"), f.db.Calls("Query"))
			checkQueue(t, f.store, run, n)
			checkRecovery(t, f.store, run, 2)
		})
	}
}
