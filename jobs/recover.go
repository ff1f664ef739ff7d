package jobs

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// LeaseExpiredCode is the error code Recover records on a job it moves to
// FAILED because its last attempt's lease expired.
const LeaseExpiredCode = "LEASE_EXPIRED"

// RecoverResult counts what one Recover call did.
type RecoverResult struct {
	// Found is how many in-flight jobs with an expired lease the index
	// returned (journey.RecoverResult.Found counts the same).
	Found int `json:"found"`
	// Requeued jobs went back to QUEUED for another attempt.
	Requeued int `json:"requeued"`
	// Failed jobs went to FAILED: their last attempt's lease expired.
	Failed int `json:"failed"`
	// Skipped jobs changed between the read and the write (their worker
	// renewed the lease or moved them, or another Recover was first) and
	// were left as they are.
	Skipped int `json:"skipped"`
}

// Recover finds the in-flight jobs (PROCESSING, EDITING) whose lease has
// expired, the jobs of workers that died or hung, and moves each with one
// conditional UpdateItem: back to QUEUED for another attempt, or to FAILED
// (error code LEASE_EXPIRED, processingCompletedAt set) when the job has
// used Options.MaxAttempts attempts since it was created or last replayed.
// With Options.Work, a job going back to QUEUED gets a new task carrying
// its work in the same transaction, as Replay gives one. Run it
// periodically, every LeaseDuration or so, from one place or many:
// concurrent calls are safe.
//
// Recover is for jobs moved through the store's own calls
// (StartProcessing and the moves under its lease). A job that a job worker
// holds (NewWorker) has no lease of its own: the task's lease covers it,
// and the tasks runtime hands the task of a dead worker to another, which
// takes the job over. Recover leaves those alone.
//
// The write is conditioned on what was read: the status, the attempt and
// the lease expiry. A worker that renewed its lease or moved its job in
// the meantime wins, and the job is left alone (Skipped). A worker that
// wakes up after its job was recovered finds every move under its lease
// (Heartbeat, StartEditing, Complete, Fail) refused, and nothing written,
// so an attempt's work is never recorded twice. It gets exactly:
//
//   - a *TransitionError with LeaseLost set, matching ErrLeaseLost and
//     table.ErrConditionFailed (not ErrInvalidTransition), when the job is
//     QUEUED again under the worker's attempt, FAILED by Recover on it
//     (error code LEASE_EXPIRED), or on a later attempt in any status
//     (another worker started it, and may have finished it);
//   - ErrNotFound (and table.ErrNotFound) when the job was deleted or its
//     ttl has passed.
//
// A move the worker's own earlier move ruled out (Complete after its own
// Fail) is a *TransitionError matching ErrInvalidTransition instead.
//
// Jobs are found through the seed's status-createdAt-index, one query per
// in-flight status, oldest first. A lease runs from its StartProcessing,
// which comes after the job's creation, so only jobs created at least
// LeaseDuration ago can have an expired lease: that bound is the query's
// key condition, and the lease expiry a filter. The read therefore costs
// the in-flight jobs older than one lease (a number bounded by the workers
// there are, as long as they are alive), not the table. A job leased by a
// store with a shorter LeaseDuration is found once it is LeaseDuration
// old. In-flight items without a lease (written by code that predates
// leases) are recovered once their updatedAt is LeaseDuration old.
func (h *Maintenance) Recover(ctx context.Context) (_ RecoverResult, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "jobs.Maintenance.Recover")
	defer span.End(&err)
	var res RecoverResult
	if err := s.check(); err != nil {
		return res, err
	}
	if ctx == nil {
		return res, inputError("ctx", "nil", "Recover needs a context")
	}
	now := s.now()
	for item, err := range s.expired(ctx, now) {
		if err != nil {
			return res, err
		}
		res.Found++
		to, err := s.recoverItem(ctx, item, now)
		switch {
		case errors.Is(err, table.ErrConditionFailed):
			res.Skipped++
		case err != nil:
			return res, err
		case to == StatusQueued:
			res.Requeued++
		default:
			res.Failed++
		}
	}
	return res, nil
}

