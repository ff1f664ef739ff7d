package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// transitions is the seed's state machine, plus the ways out of every
// state the seed leaves implicit: FAILED from every in-flight status (a
// worker may fail before the provider call), recovery of an in-flight job
// whose lease expired (back to QUEUED, or FAILED after its last attempt),
// and the replay the seed's "FAILED (DLQ): Manual replay" calls for.
var transitions = map[Status][]Status{
	StatusQueued:     {StatusProcessing},
	StatusProcessing: {StatusEditing, StatusFailed, StatusQueued},
	StatusEditing:    {StatusCompleted, StatusFailed, StatusQueued},
	StatusFailed:     {StatusQueued},
}

// inFlight are the statuses a worker holds a job in, under a lease.
var inFlight = []Status{StatusProcessing, StatusEditing}

// InFlight reports whether s is a status a worker holds the job in under a
// lease: PROCESSING or EDITING.
func (s Status) InFlight() bool { return slices.Contains(inFlight, s) }

// CanMoveTo reports whether the state machine has a move from s to next:
// QUEUED → PROCESSING → EDITING → COMPLETED; PROCESSING or EDITING →
// FAILED (Fail, or Recover after the last attempt) and → QUEUED (Recover);
// and the replay FAILED → QUEUED. COMPLETED is final.
func (s Status) CanMoveTo(next Status) bool {
	return slices.Contains(transitions[s], next)
}

// StartProcessing moves a job QUEUED → PROCESSING (a worker picked it up):
// it sets processingStartedAt, increments attempt and gives the job a lease
// of Options.LeaseDuration. The worker takes [Job.Lease] from the result,
// renews it with Heartbeat and passes it to StartEditing, Complete or Fail.
// Of any number of workers racing for one job, exactly one succeeds; the
// others get a *TransitionError.
func (s *Store) StartProcessing(ctx context.Context, id string) (_ *Job, err error) {
	ctx, span := s.start(ctx, "jobs.StartProcessing")
	defer span.End(&err)
	attempt := expression.Name(attrAttempt)
	return s.move(ctx, moveSpec{id: id, from: []Status{StatusQueued}, to: StatusProcessing, renew: true,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			u = s.renames.set(u, attrProcessingStartedAt, expression.Value(now))
			return s.renames.set(u, attrAttempt, expression.Plus(expression.IfNotExists(attempt, expression.Value(0)), expression.Value(1))), nil
		}})
}

// StartEditing moves a job PROCESSING → EDITING under lease (the provider
// call begins), renews the lease and stores the provider's analysis, when
// there is one. An analysis that could push the item past the offload
// threshold is written to the blob store first and the item keeps a
// pointer to it; Get and the lists read it back transparently.
func (s *Store) StartEditing(ctx context.Context, lease Lease, analysis *AnalysisResult) (_ *Job, err error) {
	ctx, span := s.start(ctx, "jobs.StartEditing")
	defer span.End(&err)
	if err := analysis.validate(); err != nil {
		return nil, err
	}
	return s.move(ctx, moveSpec{id: lease.JobID, lease: &lease, from: []Status{StatusProcessing}, to: StatusEditing, renew: true,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			if analysis == nil {
				return u, nil
			}
			av, err := attributevalue.Marshal(normalizeAnalysis(analysis))
			if err != nil {
				return u, fmt.Errorf("jobs: marshal analysis result: %w", err)
			}
			av, err = s.offloadAttr(ctx, lease.JobID, attrAnalysisResult, av)
			if err != nil {
				return u, err
			}
			return s.renames.set(u, attrAnalysisResult, expression.Value(av)), nil
		}})
}

// Heartbeat renews lease to Options.LeaseDuration from now and returns the
// renewed lease. It is one conditional UpdateItem on the job being in
// flight under lease's attempt; a worker whose job was recovered, or moved
// on, gets a *TransitionError (ErrLeaseLost) carrying the job as it is.
// Renew well inside the lease (a third of it is usual).
//
// A heartbeat changes leaseExpiresAt and updatedAt, attributes both
// indexes project: each costs the job's write units plus one write per
// index (about 3 WCU for a 1 KB job).
func (s *Store) Heartbeat(ctx context.Context, lease Lease) (_ Lease, err error) {
	ctx, span := s.start(ctx, "jobs.Heartbeat")
	defer span.End(&err)
	job, err := s.move(ctx, moveSpec{id: lease.JobID, lease: &lease, from: inFlight, renew: true})
	if err != nil {
		return lease, err
	}
	return job.Lease(), nil
}

