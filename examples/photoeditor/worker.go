package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// pool runs the worker processes. Each process is one tasks.Worker (the
// tasks package's runtime: claims, a lease per task renewed by heartbeats,
// polling that backs off while the queue is empty, graceful shutdown, a
// handler panic recorded as a failed attempt) running `handlers` handlers
// at once, on a connection of its own. The handler moves the task's job
// PROCESSING → EDITING → COMPLETED (or FAILED) under the job's own lease,
// renewed beside the task's, and writes the result through the blob store.
//
// Chaos: the provider fails a job with probability failRate (the job ends
// FAILED); a handler panics with probability panicRate before it touches
// the job (the runtime records a failed attempt, and the task is retried
// after its backoff); and with probability dieRate per job the process
// dies at a random step: its connection is cut, so none of its handlers
// writes, renews or releases anything more, and their leases run out. A
// new process takes its place. Half of the killed handlers are zombies:
// they wake up after their lease is gone and try to finish the job
// anyway, and must be refused.
type pool struct {
	db                   table.API
	blobs                blobstore.Store
	jobOpts              []func(*jobs.Options)
	taskOpts             []func(*tasks.Options)
	service              *jobs.Store // on a live connection, for the zombies
	lease                time.Duration
	handlers             int
	failRate, dieRate    float64
	panicRate            float64
	processes, processID atomic.Int64

	mu      sync.Mutex
	commits map[string]int // successful terminal moves per job: must be 1

	deaths, cutOff, zombiesRefused, zombiesLate, handlerFailures, panics atomic.Int64
	duplicates, takeovers, claims                                        atomic.Int64
	zombies                                                              sync.WaitGroup
}

// process is one worker process: its connection, its stores on it, and
// the context its handlers end with when it dies.
type process struct {
	id    string
	conn  *conn
	jobs  *jobs.Store
	tasks *tasks.Store
	ctx   context.Context // ends when the process dies
	die   context.CancelFunc
}

// run keeps n processes alive until ctx ends, replacing each that dies,
// and then shuts them down gracefully.
func (p *pool) run(ctx context.Context, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for slot := range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				died, err := p.runProcess(ctx, slot)
				if err != nil {
					errs <- err
					return
				}
				if !died {
					return
				}
			}
		})
	}
	wg.Wait()
	p.zombies.Wait()
	close(errs)
	return <-errs
}

// runProcess starts one process and runs its worker until ctx ends (a
// graceful shutdown) or the process dies; it reports which.
func (p *pool) runProcess(ctx context.Context, slot int) (died bool, err error) {
	proc := &process{
		id:   fmt.Sprintf("p%d-%d", slot, p.processID.Add(1)),
		conn: &conn{api: p.db},
	}
	if proc.jobs, err = jobs.NewStore(proc.conn, p.blobs, p.jobOpts...); err != nil {
		return false, err
	}
	if proc.tasks, err = tasks.NewStore(proc.conn, nil, p.taskOpts...); err != nil {
		return false, err
	}
	proc.ctx, proc.die = context.WithCancel(context.Background())
	defer proc.die()
	w, err := proc.tasks.NewWorker(proc.id, p.handler(proc),
		tasks.Concurrency(p.handlers),
		tasks.PollBackoff(table.Backoff{Initial: 5 * time.Millisecond, Max: 200 * time.Millisecond}),
		tasks.ShutdownGrace(p.lease))
	if err != nil {
		return false, err
	}
	p.processes.Add(1)
	// The worker stops at the end of the run or when its process dies.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	context.AfterFunc(proc.ctx, stop)
	if err := w.Run(runCtx); err != nil {
		return false, err
	}
	return proc.ctx.Err() != nil, nil
}

// errStillHeld fails an attempt whose job is in flight under a lease that
// a living handler keeps renewing: the task is retried after its backoff.
var errStillHeld = errors.New("the job is held by a living handler")

// handler is the work of one task: the photo-editing job its payload
// names.
func (p *pool) handler(proc *process) tasks.Handler {
	return func(ctx context.Context, task *tasks.Task) ([]byte, error) {
		p.claims.Add(1)
		// A handler of a dead process stops at once; a living process's
		// handlers get the worker's graceful shutdown.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(proc.ctx, cancel)()

		if rand.Float64() < p.panicRate {
			p.panics.Add(1)
			panic("the image decoder crashed on " + string(task.Payload))
		}
		jobID := string(task.Payload)
		job, err := proc.jobs.Get(ctx, jobID, jobs.Consistent())
		if err != nil {
			return nil, err
		}
		if job.Status.InFlight() {
			if job, err = p.takeOver(ctx, proc, job); err != nil {
				return nil, err
			}
		}
		if job.Status == jobs.StatusCompleted || job.Status == jobs.StatusFailed {
			// A redelivery of finished work: nothing to do but close the task.
			p.duplicates.Add(1)
			return []byte(job.Status), nil
		}
		started, err := proc.jobs.StartProcessing(ctx, jobID)
		if err != nil {
			return nil, err
		}
		return p.edit(ctx, proc, started.Lease())
	}
}

