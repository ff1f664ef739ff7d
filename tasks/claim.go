package tasks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Claim gives workerID the oldest task it can get, under a lease of
// Options.LeaseDuration, or ErrNoTask when there is none.
//
// Per shard (one, unless Options.Shards says otherwise; each worker starts
// at its own shard), Claim first looks for PROCESSING tasks whose lease has
// expired (a key condition on LEASE#<expiry> in GSI1), so a crashed
// worker's tasks are retried before newer work, and takes them over
// directly; then it reads the ClaimBatch PENDING tasks that have been
// claimable longest (a key condition, GSI1SK <= CREATED#<now>, so tasks
// still in their retry backoff are not read at all). It tries the
// candidates one transaction at a time: the META update, conditioned on the
// status, attempt and event count it read, the next event (attribute_not_
// exists) and the WORKER item. A worker that loses a race to another moves
// on to another candidate. Each claim tries the batch in a random order, so
// twenty workers do not all race for the single oldest task: order is
// oldest first within a window of ClaimBatch tasks, which is as much order
// as concurrent consumers can observe anyway. Set ClaimBatch to about the
// number of workers per shard; fewer candidates than workers means lost
// races, each a canceled transaction.
//
// An expired task whose attempts are used up is not handed out: Claim
// moves it to DEAD (with its LEASE_EXPIRED event) and goes on.
func (s *Store) Claim(ctx context.Context, workerID string) (_ *Claim, err error) {
	ctx, span := s.start(ctx, "tasks.Claim")
	defer span.End(&err)
	if err := s.check(checkWorkerID(workerID)); err != nil {
		return nil, err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return nil, err
	}
	for _, shard := range s.shardOrder(workerID) {
		expired, err := s.expiredPage(ctx, shard, s.now(), int32(s.opts.ClaimBatch))
		if err != nil {
			return nil, err
		}
		if c, err := s.tryCandidates(ctx, workerID, expired, true); c != nil || err != nil {
			return c, err
		}
		// Only tasks claimable now: a task in backoff sorts after now.
		q := table.Query{
			Index: IndexGSI1, Partition: s.statusPartition(StatusPending, shard),
			Sort: table.SortLessOrEqual(mustBuild(createdSK, s.now())), Limit: int32(s.opts.ClaimBatch),
		}
		page, err := table.QueryPage[metaItem](ctx, s.t, q, "")
		if err != nil {
			return nil, fmt.Errorf("tasks: claim: pending tasks: %w", err)
		}
		if c, err := s.tryCandidates(ctx, workerID, page.Items, false); c != nil || err != nil {
			return c, err
		}
	}
	return nil, ErrNoTask
}

// expiredPage reads up to limit PROCESSING tasks of shard whose lease
// expired at or before now, oldest lease first.
func (s *Store) expiredPage(ctx context.Context, shard int, now time.Time, limit int32) ([]metaItem, error) {
	q := table.Query{
		Index: IndexGSI1, Partition: s.statusPartition(StatusProcessing, shard),
		Sort: table.SortLessOrEqual(mustBuild(leaseSK, now)), Limit: limit,
	}
	page, err := table.QueryPage[metaItem](ctx, s.t, q, "")
	if err != nil {
		return nil, fmt.Errorf("tasks: expired leases: %w", err)
	}
	return page.Items, nil
}

func (s *Store) tryCandidates(ctx context.Context, workerID string, cands []metaItem, expired bool) (*Claim, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	// A random order, not a random start: two workers that collide on one
	// candidate would otherwise collide again on the next.
	for _, i := range rand.Perm(len(cands)) {
		m := &cands[i]
		if expired && s.lastAttempt(m.Attempt, m.AttemptBase) {
			if _, err := s.expire(ctx, m); err != nil && !lostRace(err) {
				return nil, err
			}
			continue
		}
		c, err := s.claim(ctx, workerID, m, expired)
		if lostRace(err) {
			continue
		}
		return c, err
	}
	return nil, nil
}

// lostRace reports whether a conditional write or a transaction was
// refused because another worker changed one of its items first.
func lostRace(err error) bool {
	return errors.Is(err, table.ErrConditionFailed) || errors.Is(err, table.ErrTransactionConflict)
}

