package tasks

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Leases
//
// A PROCESSING task sits in GSI1 under STATUS#PROCESSING with sort key
// LEASE#<expiry> (fixed-width UTC, so text order is time order). Tasks whose
// lease may have run out are then one key condition away,
//
//	GSI1PK = STATUS#PROCESSING AND GSI1SK <= LEASE#<now>
//
// which reads only those, oldest first: no scan, no filter. The lease
// itself is on the worker's claim item (WORKER#<id> / TASK#<id>), which
// Heartbeat extends with one small write; the index entry keeps the expiry
// of the claim until a claim that finds it passed reads the lease and,
// if it still runs, moves the entry to its expiry (takeExpired). A lease is
// lost when another worker or ReclaimExpired takes the task, not at the
// instant it expires: a worker that finishes late but before anybody
// noticed still completes. Once taken, the attempt number has moved on and
// the claim item is marked lost, and every write under the old lease is
// refused by its condition (ErrLeaseLost), whatever the clocks say.

// Heartbeat extends the lease to Options.LeaseDuration from now and returns
// the extended lease. It is one conditional UpdateItem of the worker's
// claim item, a small item in no index: one write unit, whatever the
// task's payload. A worker that lost the task gets a *LeaseLostError (the
// task as it stands is read to say who holds it), or ErrNotFound when the
// task is gone.
func (s *Store) Heartbeat(ctx context.Context, lease Lease) (_ Lease, err error) {
	ctx, span := s.start(ctx, "tasks.Heartbeat")
	defer span.End(&err)
	if err := s.check(checkLease(lease)); err != nil {
		return lease, err
	}
	now := s.leaseNow(lease)
	expires := now.Add(s.opts.LeaseDuration)
	cond := expression.Name(attrAttempt).Equal(expression.Value(lease.Attempt)).
		And(expression.AttributeNotExists(expression.Name(attrLostAt)))
	_, err = s.ent.claims.Patch(claimKey(lease.Worker, lease.TaskID)).
		Set(attrLeaseExpiresAt, keys.FormatTime(expires)).Set(attrTTL, s.ttlFrom(now)).If(cond).Run(ctx)
	if err != nil {
		if errors.Is(err, table.ErrConditionFailed) {
			return lease, s.lostNow(ctx, lease, err)
		}
		return lease, fmt.Errorf("tasks: heartbeat %q: %w", lease.TaskID, err)
	}
	lease.ExpiresAt = expires
	return lease, nil
}

// lostNow is the error for a refused write under lease that did not read
// the task: the task is read (strongly consistent) to say where it stands.
func (s *Store) lostNow(ctx context.Context, lease Lease, cause error) error {
	m, err := s.meta(ctx, lease.TaskID)
	switch {
	case errors.Is(err, ErrNotFound):
		return notFound(lease.TaskID, cause)
	case err != nil:
		return fmt.Errorf("tasks: task %q: %w", lease.TaskID, err)
	}
	return leaseLostTo(lease, m, cause)
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
	m, err := s.ent.tasks.Decode(context.Background(), current)
	if err != nil {
		return fmt.Errorf("tasks: task %q: %w", lease.TaskID, err)
	}
	return leaseLostTo(lease, &m, cause)
}

// leaseLostTo is the *LeaseLostError of a write under lease refused by
// the task as m shows it.
func leaseLostTo(lease Lease, m *metaItem, cause error) error {
	lost := &LeaseLostError{Lease: lease, Status: m.Status, Attempt: m.Attempt, Cause: cause}
	if m.Status == StatusProcessing {
		lost.Owner = m.Owner
	}
	return lost
}

// ReclaimExpired moves every PROCESSING task whose lease expired back to
// PENDING, claimable after the same backoff as a failed attempt (or to
// DEAD when its attempts are used up), with a LEASE_EXPIRED event and the
// old owner's claim item marked lost, and returns how many it moved. Claim
// takes expired tasks over by itself; ReclaimExpired is for a sweeper that
// keeps them visible in the pending list when no worker is claiming. It
// reads the entries whose index expiry passed (one key-condition query per
// shard) and the lease of each (a GetItem of its claim item): a task whose
// owner heartbeats has its index entry moved to its lease's expiry and is
// left alone.
func (h *Maintenance) ReclaimExpired(ctx context.Context) (_ int, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "tasks.Maintenance.ReclaimExpired")
	defer span.End(&err)
	if err := s.check(nil); err != nil {
		return 0, err
	}
	moved := 0
	err = s.expiredLeases(ctx, func(m *metaItem) error {
		if err := checkTaskID(m.TaskID); err != nil {
			return fmt.Errorf("tasks: expire: stored task id: %w", err)
		}
		ls, err := s.readLease(ctx, m)
		if err != nil {
			return err
		}
		if ls.expires.After(s.now()) {
			return s.refreshLease(ctx, m, ls.expires)
		}
		_, err = s.expire(ctx, m, ls)
		switch {
		case err == nil:
			moved++
		case !lostRace(err):
			return err
		}
		return nil
	})
	return moved, err
}

