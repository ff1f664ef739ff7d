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

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// The worker's timers in these tests: heartbeats and the shutdown grace
// wait on channels the test fires (armed tells it a timer is waiting);
// poll waits are real but a millisecond at most. Task time (leases,
// backoffs) is the fake's clock.
const (
	beat  = 10 * time.Second
	grace = 7 * time.Second
)

type timers struct {
	mu      sync.Mutex
	waiting map[time.Duration][]chan time.Time
	armed   chan time.Duration
	polls   []time.Duration
}

func newTimers() *timers {
	return &timers{waiting: map[time.Duration][]chan time.Time{}, armed: make(chan time.Duration, 1000)}
}

func (tm *timers) After(d time.Duration) <-chan time.Time {
	if d != beat && d != grace {
		tm.mu.Lock()
		tm.polls = append(tm.polls, d)
		tm.mu.Unlock()
		return time.After(d)
	}
	ch := make(chan time.Time, 1)
	tm.mu.Lock()
	tm.waiting[d] = append(tm.waiting[d], ch)
	tm.mu.Unlock()
	tm.armed <- d
	return ch
}

// waitArmed waits until a timer of d is waiting.
func (tm *timers) waitArmed(t *testing.T, d time.Duration) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case got := <-tm.armed:
			if got == d {
				return
			}
		case <-timeout:
			require.FailNow(t, "no timer armed", "waiting for a %v timer", d)
		}
	}
}

// fire fires every waiting timer of d.
func (tm *timers) fire(d time.Duration) {
	tm.mu.Lock()
	chs := tm.waiting[d]
	tm.waiting[d] = nil
	tm.mu.Unlock()
	for _, ch := range chs {
		ch <- time.Time{}
	}
}

func (tm *timers) pollDelays() []time.Duration {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return append([]time.Duration(nil), tm.polls...)
}