// claim moves the task m describes to PROCESSING under workerID. With
// takeover, m is a PROCESSING task whose lease expired, taken over in one
// transaction (see takeover). Otherwise m is PENDING, and the claim is
// three single-item writes: META updated on the condition that it is still
// as read (the claim's decision: of racing workers exactly one passes it),
// then the PROCESSING event and the WORKER item (two PutItems: the store's
// IAM policy needs no BatchWriteItem).
// Both follow from META as the claim left it (its owner, attempt and
// claimedAt), so a claimer cut off between the two leaves nothing another
// worker cannot rebuild: the task's lease runs out, and the takeover
// writes the event again, identical, in its transaction.
func (s *Store) claim(ctx context.Context, workerID string, m *metaItem, takeover bool) (*Claim, error) {
	id := m.TaskID
	if err := checkTaskID(id); err != nil {
		return nil, fmt.Errorf("tasks: claim: stored task id: %w", err)
	}
	if takeover {
		return s.takeover(ctx, workerID, m)
	}
	now := s.notBefore(m.UpdatedAt)
	attempt, seq := m.Attempt+1, m.Events+1
	expires := now.Add(s.opts.LeaseDuration)
	ev, err := s.newEvent(id, seq, EventProcessing, StatusProcessing, attempt, workerID, "", now)
	if err != nil {
		return nil, err
	}
	if err := s.t.Update(ctx, s.metaKey(id), s.claimUpdate(id, workerID, now, expires, 1), table.If(unchanged(m))); err != nil {
		return nil, fmt.Errorf("tasks: claim %q for %q: %w", id, workerID, err)
	}
	if err := s.putAll(ctx, ev, s.claimItem(workerID, id, attempt, now)); err != nil {
		// The task is claimed; its lease runs out and a takeover rebuilds
		// the event. Say so rather than hand out a claim whose history
		// is not written.
		s.log.WarnContext(ctx, "tasks: claimed, but the event and claim item were not written; the lease will expire",
			"operation", "claim", "key", id, "attempt", attempt, "error", err.Error())
		return nil, fmt.Errorf("tasks: claim %q for %q: %w", id, workerID, err)
	}
	t, err := m.task()
	if err != nil {
		return nil, err
	}
	t.Status, t.Owner, t.LeaseExpiresAt, t.UpdatedAt, t.AvailableAt = StatusProcessing, workerID, expires, now, time.Time{}
	t.Attempt, t.Events = attempt, seq
	return &Claim{Task: *t, Lease: Lease{TaskID: id, Worker: workerID, Attempt: attempt, AttemptBase: m.AttemptBase, Seq: seq, ExpiresAt: expires}}, nil
}

