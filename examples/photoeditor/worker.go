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

// pool runs the workers: each claims a task, moves its job through
// PROCESSING and EDITING to COMPLETED (or FAILED), writes the result
// through the blob store and completes the task. Chaos: a handler fails
// with probability failRate (the job ends FAILED), and a worker dies with
// probability dieRate per job, at a random step, without releasing
// anything; a new worker takes its place. Half of the dead workers are
// zombies: they wake up after their lease is gone and try to finish the
// job anyway, and must be refused.
type pool struct {
	jobs     *jobs.Store
	tasks    *tasks.Store
	blobs    blobstore.Store
	lease    time.Duration
	failRate float64
	dieRate  float64

	mu      sync.Mutex
	commits map[string]int // successful terminal moves per job: must be 1

	deaths, zombiesRefused, zombiesLate, handlerFailures atomic.Int64
	duplicates, takeovers, claims                        atomic.Int64
	zombies                                              sync.WaitGroup
}

// run keeps n workers alive until ctx ends, replacing each that dies.
func (p *pool) run(ctx context.Context, n int) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	var start func()
	start = func() {
		wg.Add(1)
		id := "w" + strconv.FormatInt(next.Add(1), 10)
		go func() {
			defer wg.Done()
			if p.work(ctx, id) && ctx.Err() == nil {
				start() // a dead worker is replaced, as a scheduler would
			}
		}()
	}
	for range n {
		start()
	}
	wg.Wait()
	p.zombies.Wait()
}

// idle paces polling when the queue is empty: bounded and jittered.
var idle = table.Backoff{Initial: 5 * time.Millisecond, Max: 100 * time.Millisecond}

// work is one worker's loop; it returns true when the worker died.
func (p *pool) work(ctx context.Context, id string) (died bool) {
	empty := 0
	for ctx.Err() == nil {
		c, err := retry(ctx, func() (*tasks.Claim, error) { return p.tasks.Claim(ctx, id) })
		if err != nil {
			if !errors.Is(err, tasks.ErrNoTask) && ctx.Err() == nil {
				fmt.Printf("worker %s: claim: %v\n", id, err)
			}
			_ = idle.Sleep(ctx, min(empty, 5))
			empty++
			continue
		}
		empty = 0
		p.claims.Add(1)
		if p.handle(ctx, id, c) {
			return true
		}
	}
	return false
}

