package jobs

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// SweepOptions configure Sweep and Stranded.
type SweepOptions struct {
	// MinAge is how long a job must have gone unchanged (updatedAt) to be
	// looked at. Default Options.LeaseDuration. It bounds the read: only
	// jobs created at least MinAge ago are read.
	MinAge time.Duration
}

// MinAge sets SweepOptions.MinAge.
func MinAge(d time.Duration) func(*SweepOptions) { return func(o *SweepOptions) { o.MinAge = d } }

// SweepResult counts what one Sweep did.
type SweepResult struct {
	// Found is how many jobs without live work the sweep found.
	Found int `json:"found"`
	// Queued jobs got a new task carrying their work (QUEUED ones, and
	// in-flight ones whose holder's task is gone, moved back to QUEUED).
	Queued int `json:"queued"`
	// Failed jobs were in flight on their last attempt, with the task
	// that held them gone: FAILED (LEASE_EXPIRED), as Recover fails one.
	Failed int `json:"failed"`
	// Skipped jobs changed between the read and the write and were left
	// as they are.
	Skipped int `json:"skipped"`
}

// Stranded lists the jobs Sweep would move, without writing anything: the
// QUEUED, PROCESSING and EDITING jobs unchanged for SweepOptions.MinAge
// whose work no live task carries. Their task (Job.TaskID) is missing
// (none was ever queued: a job created or replayed by a store without
// Options.Work, or by an older tablekit), or is COMPLETED, CANCELLED or
// DEAD while the job is not finished. In-flight jobs under a lease of
// their own (StartProcessing) are Recover's and are not listed.
//
// It reads the jobs through status-createdAt-index (the jobs created at
// least MinAge ago, in those three statuses: a queue's backlog and the
// jobs in flight), and one task per job that has one (GetItem, eventually
// consistent). A store without Options.Work has no queue: ErrNoWork.
func (h *Maintenance) Stranded(ctx context.Context, opts ...func(*SweepOptions)) iter.Seq2[Job, error] {
	s := h.store()
	return func(yield func(Job, error) bool) {
		for job, err := range s.stranded(ctx, opts) {
			if err != nil {
				yield(Job{}, err)
				return
			}
			if !yield(*job, nil) {
				return
			}
		}
	}
}

// Sweep finds the jobs Stranded lists and gives each its work back, with
// one transaction per job conditioned on the job being as read (status,
// attempt, task count): a QUEUED job gets a new task carrying its work;
// an in-flight job whose holder's task is gone goes back to QUEUED with a
// new task, or to FAILED (LEASE_EXPIRED) on its last attempt. A job that
// changed in the meantime is left alone (Skipped). Run it from the CLI
// (tablekit jobs sweep) or periodically, beside Recover: concurrent sweeps
// are safe.
func (h *Maintenance) Sweep(ctx context.Context, opts ...func(*SweepOptions)) (_ SweepResult, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "jobs.Maintenance.Sweep")
	defer span.End(&err)
	var res SweepResult
	for job, err := range s.stranded(ctx, opts) {
		if err != nil {
			return res, err
		}
		res.Found++
		to, err := s.sweepJob(ctx, job)
		switch {
		case errors.Is(err, table.ErrConditionFailed):
			res.Skipped++
		case err != nil:
			return res, err
		case to == StatusFailed:
			res.Failed++
		default:
			res.Queued++
		}
	}
	return res, nil
}

// stranded walks the jobs without live work.
func (s *Store) stranded(ctx context.Context, opts []func(*SweepOptions)) iter.Seq2[*Job, error] {
	return func(yield func(*Job, error) bool) {
		if err := s.check(); err != nil {
			yield(nil, err)
			return
		}
		if ctx == nil {
			yield(nil, inputError("ctx", "nil", "a sweep needs a context"))
			return
		}
		if s.work == nil {
			yield(nil, ErrNoWork)
			return
		}
		o := SweepOptions{MinAge: s.opts.LeaseDuration}
		for _, f := range opts {
			if f != nil {
				f(&o)
			}
		}
		if o.MinAge < 0 {
			yield(nil, inputError("SweepOptions.MinAge", o.MinAge, "must not be negative"))
			return
		}
		now := s.now()
		cutoff := now.Add(-o.MinAge).UnixMilli()
		filter := expression.Name(attrUpdatedAt).LessThanEqual(expression.Value(cutoff)).
			And(expression.AttributeNotExists(expression.Name(attrLeaseExpiresAt))).
			And(s.alive(now))
		for _, st := range []Status{StatusQueued, StatusProcessing, StatusEditing} {
			q := table.Query{Index: IndexStatusCreatedAt, Partition: string(st), Sort: table.SortLessOrEqual(cutoff), Filter: &filter}
			for item, err := range table.QueryAll[table.Item](ctx, s.t, q) {
				if err != nil {
					yield(nil, fmt.Errorf("jobs: sweep: list %s jobs: %w", st, err))
					return
				}
				job, err := s.jobFromStored(ctx, item)
				if err != nil {
					yield(nil, err)
					return
				}
				live, err := s.hasLiveWork(ctx, job)
				if err != nil {
					yield(nil, err)
					return
				}
				if !live && !yield(job, nil) {
					return
				}
			}
		}
	}
}