// putAll writes items one PutItem after another.
func (s *Store) putAll(ctx context.Context, items ...any) error {
	for _, it := range items {
		if err := s.t.Put(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// claimUpdate is the update of META that claims task id for workerID at
// now, writing events new events.
func (s *Store) claimUpdate(id, workerID string, now, expires time.Time, events int) expression.UpdateBuilder {
	return expression.Set(expression.Name(attrStatus), expression.Value(StatusProcessing)).
		Set(expression.Name(attrOwner), expression.Value(workerID)).
		Set(expression.Name(attrLeaseExpiresAt), expression.Value(keys.FormatTime(expires))).
		Set(expression.Name(attrClaimedAt), expression.Value(keys.FormatTime(now))).
		Set(expression.Name(attrGSI1PK), expression.Value(s.statusPartition(StatusProcessing, s.shardOf(id)))).
		Set(expression.Name(attrGSI1SK), expression.Value(mustBuild(leaseSK, expires))).
		Set(expression.Name(attrUpdatedAt), expression.Value(keys.FormatTime(now))).
		Remove(expression.Name(attrAvailableAt)).
		Add(expression.Name(attrAttempt), expression.Value(1)).
		Add(expression.Name(attrEvents), expression.Value(events))
}

func (s *Store) claimItem(workerID, id string, attempt int, now time.Time) *claimItem {
	return &claimItem{
		PK: mustBuild(workerPK, workerID), SK: mustBuild(taskSK, id), Type: typeClaim,
		TaskID: id, Worker: workerID, Attempt: attempt, ClaimedAt: keys.FormatTime(now), TTL: s.ttlFrom(now),
	}
}

// takeover claims for workerID the PROCESSING task m describes, whose
// lease expired, in one transaction conditioned on m still being what was
// read: the old claim's PROCESSING event written again (its claimer may
// have been cut off before writing it), a LEASE_EXPIRED event, a
// PROCESSING event for the new attempt, the old owner's WORKER item
// deleted and the new one written. Events are Puts, not creates: the
// transaction's condition makes it the one writer of those sequence
// numbers, and what may be there already is the old claim's event, or a
// COMPLETED event the old owner wrote before its META update was refused.
func (s *Store) takeover(ctx context.Context, workerID string, m *metaItem) (*Claim, error) {
	id := m.TaskID
	now := s.notBefore(m.UpdatedAt)
	attempt := m.Attempt + 1
	expires := now.Add(s.opts.LeaseDuration)
	lost, err := s.newEvent(id, m.Events+1, EventLeaseExpired, StatusPending, m.Attempt, m.Owner, expiredMessage(m), now)
	if err != nil {
		return nil, err
	}
	seq := m.Events + 2
	ev, err := s.newEvent(id, seq, EventProcessing, StatusProcessing, attempt, workerID, "", now)
	if err != nil {
		return nil, err
	}
	update := s.claimUpdate(id, workerID, now, expires, 2).
		Set(expression.Name(attrLastError), expression.Value(expiredMessage(m)))
	tx := s.t.WriteTx().Update(s.metaKey(id), update, table.If(unchanged(m)))
	if err := s.rebuildClaimEvent(tx, m); err != nil {
		return nil, err
	}
	tx.Put(lost).Put(ev)
	claim := s.claimItem(workerID, id, attempt, now)
	switch {
	case m.Owner == workerID:
		tx.Put(claim) // the worker's own expired claim item, replaced
	case m.Owner != "" && checkWorkerID(m.Owner) == nil:
		tx.Delete(s.claimKey(m.Owner, id))
		tx.Put(claim)
	default:
		tx.Put(claim)
	}
	if err := tx.Run(ctx); err != nil {
		return nil, fmt.Errorf("tasks: claim %q for %q: %w", id, workerID, err)
	}
	t, err := m.task()
	if err != nil {
		return nil, err
	}
	t.Status, t.Owner, t.LeaseExpiresAt, t.UpdatedAt, t.AvailableAt = StatusProcessing, workerID, expires, now, time.Time{}
	t.Attempt, t.Events, t.LastError = attempt, seq, expiredMessage(m)
	return &Claim{Task: *t, Lease: Lease{TaskID: id, Worker: workerID, Attempt: attempt, AttemptBase: m.AttemptBase, Seq: seq, ExpiresAt: expires}}, nil
}

// rebuildClaimEvent adds to tx, which changes the PROCESSING task m
// describes on the condition that it is unchanged, a Put of the event of
// the claim that set its lease: exactly what that claim wrote or was cut
// off before writing (see claim).
func (s *Store) rebuildClaimEvent(tx *table.WriteTx, m *metaItem) error {
	ev, err := s.claimEvent(m)
	if ev != nil {
		tx.Put(ev)
	}
	return err
}

// claimEvent is the PROCESSING event of the claim that set the lease of
// the PROCESSING task m describes, rebuilt from META (nil for a META item
// from before claimedAt was recorded: such tasks were claimed in a
// transaction, with their event).
func (s *Store) claimEvent(m *metaItem) (*eventItem, error) {
	if m.Status != StatusProcessing || m.ClaimedAt == "" {
		return nil, nil
	}
	at, err := parseTime("claimedAt", m.ClaimedAt)
	if err != nil {
		return nil, err
	}
	return s.newEvent(m.TaskID, m.Events, EventProcessing, StatusProcessing, m.Attempt, m.Owner, "", at)
}

// unchanged is the condition that META is still as m read it: same status,
// attempt and event count, and for a PROCESSING task the same owner and
// lease expiry (a heartbeat moves it, so a live worker keeps its task).
func unchanged(m *metaItem) expression.ConditionBuilder {
	c := expression.Name(attrStatus).Equal(expression.Value(m.Status)).
		And(expression.Name(attrAttempt).Equal(expression.Value(m.Attempt))).
		And(expression.Name(attrEvents).Equal(expression.Value(m.Events)))
	if m.Status == StatusProcessing {
		c = c.And(expression.Name(attrOwner).Equal(expression.Value(m.Owner))).
			And(expression.Name(attrLeaseExpiresAt).Equal(expression.Value(m.LeaseExpiresAt)))
	}
	return c
}

func expiredMessage(m *metaItem) string {
	return fmt.Sprintf("lease of worker %s (attempt %d) expired at %s", m.Owner, m.Attempt, m.LeaseExpiresAt)
}

// notBefore is the store's clock, or the stored time of the task's last
// change if that is later, so a history's event times never go backwards
// when workers' clocks disagree a little.
func (s *Store) notBefore(stored string) time.Time {
	now := s.now()
	if t, err := keys.ParseTime(stored); err == nil && t.After(now) {
		return t
	}
	return now
}
