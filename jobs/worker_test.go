package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testkit"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// The job worker's tests run the real runtime (tasks.Worker.Run) on the
// fake. Leases, backoffs and expiry are the fake's clock, which the test
// moves; heartbeats fire when the test fires them (beats); polls wait a
// real millisecond at most.
const (
	testLease = time.Minute
	beatEvery = 20 * time.Second
)

// beats is the worker's After: heartbeat timers wait for fire, the rest
// are real and short.
type beats struct {
	mu      sync.Mutex
	waiting []chan time.Time
}

func (b *beats) After(d time.Duration) <-chan time.Time {
	if d != beatEvery {
		return time.After(min(d, time.Millisecond))
	}
	ch := make(chan time.Time, 1)
	b.mu.Lock()
	b.waiting = append(b.waiting, ch)
	b.mu.Unlock()
	return ch
}

// fire fires every heartbeat timer waiting now.
func (b *beats) fire() {
	b.mu.Lock()
	chs := b.waiting
	b.waiting = nil
	b.mu.Unlock()
	for _, ch := range chs {
		ch <- time.Time{}
	}
}

// jobWorld is a work queue on the fake, with processes that run job
// workers on connections of their own, and a follower of the jobs table's
// stream that counts every job's terminal moves.
type jobWorld struct {
	*workEnv
	fake   *dynamotest.DB
	beats  *beats
	follow func() []changes.Change[table.Item]
	opts   []func(*jobs.Options)
	// terminal counts, per job, the changes that moved it into COMPLETED
	// or FAILED (from any other status).
	terminal map[string]int
}

func newJobWorld(t *testing.T, opts ...func(*jobs.Options)) *jobWorld {
	t.Helper()
	opts = append([]func(*jobs.Options){jobs.LeaseDuration(testLease), jobs.MaxAttempts(3),
		jobs.Work("photoeditor-test-tasks", func(o *tasks.Options) {
			o.RetryBackoff = table.Backoff{Initial: time.Second, Max: time.Second}
		})}, opts...)
	e, db := fakeWorkEnv(t, opts...)
	w := &jobWorld{workEnv: e, fake: db, beats: &beats{}, opts: opts, terminal: map[string]int{}}
	w.follow = testkit.Follow(t, db, db, e.jobs.Schema().Name, db.Now)
	return w
}

// countTerminal reads the stream so far into w.terminal.
func (w *jobWorld) countTerminal(t *testing.T) {
	t.Helper()
	for _, ch := range w.follow() {
		job, ok, err := jobs.JobFromChange(ch)
		require.NoError(t, err)
		if !ok || (job.Status != jobs.StatusCompleted && job.Status != jobs.StatusFailed) {
			continue
		}
		if ch.Old != nil {
			old, _, err := jobs.JobFromChange(changes.Change[table.Item]{Keys: ch.Keys, New: ch.Old})
			require.NoError(t, err)
			if old.Status == jobs.StatusCompleted || old.Status == jobs.StatusFailed {
				continue
			}
		}
		w.terminal[job.ID]++
	}
}