// running is a Worker's Run in a goroutine: done closes when Run returns
// err.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func startWorker(t *testing.T, f *fixture, tm *timers, id string, h tasks.Handler, opts ...func(*tasks.WorkerOptions)) *running {
	t.Helper()
	all := append([]func(*tasks.WorkerOptions){
		tasks.HeartbeatInterval(beat), tasks.ShutdownGrace(grace),
		tasks.PollBackoff(table.Backoff{Initial: 100 * time.Microsecond, Max: time.Millisecond}),
		func(o *tasks.WorkerOptions) { o.After = tm.After },
	}, opts...)
	w, err := f.store.NewWorker(id, h, all...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan struct{})}
	go func() { r.err = w.Run(ctx); close(r.done) }()
	t.Cleanup(func() {
		cancel()
		for {
			tm.fire(grace)
			select {
			case <-r.done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return r
}

// stop cancels Run's context and waits for Run to return, firing the
// grace timer first when fireGrace.
func (r *running) stop(t *testing.T, tm *timers, fireGrace bool) {
	t.Helper()
	r.cancel()
	if fireGrace {
		tm.waitArmed(t, grace)
		tm.fire(grace)
	}
	receive(t, r.done, "Run to return after its context ended")
	require.NoError(t, r.err)
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		require.FailNow(t, "timed out", "waiting for %s", what)
	}
	var zero T
	return zero
}

func TestWorkerRunsConcurrentHandlersAndCompletesEveryTask(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	var ids []string
	for i := range 12 {
		ids = append(ids, f.submit(t, fmt.Sprintf("job-%d", i)).ID)
	}
	var inFlight, most atomic.Int32
	all4 := make(chan struct{})
	var once sync.Once
	handled := make(chan string, 12)
	r := startWorker(t, f, tm, "w1", func(ctx context.Context, task *tasks.Task) ([]byte, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == 4 {
			once.Do(func() { close(all4) })
		}
		// The first tasks wait until four run at once: the worker must
		// claim while handlers run.
		select {
		case <-all4:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		handled <- task.ID
		return []byte("done " + string(task.Payload)), nil
	}, tasks.Concurrency(4))
	for range 12 {
		receive(t, handled, "a handled task")
	}
	r.stop(t, tm, false)
	assert.Equal(t, int32(4), most.Load(), "handlers running at once")
	for i, id := range ids {
		got := f.get(t, id)
		assert.Equal(t, tasks.StatusCompleted, got.Status, "task %d", i)
		assert.Equal(t, fmt.Sprintf("done job-%d", i), string(got.Result))
		assert.Equal(t, 1, got.Attempt)
	}
	assert.Empty(t, heldClaims(t, f.store))
}

func TestWorkerHeartbeatsKeepTheLeaseWhileTheHandlerRuns(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	task := f.submit(t, "long")
	started, finish := make(chan struct{}), make(chan struct{})
	r := startWorker(t, f, tm, "w1", func(ctx context.Context, _ *tasks.Task) ([]byte, error) {
		close(started)
		<-finish
		return nil, nil
	})
	receive(t, started, "the handler")
	for range 3 { // 60 s of work under a 30 s lease
		tm.waitArmed(t, beat)
		f.db.Advance(20 * time.Second)
		tm.fire(beat)
	}
	tm.waitArmed(t, beat) // the third heartbeat has been written
	got := f.get(t, task.ID)
	assert.Equal(t, "w1", got.Owner)
	assert.True(t, got.LeaseExpiresAt.After(f.db.Now()), "lease %v has run out at %v", got.LeaseExpiresAt, f.db.Now())
	_, err := f.store.Claim(context.Background(), "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask, "a heartbeating task was taken over")
	close(finish)
	r.stop(t, tm, true)
	got = f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, 1, got.Attempt)
}

func TestWorkerThatLostItsLeaseStopsTheHandlerAndWritesNothing(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	task := f.submit(t, "slow")
	started := make(chan struct{})
	stopped := make(chan error, 1)
	r := startWorker(t, f, tm, "w1", func(ctx context.Context, _ *tasks.Task) ([]byte, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	})
	receive(t, started, "the handler")
	tm.waitArmed(t, beat)
	// The worker stalls past its lease; another worker takes the task.
	f.db.Advance(time.Minute)
	taken := f.claim(t, "w2")
	require.Equal(t, 2, taken.Lease.Attempt)
	tm.fire(beat)
	assert.ErrorIs(t, receive(t, stopped, "the handler to be stopped"), context.Canceled)
	r.stop(t, tm, true)
	got := f.get(t, task.ID)
	assert.Equal(t, "w2", got.Owner)
	assert.Equal(t, tasks.StatusProcessing, got.Status)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)
}

func TestWorkerRecordsAHandlerPanicAsAFailedAttemptAndGoesOn(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	bad := f.submit(t, "poison")
	good := f.submit(t, "fine")
	handled := make(chan string, 2)
	r := startWorker(t, f, tm, "w1", func(_ context.Context, task *tasks.Task) ([]byte, error) {
		defer func() { handled <- task.ID }()
		if string(task.Payload) == "poison" {
			panic("nil map write in resize")
		}
		return nil, nil
	})
	receive(t, handled, "a task")
	receive(t, handled, "a task")
	r.stop(t, tm, false)
	got := f.get(t, bad.ID)
	assert.Equal(t, tasks.StatusPending, got.Status, "a panic is a failed attempt, retried after its backoff")
	assert.Contains(t, got.LastError, "nil map write in resize")
	h := f.history(t, bad.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed)
	assert.Contains(t, h[2].Message, "panicked: nil map write in resize")
	assert.Equal(t, tasks.StatusCompleted, f.get(t, good.ID).Status, "the worker went on after the panic")
}

func TestWorkerFailsTheAttemptWithTheHandlersError(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	task := f.submit(t, "x")
	handled := make(chan struct{}, 1)
	r := startWorker(t, f, tm, "w1", func(context.Context, *tasks.Task) ([]byte, error) {
		defer func() { handled <- struct{}{} }()
		return nil, errors.New("upstream returned 503")
	})
	receive(t, handled, "the handler")
	r.stop(t, tm, false)
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusPending, got.Status)
	assert.Equal(t, "upstream returned 503", got.LastError)
	assert.True(t, got.AvailableAt.After(f.db.Now()) || got.AvailableAt.Equal(f.db.Now()))
}

func TestWorkerShutdownFinishesOrReleasesEveryTask(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	quick := f.submit(t, "quick")
	stuck := f.submit(t, "stuck")
	started := make(chan string, 2)
	finishQuick := make(chan struct{})
	r := startWorker(t, f, tm, "w1", func(ctx context.Context, task *tasks.Task) ([]byte, error) {
		started <- task.ID
		if string(task.Payload) == "quick" {
			<-finishQuick // outlives Run's context, within the grace period
			return []byte("ok"), nil
		}
		<-ctx.Done() // only stops when the grace period is over
		return nil, ctx.Err()
	}, tasks.Concurrency(2))
	receive(t, started, "a handler")
	receive(t, started, "a handler")
	r.cancel()
	tm.waitArmed(t, grace)
	close(finishQuick)
	tm.fire(grace)
	receive(t, r.done, "Run to return")
	require.NoError(t, r.err)
	// Everything is settled when Run returns.
	q := f.get(t, quick.ID)
	assert.Equal(t, tasks.StatusCompleted, q.Status)
	assert.Equal(t, "ok", string(q.Result))
	s := f.get(t, stuck.ID)
	assert.Equal(t, tasks.StatusPending, s.Status, "the unfinished task is released, not stranded")
	assert.Empty(t, s.Owner)
	wantHistory(t, f.history(t, stuck.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventReleased)
	assert.Empty(t, heldClaims(t, f.store))
	// Released, it is claimable at once: no lease to wait out.
	c := f.claim(t, "w2")
	assert.Equal(t, stuck.ID, c.Task.ID)
}

func TestWorkerPollsAnEmptyQueueLessOftenAndResetsOnWork(t *testing.T) {
	f := newFixture(t)
	tm := newTimers()
	handled := make(chan struct{}, 1)
	backoff := table.Backoff{Initial: 100 * time.Microsecond, Max: time.Millisecond}
	r := startWorker(t, f, tm, "w1", func(context.Context, *tasks.Task) ([]byte, error) {
		handled <- struct{}{}
		return nil, nil
	}, tasks.PollBackoff(backoff))
	for len(tm.pollDelays()) < 8 {
		time.Sleep(time.Millisecond) // waits for polls to happen; asserts nothing
	}
	f.submit(t, "work")
	receive(t, handled, "the task")
	r.stop(t, tm, false)
	delays := tm.pollDelays()
	for n, d := range delays[:8] {
		window := min(backoff.Initial<<n, backoff.Max)
		assert.Less(t, d, window, "empty poll %d waited %v, past its window %v", n, d, window)
	}
	claims := f.db.Calls("Query") / 2 // each empty Claim: the expired-lease query and the pending query
	assert.LessOrEqual(t, claims, len(delays)+2, "the worker claimed without waiting between empty polls")
}

func TestNewWorkerRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	h := func(context.Context, *tasks.Task) ([]byte, error) { return nil, nil }
	for name, c := range map[string]struct {
		id    string
		h     tasks.Handler
		opt   func(*tasks.WorkerOptions)
		field string
	}{
		"no worker id":               {"", h, nil, "workerID"},
		"worker id with #":           {"w#1", h, nil, "workerID"},
		"no handler":                 {"w1", nil, nil, "handler"},
		"negative concurrency":       {"w1", h, tasks.Concurrency(-1), "WorkerOptions.Concurrency"},
		"heartbeat as long as lease": {"w1", h, tasks.HeartbeatInterval(tasks.DefaultLeaseDuration), "WorkerOptions.HeartbeatInterval"},
		"backwards poll backoff":     {"w1", h, tasks.PollBackoff(table.Backoff{Initial: time.Second, Max: time.Millisecond}), "WorkerOptions.PollBackoff"},
	} {
		t.Run(name, func(t *testing.T) {
			w, err := f.store.NewWorker(c.id, c.h, c.opt)
			assert.Nil(t, w)
			wantInputError(t, err, c.field)
		})
	}
	var nilWorker *tasks.Worker
	assert.ErrorIs(t, nilWorker.Run(context.Background()), table.ErrInvalidInput)
}
