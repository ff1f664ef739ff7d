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

// pool runs the worker processes. Each process is one jobs.Worker (the
// library's job worker on the tasks runtime: claims, one lease per job
// that covers its task, heartbeats, retries with the job's MaxAttempts,
// takeovers of dead workers' jobs, graceful shutdown) running `handlers`
// handlers at once, on a connection of its own. The handler is the
// service's own work only: analyse the photo, call the provider, write
// the result through the blob store.
//
// Chaos: the provider fails with probability failRate (a failed attempt,
// retried by the worker until the job's MaxAttempts, then FAILED); a
// handler panics with probability panicRate (a failed attempt too); and
// with probability dieRate per job the process dies at a random step: its
// connection is cut, so none of its handlers writes, renews or releases
// anything more, and their tasks' leases run out. A new process takes its
// place. Half of the killed handlers are zombies: they wake up after the
// lease is gone and try to finish the job anyway, and must be refused.
type pool struct {
	db                   table.API
	blobs                blobstore.Store
	jobOpts              []func(*jobs.Options)
	service              *jobs.Store // on a live connection, for the zombies
	lease                time.Duration
	handlers             int
	failRate, dieRate    float64
	panicRate            float64
	processes, processID atomic.Int64

	deaths, zombiesRefused, zombiesLate, providerFailures, panics, claims atomic.Int64
	zombies                                                               sync.WaitGroup
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
	c := &conn{api: p.db}
	store, err := jobs.NewStore(c, p.blobs, p.jobOpts...)
	if err != nil {
		return false, err
	}
	// The worker stops at the end of the run or when its process dies.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	dead := func() { c.kill(); stop() }
	w, err := store.NewWorker(fmt.Sprintf("p%d-%d", slot, p.processID.Add(1)), p.handler(dead),
		tasks.Concurrency(p.handlers),
		tasks.PollBackoff(table.Backoff{Initial: 5 * time.Millisecond, Max: 200 * time.Millisecond}),
		tasks.ShutdownGrace(p.lease))
	if err != nil {
		return false, err
	}
	p.processes.Add(1)
	if err := w.Run(runCtx); err != nil {
		return false, err
	}
	return c.dead.Load(), nil
}

// handler is the service's work on one job attempt.
func (p *pool) handler(die func()) jobs.Handler {
	return func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		p.claims.Add(1)
		job := a.Job()
		if rand.Float64() < p.panicRate {
			p.panics.Add(1)
			panic("the image decoder crashed on " + job.ID)
		}
		dieAt := -1 // the step this process dies at, if it does
		if rand.Float64() < p.dieRate {
			dieAt = rand.IntN(2)
		}
		died := func(step int) bool {
			if dieAt != step {
				return false
			}
			p.deaths.Add(1)
			die()
			if rand.Float64() < 0.5 {
				p.zombies.Add(1)
				go p.zombie(a.Lease(), step)
			}
			return true
		}

		if died(0) {
			return jobs.EditResult{}, errProcessDead
		}
		time.Sleep(time.Duration(1+rand.IntN(3)) * time.Millisecond) // download and analyse
		analysis := &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "photo", Confidence: 0.9}}}
		if _, err := a.StartEditing(ctx, analysis); err != nil {
			return jobs.EditResult{}, err
		}
		if died(1) {
			return jobs.EditResult{}, errProcessDead
		}
		time.Sleep(time.Duration(1+rand.IntN(3)) * time.Millisecond) // the provider's edit
		if rand.Float64() < p.failRate {
			p.providerFailures.Add(1)
			return jobs.EditResult{}, &jobs.JobError{Code: "PROVIDER_ERROR", Message: "the provider answered 500"}
		}
		key := "results/" + blobstore.EscapeSegment(job.ID) + "/attempt-" + strconv.Itoa(job.Attempt) + ".webp"
		body := []byte("edited " + job.ID)
		if err := p.blobs.Put(ctx, key, bytes.NewReader(body)); err != nil {
			return jobs.EditResult{}, err
		}
		return jobs.EditResult{S3Key: key, Width: 1024, Height: 768, Format: jobs.FormatWebP, Size: int64(len(body))}, nil
	}
}

// zombie is a dead handler that wakes up after its lease is long gone and
// tries to finish its job from the step it died at, on a live connection:
// its moves must be refused once another worker took the job over. If
// nobody did yet, the late handler may still finish it (nobody else holds
// it): then the worker that takes the task over finds the job COMPLETED
// and only completes the task.
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
	default:
		fmt.Printf("zombie on job %s: %v\n", lease.JobID, err)
	}
}