// Expired lists, without writing anything, the jobs Recover would move
// now: the in-flight jobs whose lease has expired, read as Recover reads
// them (its bounded query), oldest first per status. It is the dry run an
// operator looks at first (tablekit jobs recover -dry-run).
func (h *Maintenance) Expired(ctx context.Context) iter.Seq2[Job, error] {
	s := h.store()
	return func(yield func(Job, error) bool) {
		if err := s.check(); err != nil {
			yield(Job{}, err)
			return
		}
		if ctx == nil {
			yield(Job{}, inputError("ctx", "nil", "Expired needs a context"))
			return
		}
		for item, err := range s.expired(ctx, s.now()) {
			var job *Job
			if err == nil {
				job, err = s.jobFromStored(ctx, item)
			}
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

// expired walks the in-flight jobs whose lease has expired at now.
func (s *Store) expired(ctx context.Context, now time.Time) iter.Seq2[table.Item, error] {
	return func(yield func(table.Item, error) bool) {
		cutoff := now.Add(-s.opts.LeaseDuration).UnixMilli()
		lease, updated := expression.Name(attrLeaseExpiresAt), expression.Name(attrUpdatedAt)
		// A job a job worker holds has no lease of its own (its task's
		// lease covers it, and the tasks runtime takes it over): it is
		// left alone.
		unleased := expression.AttributeNotExists(lease).And(expression.AttributeNotExists(expression.Name(attrTaskID)))
		expired := lease.LessThanEqual(expression.Value(now.UnixMilli())).
			Or(unleased.And(updated.LessThanEqual(expression.Value(cutoff))))
		filter := expired.And(s.alive(now))
		for _, st := range inFlight {
			q := table.Query{
				Index:     IndexStatusCreatedAt,
				Partition: string(st),
				Sort:      table.SortLessOrEqual(cutoff),
				Filter:    &filter,
			}
			for item, err := range table.QueryAll[table.Item](ctx, s.t, q) {
				if err != nil {
					yield(nil, fmt.Errorf("jobs: recover: list %s jobs: %w", st, err))
					return
				}
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}

// leaseState is what Recover reads of an in-flight job, and conditions its
// write on.
type leaseState struct {
	status           Status
	attempt          int
	hasAttempt       bool
	attemptsAtReplay int
	leaseExpiresAt   int64
	hasLease         bool
	updatedAt        int64
	retryCount       int
	errorCode        string
	createdAt        int64
	taskCount        int
}

func readLeaseState(item table.Item) leaseState {
	var ls leaseState
	if v, ok := item[attrStatus].(*types.AttributeValueMemberS); ok {
		ls.status = Status(v.Value)
	}
	num := func(name string) (int64, bool) {
		v, ok := item[name].(*types.AttributeValueMemberN)
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(v.Value, 10, 64)
		return n, err == nil
	}
	a, ok := num(attrAttempt)
	ls.attempt, ls.hasAttempt = int(a), ok
	b, _ := num(attrAttemptsAtReplay)
	ls.attemptsAtReplay = int(b)
	ls.leaseExpiresAt, ls.hasLease = num(attrLeaseExpiresAt)
	ls.updatedAt, _ = num(attrUpdatedAt)
	ls.createdAt, _ = num(attrCreatedAt)
	c, _ := num(attrTaskCount)
	ls.taskCount = int(c)
	if m, ok := item[attrError].(*types.AttributeValueMemberM); ok {
		if v, ok := m.Value["retryCount"].(*types.AttributeValueMemberN); ok {
			n, _ := strconv.Atoi(v.Value)
			ls.retryCount = n
		}
		if v, ok := m.Value["code"].(*types.AttributeValueMemberS); ok {
			ls.errorCode = v.Value
		}
	}
	return ls
}

// recoverItem moves one expired in-flight job with one conditional write
// on the status, attempt and lease it was read with, and returns the status
// it moved to. A refused write is table.ErrConditionFailed.
func (s *Store) recoverItem(ctx context.Context, item table.Item, now time.Time) (Status, error) {
	id := ""
	if v, ok := item[attrJobID].(*types.AttributeValueMemberS); ok {
		id = v.Value
	}
	ls := readLeaseState(item)
	attempt, lease, updated := expression.Name(attrAttempt), expression.Name(attrLeaseExpiresAt), expression.Name(attrUpdatedAt)
	cond := expression.Name(attrStatus).Equal(expression.Value(ls.status)).And(s.alive(now))
	if ls.hasAttempt {
		cond = cond.And(attempt.Equal(expression.Value(ls.attempt)))
	} else {
		cond = cond.And(expression.AttributeNotExists(attempt))
	}
	if ls.hasLease {
		cond = cond.And(lease.Equal(expression.Value(ls.leaseExpiresAt)))
	} else {
		cond = cond.And(expression.AttributeNotExists(lease)).And(updated.Equal(expression.Value(ls.updatedAt)))
	}

	used := max(ls.attempt-ls.attemptsAtReplay, 1)
	nowMillis := now.UnixMilli()
	u := s.renames.remove(s.renames.set(expression.UpdateBuilder{}, attrUpdatedAt, expression.Value(nowMillis)), attrLeaseExpiresAt)
	to := StatusQueued
	if used >= s.opts.MaxAttempts {
		to = StatusFailed
		u = s.renames.set(u, attrError, expression.Value(JobError{
			Code:       LeaseExpiredCode,
			Message:    fmt.Sprintf("the worker's lease expired in %s on attempt %d of %d", ls.status, used, s.opts.MaxAttempts),
			RetryCount: ls.retryCount,
		}))
		u = s.renames.set(u, attrProcessingCompletedAt, expression.Value(nowMillis))
	} else {
		u = s.renames.remove(u, attrProcessingStartedAt)
	}
	u = s.renames.set(u, attrStatus, expression.Value(to))

	var err error
	if to == StatusQueued && s.work != nil {
		// Back in the queue with its work, as Replay queues it.
		err = s.writeWithWork(ctx, id, fromUnixMilli(ls.createdAt), ls.taskCount, u, cond)
		if _, refused := s.jobRefusal(err); refused {
			err = fmt.Errorf("%w: %w", table.ErrConditionFailed, err)
		}
	} else {
		err = s.t.Update(ctx, s.t.Key(id), u, table.If(cond))
	}
	log := s.opts.Logger
	switch {
	case errors.Is(err, table.ErrConditionFailed):
		if log != nil {
			log.LogAttrs(ctx, slog.LevelDebug, "jobs: recover: job changed since it was read; left alone",
				slog.String("table", s.t.Name()), slog.String("operation", "Recover"), slog.String("key", id),
				slog.Int("attempt", ls.attempt))
		}
		return "", err
	case err != nil:
		return "", fmt.Errorf("jobs: recover job %q: %w", id, err)
	}
	if log != nil {
		log.LogAttrs(ctx, slog.LevelInfo, "jobs: recovered job with an expired lease",
			slog.String("table", s.t.Name()), slog.String("operation", "Recover"), slog.String("key", id),
			slog.Int("attempt", ls.attempt), slog.String("from", string(ls.status)), slog.String("to", string(to)))
	}
	return to, nil
}