// takeOver handles a task that came back while its job is in flight: the
// process holding it died (its job lease ends about when the task's did),
// or is alive but lost the task to a missed heartbeat. It waits for the
// job's lease and recovers the job; a living handler's renewed lease wins,
// and then the attempt fails with errStillHeld. Bounded: 20 leases.
func (p *pool) takeOver(ctx context.Context, proc *process, job *jobs.Job) (*jobs.Job, error) {
	p.takeovers.Add(1)
	for range 20 {
		if wait := time.Until(job.LeaseExpiresAt); wait > 0 {
			select {
			case <-time.After(min(wait+time.Millisecond, p.lease/3)):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		} else if _, err := proc.jobs.Recover(ctx); err != nil {
			return nil, err
		}
		var err error
		if job, err = proc.jobs.Get(ctx, job.ID, jobs.Consistent()); err != nil {
			return nil, err
		}
		if !job.Status.InFlight() {
			return job, nil
		}
	}
	return nil, errStillHeld
}

// edit does the job under its lease: analysis, the provider's edit, the
// result. The job's lease is renewed beside the task's, which the worker
// renews.
func (p *pool) edit(ctx context.Context, proc *process, lease jobs.Lease) ([]byte, error) {
	ctx, stopHeartbeats := context.WithCancel(ctx)
	defer stopHeartbeats()
	go func() {
		t := time.NewTicker(p.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, err := proc.jobs.Heartbeat(ctx, lease); errors.Is(err, jobs.ErrLeaseLost) {
				stopHeartbeats() // recovered: this handler's moves would be refused
				return
			}
		}
	}()

	dieAt := -1 // the step this process dies at, if it does
	if rand.Float64() < p.dieRate {
		dieAt = rand.IntN(2)
	}
	die := func(step int) bool {
		if dieAt != step {
			return false
		}
		if proc.conn.kill() {
			p.deaths.Add(1) // two handlers of one process may both die
		}
		proc.die()
		if rand.Float64() < 0.5 {
			p.zombies.Add(1)
			go p.zombie(lease, step)
		}
		return true
	}

	if die(0) {
		return nil, errProcessDead
	}
	time.Sleep(time.Duration(1+rand.IntN(3)) * time.Millisecond) // download and analyse
	analysis := &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "photo", Confidence: 0.9}}}
	if _, err := proc.jobs.StartEditing(ctx, lease, analysis); err != nil {
		return nil, p.cut(proc, err)
	}
	if die(1) {
		return nil, errProcessDead
	}
	time.Sleep(time.Duration(1+rand.IntN(3)) * time.Millisecond) // the provider's edit
	if rand.Float64() < p.failRate {
		p.handlerFailures.Add(1)
		failure := jobs.JobError{Code: "PROVIDER_ERROR", Message: "the provider answered 500"}
		if _, err := proc.jobs.Fail(ctx, lease, failure); err != nil {
			return nil, p.cut(proc, err)
		}
	} else {
		key := "results/" + blobstore.EscapeSegment(lease.JobID) + "/attempt-" + strconv.Itoa(lease.Attempt) + ".webp"
		body := []byte("edited " + lease.JobID)
		if err := p.blobs.Put(ctx, key, bytes.NewReader(body)); err != nil {
			return nil, err
		}
		result := jobs.EditResult{S3Key: key, Width: 1024, Height: 768, Format: jobs.FormatWebP, Size: int64(len(body))}
		if _, err := proc.jobs.Complete(ctx, lease, result); err != nil {
			return nil, p.cut(proc, err)
		}
	}
	p.commit(lease.JobID)
	return nil, nil
}

// cut counts a handler whose process died under it.
func (p *pool) cut(proc *process, err error) error {
	if proc.ctx.Err() != nil {
		p.cutOff.Add(1)
	}
	return err
}

func (p *pool) commit(jobID string) {
	p.mu.Lock()
	p.commits[jobID]++
	p.mu.Unlock()
}

// zombie is a dead handler that wakes up after its lease is long gone and
// tries to finish its job from the step it died at, on a live connection:
// its moves must be refused once Recover moved the job on. If nothing
// recovered the job yet, the late handler may still finish it (nobody
// else holds it), and that counts as its one commit.
func (p *pool) zombie(lease jobs.Lease, step int) {
	defer p.zombies.Done()
	time.Sleep(3 * p.lease)
	ctx := context.Background()
	var err error
	if step == 0 {
		_, err = p.service.StartEditing(ctx, lease, nil)
	}
	if err == nil {
		result := jobs.EditResult{S3Key: "results/zombie", Width: 1, Height: 1, Format: jobs.FormatWebP}
		_, err = p.service.Complete(ctx, lease, result)
	}
	switch {
	case errors.Is(err, jobs.ErrLeaseLost), errors.Is(err, jobs.ErrInvalidTransition):
		p.zombiesRefused.Add(1)
	case err == nil:
		p.zombiesLate.Add(1)
		p.commit(lease.JobID)
	default:
		fmt.Printf("zombie on job %s: %v\n", lease.JobID, err)
	}
}