// Complete moves a job EDITING → COMPLETED under lease, stores the edit
// result, sets s3FinalKey to the result's key and processingCompletedAt,
// and removes the lease. An error map left by an earlier failure stays: it
// records how many replays it took.
func (s *Store) Complete(ctx context.Context, lease Lease, result EditResult) (_ *Job, err error) {
	ctx, span := s.start(ctx, "jobs.Complete")
	defer span.End(&err)
	if err := result.validate(); err != nil {
		return nil, err
	}
	return s.move(ctx, moveSpec{id: lease.JobID, lease: &lease, from: []Status{StatusEditing}, to: StatusCompleted,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			av, err := attributevalue.Marshal(result)
			if err != nil {
				return u, fmt.Errorf("jobs: marshal edit result: %w", err)
			}
			av, err = s.offloadAttr(ctx, lease.JobID, attrEditResult, av)
			if err != nil {
				return u, err
			}
			u = s.renames.set(u, attrEditResult, expression.Value(av))
			u = s.renames.set(u, attrS3FinalKey, expression.Value(result.S3Key))
			u = s.renames.set(u, attrProcessingCompletedAt, expression.Value(now))
			return s.renames.remove(u, attrLeaseExpiresAt), nil
		}})
}

// Fail moves an in-flight job (PROCESSING or EDITING) to FAILED under
// lease: the provider failed, or the worker gave up. It records the error,
// sets processingCompletedAt and removes the lease. failure.RetryCount
// must be 0: the store keeps the count, which only Replay changes.
// failure.Stack is stored only where Options.Environment is dev or
// staging, as the seed says; elsewhere the job's error has no stack.
//
// A job failing for the first time takes one conditional write. A job that
// failed before and was replayed already has an error map whose retryCount
// must survive; the first write is then refused (its condition requires no
// error map), DynamoDB returns the item with the refusal, and a second
// conditional write updates the map's fields in place. Both writes require
// the lease's attempt in flight, so neither can overwrite a concurrent move.
func (s *Store) Fail(ctx context.Context, lease Lease, failure JobError) (_ *Job, err error) {
	ctx, span := s.start(ctx, "jobs.Fail")
	defer span.End(&err)
	if err := failure.validate(); err != nil {
		return nil, err
	}
	if !s.keepsStacks() {
		failure.Stack = "" // the seed: "Stack trace (dev/staging only)"
	}
	spec := moveSpec{id: lease.JobID, lease: &lease, from: inFlight, to: StatusFailed,
		set: func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			u = s.renames.set(u, attrError, expression.Value(failure))
			u = s.renames.set(u, attrProcessingCompletedAt, expression.Value(now))
			return s.renames.remove(u, attrLeaseExpiresAt), nil
		},
		extra: expression.AttributeNotExists(expression.Name(attrError)),
	}
	job, err := s.move(ctx, spec)
	var te *TransitionError
	if !errors.As(err, &te) || te.LeaseLost || !te.Current.InFlight() {
		return job, err
	}
	// The job is in flight under this lease and was refused only for its
	// error map.
	spec.set = func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		// error's members in place (error is never renamed: see Rename).
		u = u.Set(expression.Name(attrError+".code"), expression.Value(failure.Code)).
			Set(expression.Name(attrError+".message"), expression.Value(failure.Message))
		u = s.renames.set(u, attrProcessingCompletedAt, expression.Value(now))
		u = s.renames.remove(u, attrLeaseExpiresAt)
		if failure.Stack != "" {
			u = u.Set(expression.Name(attrError+".stack"), expression.Value(failure.Stack))
		} else {
			u = u.Remove(expression.Name(attrError + ".stack"))
		}
		return u, nil
	}
	spec.extra = expression.AttributeExists(expression.Name(attrError))
	return s.move(ctx, spec)
}