// proc is one worker process: its connection and its running worker.
type proc struct {
	conn   *procConn
	worker *jobs.Worker
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// start starts a worker process running handler.
func (w *jobWorld) start(t *testing.T, id string, handler jobs.Handler, opts ...func(*tasks.WorkerOptions)) *proc {
	t.Helper()
	return w.startCrashing(t, id, nil, handler, opts...)
}

// startCrashing starts a worker process whose connection crashes where
// hook says, from its first request.
func (w *jobWorld) startCrashing(t *testing.T, id string, hook func(call) string, handler jobs.Handler, opts ...func(*tasks.WorkerOptions)) *proc {
	t.Helper()
	p := &proc{conn: &procConn{API: w.fake, hook: hook}, done: make(chan struct{})}
	store := newStore(t, p.conn, nil, append([]func(*jobs.Options){jobs.TableName(w.jobs.Schema().Name), jobs.Clock(w.now)}, w.opts...)...)
	all := append([]func(*tasks.WorkerOptions){
		tasks.HeartbeatInterval(beatEvery), tasks.ShutdownGrace(time.Millisecond),
		tasks.PollBackoff(table.Backoff{Initial: 100 * time.Microsecond, Max: time.Millisecond}),
		func(o *tasks.WorkerOptions) { o.After = w.beats.After },
	}, opts...)
	var err error
	p.worker, err = store.NewWorker(id, handler, all...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() { p.err = p.worker.Run(ctx); close(p.done) }()
	t.Cleanup(p.stop)
	return p
}

// stop stops the process's worker (gracefully, if it is alive) and waits
// for it.
func (p *proc) stop() {
	p.cancel()
	<-p.done
}

// waitFor waits, in real time, until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			require.FailNow(t, "timed out", "waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitStatus waits until job id is in status st.
func (w *jobWorld) waitStatus(t *testing.T, id string, st jobs.Status) *jobs.Job {
	t.Helper()
	var job *jobs.Job
	waitFor(t, fmt.Sprintf("job %s %s", id, st), func() bool {
		var err error
		job, err = w.jobs.Get(context.Background(), id, jobs.Consistent())
		require.NoError(t, err)
		return job.Status == st
	})
	return job
}

// waitTask waits until task id is in status st.
func (w *jobWorld) waitTask(t *testing.T, id string, st tasks.Status) *tasks.Task {
	t.Helper()
	var task *tasks.Task
	waitFor(t, fmt.Sprintf("task %s %s", id, st), func() bool {
		var err error
		task, err = w.tasks.Get(context.Background(), id)
		require.NoError(t, err)
		return task.Status == st
	})
	return task
}

// editor is a handler that edits the photo: it starts editing with an
// analysis and returns a result.
func editor(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
	if _, err := a.StartEditing(ctx, analysis); err != nil {
		return jobs.EditResult{}, err
	}
	return edit, nil
}

func TestJobWorkerRunsAJobUnderItsTasksOneLease(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	job, _, err := w.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	var held *jobs.Job
	p := w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		held = a.Job()
		return editor(ctx, a)
	})
	done := w.waitStatus(t, job.ID, jobs.StatusCompleted)
	w.waitTask(t, job.TaskID, tasks.StatusCompleted)
	p.stop()

	assert.Equal(t, jobs.StatusProcessing, held.Status, "the handler gets the job PROCESSING")
	assert.Equal(t, 1, held.Attempt)
	assert.True(t, held.LeaseExpiresAt.IsZero(), "the job has no lease of its own: the task's covers it")
	assert.Equal(t, edit.S3Key, done.S3FinalKey)
	assert.Equal(t, analysis.Labels, done.AnalysisResult.Labels)
	assert.True(t, done.LeaseExpiresAt.IsZero())
	w.countTerminal(t)
	assert.Equal(t, map[string]int{job.ID: 1}, w.terminal)
}

func TestJobWorkerHeartbeatsOnlyTheTask(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	job, _, err := w.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	release := make(chan struct{})
	started := make(chan struct{})
	p := w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		close(started)
		<-release
		return editor(ctx, a)
	})
	<-started
	var jobWrites, taskBeats int
	var mu sync.Mutex
	p.conn.crashAt(func(c call) string {
		if c.op == "UpdateItem" {
			mu.Lock()
			if c.table == w.tasks.Schema().Name {
				taskBeats++
			} else {
				jobWrites++
			}
			mu.Unlock()
		}
		return ""
	})
	// Three beats, each a full lease apart on the fake's clock: without
	// them the task would be taken.
	for range 3 {
		waitFor(t, "a heartbeat timer", func() bool { w.beats.mu.Lock(); defer w.beats.mu.Unlock(); return len(w.beats.waiting) > 0 })
		w.fake.Advance(testLease / 2)
		w.beats.fire()
		waitFor(t, "the heartbeat", func() bool { mu.Lock(); defer mu.Unlock(); return taskBeats > 0 })
		mu.Lock()
		taskBeats = 0
		mu.Unlock()
	}
	mu.Lock()
	assert.Zero(t, jobWrites, "a heartbeat writes the task, not the job")
	mu.Unlock()
	close(release)
	w.waitStatus(t, job.ID, jobs.StatusCompleted)
	p.stop()
	got := w.job(t, job.ID)
	assert.Equal(t, 1, got.Attempt, "held all along: one attempt")
}