// handle processes one claimed task; it returns true when the worker died.
func (p *pool) handle(ctx context.Context, worker string, c *tasks.Claim) (died bool) {
	jobID := string(c.Task.Payload)
	job, err := retry(ctx, func() (*jobs.Job, error) { return p.jobs.Get(ctx, jobID, jobs.Consistent()) })
	if err != nil {
		p.release(ctx, c, "read job: "+err.Error())
		return false
	}
	if job.Status.InFlight() {
		// The task came back while its job is in flight: the worker holding
		// it died (its job lease ends about when the task's did), or it is
		// alive but slow to renew the task. Keep the task, wait for the job's
		// lease, and recover it; a living worker's renewed lease wins, and
		// then its job ends soon. Bounded: after 20 leases the task goes
		// back to the queue.
		p.takeovers.Add(1)
		for range 20 {
			if wait := time.Until(job.LeaseExpiresAt); wait > 0 {
				if _, err := retry(ctx, func() (tasks.Lease, error) { return p.tasks.Heartbeat(ctx, c.Lease) }); err != nil {
					return false // the task went to another worker
				}
				time.Sleep(min(wait+time.Millisecond, p.lease/3))
			} else if _, err := retry(ctx, func() (jobs.RecoverResult, error) { return p.jobs.Recover(ctx) }); err != nil {
				p.release(ctx, c, "recover: "+err.Error())
				return false
			}
			if job, err = retry(ctx, func() (*jobs.Job, error) { return p.jobs.Get(ctx, jobID, jobs.Consistent()) }); err != nil {
				p.release(ctx, c, "read job: "+err.Error())
				return false
			}
			if !job.Status.InFlight() || ctx.Err() != nil {
				break
			}
		}
	}
	if job.Status == jobs.StatusCompleted || job.Status == jobs.StatusFailed {
		// A redelivery of finished work: nothing to do but close the task.
		p.duplicates.Add(1)
		_ = retryErr(ctx, func() error { return p.tasks.Complete(ctx, c.Lease, []byte(job.Status)) })
		return false
	}
	started, err := retry(ctx, func() (*jobs.Job, error) { return p.jobs.StartProcessing(ctx, jobID) })
	if err != nil {
		// Still held by a living worker (its lease was renewed): try later.
		p.release(ctx, c, "start: "+err.Error())
		return false
	}
	lease := started.Lease()

	hbCtx, stopHeartbeats := context.WithCancel(ctx)
	defer stopHeartbeats()
	taskLease := c.Lease
	var hbMu sync.Mutex
	go func() {
		t := time.NewTicker(p.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
			}
			hbMu.Lock()
			if l, err := retry(hbCtx, func() (tasks.Lease, error) { return p.tasks.Heartbeat(hbCtx, taskLease) }); err == nil {
				taskLease = l
			}
			hbMu.Unlock()
			_, _ = retry(hbCtx, func() (jobs.Lease, error) { return p.jobs.Heartbeat(hbCtx, lease) })
		}
	}()

	dieAt := -1 // the step this worker dies at, if it does
	if rand.Float64() < p.dieRate {
		dieAt = int(rand.Float64() * 2)
	}
	die := func(step int) bool {
		if dieAt != step {
			return false
		}
		stopHeartbeats() // a dead process renews nothing
		p.deaths.Add(1)
		if rand.Float64() < 0.5 {
			p.zombies.Add(1)
			go p.zombie(lease, step)
		}
		return true
	}

	if die(0) {
		return true
	}
	time.Sleep(time.Duration(1+rand.IntN(3)) * time.Millisecond) // download and analyse
	analysis := &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "photo", Confidence: 0.9}}}
	if _, err := retry(ctx, func() (*jobs.Job, error) { return p.jobs.StartEditing(ctx, lease, analysis) }); err != nil {
		p.release(ctx, c, "edit: "+err.Error())
		return false
	}
	if die(1) {
		return true
	}
	time.Sleep(time.Duration(1+rand.IntN(3)) * time.Millisecond) // the provider's edit
	if rand.Float64() < p.failRate {
		p.handlerFailures.Add(1)
		failure := jobs.JobError{Code: "PROVIDER_ERROR", Message: "the provider answered 500"}
		if _, err := retry(ctx, func() (*jobs.Job, error) { return p.jobs.Fail(ctx, lease, failure) }); err != nil {
			p.release(ctx, c, "fail: "+err.Error())
			return false
		}
	} else {
		key := "results/" + blobstore.EscapeSegment(jobID) + "/attempt-" + strconv.Itoa(lease.Attempt) + ".webp"
		body := []byte("edited " + jobID)
		if err := p.blobs.Put(ctx, key, bytes.NewReader(body)); err != nil {
			p.release(ctx, c, "write result: "+err.Error())
			return false
		}
		result := jobs.EditResult{S3Key: key, Width: 1024, Height: 768, Format: jobs.FormatWebP, Size: int64(len(body))}
		if _, err := retry(ctx, func() (*jobs.Job, error) { return p.jobs.Complete(ctx, lease, result) }); err != nil {
			p.release(ctx, c, "complete: "+err.Error())
			return false
		}
	}
	p.mu.Lock()
	p.commits[jobID]++
	p.mu.Unlock()
	stopHeartbeats()
	hbMu.Lock()
	defer hbMu.Unlock()
	if err := retryErr(ctx, func() error { return p.tasks.Complete(ctx, taskLease, nil) }); err != nil && !errors.Is(err, tasks.ErrLeaseLost) && ctx.Err() == nil {
		fmt.Printf("worker %s: complete task: %v\n", worker, err)
	}
	return false
}

// zombie is a dead worker that wakes up after its lease is long gone and
// tries to finish its job from the step it died at: its moves must be
// refused once Recover moved the job on. If nothing recovered the job yet,
// the late worker may still finish it (it is the only one holding it), and
// that counts as its one commit.
func (p *pool) zombie(lease jobs.Lease, step int) {
	defer p.zombies.Done()
	time.Sleep(3 * p.lease)
	ctx := context.Background()
	var err error
	if step == 0 {
		_, err = retry(ctx, func() (*jobs.Job, error) { return p.jobs.StartEditing(ctx, lease, nil) })
	}
	if err == nil {
		result := jobs.EditResult{S3Key: "results/zombie", Width: 1, Height: 1, Format: jobs.FormatWebP}
		_, err = retry(ctx, func() (*jobs.Job, error) { return p.jobs.Complete(ctx, lease, result) })
	}
	switch {
	case errors.Is(err, jobs.ErrLeaseLost), errors.Is(err, jobs.ErrInvalidTransition):
		p.zombiesRefused.Add(1)
	case err == nil:
		p.zombiesLate.Add(1)
		p.mu.Lock()
		p.commits[lease.JobID]++
		p.mu.Unlock()
	default:
		fmt.Printf("zombie on job %s: %v\n", lease.JobID, err)
	}
}

// release gives a task back for a later attempt.
func (p *pool) release(ctx context.Context, c *tasks.Claim, reason string) {
	if ctx.Err() != nil {
		return
	}
	if _, err := retry(ctx, func() (tasks.Status, error) { return p.tasks.Fail(ctx, c.Lease, reason) }); err != nil && !errors.Is(err, tasks.ErrLeaseLost) && ctx.Err() == nil {
		fmt.Printf("task %s: release: %v\n", c.Task.ID, err)
	}
}
