package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/table"
)

// Handler does the work of one claimed task. It returns the result to
// store with Complete (nil stores none), or an error, which fails the
// attempt with the error's text as the reason (the task is retried after
// its backoff, or DEAD after Options.MaxAttempts). A handler should stop
// when ctx ends: the worker lost the task (another worker took it over) or
// is shutting down and its grace period is over.
type Handler func(ctx context.Context, task *Task) (result []byte, err error)

// WorkerOptions configure a Worker.
type WorkerOptions struct {
	// Concurrency is how many tasks the worker processes at once, each
	// under its own lease. Default 1.
	Concurrency int
	// LeaseDuration is the lease each claim takes. Default the store's
	// Options.LeaseDuration.
	LeaseDuration time.Duration
	// HeartbeatInterval is how often a task's lease is extended while its
	// handler runs. Default a third of LeaseDuration, so two heartbeats can
	// fail before the lease runs out. Must be shorter than LeaseDuration.
	HeartbeatInterval time.Duration
	// PollBackoff paces claims while the queue is empty (and after a
	// failed claim): the n-th empty poll in a row waits
	// PollBackoff.Delay(n) (table.Backoff: full jitter, capped). A claimed
	// task resets it. Default DefaultPollBackoff.
	PollBackoff table.Backoff
	// ShutdownGrace is how long handlers still running when Run's context
	// ends may go on before their context is canceled. Tasks whose handler
	// succeeds are completed; the others are released (Store.Release),
	// never left to wait for their lease. Default DefaultShutdownGrace; a
	// negative value cancels handlers at once.
	ShutdownGrace time.Duration
	// Logger receives claims that failed, lost leases, handler panics and
	// releases (worker, task, attempt). Nil: the store's Logger.
	Logger *slog.Logger
	// After returns a channel that delivers after d, as time.After does
	// (the default). Tests pass their own to control time.
	After func(d time.Duration) <-chan time.Time
}

// Defaults of WorkerOptions.
var (
	DefaultPollBackoff   = table.Backoff{Initial: 50 * time.Millisecond, Max: 5 * time.Second}
	DefaultShutdownGrace = 10 * time.Second
)

// finalWriteTimeout bounds the Complete, Fail or Release that settles a
// task after Run's context has ended.
const finalWriteTimeout = 30 * time.Second

// Concurrency sets WorkerOptions.Concurrency.
func Concurrency(n int) func(*WorkerOptions) { return func(o *WorkerOptions) { o.Concurrency = n } }

// HeartbeatInterval sets WorkerOptions.HeartbeatInterval.
func HeartbeatInterval(d time.Duration) func(*WorkerOptions) {
	return func(o *WorkerOptions) { o.HeartbeatInterval = d }
}

// PollBackoff sets WorkerOptions.PollBackoff.
func PollBackoff(b table.Backoff) func(*WorkerOptions) {
	return func(o *WorkerOptions) { o.PollBackoff = b }
}

// ShutdownGrace sets WorkerOptions.ShutdownGrace.
func ShutdownGrace(d time.Duration) func(*WorkerOptions) {
	return func(o *WorkerOptions) { o.ShutdownGrace = d }
}

// Worker runs a Handler over the queue: it claims tasks, runs up to
// Concurrency handlers at once, heartbeats each lease while its handler
// runs, completes or fails the task by what the handler returned, and
// polls less often while the queue is empty. Create it with NewWorker and
// start it with Run.
type Worker struct {
	store   *Store // with the worker's lease duration
	id      string
	handler Handler
	opts    WorkerOptions
	log     *slog.Logger
	tracer  trace.Tracer // nil without Options.TracerProvider
}