func TestJobWorkerRetriesWithTheJobsMaxAttemptsThenFailsTheJob(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	job, _, err := w.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	var mu sync.Mutex
	calls := 0
	p := w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return jobs.EditResult{}, &jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: fmt.Sprintf("attempt %d timed out", a.Job().Attempt)}
	})
	for attempt := 1; attempt < 3; attempt++ {
		waitFor(t, "the retry's backoff", func() bool {
			task, err := w.tasks.Get(ctx, job.TaskID)
			require.NoError(t, err)
			return task.Status == tasks.StatusPending && task.Attempt == attempt
		})
		queued := w.job(t, job.ID)
		assert.Equal(t, jobs.StatusQueued, queued.Status, "between attempts the job waits in QUEUED")
		assert.Equal(t, attempt, queued.Attempt)
		w.fake.Advance(2 * time.Second) // past the queue's backoff
	}
	failed := w.waitStatus(t, job.ID, jobs.StatusFailed)
	task := w.waitTask(t, job.TaskID, tasks.StatusCompleted)
	p.stop()
	assert.Equal(t, 3, calls, "the job's MaxAttempts")
	assert.Equal(t, 3, failed.Attempt)
	require.NotNil(t, failed.Error)
	assert.Equal(t, "PROVIDER_TIMEOUT", failed.Error.Code, "the code of the JobError the handler returned")
	assert.Equal(t, "attempt 3 timed out", failed.Error.Message)
	assert.Equal(t, []byte("FAILED"), task.Result, "the task is done: the job is its dead letter")
	w.countTerminal(t)
	assert.Equal(t, map[string]int{job.ID: 1}, w.terminal)
}

func TestJobWorkerFailsAPermanentErrorAtOnceAndRecordsPanicsAsAttempts(t *testing.T) {
	w := newJobWorld(t, jobs.MaxAttempts(1), jobs.Environment("dev"))
	ctx := context.Background()
	corrupt, _, err := w.jobs.Create(ctx, upload("u-corrupt"))
	require.NoError(t, err)
	crashing, _, err := w.jobs.Create(ctx, upload("u-panic"))
	require.NoError(t, err)
	p := w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		if a.Job().UserID == "u-panic" {
			panic("the decoder crashed")
		}
		return jobs.EditResult{}, jobs.Permanent(errors.New("the photo is corrupt"))
	})
	perm := w.waitStatus(t, corrupt.ID, jobs.StatusFailed)
	panicked := w.waitStatus(t, crashing.ID, jobs.StatusFailed)
	p.stop()
	assert.Equal(t, jobs.HandlerErrorCode, perm.Error.Code)
	assert.Equal(t, "the photo is corrupt", perm.Error.Message)
	assert.Equal(t, jobs.HandlerPanicCode, panicked.Error.Code)
	assert.Contains(t, panicked.Error.Message, "the decoder crashed")
	assert.Contains(t, panicked.Error.Stack, "worker.go", "dev keeps the panic's stack")
}

func TestJobWorkerStoppedGracefullyGivesTheJobBackWithoutSpendingAnAttempt(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	job, _, err := w.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	started := make(chan struct{})
	p := w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		close(started)
		<-ctx.Done() // a long edit, cut short by the shutdown
		return jobs.EditResult{}, ctx.Err()
	})
	<-started
	p.stop()
	back := w.job(t, job.ID)
	assert.Equal(t, jobs.StatusQueued, back.Status, "the job waits for the next worker")
	assert.Equal(t, 1, back.Attempt)
	assert.Equal(t, 1, back.AttemptsAtReplay, "the attempt cut short does not count")
	task := w.waitTask(t, job.TaskID, tasks.StatusPending)
	assert.Empty(t, task.Owner, "released, not left to its lease")

	w.start(t, "w2", editor)
	done := w.waitStatus(t, job.ID, jobs.StatusCompleted)
	assert.Equal(t, 2, done.Attempt)
	w.countTerminal(t)
	assert.Equal(t, map[string]int{job.ID: 1}, w.terminal)
}

