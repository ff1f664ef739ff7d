package tasks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Claim gives workerID the oldest task it can get, under a lease of
// Options.LeaseDuration, or ErrNoTask when there is none.
//
// A claim reads the queue's shards at once, in one round trip whatever
// their number: the oldest pending tasks of every shard (ClaimBatch in
// all, split over the shards) and the expired leases of one shard (a
// different one each claim, so every shard's are read within Shards
// claims). A PROCESSING task whose lease expired is taken over first (its
// worker died), then the pending tasks that have been claimable longest,
// tried in random order: twenty workers do not all race for the single
// oldest task, and order is oldest first within the window, which is as
// much order as concurrent consumers can observe anyway. The claim of a
// pending task is two single-item writes: META updated on the condition
// that it is as read (status, attempt, event count: of racing workers one
// passes), then the WORKER item, which holds the lease (see Heartbeat). A
// worker that loses a race moves on to another candidate; one that loses
// every race gets a *ClaimConflictError (errors.Is ErrNoTask) with the
// status DynamoDB returned with the last refusal (the seed's conflict
// detection, at no read: ReturnValuesOnConditionCheckFailure).
//
// A Claim that finds nothing remembers it, and the store's next Claim asks
// only two requests, sent together, whatever the shard count: the table's
// readiness signal and one partition (see ready.go). An expired task whose
// attempts are used up is not handed out: Claim moves it to DEAD (with its
// LEASE_EXPIRED event) and goes on.
func (s *Store) Claim(ctx context.Context, workerID string) (_ *Claim, err error) {
	ctx, span := s.start(ctx, "tasks.Claim")
	defer span.End(&err)
	return s.claimNext(ctx, workerID)
}

// claimNext is Claim without its span: the worker runtime's polls make
// none (see Worker.claim).
func (s *Store) claimNext(ctx context.Context, workerID string) (*Claim, error) {
	if err := s.check(checkWorkerID(workerID)); err != nil {
		return nil, err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return nil, err
	}
	c, done, err := s.idlePoll(ctx, workerID)
	if c != nil || done || err != nil {
		return c, err
	}
	return s.scan(ctx, workerID)
}

