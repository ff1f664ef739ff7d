package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// Handler does one attempt at a job: the photo's download, analysis and
// edit. The job is PROCESSING when it is called, held by the worker under
// its task's lease. It calls a.StartEditing when the provider call begins
// (optional: a job still PROCESSING when the handler succeeds moves
// through EDITING without an analysis) and returns the edit result, which
// completes the job; or an error, which fails the attempt. A failed
// attempt is retried, after the task queue's backoff, until the job has
// had Options.MaxAttempts attempts, and then the job is FAILED with the
// error; an error wrapped by Permanent fails the job at once. The error's
// code is that of a *JobError in its chain, else HandlerErrorCode; a panic
// is an attempt failed with HandlerPanicCode.
//
// ctx ends when the worker loses the task (another worker took it over
// after a missed heartbeat: nothing the handler does counts any more) or
// is stopping and the shutdown grace is over (the job goes back to the
// queue without spending the attempt). A handler should return soon after.
type Handler func(ctx context.Context, a *Attempt) (EditResult, error)

// Codes the job worker records in a FAILED job's error.
const (
	// HandlerErrorCode: the handler's last attempt failed with an error
	// that carries no *JobError.
	HandlerErrorCode = "HANDLER_ERROR"
	// HandlerPanicCode: the handler's last attempt panicked.
	HandlerPanicCode = "HANDLER_PANIC"
)

// Permanent marks a handler's error as one no retry can cure (the photo is
// corrupt, the provider refused the content): the job fails at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Error makes a *JobError an error a Handler can return, so its code and
// message are the ones recorded when the job fails.
func (e *JobError) Error() string {
	if e == nil {
		return "jobs: <nil JobError>"
	}
	return e.Code + ": " + e.Message
}

// Attempt is one attempt at a job, held by a job worker under its task's
// lease; a Handler receives it.
type Attempt struct {
	store *Store
	lease Lease

	mu  sync.Mutex
	job *Job
}

// Job is the job as the attempt last moved it: PROCESSING as it started,
// EDITING after StartEditing. Its Attempt is the attempt's number.
func (a *Attempt) Job() *Job {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.job
}

// Lease is the attempt's hold on the job, for the store's lease moves
// (Complete, Fail) should a handler make them itself; the worker makes
// them from what the handler returns. It renews nothing: the task's lease,
// which the worker heartbeats, is the job's.
func (a *Attempt) Lease() Lease {
	if a == nil {
		return Lease{}
	}
	return a.lease
}

// StartEditing moves the job PROCESSING → EDITING and stores the
// provider's analysis, as Store.StartEditing does, under the attempt's
// hold. An attempt whose task was taken over gets ErrLeaseLost.
func (a *Attempt) StartEditing(ctx context.Context, analysis *AnalysisResult) (*Job, error) {
	if a == nil || a.store == nil {
		return nil, ErrNoStore
	}
	job, err := a.store.StartEditing(ctx, a.lease, analysis)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.job = job
	a.mu.Unlock()
	return job, nil
}

// Worker runs the store's jobs: a tasks.Worker on the store's work queue
// whose handler runs a Handler on each job. Create it with
// Store.NewWorker and start it with Run.
type Worker struct {
	store   *Store
	tasks   *tasks.Worker
	handler Handler
	log     *slog.Logger
	metrics *workerMetrics
	// run is Run's context: once it ends, an attempt cut short is a
	// shutdown, not a lost lease.
	run atomic.Pointer[context.Context]
}

// NewWorker returns a worker that runs handler on the store's jobs as
// workerID, on the tasks runtime (tasks.Store.NewWorker): it claims the
// tasks carrying jobs' work, up to WorkerOptions.Concurrency at once, and
// holds each job under its task's one lease, which it heartbeats. opts
// configure the tasks worker (concurrency, heartbeat interval, poll
// backoff, shutdown grace); its lease is Options.LeaseDuration. A store
// without Options.Work has no queue to run: ErrNoWork.
func (s *Store) NewWorker(workerID string, handler Handler, opts ...func(*tasks.WorkerOptions)) (*Worker, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.work == nil {
		return nil, fmt.Errorf("jobs: NewWorker: %w", ErrNoWork)
	}
	if handler == nil {
		return nil, inputError("handler", "nil", "NewWorker needs a Handler")
	}
	log := s.opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Worker{store: s, handler: handler, metrics: newWorkerMetrics(s),
		log: log.With("table", s.t.Name(), "worker", workerID)}
	tw, err := s.work.NewWorker(workerID, w.handle, opts...)
	if err != nil {
		return nil, err
	}
	w.tasks = tw
	return w, nil
}