func TestJobWorkerCompletesTasksThatAreNoLongerTheJobsAndRefusesOtherTables(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	job, _, err := w.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	drain(t, w.workEnv) // the job's own task is gone: the stale copy below is all there is
	stale, _, err := w.tasks.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "stale",
		Payload: []byte(`{"jobsTable":"` + w.jobs.Schema().Name + `","jobId":"` + job.ID + `"}`)})
	require.NoError(t, err)
	foreign, _, err := w.tasks.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "foreign",
		Payload: []byte(`{"jobsTable":"photoeditor-prod-jobs","jobId":"` + job.ID + `"}`)})
	require.NoError(t, err)
	called := make(chan struct{}, 1)
	p := w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		called <- struct{}{}
		return edit, nil
	})
	done := w.waitTask(t, stale.ID, tasks.StatusCompleted)
	assert.Equal(t, []byte("STALE"), done.Result)
	waitFor(t, "the foreign task's failed attempt", func() bool {
		got, err := w.tasks.Get(ctx, foreign.ID)
		require.NoError(t, err)
		return got.Status == tasks.StatusPending && got.Attempt == 1
	})
	p.stop()
	got, err := w.tasks.Get(ctx, foreign.ID)
	require.NoError(t, err)
	assert.Contains(t, got.LastError, "photoeditor-prod-jobs", "the reason names the other table")
	assert.Len(t, called, 0, "no handler ran")
	assert.Equal(t, w.job(t, job.ID).UpdatedAt, job.UpdatedAt, "the job was not touched")
}

func TestNewWorkerNeedsAWorkQueueAndAHandler(t *testing.T) {
	f := newFixture(t)
	_, err := f.store.NewWorker("w1", editor)
	assert.ErrorIs(t, err, jobs.ErrNoWork)
	w := newJobWorld(t)
	_, err = w.jobs.NewWorker("w1", nil)
	wantInputError(t, err, "handler")
	_, err = w.jobs.NewWorker("bad#id", editor)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = (*jobs.Store)(nil).NewWorker("w1", editor)
	assert.ErrorIs(t, err, jobs.ErrNoStore)
	assert.ErrorIs(t, (*jobs.Worker)(nil).Run(context.Background()), jobs.ErrNoStore)
}

