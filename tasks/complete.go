package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Complete finishes the task held under lease: COMPLETED, with result
// stored on the task (at most MaxResultSize bytes; nil stores none). A
// worker that lost the task gets a *LeaseLostError and the task is left
// as it is.
//
// It is one conditional UpdateItem of META, the decision (the lease still
// holds, and nothing has changed the task since the claim), then, at once,
// the delete of the worker's claim item and the COMPLETED event's put
// (with Options.CompactHistory no event item: the task leaves GSI1 and
// keeps its owner and claim time, so its PROCESSING and COMPLETED events
// are META's to tell, History and EventFromChange read them there). A
// Complete cut off after its META update, retried, finds the task
// completed under its own lease and finishes: the claim item's delete and
// the event, dated by the first attempt's update.
//
// The META update sets META's ttl to Options.Retention from now: the
// finished task, its IDEM item and a claim item left by a Complete cut off
// before its delete all expire about Retention after completion, with no
// write beyond these.
func (s *Store) Complete(ctx context.Context, lease Lease, result []byte) (err error) {
	ctx, span := s.start(ctx, "tasks.Complete")
	defer span.End(&err)
	if err := s.check(checkLease(lease)); err != nil {
		return err
	}
	if len(result) > MaxResultSize {
		return inputError("result", fmt.Sprintf("%d bytes", len(result)), fmt.Sprintf("is over MaxResultSize (%d bytes)", MaxResultSize))
	}
	now := s.leaseNow(lease)
	if _, err := eventSK.Build(lease.Seq + 1); err != nil {
		return fmt.Errorf("tasks: task %q: event %d: history is full (%d events): %w", lease.TaskID, lease.Seq+1, MaxEvents, err)
	}
	// COMPLETED tasks leave GSI1: removing the entry costs one index write,
	// moving it to a STATUS#COMPLETED partition would cost two and make that
	// partition the hottest of all.
	update := leaveQueue(s.move(lease.TaskID), StatusCompleted).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Set(attrTTL, s.ttlFrom(now)).
		Remove(attrLeaseExpiresAt).
		Add(attrEvents, 1)
	if len(result) > 0 {
		update = update.Set(attrResult, result)
	}
	_, err = update.If(leaseCondition(lease)).Run(ctx)
	if err != nil {
		var te *table.Error
		if !errors.As(err, &te) || !errors.Is(err, table.ErrConditionFailed) {
			return fmt.Errorf("tasks: complete %q: %w", lease.TaskID, err)
		}
		done, ok := completedUnder(lease, te.Item)
		if !ok {
			return s.leaseLost(lease, te.Item, err)
		}
		// A retry of a Complete cut off after this update: finish it,
		// with the event of the update that completed the task.
		if now, err = parseTime("updatedAt", done.UpdatedAt); err != nil {
			return err
		}
	}
	ev, err := s.newEvent(lease.TaskID, lease.Seq+1, EventCompleted, StatusCompleted, lease.Attempt, lease.Worker, "", now)
	if err != nil {
		return err
	}
	// The task is complete; its claim item goes, and its event comes (a
	// Put: META's condition made this Complete the one writer of its
	// number). Left behind, claim items would pile up under the worker
	// (one per task it ever finished) and WorkerTasks would read them
	// all. One a Complete cut off here leaves behind is skipped by
	// WorkerTasks (its META is no longer PROCESSING) and removed by its
	// ttl.
	var claimErr, eventErr error
	each(2, func(i int) error {
		switch {
		case i == 0:
			_, claimErr = s.ent.claims.Delete(ctx, claimKey(lease.Worker, lease.TaskID), entity.Unchecked())
		case !s.opts.CompactHistory:
			eventErr = s.putEvent(ctx, ev)
		}
		return nil
	})
	if claimErr != nil {
		return fmt.Errorf("tasks: complete %q: claim item: %w", lease.TaskID, claimErr)
	}
	if eventErr != nil {
		return fmt.Errorf("tasks: complete %q: the task is completed, its COMPLETED event item is not (retry Complete): %w", lease.TaskID, eventErr)
	}
	s.metrics.attempt(ctx, outcomeCompleted)
	return nil
}

// completedUnder returns the META item current when it shows the task
// completed under lease.
func completedUnder(lease Lease, current table.Item) (*metaItem, bool) {
	if current == nil {
		return nil, false
	}
	var m metaItem
	ok := table.Unmarshal(current, &m) == nil && m.Status == StatusCompleted &&
		m.Owner == lease.Worker && m.Attempt == lease.Attempt && m.Events == lease.Seq+1
	return &m, ok
}