// Run runs jobs until ctx ends, then stops gracefully, as tasks.Worker.Run
// does: it claims nothing more, gives running handlers the shutdown grace,
// then cancels them; a job whose handler was cut short goes back to QUEUED
// without spending its attempt, and its task back to the queue. Run
// returns when every job it held is settled.
func (w *Worker) Run(ctx context.Context) error {
	if w == nil || w.tasks == nil {
		return ErrNoStore
	}
	if ctx == nil {
		return inputError("ctx", "nil", "Run needs a context")
	}
	w.run.Store(&ctx)
	return w.tasks.Run(ctx)
}

// stopping reports whether Run's context has ended.
func (w *Worker) stopping() bool {
	ctx := w.run.Load()
	return ctx != nil && (*ctx).Err() != nil
}

// Task results: the job's end, as the task that carried its work records
// it.
var (
	resultGone  = []byte("GONE")  // the job was deleted or expired
	resultStale = []byte("STALE") // the job's work moved to another task
)

// handle is the tasks.Handler of one claimed task: the job it carries,
// started or taken over under the task's lease, run, and moved to its
// end. It returns nil (the task completes) once the job's attempt is
// settled for good: completed, failed, or no longer this task's. It
// returns an error (the task's attempt fails, retried after its backoff)
// once the job is QUEUED again for a retry, or when it could not move the
// job.
func (w *Worker) handle(ctx context.Context, task *tasks.Task) ([]byte, error) {
	s := w.store
	id, err := s.jobOfTask(task)
	if err != nil {
		w.log.Error("jobs: a task that is not this table's job", "key", task.ID, "error", err)
		return nil, err
	}
	// Two reads at most: a refused start means the job changed between
	// the read and the write (a late holder of an earlier attempt of this
	// task moved it), and the second read sees what it did.
	for range 2 {
		job, err := s.Get(ctx, id, Consistent())
		switch {
		case errors.Is(err, ErrNotFound):
			w.log.Info("jobs: the job of a task is gone; nothing to do", "key", id, "task", task.ID)
			return resultGone, nil
		case err != nil:
			return nil, err
		case job.TaskID != task.ID:
			// The job was queued again under another task (Replay,
			// Recover, Sweep): that task carries it now.
			w.log.Debug("jobs: a task no longer the job's; completing it", "key", id, "task", task.ID, "jobTask", job.TaskID)
			return resultStale, nil
		case job.Status == StatusCompleted || job.Status == StatusFailed:
			// An earlier holder of the task settled the job and died
			// before completing the task.
			return []byte(job.Status), nil
		case job.Status.InFlight():
			// An earlier holder of the task died holding the job: its
			// attempt counts, as Recover counts it.
			w.metrics.takeover(ctx)
			w.log.Warn("jobs: taking over a job whose worker died", "key", id, "attempt", job.Attempt, "status", string(job.Status), "task", task.ID)
			if job.Attempt-job.AttemptsAtReplay >= s.opts.MaxAttempts {
				if err := s.failTakenOver(ctx, job, task.ID); err != nil {
					if refusedMove(err) {
						continue
					}
					return nil, err
				}
				w.metrics.attempt(ctx, outcomeFailed)
				w.metrics.failed(ctx, LeaseExpiredCode)
				w.log.Error("jobs: job failed: its last attempt's worker died", "key", id, "attempt", job.Attempt, "code", LeaseExpiredCode)
				return []byte(StatusFailed), nil
			}
		case job.Status != StatusQueued:
			return nil, fmt.Errorf("jobs: job %q of task %q has status %q, which no worker can start", id, task.ID, job.Status)
		}
		started, err := s.startHeld(ctx, job, task.ID)
		if refusedMove(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return w.attempt(ctx, started, task.ID)
	}
	return nil, fmt.Errorf("jobs: job %q changed under task %q twice while it was being started", id, task.ID)
}

// refusedMove reports whether err is a job move refused by its condition.
func refusedMove(err error) bool {
	var te *TransitionError
	return errors.As(err, &te)
}

// attempt runs the handler on a started job and settles the attempt.
func (w *Worker) attempt(ctx context.Context, job *Job, taskID string) ([]byte, error) {
	s := w.store
	a := &Attempt{store: s, job: job, lease: Lease{JobID: job.ID, Attempt: job.Attempt, task: taskID}}
	result, herr := w.call(ctx, a)
	log := w.log.With("key", job.ID, "attempt", job.Attempt, "task", taskID)
	if herr != nil && ctx.Err() != nil {
		// The handler was stopped: by the worker's shutdown, or because
		// the task was taken over. Its failure does not count.
		if !w.stopping() {
			w.metrics.attempt(ctx, outcomeLost)
			log.Warn("jobs: the task's lease was lost; its new holder takes the job over")
			return nil, herr
		}
		// Back to the queue, its attempt given back; the runtime
		// releases the task. Unsettled (a crash here), the task's lease
		// expires and its next holder takes the job over.
		settle, cancel := settleContext(ctx)
		defer cancel()
		if _, err := s.requeueHeld(settle, a.lease, true); err != nil {
			log.Error("jobs: giving a job back at shutdown failed; it is taken over once its task's lease expires", "error", err)
			return nil, errors.Join(herr, err)
		}
		w.metrics.attempt(ctx, outcomeReleased)
		log.Info("jobs: job given back at shutdown")
		return nil, herr
	}
	// The attempt's end is written even if ctx ended meanwhile: a result
	// is kept unless the job was taken over (then the write is refused).
	ctx, cancel := settleContext(ctx)
	defer cancel()
	if herr == nil {
		return w.complete(ctx, a, result, log)
	}
	var perm *permanentError
	last := job.Attempt-job.AttemptsAtReplay >= s.opts.MaxAttempts
	if !last && !errors.As(herr, &perm) {
		if _, err := s.requeueHeld(ctx, a.lease, false); err != nil {
			return nil, errors.Join(herr, err)
		}
		w.metrics.attempt(ctx, outcomeRetried)
		log.Warn("jobs: attempt failed; the job is retried after the queue's backoff", "error", herr)
		return nil, herr
	}
	failure := failureOf(herr)
	if _, err := s.Fail(ctx, a.lease, failure); err != nil {
		return nil, errors.Join(herr, err)
	}
	w.metrics.attempt(ctx, outcomeFailed)
	w.metrics.failed(ctx, failure.Code)
	log.Error("jobs: job failed", "code", failure.Code, "error", herr, "lastAttempt", last)
	return []byte(StatusFailed), nil
}

// complete moves a job whose handler succeeded to COMPLETED (through
// EDITING if the handler did not start editing).
func (w *Worker) complete(ctx context.Context, a *Attempt, result EditResult, log *slog.Logger) ([]byte, error) {
	if a.Job().Status == StatusProcessing {
		if _, err := a.StartEditing(ctx, nil); err != nil {
			return nil, err
		}
	}
	if _, err := w.store.Complete(ctx, a.lease, result); err != nil {
		if errors.Is(err, table.ErrInvalidInput) {
			// The handler's result is not one: a bug no retry cures.
			return w.failInvalid(ctx, a, err, log)
		}
		return nil, err
	}
	w.metrics.attempt(ctx, outcomeCompleted)
	log.Debug("jobs: job completed")
	return []byte(StatusCompleted), nil
}

// failInvalid fails a job whose handler returned an invalid result.
func (w *Worker) failInvalid(ctx context.Context, a *Attempt, cause error, log *slog.Logger) ([]byte, error) {
	failure := JobError{Code: InvalidResultCode, Message: truncate(cause.Error(), maxMessageLen)}
	if _, err := w.store.Fail(ctx, a.lease, failure); err != nil {
		return nil, errors.Join(cause, err)
	}
	w.metrics.attempt(ctx, outcomeFailed)
	w.metrics.failed(ctx, failure.Code)
	log.Error("jobs: job failed: the handler's result is invalid", "code", failure.Code, "error", cause)
	return []byte(StatusFailed), nil
}

// InvalidResultCode: the handler returned an edit result the job cannot
// store (no s3Key, a size or format out of range).
const InvalidResultCode = "INVALID_RESULT"

// call runs the handler, turning a panic into an error carrying its value
// and stack.
func (w *Worker) call(ctx context.Context, a *Attempt) (result EditResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &JobError{Code: HandlerPanicCode, Message: fmt.Sprintf("handler panicked: %v", p), Stack: string(debug.Stack())}
		}
	}()
	return w.handler(ctx, a)
}

