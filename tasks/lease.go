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

// Leases
//
// A PROCESSING task sits in GSI1 under STATUS#PROCESSING with sort key
// LEASE#<expiry> (fixed-width UTC, so text order is time order). Tasks whose
// lease has run out are then one key condition away,
//
//	GSI1PK = STATUS#PROCESSING AND GSI1SK <= LEASE#<now>
//
// which reads only the expired ones, oldest first: no scan, no filter.
// Heartbeat moves the entry forward. A lease is lost when another worker or
// ReclaimExpired takes the task, not at the instant it expires: a worker
// that finishes late but before anybody noticed still completes. Once taken,
// the attempt number has moved on, and every write under the old lease is
// refused by its condition (ErrLeaseLost), whatever the clocks say.

// Heartbeat extends the lease to Options.LeaseDuration from now and returns
// the extended lease. It is one conditional UpdateItem (owner, attempt and
// status PROCESSING); a worker that lost the task gets a *LeaseLostError.
func (s *Store) Heartbeat(ctx context.Context, lease Lease) (_ Lease, err error) {
	ctx, span := s.start(ctx, "tasks.Heartbeat")
	defer span.End(&err)
	if err := s.check(checkLease(lease)); err != nil {
		return lease, err
	}
	now := s.leaseNow(lease)
	expires := now.Add(s.opts.LeaseDuration)
	update := expression.Set(expression.Name(attrLeaseExpiresAt), expression.Value(keys.FormatTime(expires))).
		Set(expression.Name(attrGSI1SK), expression.Value(mustBuild(leaseSK, expires))).
		Set(expression.Name(attrUpdatedAt), expression.Value(keys.FormatTime(now)))
	err = s.t.Update(ctx, s.metaKey(lease.TaskID), update, table.If(held(lease)), table.ItemOnConditionFailure())
	if err != nil {
		var te *table.Error
		if errors.As(err, &te) && errors.Is(err, table.ErrConditionFailed) {
			return lease, s.leaseLost(lease, te.Item, err)
		}
		return lease, fmt.Errorf("tasks: heartbeat %q: %w", lease.TaskID, err)
	}
	lease.ExpiresAt = expires
	return lease, nil
}

// held is the condition that lease still holds its task.
func held(l Lease) expression.ConditionBuilder {
	return expression.Name(attrStatus).Equal(expression.Value(StatusProcessing)).
		And(expression.Name(attrOwner).Equal(expression.Value(l.Worker))).
		And(expression.Name(attrAttempt).Equal(expression.Value(l.Attempt)))
}

// leaseLost turns a refused write under lease into the error to return:
// ErrNotFound when the task is gone (DynamoDB returned no item), a
// *LeaseLostError saying who holds it now otherwise.
func (s *Store) leaseLost(lease Lease, current table.Item, cause error) error {
	if current == nil {
		return notFound(lease.TaskID, cause)
	}
	var m metaItem
	if err := table.Unmarshal(current, &m); err != nil {
		return fmt.Errorf("tasks: task %q: %w", lease.TaskID, err)
	}
	return &LeaseLostError{Lease: lease, Status: m.Status, Owner: m.Owner, Attempt: m.Attempt, Cause: cause}
}

// ReclaimExpired moves every PROCESSING task whose lease expired back to
// PENDING, claimable after the same backoff as a failed attempt (or to
// DEAD when its attempts are used up), with a LEASE_EXPIRED
// event and the old owner's WORKER item deleted, and returns how many it
// moved. Claim takes expired tasks over by itself; ReclaimExpired is for a
// sweeper that keeps them visible in the pending list when no worker is
// claiming. It reads only expired entries (one key-condition query per
// shard); a task whose owner heartbeats meanwhile is left alone.
func (s *Store) ReclaimExpired(ctx context.Context) (_ int, err error) {
	ctx, span := s.start(ctx, "tasks.ReclaimExpired")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return 0, err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return 0, err
	}
	now := s.now()
	moved := 0
	for shard := range s.shardCount() {
		q := table.Query{
			Index: IndexGSI1, Partition: s.statusPartition(StatusProcessing, shard),
			Sort: table.SortLessOrEqual(mustBuild(leaseSK, now)),
		}
		for m, err := range table.QueryAll[metaItem](ctx, s.t, q) {
			if err != nil {
				return moved, fmt.Errorf("tasks: expired leases: %w", err)
			}
			_, err := s.expire(ctx, &m)
			switch {
			case err == nil:
				moved++
			case !lostRace(err):
				return moved, err
			}
		}
	}
	return moved, nil
}

// expire ends the expired lease m describes: the task goes back to PENDING,
// or to DEAD if that was its last attempt, and returns the new status.
func (s *Store) expire(ctx context.Context, m *metaItem) (Status, error) {
	now := s.notBefore(m.UpdatedAt)
	id := m.TaskID
	if err := checkTaskID(id); err != nil {
		return "", fmt.Errorf("tasks: expire: stored task id: %w", err)
	}
	to := StatusPending
	if s.lastAttempt(m.Attempt, m.AttemptBase) {
		to = StatusDead
	}
	msg := expiredMessage(m)
	ev, err := s.newEvent(id, m.Events+1, EventLeaseExpired, to, m.Attempt, m.Owner, msg, now)
	if err != nil {
		return "", err
	}
	update := s.requeue(to, id, m.Attempt-m.AttemptBase, now).
		Set(expression.Name(attrLastError), expression.Value(msg)).
		Set(expression.Name(attrUpdatedAt), expression.Value(keys.FormatTime(now))).
		Remove(expression.Name(attrOwner)).
		Remove(expression.Name(attrLeaseExpiresAt)).
		Add(expression.Name(attrEvents), expression.Value(1))
	tx := s.t.WriteTx().Update(s.metaKey(id), update, table.If(unchanged(m)))
	if err := s.rebuildClaimEvent(tx, m); err != nil {
		return "", err
	}
	tx.Put(ev) // a Put, as in takeover: the old owner's COMPLETED event may be there
	if m.Owner != "" && checkWorkerID(m.Owner) == nil {
		tx.Delete(s.claimKey(m.Owner, id))
	}
	if err := tx.Run(ctx); err != nil {
		return "", fmt.Errorf("tasks: expire lease on %q: %w", id, err)
	}
	return to, nil
}

// leaseNow is the time of a change made under lease: the store's clock, but
// never before the claim or heartbeat that set the lease's expiry, so
// event times stay in order across workers whose clocks disagree a little.
func (s *Store) leaseNow(lease Lease) time.Time {
	now := s.now()
	if since := lease.ExpiresAt.Add(-s.opts.LeaseDuration); since.After(now) {
		return since.UTC()
	}
	return now
}