// TestAJobWorkerThatDiesAtAnyStepLeavesItsJobTerminalExactlyOnce is the
// crash matrix: a worker process dies at each step of a job's attempt (its
// connection cut before a request is sent, or after DynamoDB applied it
// and before the answer came back); once its task's lease has run out,
// another worker takes the task over and the job ends exactly once, its
// task COMPLETED.
func TestAJobWorkerThatDiesAtAnyStepLeavesItsJobTerminalExactlyOnce(t *testing.T) {
	failing := func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		return jobs.EditResult{}, errors.New("the provider answered 500")
	}
	for _, c := range []struct {
		name    string
		handler jobs.Handler
		// crash says, for each request of the dying process, whether it
		// dies there; jobMoves counts its status moves of the job.
		crash func(c call, jobMoves int) string
		// beat: the crash waits for a heartbeat, which the test fires.
		beat bool
		want jobs.Status
		// attempts is the job's attempt count at its end.
		attempts int
	}{
		{name: "after the claim, before reading the job", handler: editor, want: jobs.StatusCompleted, attempts: 1,
			crash: func(c call, _ int) string { return when(c.op == "GetItem" && c.table == jobsTable, "before") }},
		{name: "after the job's start", handler: editor, want: jobs.StatusCompleted, attempts: 2,
			crash: func(c call, moves int) string { return when(moves == 1, "after") }},
		{name: "after the job's start, on its last attempt", handler: editor, want: jobs.StatusFailed, attempts: 1,
			crash: func(c call, moves int) string { return when(moves == 1, "after") }},
		{name: "mid-heartbeat, before it is sent", handler: editor, beat: true, want: jobs.StatusCompleted, attempts: 2,
			crash: func(c call, _ int) string {
				return when(c.op == "UpdateItem" && c.table == tasksTable && !setsStatus(c.in), "before")
			}},
		{name: "mid-heartbeat, after it applied", handler: editor, beat: true, want: jobs.StatusCompleted, attempts: 2,
			crash: func(c call, _ int) string {
				return when(c.op == "UpdateItem" && c.table == tasksTable && !setsStatus(c.in), "after")
			}},
		{name: "after the job's move to EDITING", handler: editor, want: jobs.StatusCompleted, attempts: 2,
			crash: func(c call, moves int) string { return when(moves == 2, "after") }},
		{name: "after the job's completion, before the task's", handler: editor, want: jobs.StatusCompleted, attempts: 1,
			crash: func(c call, moves int) string { return when(moves == 3, "after") }},
		{name: "after the task's completion, before its claim item's delete", handler: editor, want: jobs.StatusCompleted, attempts: 1,
			crash: func(c call, moves int) string {
				return when(moves == 3 && c.op == "DeleteItem" && c.table == tasksTable, "before")
			}},
		{name: "after the job's move back to the queue for a retry", handler: failing, want: jobs.StatusCompleted, attempts: 2,
			crash: func(c call, moves int) string { return when(moves == 2, "after") }},
		{name: "after the job's failure on its last attempt", handler: failing, want: jobs.StatusFailed, attempts: 1,
			crash: func(c call, moves int) string { return when(moves == 2, "after") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := []func(*jobs.Options){}
			if c.want == jobs.StatusFailed {
				opts = append(opts, jobs.MaxAttempts(1))
			}
			w := newJobWorld(t, opts...)
			ctx := context.Background()
			job, _, err := w.jobs.Create(ctx, upload("u1"))
			require.NoError(t, err)

			var mu sync.Mutex
			moves := 0
			hook := func(cl call) string {
				mu.Lock()
				defer mu.Unlock()
				if cl.op == "UpdateItem" && cl.table == jobsTable && setsStatus(cl.in) {
					moves++
				}
				return c.crash(cl, moves)
			}
			var dying *proc
			if c.beat {
				release := make(chan struct{})
				dying = w.start(t, "dies", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
					<-release
					return c.handler(ctx, a)
				})
				w.waitStatus(t, job.ID, jobs.StatusProcessing)
				dying.conn.crashAt(hook)
				waitFor(t, "the heartbeat's timer", func() bool {
					w.beats.mu.Lock()
					defer w.beats.mu.Unlock()
					return len(w.beats.waiting) > 0
				})
				w.beats.fire()
				waitFor(t, "the crash", dying.conn.dead.Load)
				close(release)
			} else {
				dying = w.startCrashing(t, "dies", hook, c.handler)
				waitFor(t, "the crash", dying.conn.dead.Load)
			}
			dying.stop()

			w.fake.Advance(2 * testLease) // the dead worker's task lease runs out
			w.start(t, "takes-over", editor)
			done := w.waitStatus(t, job.ID, c.want)
			w.waitTask(t, job.TaskID, tasks.StatusCompleted)
			assert.Equal(t, c.attempts, done.Attempt)
			w.countTerminal(t)
			assert.Equal(t, map[string]int{job.ID: 1}, w.terminal, "one terminal move")
		})
	}
}

// The tables of newJobWorld.
const (
	jobsTable  = "photoeditor-test-jobs"
	tasksTable = "photoeditor-test-tasks"
)

func when(cond bool, at string) string {
	if cond {
		return at
	}
	return ""
}