// failureOf is the error a failed attempt records: the *JobError in err's
// chain, else err's text under HandlerErrorCode, cut to what the job's
// error map holds.
func failureOf(err error) JobError {
	f := JobError{Code: HandlerErrorCode, Message: err.Error()}
	var je *JobError
	if errors.As(err, &je) && je != nil {
		f = JobError{Code: je.Code, Message: je.Message, Stack: je.Stack}
	}
	if f.Code == "" {
		f.Code = HandlerErrorCode
	}
	if f.Message == "" {
		f.Message = err.Error()
	}
	f.Code = truncate(f.Code, maxCodeLen)
	f.Message = truncate(f.Message, maxMessageLen)
	f.Stack = truncate(f.Stack, maxStackLen)
	return f
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// settleTimeout bounds the writes that settle an attempt after its
// context ended.
const settleTimeout = 30 * time.Second

// settleContext is the context of the write that settles an attempt after
// ctx ended: not canceled with it, but bounded.
func settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
}

// startHeld moves a job, as read, to PROCESSING for a new attempt under
// the task taskID: QUEUED (its work waiting) or in flight (an earlier
// holder of the task died). The write is conditioned on the status and
// attempt read and on the job being the task's, so of two holders of one
// task (a late one and the one that took it over) one starts it, and the
// other's moves are refused by the attempt that changed.
func (s *Store) startHeld(ctx context.Context, job *Job, taskID string) (*Job, error) {
	attempt := expression.Name(attrAttempt)
	spec := moveSpec{id: job.ID, from: []Status{job.Status}, to: StatusProcessing,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			u = s.renames.set(u, attrProcessingStartedAt, expression.Value(now))
			u = s.renames.set(u, attrAttempt, expression.Plus(expression.IfNotExists(attempt, expression.Value(0)), expression.Value(1)))
			return s.renames.remove(u, attrLeaseExpiresAt), nil
		},
		extra: heldBy(job, taskID),
	}
	return s.move(ctx, spec)
}

