package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Complete finishes the task held under lease: COMPLETED, with result
// stored on the task (at most MaxResultSize bytes; nil stores none). A
// worker that lost the task gets a *LeaseLostError and the task is left
// as it is.
//
// It is two single-item writes, no transaction. First the COMPLETED event,
// on the condition that its sequence number is free: a takeover writes its
// events in its own transaction, so when the number holds anything but
// this lease's own COMPLETED event (from a call cut off before its second
// write, read back and kept) the lease is lost. Then META, on the condition that the lease
// still holds, which is the decision. A COMPLETED event whose META update
// was refused, or never sent, numbers one past the task's event count:
// History leaves it out, and the next change of the task (a takeover or a
// reclaim, in a transaction) writes its own event over it. Last, the
// worker's claim item is deleted.
//
// The COMPLETED event, like every event, expires Options.Retention after
// it is written, and the META update sets META's ttl to the same time:
// the finished task, its earlier events, its IDEM item and a claim item
// left by a Complete cut off before its delete all expire about Retention
// after completion, with no write beyond these.
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
	ev, err := s.newEvent(lease.TaskID, lease.Seq+1, EventCompleted, StatusCompleted, lease.Attempt, lease.Worker, "", now)
	if err != nil {
		return err
	}
	if err := s.t.Put(ctx, ev, s.ifFree()); err != nil {
		if !errors.Is(err, table.ErrAlreadyExists) {
			return fmt.Errorf("tasks: complete %q: event: %w", lease.TaskID, err)
		}
		if err := s.ownCompletion(ctx, lease, ev, err); err != nil {
			return err
		}
	}
	// COMPLETED tasks leave GSI1: removing the entry costs one index write,
	// moving it to a STATUS#COMPLETED partition would cost two and make that
	// partition the hottest of all.
	update := expression.Set(expression.Name(attrStatus), expression.Value(StatusCompleted)).
		Set(expression.Name(attrUpdatedAt), expression.Value(keys.FormatTime(now))).
		Set(expression.Name(attrTTL), expression.Value(s.ttlFrom(now))).
		Remove(expression.Name(attrOwner)).
		Remove(expression.Name(attrLeaseExpiresAt)).
		Remove(expression.Name(attrGSI1PK)).
		Remove(expression.Name(attrGSI1SK)).
		Add(expression.Name(attrEvents), expression.Value(1))
	if len(result) > 0 {
		update = update.Set(expression.Name(attrResult), expression.Value(result))
	}
	err = s.t.Update(ctx, s.metaKey(lease.TaskID), update, table.If(leaseCondition(lease)), table.ItemOnConditionFailure())
	if err != nil {
		var te *table.Error
		if errors.As(err, &te) && errors.Is(err, table.ErrConditionFailed) {
			return s.leaseLost(lease, te.Item, err)
		}
		return fmt.Errorf("tasks: complete %q: %w", lease.TaskID, err)
	}
	// The task is complete; its claim item goes last. Left behind, claim
	// items would pile up under the worker (one per task it ever finished)
	// and WorkerTasks would read them all. A Complete cut off here leaves
	// one behind, which WorkerTasks skips (its META is no longer
	// PROCESSING); a retried Complete stops at the META update (the lease
	// is spent), so the item's own ttl (Retention after the claim)
	// removes it.
	if err := s.t.Delete(ctx, s.claimKey(lease.Worker, lease.TaskID)); err != nil {
		return fmt.Errorf("tasks: complete %q: claim item: %w", lease.TaskID, err)
	}
	return nil
}