// Replay moves a FAILED job back to QUEUED for another attempt and
// increments error.retryCount. The error's code and message stay as the
// record of the last failure; processingStartedAt and
// processingCompletedAt are removed, since they describe the attempt that
// failed and the next StartProcessing sets them afresh. attemptsAtReplay is
// set to the attempts so far, so Recover grants the replayed job a fresh
// Options.MaxAttempts.
//
// A FAILED item written before the error map existed gets one, with code
// "UNKNOWN" and retryCount 1.
//
// With Options.Work, Replay queues the job's work: it reads the job
// (strongly consistent) and moves it in one transaction with a new task
// carrying its work (see "Work" in the package documentation), conditioned
// on the job being FAILED with the task count it read, so both apply or
// neither does, and a retried Replay whose first call applied is refused
// without queuing twice. A job that is not FAILED is refused from that
// read, with nothing written. The job is read back after the transaction
// (one strongly consistent read more). Without Work, Replay is one
// conditional UpdateItem (two for a FAILED item without an error map) and
// the caller queues the work.
//
// A job that is not FAILED gets a *TransitionError (ErrInvalidTransition,
// or ErrLeaseLost never: Replay holds no lease), a missing or expired one
// ErrNotFound; neither writes anything.
func (h *Maintenance) Replay(ctx context.Context, id string) (_ *Job, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "jobs.Maintenance.Replay")
	defer span.End(&err)
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.work != nil {
		return s.replayWithWork(ctx, id)
	}
	spec := s.replaySpec(id, true)
	job, err := s.move(ctx, spec)
	var te *TransitionError
	if !errors.As(err, &te) || te.Current != StatusFailed {
		return job, err
	}
	return s.move(ctx, s.replaySpec(id, false))
}

// replaySpec is the move FAILED → QUEUED of Replay, for a job with an
// error map (hasError) or without one.
func (s *Store) replaySpec(id string, hasError bool) moveSpec {
	spec := moveSpec{id: id, from: []Status{StatusFailed}, to: StatusQueued}
	replayed := func(u expression.UpdateBuilder) expression.UpdateBuilder {
		u = s.renames.set(u, attrAttemptsAtReplay, expression.IfNotExists(expression.Name(attrAttempt), expression.Value(0)))
		u = s.renames.remove(u, attrProcessingStartedAt)
		return s.renames.remove(u, attrProcessingCompletedAt)
	}
	if hasError {
		retryCount := expression.Name(attrError + ".retryCount")
		spec.set = func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
			return replayed(u.Set(retryCount, expression.Plus(expression.IfNotExists(retryCount, expression.Value(0)), expression.Value(1)))), nil
		}
		spec.extra = expression.AttributeExists(expression.Name(attrError))
		return spec
	}
	spec.set = func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		return replayed(s.renames.set(u, attrError, expression.Value(JobError{
			Code:       UnknownErrorCode,
			Message:    "the job failed before its error was recorded",
			RetryCount: 1,
		}))), nil
	}
	spec.extra = expression.AttributeNotExists(expression.Name(attrError))
	return spec
}

// replayWithWork is Replay on a store with a work queue.
func (s *Store) replayWithWork(ctx context.Context, id string) (*Job, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	job, err := s.Get(ctx, id, Consistent())
	if err != nil {
		return nil, err
	}
	spec := s.replaySpec(id, job.Error != nil)
	if job.Status != StatusFailed {
		return nil, &TransitionError{JobID: id, Current: job.Status, From: spec.from, To: spec.to, Job: job}
	}
	return s.moveWithWork(ctx, spec, job)
}

