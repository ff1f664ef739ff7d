package tasks

import (
	"context"

	"github.com/tablekit/tablekit/keys"
)

// Release gives the task held under lease back unfinished, with reason (at
// most 4096 bytes): PENDING again and claimable at once, with a RELEASED
// event, the WORKER item deleted, in one transaction conditioned on the
// lease like Complete's. It is for a worker that stops before its work is
// done (a graceful shutdown), so the task need not wait for its lease to
// run out. A release is not a failure: it has no backoff and never makes a
// task DEAD, though the attempt number, the lease's fencing token, has
// grown with the claim and keeps that value. A worker that lost the task
// gets a *LeaseLostError and nothing is written.
func (s *Store) Release(ctx context.Context, lease Lease, reason string) (err error) {
	ctx, span := s.start(ctx, "tasks.Release")
	defer span.End(&err)
	if err := s.check(checkLease(lease)); err != nil {
		return err
	}
	if err := checkReason(reason); err != nil {
		return err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return err
	}
	now := s.leaseNow(lease)
	ev, err := s.newEvent(lease.TaskID, lease.Seq+1, EventReleased, StatusPending, lease.Attempt, lease.Worker, reason, now)
	if err != nil {
		return err
	}
	update := s.inQueue(s.move(lease.TaskID), StatusPending, lease.TaskID, now).
		Set(attrAvailableAt, keys.FormatTime(now)).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Remove(attrOwner, attrLeaseExpiresAt).
		Add(attrEvents, 1)
	if err := s.finish(ctx, lease, update, ev, "release"); err != nil {
		return err
	}
	s.metrics.attempt(ctx, outcomeReleased)
	s.bump(ctx)
	return nil
}