// ownCompletion reads the event that holds the number of ev, the
// COMPLETED event of lease: nil when it is this lease's own (a Complete cut
// off before its META update wrote it), else the lease is lost and the
// error says to whom.
func (s *Store) ownCompletion(ctx context.Context, lease Lease, ev *eventItem, cause error) error {
	var got eventItem
	err := s.t.Get(ctx, s.t.Key(ev.PK, ev.SK), &got, table.Consistent())
	switch {
	case err == nil && !s.expired(got.TTL) && got.Event == EventCompleted && got.Attempt == lease.Attempt && got.Worker == lease.Worker:
		return nil
	case err != nil && !errors.Is(err, table.ErrNotFound):
		return fmt.Errorf("tasks: complete %q: %w", lease.TaskID, err)
	}
	var current table.Item
	if err := s.t.Get(ctx, s.metaKey(lease.TaskID), &current, table.Consistent()); err != nil && !errors.Is(err, table.ErrNotFound) {
		return fmt.Errorf("tasks: complete %q: %w", lease.TaskID, err)
	}
	if table.ItemExpired(current, attrTTL, s.now()) {
		current = nil
	}
	return s.leaseLost(lease, current, cause)
}

// Fail gives the task held under lease back with reason (at most 4096
// bytes): PENDING again, for another claim, while attempts remain
// (Options.MaxAttempts), DEAD after the last one. It returns the status the
// task moved to. The write is one transaction like Complete's, with a
// FAILED or DEAD event, and refused the same way for a lost lease.
//
// A task with attempts left is claimable again only after a backoff
// (Options.RetryBackoff): its AvailableAt, and its place in the pending
// order (GSI1SK CREATED#<availableAt>), move to the end of the backoff, so
// no claim sees it before then, and then it queues behind the work that
// became claimable before it. A DEAD task is listed by ListDead in the
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
	if s.lastAttempt(lease.Attempt, lease.AttemptBase) {
		to, typ = StatusDead, EventDead
	}
	now := s.leaseNow(lease)
	ev, err := s.newEvent(lease.TaskID, lease.Seq+1, typ, to, lease.Attempt, lease.Worker, reason, now)
	if err != nil {
		return "", err
	}
	update := s.requeue(to, lease.TaskID, lease.Attempt-lease.AttemptBase, now).
		Set(expression.Name(attrLastError), expression.Value(reason)).
		Set(expression.Name(attrUpdatedAt), expression.Value(keys.FormatTime(now))).
		Remove(expression.Name(attrOwner)).
		Remove(expression.Name(attrLeaseExpiresAt)).
		Add(expression.Name(attrEvents), expression.Value(1))
	if err := s.finish(ctx, lease, update, ev, "fail"); err != nil {
		return "", err
	}
	return to, nil
}

// finish runs the transaction that ends a lease: update META under the
// lease's condition, write the event, delete the WORKER item. The event is
// a Put: under the lease the only item its number may hold is this
// lease's own COMPLETED event from a Complete whose META update failed.
func (s *Store) finish(ctx context.Context, lease Lease, update expression.UpdateBuilder, ev *eventItem, op string) error {
	err := s.t.WriteTx().
		Update(s.metaKey(lease.TaskID), update, table.If(leaseCondition(lease)), table.ItemOnConditionFailure()).
		Put(ev).
		Delete(s.claimKey(lease.Worker, lease.TaskID)).
		Run(ctx)
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

// leaseCondition is the condition on META of a change that ends lease:
// the lease holds, and nothing has written an event since its claim.
func leaseCondition(lease Lease) expression.ConditionBuilder {
	return held(lease).And(expression.Name(attrEvents).Equal(expression.Value(lease.Seq)))
}

// requeue is the update that puts task id, whose attempt-th attempt just
// ended at now, back in GSI1: PENDING claimable after its backoff, or DEAD
// in the order tasks died.
func (s *Store) requeue(to Status, id string, attempt int, now time.Time) expression.UpdateBuilder {
	at := now
	u := expression.Set(expression.Name(attrStatus), expression.Value(to))
	if to == StatusPending {
		at = s.retryAt(now, attempt)
		u = u.Set(expression.Name(attrAvailableAt), expression.Value(keys.FormatTime(at)))
	}
	return u.Set(expression.Name(attrGSI1PK), expression.Value(s.statusPartition(to, s.shardOf(id)))).
		Set(expression.Name(attrGSI1SK), expression.Value(mustBuild(createdSK, at)))
}