// NewWorker returns a worker that claims tasks as workerID (the WORKER#
// partition its claims are listed under; several handlers of one worker
// share it) and runs handler on each. Bad input is a *table.InputError.
func (s *Store) NewWorker(workerID string, handler Handler, opts ...func(*WorkerOptions)) (*Worker, error) {
	if err := s.check(checkWorkerID(workerID)); err != nil {
		return nil, err
	}
	if handler == nil {
		return nil, inputError("handler", "nil", "NewWorker needs a Handler")
	}
	o := WorkerOptions{}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.Concurrency == 0 {
		o.Concurrency = 1
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = s.opts.LeaseDuration
	}
	if o.HeartbeatInterval == 0 {
		o.HeartbeatInterval = o.LeaseDuration / 3
	}
	if o.PollBackoff == (table.Backoff{}) {
		o.PollBackoff = DefaultPollBackoff
	}
	if o.ShutdownGrace == 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.After == nil {
		o.After = time.After
	}
	switch {
	case o.Concurrency < 1 || o.Concurrency > 10000:
		return nil, inputError("WorkerOptions.Concurrency", o.Concurrency, "must be between 1 and 10000")
	case o.LeaseDuration < time.Millisecond:
		return nil, inputError("WorkerOptions.LeaseDuration", o.LeaseDuration, "must be at least 1ms")
	case o.HeartbeatInterval <= 0 || o.HeartbeatInterval >= o.LeaseDuration:
		return nil, inputError("WorkerOptions.HeartbeatInterval", o.HeartbeatInterval, "must be positive and shorter than the lease")
	case o.PollBackoff.Initial < 0 || o.PollBackoff.Max < o.PollBackoff.Initial:
		return nil, inputError("WorkerOptions.PollBackoff", fmt.Sprintf("%+v", o.PollBackoff), "needs 0 <= Initial <= Max")
	}
	ws := *s // the same table, with the worker's lease
	ws.opts.LeaseDuration = o.LeaseDuration
	log := o.Logger
	if log == nil {
		log = s.log
	}
	w := &Worker{store: &ws, id: workerID, handler: handler, opts: o, log: log.With("worker", workerID)}
	if tp := s.opts.TracerProvider; tp != nil {
		w.tracer = tp.Tracer("github.com/tablekit/tablekit")
	}
	return w, nil
}

// Run claims and processes tasks until ctx ends, then shuts down
// gracefully: it claims nothing more, gives running handlers
// ShutdownGrace to finish, cancels the rest, and settles every task it
// holds (completed if its handler succeeded, released otherwise) before it
// returns. A handler that panics fails its attempt with the panic's
// message; the worker goes on. Run returns nil after a shutdown by ctx;
// it is not meant to be called twice at once on one Worker.
func (w *Worker) Run(ctx context.Context) error {
	if w == nil || w.store == nil {
		return errNoStore
	}
	// Handlers outlive ctx by the grace period: their context ends when
	// cancelHandlers is called, not when ctx ends.
	handlerCtx, cancelHandlers := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHandlers()
	slots := make(chan struct{}, w.opts.Concurrency)
	var running sync.WaitGroup
	empty := 0 // empty polls in a row
poll:
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break poll
		}
		c, err := w.claim(ctx)
		if err != nil {
			<-slots
			if ctx.Err() != nil {
				break poll
			}
			if !errors.Is(err, ErrNoTask) {
				w.log.Warn("tasks: claim failed", "operation", "claim", "attempt", empty, "error", err)
			}
			select {
			case <-w.opts.After(w.opts.PollBackoff.Delay(min(empty, 30))):
			case <-ctx.Done():
				break poll
			}
			empty++
			continue
		}
		empty = 0
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() { <-slots }()
			w.process(ctx, handlerCtx, c)
		}()
	}
	done := make(chan struct{})
	go func() { running.Wait(); close(done) }()
	if w.opts.ShutdownGrace > 0 {
		select {
		case <-done:
			return nil
		case <-w.opts.After(w.opts.ShutdownGrace):
		}
	}
	cancelHandlers()
	<-done
	return nil
}

// claim claims a task under a context that ctx's end does not cut short,
// so a claim DynamoDB applied is never lost to a canceled response; a
// claim that lands after ctx ended is released at once. A poll makes no
// span, and its requests none either under a sampler that follows its
// parent: the task's own span (startProcess) records the work.
func (w *Worker) claim(ctx context.Context) (*Claim, error) {
	cctx, cancel := context.WithTimeout(unsampled(context.WithoutCancel(ctx)), finalWriteTimeout)
	defer cancel()
	c, err := w.store.claimNext(cctx, w.id)
	if err == nil && ctx.Err() != nil {
		w.settle(ctx, c.Lease, nil, ctx.Err(), true)
		return nil, ctx.Err()
	}
	return c, err
}