// hasLiveWork reports whether a task that can still run carries job's
// work: its task is PENDING or PROCESSING.
func (s *Store) hasLiveWork(ctx context.Context, job *Job) (bool, error) {
	if job.TaskID == "" {
		return false, nil
	}
	t, err := s.work.Get(ctx, job.TaskID)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("jobs: sweep: task %q of job %q: %w", job.TaskID, job.ID, err)
	}
	return t.Status == tasks.StatusPending || t.Status == tasks.StatusProcessing, nil
}

// sweepJob gives one stranded job, as read, its work back and returns the
// status it moved to. A refused write is table.ErrConditionFailed.
func (s *Store) sweepJob(ctx context.Context, job *Job) (Status, error) {
	now := s.now()
	attempt := expression.Name(attrAttempt)
	cond := expression.Name(attrStatus).Equal(expression.Value(job.Status)).And(s.alive(now)).
		And(expression.AttributeNotExists(expression.Name(attrLeaseExpiresAt)))
	if job.Attempt == 0 {
		cond = cond.And(expression.AttributeNotExists(attempt))
	} else {
		cond = cond.And(attempt.Equal(expression.Value(job.Attempt)))
	}
	u := s.renames.set(expression.UpdateBuilder{}, attrUpdatedAt, expression.Value(now.UnixMilli()))
	to := StatusQueued
	var err error
	switch used := job.Attempt - job.AttemptsAtReplay; {
	case job.Status.InFlight() && used >= s.opts.MaxAttempts:
		to = StatusFailed
		retryCount := 0
		if job.Error != nil {
			retryCount = job.Error.RetryCount
		}
		u = s.renames.set(u, attrStatus, expression.Value(to))
		u = s.renames.set(u, attrError, expression.Value(JobError{Code: LeaseExpiredCode, RetryCount: retryCount,
			Message: fmt.Sprintf("the task holding the job in %s on attempt %d of %d is gone", job.Status, used, s.opts.MaxAttempts)}))
		u = s.renames.set(u, attrProcessingCompletedAt, expression.Value(now.UnixMilli()))
		count := expression.Name(attrTaskCount)
		if job.TaskCount == 0 {
			cond = cond.And(expression.AttributeNotExists(count))
		} else {
			cond = cond.And(count.Equal(expression.Value(job.TaskCount)))
		}
		err = s.t.Update(ctx, s.t.Key(job.ID), u, table.If(cond))
	default:
		if job.Status.InFlight() {
			u = s.renames.remove(s.renames.set(u, attrStatus, expression.Value(to)), attrProcessingStartedAt)
		}
		err = s.writeWithWork(ctx, job.ID, job.CreatedAt, job.TaskCount, u, cond)
		if _, refused := s.jobRefusal(err); refused {
			err = fmt.Errorf("%w: %w", table.ErrConditionFailed, err)
		}
	}
	log := s.opts.Logger
	switch {
	case errors.Is(err, table.ErrConditionFailed):
		return "", err
	case err != nil:
		return "", fmt.Errorf("jobs: sweep job %q: %w", job.ID, err)
	}
	if log != nil {
		log.LogAttrs(ctx, slog.LevelWarn, "jobs: sweep gave a job without live work its work back",
			slog.String("table", s.t.Name()), slog.String("operation", "Sweep"), slog.String("key", job.ID),
			slog.String("from", string(job.Status)), slog.String("to", string(to)), slog.String("task", job.TaskID))
	}
	return to, nil
}