// heldBy is the condition that job is still as read (its attempt) and the
// task taskID's.
func heldBy(job *Job, taskID string) expression.ConditionBuilder {
	attempt := expression.Name(attrAttempt)
	cond := expression.Name(attrTaskID).Equal(expression.Value(taskID))
	if job.Attempt == 0 {
		return cond.And(expression.AttributeNotExists(attempt))
	}
	return cond.And(attempt.Equal(expression.Value(job.Attempt)))
}

// failTakenOver fails a job, as read in flight, whose last attempt's
// holder died: LEASE_EXPIRED, as Recover fails one.
func (s *Store) failTakenOver(ctx context.Context, job *Job, taskID string) error {
	retryCount := 0
	if job.Error != nil {
		retryCount = job.Error.RetryCount
	}
	used := job.Attempt - job.AttemptsAtReplay
	failure := JobError{Code: LeaseExpiredCode, RetryCount: retryCount,
		Message: fmt.Sprintf("the worker holding the job died in %s on attempt %d of %d", job.Status, used, s.opts.MaxAttempts)}
	spec := moveSpec{id: job.ID, from: []Status{job.Status}, to: StatusFailed,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			u = s.renames.set(u, attrError, expression.Value(failure))
			u = s.renames.set(u, attrProcessingCompletedAt, expression.Value(now))
			return s.renames.remove(u, attrLeaseExpiresAt), nil
		},
		extra: heldBy(job, taskID),
	}
	_, err := s.move(ctx, spec)
	return err
}

// requeueHeld moves a job held under lease back to QUEUED: a failed
// attempt to be retried (its task's attempt fails next, and the task is
// claimable after its backoff), or, with giveBack, an attempt a shutdown
// cut short, which does not count against MaxAttempts.
func (s *Store) requeueHeld(ctx context.Context, lease Lease, giveBack bool) (*Job, error) {
	spec := moveSpec{id: lease.JobID, lease: &lease, from: inFlight, to: StatusQueued,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			u = s.renames.remove(u, attrProcessingStartedAt)
			if giveBack {
				base := expression.Name(attrAttemptsAtReplay)
				u = s.renames.set(u, attrAttemptsAtReplay, expression.Plus(expression.IfNotExists(base, expression.Value(0)), expression.Value(1)))
			}
			return u, nil
		}}
	return s.move(ctx, spec)
}