// moveWithWork makes move m of job (as read) in one transaction with a new
// task carrying its work, on the condition that the job still has the task
// count it was read with, then reads the job back.
func (s *Store) moveWithWork(ctx context.Context, m moveSpec, job *Job) (*Job, error) {
	now := s.now()
	u, cond, err := s.moveUpdate(m, now)
	if err != nil {
		return nil, err
	}
	err = s.writeWithWork(ctx, job.ID, job.CreatedAt, job.TaskCount, u, cond)
	if item, refused := s.jobRefusal(err); refused {
		if len(item) == 0 || table.ItemExpired(item, attrTTL, now) {
			return nil, notFound(m.id, err)
		}
		return nil, s.transitionError(ctx, m, item, err)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: move job %q %s → %s and queue its work: %w", m.id, joinStatuses(m.from), m.to, err)
	}
	var item table.Item
	if err := s.t.Get(ctx, s.t.Key(m.id), &item, table.Consistent()); err != nil {
		return nil, fmt.Errorf("jobs: read job %q after its move: %w", m.id, err)
	}
	return s.jobFromStored(ctx, item)
}

// writeWithWork runs, in one transaction, the update u of job id under
// cond and the submission of the task of the job's next queuing (its
// taskCount + 1; the job was created at createdAt and read with
// taskCount), conditioned also on taskCount being as read.
func (s *Store) writeWithWork(ctx context.Context, id string, createdAt time.Time, taskCount int, u expression.UpdateBuilder, cond expression.ConditionBuilder) error {
	count := expression.Name(attrTaskCount)
	if taskCount == 0 {
		cond = cond.And(expression.AttributeNotExists(count))
	} else {
		cond = cond.And(count.Equal(expression.Value(taskCount)))
	}
	n := taskCount + 1
	taskID := ""
	return s.runQueuing(func(fresh bool) error {
		tx := s.t.WriteTx()
		task, err := s.submitWork(ctx, tx, id, createdAt, n, fresh)
		switch {
		case err != nil:
			return err
		case taskID == "":
			// The job records its task and queuings. u is set once:
			// its Set adds to what every copy of it shares, and the
			// second build's task is the first's (the key names it).
			taskID = task.ID
			u = s.renames.set(u, attrTaskID, expression.Value(task.ID))
			u = s.renames.set(u, attrTaskCount, expression.Value(n))
		case task.ID != taskID:
			return fmt.Errorf("jobs: queue the work of job %q: key %d named task %q, then %q", id, n, taskID, task.ID)
		}
		return tx.Update(s.t.Key(id), u, table.If(cond), table.ItemOnConditionFailure()).Run(ctx)
	})
}

// UnknownErrorCode is the error code Replay records for a FAILED job that
// has no error map (written before the seed added error tracking).
const UnknownErrorCode = "UNKNOWN"

// moveSpec describes one status move.
type moveSpec struct {
	id    string
	lease *Lease   // the worker's lease; nil for moves not made under one
	from  []Status // the statuses the move starts from
	to    Status   // "" keeps the status (Heartbeat)
	renew bool     // set leaseExpiresAt to now + LeaseDuration
	set   func(nowMillis int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error)
	extra expression.ConditionBuilder // a further condition, when valid
}

// move is every status change: one UpdateItem that sets status and
// updatedAt plus what set adds, on the condition that the job exists, has
// not expired, is in one of the statuses from, is still under the lease's
// attempt (moves made under a lease) and meets extra. When the condition
// fails DynamoDB returns the item as it was
// (ReturnValuesOnConditionCheckFailure), which tells a missing or expired
// job (ErrNotFound) from one in another status or attempt
// (*TransitionError) without a second read.
func (s *Store) move(ctx context.Context, m moveSpec) (*Job, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	now := s.now()
	u, cond, err := s.moveUpdate(m, now)
	if err != nil {
		return nil, err
	}
	var item table.Item
	err = s.t.Update(ctx, s.t.Key(m.id), u, table.If(cond), table.ReturnNew(&item), table.ItemOnConditionFailure())
	if err != nil {
		if !errors.Is(err, table.ErrConditionFailed) {
			return nil, fmt.Errorf("jobs: move job %q %s → %s: %w", m.id, joinStatuses(m.from), m.to, err)
		}
		var te *table.Error
		var current table.Item
		if errors.As(err, &te) {
			current = te.Item
		}
		if len(current) == 0 || table.ItemExpired(current, attrTTL, now) {
			return nil, notFound(m.id, err)
		}
		return nil, s.transitionError(ctx, m, current, err)
	}
	return s.jobFromStored(ctx, item)
}