// Expired walks the PROCESSING tasks whose lease has run out, as
// ReclaimExpired would find them, and changes nothing: for an operator's
// dry run. A task whose index entry says its lease is over but whose
// worker extended it since is not yielded. It stops at the first error,
// which it yields.
func (h *Maintenance) Expired(ctx context.Context) iter.Seq2[Task, error] {
	s := h.store()
	return func(yield func(Task, error) bool) {
		ctx, span := s.start(ctx, "tasks.Maintenance.Expired")
		var err error
		defer span.End(&err)
		if err = s.check(nil); err != nil {
			yield(Task{}, err)
			return
		}
		stop := errors.New("stopped")
		err = s.expiredLeases(ctx, func(m *metaItem) error {
			ls, err := s.readLease(ctx, m)
			if err != nil {
				return err
			}
			if ls.expires.After(s.now()) {
				return nil
			}
			t, err := m.task()
			if err != nil {
				return err
			}
			t.LeaseExpiresAt = ls.expires
			if !yield(*t, nil) {
				return stop
			}
			return nil
		})
		switch {
		case errors.Is(err, stop):
			err = nil
		case err != nil:
			yield(Task{}, err)
		}
	}
}

// expiredLeases calls fn on every PROCESSING task of every shard whose
// index entry's expiry is at or before now.
func (s *Store) expiredLeases(ctx context.Context, fn func(m *metaItem) error) error {
	if _, err := s.tableShards(ctx, true); err != nil {
		return err
	}
	now := s.now()
	for shard := range s.shardCount() {
		expired := []func(*entity.ListOptions){entity.ByIndex(IndexGSI1), s.due(StatusProcessing, now)}
		for m, err := range s.ent.tasks.Items(ctx, metaItem{GSI1PK: s.statusPartition(StatusProcessing, shard)}, expired...) {
			if err != nil {
				return fmt.Errorf("tasks: expired leases: %w", err)
			}
			if err := fn(&m); err != nil {
				return err
			}
		}
	}
	return nil
}

// expire ends the expired lease ls of the task m describes: the task goes
// back to PENDING, or to DEAD if that was its last attempt, and returns
// the new status. One transaction, conditioned on META and the lease as
// read: the PROCESSING event of the claim (META is about to forget it),
// the LEASE_EXPIRED event, the claim item marked lost.
func (s *Store) expire(ctx context.Context, m *metaItem, ls leaseState) (Status, error) {
	now := s.notBefore(m.UpdatedAt)
	id := m.TaskID
	to := StatusPending
	if s.lastAttempt(m.Attempt, m.AttemptBase, m.MaxAttempts) {
		to = StatusDead
	}
	msg := expiredMessage(m)
	ev, err := s.newEvent(id, m.Events+1, EventLeaseExpired, to, m.Attempt, m.Owner, msg, now)
	if err != nil {
		return "", err
	}
	claimed, err := s.claimEvent(m)
	if err != nil {
		return "", err
	}
	writes := s.eventPuts(claimed, ev) // Puts, as in takeover: the numbers are this transaction's
	if checkWorkerID(m.Owner) == nil {
		writes = append(writes, s.ent.claims.TxPut(*s.lostClaim(m, ls, now), entity.If(ls.asRead())))
	}
	update := s.requeue(to, id, m.Attempt-m.AttemptBase, now).
		Set(attrLastError, msg).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Remove(attrOwner, attrLeaseExpiresAt).
		Add(attrEvents, 1).
		If(unchanged(m))
	if err := s.transact(ctx, update, writes...); err != nil {
		return "", fmt.Errorf("tasks: expire lease on %q: %w", id, err)
	}
	s.metrics.attempt(ctx, outcomeExpired)
	s.metrics.takeover(ctx)
	if to == StatusPending {
		s.log.WarnContext(ctx, "tasks: a lease expired; the task waits for a retry", "operation", "expire", "key", id,
			"attempt", m.Attempt, "owner", m.Owner)
		s.bump(ctx)
	} else {
		s.metrics.died(ctx, causeExpired)
		s.log.WarnContext(ctx, "tasks: the lease of a task's last attempt expired; it is a dead letter", "operation", "expire",
			"key", id, "attempt", m.Attempt, "owner", m.Owner)
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