// idlePoll answers a Claim on a queue the store found idle: the readiness
// signal and one partition, read at once. done is true when the answer is
// ErrNoTask; false (with no claim) when the store must scan every shard.
func (s *Store) idlePoll(ctx context.Context, workerID string) (_ *Claim, done bool, err error) {
	n := s.shardCount()
	idle, scannedAt, nextAt, probe := s.cfg.ready.idleState(2 * n)
	if !idle {
		return nil, false, nil
	}
	now := s.now()
	if !nextAt.IsZero() && !now.Before(nextAt) {
		return nil, false, nil // something the last scan saw is due
	}
	var (
		activeAt string
		found    []metaItem
	)
	err = each(2, func(i int) error {
		var err error
		if i == 0 {
			activeAt, err = s.readSignal(ctx)
			return err
		}
		shard, lease := probe/2, probe%2 == 1
		if lease {
			found, err = s.expiredPage(ctx, shard, now, int32(s.opts.ClaimBatch))
			return err
		}
		found, err = s.queued(ctx, StatusPending, shard, s.opts.ClaimBatch, s.due(StatusPending, now))
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("tasks: claim: %w", err)
	}
	if len(found) > 0 || signalled(activeAt, scannedAt) {
		if c, err := s.tryCandidates(ctx, workerID, found, probe%2 == 1, &races{}); c != nil || err != nil {
			return c, true, err
		}
		return nil, false, nil
	}
	return nil, true, ErrNoTask
}

// scan reads every shard's oldest pending tasks and one shard's expired
// leases at once, and claims one. Finding nothing, it reads each shard's
// lease partition head to learn when the next lease expires, and marks the
// store idle.
func (s *Store) scan(ctx context.Context, workerID string) (*Claim, error) {
	start := s.now()
	n := s.shardCount()
	per := (s.opts.ClaimBatch + n - 1) / n
	leaseShard := s.cfg.ready.nextLease(n)
	pages := make([][]metaItem, n)
	var expired []metaItem
	err := each(n+1, func(i int) error {
		if i == n {
			var err error
			expired, err = s.expiredPage(ctx, leaseShard, start, int32(s.opts.ClaimBatch))
			return err
		}
		// Oldest first, including any still in their backoff: when fewer
		// than per are claimable, the first one after now says when the
		// shard next has work.
		var err error
		pages[i], err = s.queued(ctx, StatusPending, i, per)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tasks: claim: %w", err)
	}
	var lost races
	if c, err := s.tryCandidates(ctx, workerID, expired, true, &lost); c != nil || err != nil {
		return c, err
	}
	now := mustBuild(createdSK, start)
	var claimable []metaItem
	var nextAt time.Time
	for _, p := range pages {
		for _, m := range p {
			if m.GSI1SK <= now {
				claimable = append(claimable, m)
			} else {
				nextAt = earliest(nextAt, m.AvailableAt)
			}
		}
	}
	if c, err := s.tryCandidates(ctx, workerID, claimable, false, &lost); c != nil || err != nil {
		return c, err
	}
	if len(expired)+len(claimable) > 0 {
		return nil, lost.err() // lost every race: others are claiming, so not idle
	}
	// Nothing to claim now: when does a lease expire next?
	heads := make([][]metaItem, n)
	err = each(n, func(i int) error {
		var err error
		heads[i], err = s.queued(ctx, StatusProcessing, i, 1)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tasks: claim: lease heads: %w", err)
	}
	var due []metaItem
	for _, h := range heads {
		for _, m := range h {
			if m.GSI1SK <= mustBuild(leaseSK, start) {
				due = append(due, m)
			} else {
				nextAt = earliest(nextAt, m.LeaseExpiresAt)
			}
		}
	}
	if c, err := s.tryCandidates(ctx, workerID, due, true, &lost); c != nil || err != nil {
		return c, err
	}
	if len(due) == 0 {
		s.cfg.ready.markIdle(start, nextAt)
	}
	return nil, lost.err()
}

// races remembers the last race a claim lost, to say so when it claims
// nothing.
type races struct{ last *ClaimConflictError }

// err is what a claim that claimed nothing returns: the last race it
// lost, or ErrNoTask when it lost none.
func (r *races) err() error {
	if r.last != nil {
		return r.last
	}
	return ErrNoTask
}

// earliest is the earlier of t and the time stored as text at (zero
// counting as none).
func earliest(t time.Time, at string) time.Time {
	u, err := keys.ParseTime(at)
	if err != nil || u.IsZero() {
		return t
	}
	if t.IsZero() || u.Before(t) {
		return u
	}
	return t
}

// queued reads up to limit tasks of shard's GSI1 partition of status st
// (one page, oldest first), whose index sort keys meet opts (due: those
// due at a time).
func (s *Store) queued(ctx context.Context, st Status, shard, limit int, opts ...func(*entity.ListOptions)) ([]metaItem, error) {
	page, err := s.queuePage(ctx, st, shard, limit, "", opts...)
	return page.Items, err
}

// queuePage is the page from cursor of shard's GSI1 partition of status st
// (in the order tasks become due; ties by table key, which is by task
// id), up to limit tasks whose index sort keys meet opts.
func (s *Store) queuePage(ctx context.Context, st Status, shard, limit int, cursor string, opts ...func(*entity.ListOptions)) (table.Page[metaItem], error) {
	opts = append(opts, entity.ByIndex(IndexGSI1), entity.Limit(limit))
	return s.ent.tasks.List(ctx, metaItem{GSI1PK: s.statusPartition(st, shard)}, cursor, opts...)
}

// due restricts a read of GSI1 in status st to the tasks due at now: a
// PENDING task claimable (one in backoff sorts after now), a PROCESSING
// one whose lease expired by its index entry (the expiry of the claim, or
// of the last refresh: see Heartbeat).
func (s *Store) due(st Status, now time.Time) func(*entity.ListOptions) {
	_, sk := s.queueKeys(st, "", now)
	return entity.SortLessOrEqual(sk)
}

// expiredPage reads up to limit PROCESSING tasks of shard whose lease
// expired at or before now by their index entry, oldest first.
func (s *Store) expiredPage(ctx context.Context, shard int, now time.Time, limit int32) ([]metaItem, error) {
	items, err := s.queued(ctx, StatusProcessing, shard, int(limit), s.due(StatusProcessing, now))
	if err != nil {
		return nil, fmt.Errorf("tasks: expired leases: %w", err)
	}
	return items, nil
}

// tryCandidates claims one of cands for workerID, in random order, and
// ends the store's idle state when it does; the races it loses are
// recorded in lost. With expired, cands are PROCESSING tasks whose index
// entry says their lease is over: each is checked against its lease (the
// WORKER item), taken over if it is, refreshed in the index if it is not,
// and moved to DEAD when its attempts are used up.
func (s *Store) tryCandidates(ctx context.Context, workerID string, cands []metaItem, expired bool, lost *races) (*Claim, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	// A random order, not a random start: two workers that collide on one
	// candidate would otherwise collide again on the next.
	for _, i := range rand.Perm(len(cands)) {
		m := &cands[i]
		var (
			c   *Claim
			err error
		)
		if expired {
			c, err = s.takeExpired(ctx, workerID, m)
		} else {
			c, err = s.claim(ctx, workerID, m)
		}
		var conflict *ClaimConflictError
		switch {
		case errors.As(err, &conflict):
			lost.last = conflict
			continue
		case lostRace(err):
			continue
		case err != nil:
			return nil, err
		case c != nil:
			s.cfg.ready.markBusy()
			return c, nil
		}
	}
	return nil, nil
}

// lostRace reports whether a conditional write or a transaction was
// refused because another worker changed one of its items first.
func lostRace(err error) bool {
	return errors.Is(err, table.ErrConditionFailed) || errors.Is(err, table.ErrTransactionConflict)
}

// claim moves the PENDING task m describes to PROCESSING under workerID:
// single-item writes in two round trips. META is updated on the
// condition that it is still as read (the claim's decision: of racing
// workers exactly one passes it), setting the owner, attempt, claim time
// and the lease's expiry in its index entry; then the WORKER item, which
// holds the lease from then on, and beside it the claim's PROCESSING
// event (with Options.CompactHistory META tells it until the lease ends,
// and whatever ends it otherwise than by Complete writes it in its
// transaction). A claimer cut off before the WORKER item leaves a lease
// that runs out at the expiry in the index, and is taken over; the
// takeover writes the PROCESSING event that claim may not have.
func (s *Store) claim(ctx context.Context, workerID string, m *metaItem) (*Claim, error) {
	id := m.TaskID
	if err := checkTaskID(id); err != nil {
		return nil, fmt.Errorf("tasks: claim: stored task id: %w", err)
	}
	now := s.notBefore(m.UpdatedAt)
	attempt, seq := m.Attempt+1, m.Events+1
	expires := now.Add(s.opts.LeaseDuration)
	if _, err := eventSK.Build(seq); err != nil {
		return nil, fmt.Errorf("tasks: task %q: event %d: history is full (%d events): %w", id, seq, MaxEvents, err)
	}
	_, err := s.claimUpdate(id, workerID, now, expires, 1).If(unchanged(m)).Run(ctx)
	if err != nil {
		if lostRace(err) {
			return nil, claimConflict(workerID, m, err)
		}
		return nil, fmt.Errorf("tasks: claim %q for %q: %w", id, workerID, err)
	}
	// The WORKER item and the claim's PROCESSING event, at once: the
	// event is a Put (META's condition made this claim the one writer of
	// its number; a takeover that came first rebuilt the same item).
	ev, err := s.newEvent(id, seq, EventProcessing, StatusProcessing, attempt, workerID, "", now)
	if err != nil {
		return nil, err
	}
	var claimErr, eventErr error
	each(2, func(i int) error {
		switch {
		case i == 0:
			claimErr = s.putClaim(ctx, s.claimItem(workerID, id, attempt, now, expires))
		case !s.opts.CompactHistory:
			eventErr = s.putEvent(ctx, ev)
		}
		return nil
	})
	if err := cmp.Or(claimErr, eventErr); err != nil {
		if !lostRace(err) {
			s.log.WarnContext(ctx, "tasks: claimed, but the claim item or its event was not written; the lease will expire",
				"operation", "claim", "key", id, "attempt", attempt, "error", err.Error())
		}
		// Refused: the claim took longer than the lease, and a takeover
		// has marked the lease lost.
		if lostRace(err) {
			return nil, &ClaimConflictError{Worker: workerID, TaskID: id, Status: StatusProcessing, Cause: err}
		}
		return nil, fmt.Errorf("tasks: claim %q for %q: %w", id, workerID, err)
	}
	t, err := m.task()
	if err != nil {
		return nil, err
	}
	t.Status, t.Owner, t.LeaseExpiresAt, t.UpdatedAt, t.AvailableAt = StatusProcessing, workerID, expires, now, time.Time{}
	t.Attempt, t.Events = attempt, seq
	return &Claim{Task: *t, Lease: Lease{TaskID: id, Worker: workerID, Attempt: attempt, AttemptBase: m.AttemptBase, Seq: seq, ExpiresAt: expires, ClaimedAt: now, MaxAttempts: m.MaxAttempts}}, nil
}

// putClaim writes a claim item on the condition that the key holds
// nothing, or an older attempt's item (a claim item left by a Complete cut
// off before its delete, or expired): never over the mark a takeover left
// for this attempt or a later one.
func (s *Store) putClaim(ctx context.Context, it *claimItem) error {
	_, err := s.ent.claims.Put(ctx, *it, entity.If(newerClaim(it.Attempt)))
	return err
}

func newerClaim(attempt int) expression.ConditionBuilder {
	return expression.Or(
		expression.AttributeNotExists(expression.Name(attrPK)),
		expression.Name(attrAttempt).LessThan(expression.Value(attempt)))
}

// claimUpdate is the move of META that claims task id for workerID at
// now, writing events new events.
func (s *Store) claimUpdate(id, workerID string, now, expires time.Time, events int) *entity.Update[metaItem] {
	return s.inQueue(s.move(id), StatusProcessing, id, expires).
		Set(attrOwner, workerID).
		Set(attrLeaseExpiresAt, keys.FormatTime(expires)).
		Set(attrClaimedAt, keys.FormatTime(now)).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Remove(attrAvailableAt).
		Add(attrAttempt, 1).
		Add(attrEvents, events)
}

func (s *Store) claimItem(workerID, id string, attempt int, now, expires time.Time) *claimItem {
	return &claimItem{
		TaskID: id, Worker: workerID, Attempt: attempt, ClaimedAt: keys.FormatTime(now),
		LeaseExpiresAt: keys.FormatTime(expires), TTL: s.ttlFrom(now),
	}
}

// leaseState is a PROCESSING task's lease as its WORKER item holds it.
type leaseState struct {
	found  bool      // the owner's claim item exists, and has not expired
	item   claimItem // as read
	readAt time.Time // when it was read, by the store's clock
	// expires is when the lease runs out: the claim item's expiry, which
	// Heartbeat extends, or the one in META's index entry when that is
	// later (or the item holds none: a lease from before claim items held
	// leases, heartbeated on META).
	expires time.Time
}

// readLease reads the lease of the PROCESSING task m describes, strongly
// consistent.
func (s *Store) readLease(ctx context.Context, m *metaItem) (leaseState, error) {
	var ls leaseState
	ls.expires, _ = keys.ParseTime(m.LeaseExpiresAt)
	if checkWorkerID(m.Owner) != nil {
		return ls, nil
	}
	ls.readAt = s.now()
	item, err := s.ent.claims.Get(ctx, claimKey(m.Owner, m.TaskID), entity.Consistent())
	switch {
	case errors.Is(err, table.ErrNotFound):
		return ls, nil
	case err != nil:
		return ls, fmt.Errorf("tasks: lease of %q: %w", m.TaskID, err)
	}
	ls.found, ls.item = true, item
	if ls.item.Attempt == m.Attempt && ls.item.LostAt == "" {
		if e, err := keys.ParseTime(ls.item.LeaseExpiresAt); err == nil && e.After(ls.expires) {
			ls.expires = e
		}
	}
	return ls, nil
}

// asRead is the condition that the claim item is still as ls read it, so
// that a heartbeat or a late claim between the read and the write refuses
// the write.
func (ls leaseState) asRead() expression.ConditionBuilder {
	if !ls.found {
		// none, or one past its ttl that DynamoDB has not yet deleted:
		// gone for every read (entity), and so for this condition
		return expression.AttributeNotExists(expression.Name(attrPK)).Or(table.ExpiredCondition(attrTTL, ls.readAt))
	}
	c := expression.Name(attrAttempt).Equal(expression.Value(ls.item.Attempt))
	for name, v := range map[string]string{attrLeaseExpiresAt: ls.item.LeaseExpiresAt, attrLostAt: ls.item.LostAt} {
		if v == "" {
			c = c.And(expression.AttributeNotExists(expression.Name(name)))
		} else {
			c = c.And(expression.Name(name).Equal(expression.Value(v)))
		}
	}
	return c
}

// takeExpired acts on the PROCESSING task m whose index entry says its
// lease is over. Heartbeat extends a lease on the WORKER item alone, so
// the index entry keeps the expiry it was last given: the lease is read.
// One still running has its index entry moved to its expiry (so claims
// stop reading it) and nil is returned; one that ran out is taken over by
// workerID, or moved to DEAD when its attempts are used up.
func (s *Store) takeExpired(ctx context.Context, workerID string, m *metaItem) (*Claim, error) {
	if err := checkTaskID(m.TaskID); err != nil {
		return nil, fmt.Errorf("tasks: claim: stored task id: %w", err)
	}
	ls, err := s.readLease(ctx, m)
	if err != nil {
		return nil, err
	}
	if ls.expires.After(s.now()) {
		return nil, s.refreshLease(ctx, m, ls.expires)
	}
	if s.lastAttempt(m.Attempt, m.AttemptBase, m.MaxAttempts) {
		_, err := s.expire(ctx, m, ls)
		if lostRace(err) {
			return nil, claimConflict(workerID, m, err)
		}
		return nil, err
	}
	c, err := s.takeover(ctx, workerID, m, ls)
	if lostRace(err) {
		return nil, claimConflict(workerID, m, err)
	}
	return c, err
}

// claimConflict is the error of workerID's claim of the task m describes
// (as read), refused by err: the task as DynamoDB returned META with the
// refusal, or as read when the refusal was another item's (a heartbeat
// moved the lease on between the read and the write: the owner still
// holds it) or carried no item for META (another transaction held it).
func claimConflict(workerID string, m *metaItem, err error) error {
	ce := &ClaimConflictError{Worker: workerID, TaskID: m.TaskID, Status: m.Status, Attempt: m.Attempt, Cause: err}
	if m.Status == StatusProcessing {
		ce.Owner = m.Owner
	}
	var (
		te      *table.Error
		txe     *table.TxError
		current table.Item
		refused bool // META's condition refused the write
	)
	switch {
	case errors.As(err, &txe):
		for _, r := range txe.Reasons {
			if r.Index == 0 && r.Code == "ConditionalCheckFailed" {
				current, refused = r.Item, true
			}
		}
	case errors.As(err, &te):
		current, refused = te.Item, errors.Is(err, table.ErrConditionFailed)
	}
	if !refused {
		return ce
	}
	var now metaItem
	if current == nil || table.Unmarshal(current, &now) != nil {
		ce.Status, ce.Owner, ce.Attempt = "", "", 0 // gone
		return ce
	}
	ce.Status, ce.Attempt, ce.Owner = now.Status, now.Attempt, ""
	if now.Status == StatusProcessing {
		ce.Owner = now.Owner
	}
	return ce
}

// refreshLease moves the index entry of the PROCESSING task m describes to
// its lease's expiry, unless META changed since it was read.
func (s *Store) refreshLease(ctx context.Context, m *metaItem, expires time.Time) error {
	_, sk := s.queueKeys(StatusProcessing, m.TaskID, expires)
	_, err := s.move(m.TaskID).Set(attrGSI1SK, sk).Set(attrLeaseExpiresAt, keys.FormatTime(expires)).
		If(unchanged(m)).Run(ctx)
	if err != nil && !lostRace(err) {
		return fmt.Errorf("tasks: lease of %q: index entry: %w", m.TaskID, err)
	}
	return nil
}

// takeover claims for workerID the PROCESSING task m describes, whose
// lease ls ran out, in one transaction conditioned on META and the lease
// being what was read: the old claim's PROCESSING event written (META is
// about to forget it), a LEASE_EXPIRED event, the old claim item marked
// lost (not deleted: a claimer so slow that its claim item comes after
// the takeover is refused by the mark) and the new one written. The new
// claim's PROCESSING event is written too (META's to tell with
// Options.CompactHistory, as for any claim). Events are Puts, not
// creates: the transaction's condition makes it the one writer of those
// sequence numbers.
func (s *Store) takeover(ctx context.Context, workerID string, m *metaItem, ls leaseState) (*Claim, error) {
	id := m.TaskID
	now := s.notBefore(m.UpdatedAt)
	attempt := m.Attempt + 1
	expires := now.Add(s.opts.LeaseDuration)
	lost, err := s.newEvent(id, m.Events+1, EventLeaseExpired, StatusPending, m.Attempt, m.Owner, expiredMessage(m), now)
	if err != nil {
		return nil, err
	}
	seq := m.Events + 2
	if _, err := eventSK.Build(seq); err != nil {
		return nil, fmt.Errorf("tasks: task %q: event %d: history is full (%d events): %w", id, seq, MaxEvents, err)
	}
	claimed, err := s.claimEvent(m) // the old claim's, rebuilt from META
	if err != nil {
		return nil, err
	}
	var ev *eventItem
	if !s.opts.CompactHistory {
		if ev, err = s.newEvent(id, seq, EventProcessing, StatusProcessing, attempt, workerID, "", now); err != nil {
			return nil, err
		}
	}
	writes := s.eventPuts(claimed, lost, ev)
	claim := s.claimItem(workerID, id, attempt, now, expires)
	switch {
	case m.Owner == workerID:
		writes = append(writes, s.ent.claims.TxPut(*claim, entity.If(ls.asRead()))) // the worker's own lost claim, replaced
	case checkWorkerID(m.Owner) == nil:
		writes = append(writes, s.ent.claims.TxPut(*s.lostClaim(m, ls, now), entity.If(ls.asRead())),
			s.ent.claims.TxPut(*claim, entity.If(newerClaim(attempt))))
	default:
		writes = append(writes, s.ent.claims.TxPut(*claim, entity.If(newerClaim(attempt))))
	}
	update := s.claimUpdate(id, workerID, now, expires, 2).Set(attrLastError, expiredMessage(m)).If(unchanged(m))
	if err := s.transact(ctx, update, writes...); err != nil {
		return nil, fmt.Errorf("tasks: claim %q for %q: %w", id, workerID, err)
	}
	s.metrics.attempt(ctx, outcomeExpired)
	s.metrics.takeover(ctx)
	s.log.WarnContext(ctx, "tasks: took over a task whose worker's lease expired", "operation", "takeover", "key", id,
		"attempt", attempt, "owner", m.Owner, "worker", workerID)
	t, err := m.task()
	if err != nil {
		return nil, err
	}
	t.Status, t.Owner, t.LeaseExpiresAt, t.UpdatedAt, t.AvailableAt = StatusProcessing, workerID, expires, now, time.Time{}
	t.Attempt, t.Events, t.LastError = attempt, seq, expiredMessage(m)
	return &Claim{Task: *t, Lease: Lease{TaskID: id, Worker: workerID, Attempt: attempt, AttemptBase: m.AttemptBase, Seq: seq, ExpiresAt: expires, ClaimedAt: now, MaxAttempts: m.MaxAttempts}}, nil
}

// lostClaim is the claim item of the lease of m, marked lost at now: its
// heartbeats are refused from then on, and so is a claim item its claimer
// writes late.
func (s *Store) lostClaim(m *metaItem, ls leaseState, now time.Time) *claimItem {
	it := &claimItem{
		TaskID: m.TaskID, Worker: m.Owner, Attempt: m.Attempt, ClaimedAt: m.ClaimedAt,
		LostAt: keys.FormatTime(now), TTL: s.ttlFrom(now),
	}
	if it.ClaimedAt == "" {
		it.ClaimedAt = ls.item.ClaimedAt
	}
	return it
}

// claimEvent is the PROCESSING event of the claim that set the lease of
// the PROCESSING task m describes, rebuilt from META (nil for a META item
// from before claimedAt was recorded: such tasks were claimed in a
// transaction, with their event): exactly what that claim wrote or was
// cut off before writing (see claim). A change of the task on the
// condition that it is unchanged puts it again, in its transaction.
func (s *Store) claimEvent(m *metaItem) (*eventItem, error) {
	if m.Status != StatusProcessing {
		return nil, nil
	}
	return s.claimEventAt(m, m.Events)
}

// claimEventAt is the PROCESSING event, number seq, of the last claim of
// the task m describes, from META's claim time, owner and attempt (nil
// when META records no claim).
func (s *Store) claimEventAt(m *metaItem, seq int) (*eventItem, error) {
	if m.ClaimedAt == "" || m.Owner == "" || m.Attempt < 1 || seq < 2 {
		return nil, nil
	}
	at, err := parseTime("claimedAt", m.ClaimedAt)
	if err != nil {
		return nil, err
	}
	return s.newEvent(m.TaskID, seq, EventProcessing, StatusProcessing, m.Attempt, m.Owner, "", at)
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