// moveUpdate is the update and condition of move m at now.
func (s *Store) moveUpdate(m moveSpec, now time.Time) (expression.UpdateBuilder, expression.ConditionBuilder, error) {
	var u expression.UpdateBuilder
	var cond expression.ConditionBuilder
	if err := checkID(m.id); err != nil {
		return u, cond, err
	}
	if m.lease != nil && m.lease.Attempt <= 0 {
		return u, cond, inputError("lease.Attempt", m.lease.Attempt, "must be positive: take the lease from the job StartProcessing returned")
	}
	nowMillis := now.UnixMilli()
	u = s.renames.set(u, attrUpdatedAt, expression.Value(nowMillis))
	if m.to != "" {
		u = s.renames.set(u, attrStatus, expression.Value(m.to))
	}
	held := m.lease != nil && m.lease.task != ""
	if m.renew && !held {
		u = s.renames.set(u, attrLeaseExpiresAt, expression.Value(now.Add(s.opts.LeaseDuration).UnixMilli()))
	}
	if m.set != nil {
		var err error
		if u, err = m.set(nowMillis, u); err != nil {
			return u, cond, err
		}
	}
	cond = statusIn(m.from).And(s.alive(now))
	if m.lease != nil {
		cond = cond.And(expression.Name(attrAttempt).Equal(expression.Value(m.lease.Attempt)))
	}
	if held {
		cond = cond.And(expression.Name(attrTaskID).Equal(expression.Value(m.lease.task)))
	}
	if m.extra.IsSet() {
		cond = cond.And(m.extra)
	}
	return u, cond, nil
}

// transitionError describes a refused move from the item DynamoDB returned
// with the refusal.
func (s *Store) transitionError(ctx context.Context, m moveSpec, current table.Item, cause error) *TransitionError {
	te := &TransitionError{JobID: m.id, From: m.from, To: m.to, Cause: cause}
	if st, ok := current[attrStatus].(*types.AttributeValueMemberS); ok {
		te.Current = Status(st.Value)
	}
	if job, err := s.jobFromStored(ctx, current); err == nil {
		te.Job = job
	}
	if m.lease != nil {
		te.LeaseLost = leaseLost(*m.lease, te.Current, current)
	}
	return te
}

// leaseLost reports whether a move under lease was refused because the
// lease was taken from its worker: the job went on to a later attempt
// (Recover, or a job worker's takeover, then another start), or is back in
// QUEUED under the lease's own attempt (recovered, or given back at a
// shutdown: only those move an in-flight job to QUEUED), or Recover failed
// it on that attempt (LEASE_EXPIRED). A job the lease's own worker moved
// on (completed, failed) is not lost: a second move is an invalid
// transition.
func leaseLost(lease Lease, status Status, current table.Item) bool {
	ls := readLeaseState(current)
	switch {
	case ls.attempt > lease.Attempt:
		return true
	case ls.attempt != lease.Attempt:
		return false // a lease from no attempt of this job
	case status == StatusQueued:
		return true
	case status == StatusFailed:
		return ls.errorCode == LeaseExpiredCode
	}
	return false
}

// statusIn is the condition "status is one of from".
func statusIn(from []Status) expression.ConditionBuilder {
	st := expression.Name(attrStatus)
	if len(from) == 1 {
		return st.Equal(expression.Value(from[0]))
	}
	rest := make([]expression.OperandBuilder, 0, len(from)-1)
	for _, f := range from[1:] {
		rest = append(rest, expression.Value(f))
	}
	return st.In(expression.Value(from[0]), rest...)
}

func joinStatuses(sts []Status) string {
	parts := make([]string, len(sts))
	for i, st := range sts {
		parts[i] = string(st)
	}
	return strings.Join(parts, "|")
}

// alive is the condition "not expired at now" (table.Alive, the meaning
// Get and the lists apply: a ttl absent or 0 never expires): DynamoDB may
// keep an expired item for days, and a move must not revive it.
func (s *Store) alive(now time.Time) expression.ConditionBuilder {
	return table.Alive(attrTTL, now)
}
