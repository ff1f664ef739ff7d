package tasks

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Idle polls and the readiness signal
//
// A claim on a queue with work reads every shard's pending partition at
// once (one round trip, however many shards). A worker whose queue is empty
// asks again and again, and reading every shard each time would cost 2N
// queries a poll. So a store that found the queue idle remembers it, and
// answers the next empty Claim from two requests sent together, whatever
// the shard count:
//
//   - a strongly consistent GetItem of the CONFIG item, whose activeAt is
//     the readiness signal: every store that makes a task claimable
//     (Submit, SubmitTx, Fail and the lease expiries that requeue, Release,
//     Redrive) sets it to its clock, at most once per bumpEvery (1 WCU a
//     second per busy store, nothing per task); and
//   - one query of one partition, a different one each poll (the pending
//     and lease partitions of every shard in turn), for what the signal
//     cannot say: a SubmitTx committed long after it was built, clocks
//     further apart than the margin, an index slower than it.
//
// The store full-scans again when the signal moved since its last full
// scan (activeAt + quiet at or after the scan's start: quiet covers the
// bumpEvery a store may stay silent after a bump, the index's lag and
// clock skew), when the time it learned at that scan comes (the next task
// leaving its retry backoff, the next lease to expire), or when the probe
// finds something. A claim that succeeds ends the idle state.
const (
	bumpEvery = time.Second
	quiet     = bumpEvery + 2*time.Second
)

// readiness is what a store's claims know of the queue.
type readiness struct {
	mu        sync.Mutex
	idle      bool      // the last full scan found nothing to claim
	scannedAt time.Time // when that scan began
	nextAt    time.Time // the earliest time it saw anything become claimable (zero: nothing)
	probe     int       // the partition the next idle poll reads: 2*shard, +1 for the lease partition
	lease     int       // the lease partition the next full scan reads
	bumpedAt  time.Time // this store's last bump of activeAt
}

// idleState returns whether the store knows the queue to be idle, the
// start of the scan that found it so, the time that knowledge runs out,
// and the partition to probe (advancing the probe).
func (r *readiness) idleState(partitions int) (idle bool, scannedAt, nextAt time.Time, probe int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.idle {
		return false, time.Time{}, time.Time{}, 0
	}
	probe = r.probe % partitions
	r.probe = (r.probe + 1) % partitions
	return true, r.scannedAt, r.nextAt, probe
}

// nextLease returns the lease partition the next full scan reads, in turn.
func (r *readiness) nextLease(shards int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.lease % shards
	r.lease = (r.lease + 1) % shards
	return k
}

// markIdle records that a full scan begun at scannedAt found nothing to
// claim, and nothing that becomes claimable before nextAt (zero: nothing
// at all).
func (r *readiness) markIdle(scannedAt, nextAt time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.idle, r.scannedAt, r.nextAt = true, scannedAt, nextAt
}

// markBusy ends the idle state: the next claim scans every shard.
func (r *readiness) markBusy() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.idle = false
}

// signalled reports whether the readiness signal activeAt (keys.FormatTime
// text, "" when never set) may postdate a full scan begun at scannedAt.
func signalled(activeAt string, scannedAt time.Time) bool {
	if activeAt == "" {
		return false
	}
	at, err := keys.ParseTime(activeAt)
	return err != nil || !at.Add(quiet).Before(scannedAt)
}

// bump sets the readiness signal to the store's clock, unless this store
// set it less than bumpEvery ago, and ends the store's own idle state.
// It is advice, not a guarantee (idle polls also probe a partition each
// time): a failure is logged, not returned.
func (s *Store) bump(ctx context.Context) {
	now := s.now()
	r := &s.cfg.ready
	r.mu.Lock()
	r.idle = false
	due := r.bumpedAt.IsZero() || now.Sub(r.bumpedAt) >= bumpEvery || now.Before(r.bumpedAt)
	if due {
		r.bumpedAt = now
	}
	r.mu.Unlock()
	if !due {
		return
	}
	at := keys.FormatTime(now)
	// Never backwards, and never onto a table that records no shard count
	// (an update would create a CONFIG item without one).
	cond := expression.AttributeExists(expression.Name(attrShards)).
		And(expression.Or(
			expression.AttributeNotExists(expression.Name(attrActiveAt)),
			expression.Name(attrActiveAt).LessThan(expression.Value(at))))
	_, err := s.ent.config.Patch(configItem{}).Set(attrActiveAt, at).If(cond).Run(ctx)
	if err != nil && !errors.Is(err, table.ErrConditionFailed) {
		s.log.WarnContext(ctx, "tasks: the readiness signal was not set; idle workers find the task by their probes",
			"operation", "ready", "error", err.Error())
	}
}

// readSignal reads the readiness signal, strongly consistent.
func (s *Store) readSignal(ctx context.Context) (string, error) {
	it, err := s.ent.config.Get(ctx, configItem{}, entity.Consistent())
	switch {
	case errors.Is(err, table.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	return it.ActiveAt, nil
}

// each runs fn(0) .. fn(n-1) at once and returns the first error (in
// index order). Requests a call sends this way cost one round trip.
func each(n int, fn func(i int) error) error {
	if n == 1 {
		return fn(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