// process runs the handler on one claimed task with heartbeats, then
// settles the task.
func (w *Worker) process(runCtx, handlerCtx context.Context, c *Claim) {
	handlerCtx, span := w.startProcess(handlerCtx, c)
	runCtx = trace.ContextWithSpan(runCtx, span) // the settling write nests in the task's span
	taskCtx, cancelTask := context.WithCancel(handlerCtx)
	defer cancelTask()
	hb := &heartbeat{lease: c.Lease}
	stop := make(chan struct{})
	beating := make(chan struct{})
	go func() {
		defer close(beating)
		w.heartbeat(taskCtx, cancelTask, hb, stop)
	}()
	task := c.Task
	result, err := w.call(taskCtx, &task)
	close(stop)
	<-beating
	lease, lost := hb.get()
	if lost {
		endProcess(span, ErrLeaseLost)
		return // another worker holds the task; its outcome is theirs
	}
	shutdown := runCtx.Err() != nil && taskCtx.Err() != nil
	w.settle(runCtx, lease, result, err, shutdown)
	endProcess(span, err)
}

// settle completes the task held under lease if its handler succeeded
// (herr nil), releases it if the handler was stopped by a shutdown, and
// fails it otherwise.
func (w *Worker) settle(runCtx context.Context, lease Lease, result []byte, herr error, shutdown bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(runCtx), finalWriteTimeout)
	defer cancel()
	var err error
	switch {
	case herr == nil:
		err = w.store.Complete(ctx, lease, result)
	case shutdown:
		w.log.InfoContext(ctx, "tasks: releasing task at shutdown", "operation", "release", "key", lease.TaskID, "attempt", lease.Attempt)
		err = w.store.Release(ctx, lease, "worker "+w.id+" shut down before the task finished")
	default:
		var to Status
		to, err = w.store.Fail(ctx, lease, reasonOf(herr))
		switch {
		case err != nil:
		case to == StatusDead:
			w.log.ErrorContext(ctx, "tasks: the handler failed the task's last attempt; the task is a dead letter",
				"operation", "fail", "key", lease.TaskID, "attempt", lease.Attempt, "error", herr.Error())
		default:
			w.log.WarnContext(ctx, "tasks: the handler failed; the task is retried after its backoff",
				"operation", "fail", "key", lease.TaskID, "attempt", lease.Attempt, "error", herr.Error())
		}
	}
	if err != nil {
		w.log.ErrorContext(ctx, "tasks: settling a task failed; its lease will expire", "key", lease.TaskID, "attempt", lease.Attempt, "error", err)
	}
}

// call runs the handler, turning a panic into an error that carries its
// message.
func (w *Worker) call(ctx context.Context, task *Task) (result []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.log.Error("tasks: handler panicked", "key", task.ID, "attempt", task.Attempt, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, &PanicError{Value: p}
		}
	}()
	return w.handler(ctx, task)
}

// PanicError is a handler's panic, recorded as the failed attempt's
// reason.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("handler panicked: %v", e.Value) }

// heartbeat is a task's current lease, shared by its heartbeat loop and
// the goroutine that settles the task.
type heartbeat struct {
	mu    sync.Mutex
	lease Lease
	lost  bool
}

func (h *heartbeat) get() (Lease, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease, h.lost
}

// heartbeat extends the lease every HeartbeatInterval until stop closes.
// A lost lease cancels the handler; any other error is logged and retried
// at the next beat.
func (w *Worker) heartbeat(ctx context.Context, cancelTask context.CancelFunc, hb *heartbeat, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-w.opts.After(w.opts.HeartbeatInterval):
		}
		lease, _ := hb.get()
		next, err := w.store.Heartbeat(context.WithoutCancel(ctx), lease)
		hb.mu.Lock()
		switch {
		case err == nil:
			hb.lease = next
		case errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrNotFound):
			hb.lost = true
		}
		lost := hb.lost
		hb.mu.Unlock()
		switch {
		case lost:
			w.log.Warn("tasks: lease lost; stopping the handler", "operation", "heartbeat", "key", lease.TaskID, "attempt", lease.Attempt, "error", err)
			cancelTask()
			return
		case err != nil:
			w.log.Warn("tasks: heartbeat failed; retrying at the next beat", "operation", "heartbeat", "key", lease.TaskID, "attempt", lease.Attempt, "error", err)
		}
	}
}

// reasonOf is err's text cut to what an event holds, on a rune boundary.
func reasonOf(err error) string {
	s := err.Error()
	if len(s) <= maxTextLength {
		return s
	}
	s = s[:maxTextLength]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