// Fail gives the task held under lease back with reason (at most 4096
// bytes): PENDING again, for another claim, while attempts remain (the
// task's MaxAttempts, which its submitting store's Options.MaxAttempts
// set), DEAD after the last one. It returns the status the
// task moved to. The write is one transaction (Complete's is two
// single-item writes; a failure is rarer and writes events): META updated
// on the same lease condition as Complete's update, the claim's PROCESSING
// event and a FAILED or DEAD event written, the WORKER item deleted. A
// lost lease is refused as Complete refuses it (*LeaseLostError).
//
// A task with attempts left is claimable again only after a backoff
// (Options.RetryBackoff): its AvailableAt, and its place in the pending
// order (GSI1SK CREATED#<availableAt>), move to the end of the backoff, so
// no claim sees it before then, and then it queues behind the work that
// became claimable before it. A DEAD task is listed by Maintenance.Dead in the
// order tasks died (CREATED#<now>).
func (s *Store) Fail(ctx context.Context, lease Lease, reason string) (_ Status, err error) {
	ctx, span := s.start(ctx, "tasks.Fail")
	defer span.End(&err)
	if err := s.check(checkLease(lease)); err != nil {
		return "", err
	}
	if err := checkReason(reason); err != nil {
		return "", err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return "", err
	}
	to, typ := StatusPending, EventFailed
	if s.lastAttempt(lease.Attempt, lease.AttemptBase, lease.MaxAttempts) {
		to, typ = StatusDead, EventDead
	}
	now := s.leaseNow(lease)
	ev, err := s.newEvent(lease.TaskID, lease.Seq+1, typ, to, lease.Attempt, lease.Worker, reason, now)
	if err != nil {
		return "", err
	}
	update := s.requeue(to, lease.TaskID, lease.Attempt-lease.AttemptBase, now).
		Set(attrLastError, reason).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Remove(attrOwner, attrLeaseExpiresAt).
		Add(attrEvents, 1)
	if err := s.finish(ctx, lease, update, ev, "fail"); err != nil {
		return "", err
	}
	if to == StatusPending {
		s.metrics.attempt(ctx, outcomeFailed)
		s.bump(ctx)
	} else {
		s.metrics.attempt(ctx, outcomeDead)
		s.metrics.died(ctx, causeFailed)
		s.log.WarnContext(ctx, "tasks: a task failed its last attempt and is a dead letter", "operation", "fail",
			"key", lease.TaskID, "attempt", lease.Attempt, "worker", lease.Worker, "error", reason)
	}
	return to, nil
}

// finish runs the transaction that ends a lease: update META under the
// lease's condition, write the claim's PROCESSING event (META is about to
// forget it) and ev, delete the WORKER item. The events are Puts: under
// the lease the transaction is the one writer of those numbers.
func (s *Store) finish(ctx context.Context, lease Lease, update *entity.Update[metaItem], ev *eventItem, op string) error {
	claimed, err := s.claimEventOf(ctx, lease)
	if err != nil {
		return err
	}
	writes := append(s.eventPuts(claimed, ev), s.ent.claims.TxDelete(claimKey(lease.Worker, lease.TaskID), entity.Unchecked()))
	err = s.transact(ctx, update.If(leaseCondition(lease)), writes...)
	if err == nil {
		return nil
	}
	var txe *table.TxError
	if errors.As(err, &txe) {
		for _, r := range txe.Reasons {
			if r.Index == 0 && r.Code == "ConditionalCheckFailed" {
				return s.leaseLost(lease, r.Item, err)
			}
		}
	}
	return fmt.Errorf("tasks: %s %q: %w", op, lease.TaskID, err)
}

// claimEventOf is the PROCESSING event of the claim that gave lease, from
// the lease, or from the task for a lease that does not carry its claim
// time (one from an older version); nil when the task records none either
// (a claim from before claimedAt was recorded wrote its event itself).
func (s *Store) claimEventOf(ctx context.Context, lease Lease) (*eventItem, error) {
	at := lease.ClaimedAt
	if at.IsZero() {
		m, err := s.ent.tasks.Get(ctx, metaItem{TaskID: lease.TaskID}, entity.Consistent())
		if err != nil && !errors.Is(err, table.ErrNotFound) {
			return nil, fmt.Errorf("tasks: task %q: %w", lease.TaskID, err)
		}
		if t, err := keys.ParseTime(m.ClaimedAt); err == nil && m.Attempt == lease.Attempt {
			at = t
		}
		if at.IsZero() {
			return nil, nil
		}
	}
	return s.newEvent(lease.TaskID, lease.Seq, EventProcessing, StatusProcessing, lease.Attempt, lease.Worker, "", at.UTC())
}

// leaseCondition is the condition on META of a change that ends lease:
// the lease holds, and nothing has written an event since its claim.
func leaseCondition(lease Lease) expression.ConditionBuilder {
	return held(lease).And(expression.Name(attrEvents).Equal(expression.Value(lease.Seq)))
}

// requeue is the move that puts task id, whose attempt-th attempt just
// ended at now, back in GSI1: PENDING claimable after its backoff, or DEAD
// in the order tasks died.
func (s *Store) requeue(to Status, id string, attempt int, now time.Time) *entity.Update[metaItem] {
	u := s.move(id)
	at := now
	if to == StatusPending {
		at = s.retryAt(now, attempt)
		u = u.Set(attrAvailableAt, keys.FormatTime(at))
	}
	return s.inQueue(u, to, id, at)
}
