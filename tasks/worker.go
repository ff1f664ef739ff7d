package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// A worker's current claims, the seed's last row:
//
//	PK WORKER#w-abc   SK TASK#t-123   (current claim)
//
// The claim item holds the lease: its leaseExpiresAt is what Heartbeat
// extends. It is small and in no index, so a heartbeat is one write unit,
// where extending the lease on META would bill the size of the task's
// payload and move its index entry (3 WCU for a small task). META's index
// entry keeps the expiry the claim gave it (moved on only when a claim
// finds it passed while the lease runs on; see takeExpired), so expired
// leases are still a key condition away.
//
// Written by the claim, after META; deleted by Complete, after META, and
// by Fail and Release in their transactions. A takeover or reclaim of an
// expired lease marks it lost (lostAt) instead of deleting it, so that its
// heartbeats, and a claim item its claimer writes late, are refused. So the
// items under WORKER#<id> are the worker's claims, plus any a Complete cut
// off before its last write left and the marks of lost leases;
// WorkerTasks keeps those whose task META still shows the worker's lease.
var workerPK = keys.MustPartition("WORKER#{workerId}")

// claimItem is a WORKER claim item; its keys and type are its
// declaration's (entities).
type claimItem struct {
	TaskID    string `dynamodbav:"taskId"`
	Worker    string `dynamodbav:"worker"`
	Attempt   int    `dynamodbav:"attempt"`
	ClaimedAt string `dynamodbav:"claimedAt"`
	// LeaseExpiresAt is when the lease runs out, unless heartbeated. None
	// on claim items written before they held leases.
	LeaseExpiresAt string `dynamodbav:"leaseExpiresAt,omitempty"`
	// LostAt is set when a takeover or reclaim ended the lease.
	LostAt string `dynamodbav:"lostAt,omitempty"`
	// TTL is Retention after the claim or its last heartbeat: Complete
	// deletes the item after its META update, and one a Complete cut off
	// there leaves expires; a lease heartbeated longer than Retention
	// keeps its item.
	TTL int64 `dynamodbav:"ttl,omitempty"`
}

const attrLostAt = "lostAt"

// Lease is a worker's right to process a task, from Claim. Pass it to
// Heartbeat, Complete and Fail. The attempt number is the fencing token:
// a takeover of the task increments it, so writes under an older lease are
// refused (ErrLeaseLost) whatever the clocks say.
type Lease struct {
	TaskID  string
	Worker  string
	Attempt int
	// AttemptBase is the task's attempt number when it was last re-driven
	// (0 if never), so Fail knows whether this attempt is its last.
	AttemptBase int
	// Seq is the sequence number of the claim's PROCESSING event. While the
	// lease is held only its worker writes events, so the next is Seq+1.
	Seq       int
	ExpiresAt time.Time
	// ClaimedAt is the time of the claim (its PROCESSING event's). Zero in
	// a lease from an older version; Fail and Release then read it from
	// the task.
	ClaimedAt time.Time
	// MaxAttempts is the task's bound on its attempts (Task.MaxAttempts),
	// so Fail knows whether this attempt is its last; 0 in a lease from an
	// older version: the store's Options.MaxAttempts.
	MaxAttempts int
}

// Claim is a claimed task and the lease on it.
type Claim struct {
	Task  Task
	Lease Lease
}

// claimKey is the key of workerID's claim item of task taskID.
func claimKey(workerID, taskID string) claimItem {
	return claimItem{Worker: workerID, TaskID: taskID}
}

// WorkerTasks returns the ids of the tasks worker workerID holds: those
// whose claim items are under WORKER#<workerID> and whose META (read
// strongly consistently, one GetItem per claim: a worker's claims are few,
// and the store's IAM policy then needs no batch read) is PROCESSING with
// the worker as its owner, in task id order (the claim items' sort key). A lease that
// expired but that nobody has taken over yet still counts. A restarted
// worker can resume them (if their leases are still its own) or leave
// them to expire.
func (h *Maintenance) WorkerTasks(ctx context.Context, workerID string) (_ []string, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "tasks.Maintenance.WorkerTasks")
	defer span.End(&err)
	if err := s.check(checkWorkerID(workerID)); err != nil {
		return nil, err
	}
	var claims []claimItem
	for it, err := range s.ent.claims.Items(ctx, claimItem{Worker: workerID}, entity.Consistent()) {
		if err != nil {
			return nil, fmt.Errorf("tasks: claims of worker %q: %w", workerID, err)
		}
		if checkTaskID(it.TaskID) == nil && it.LostAt == "" {
			claims = append(claims, it)
		}
	}
	var ids []string
	for _, c := range claims {
		t, err := s.get(ctx, c.TaskID)
		switch {
		case errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return nil, fmt.Errorf("tasks: claims of worker %q: %w", workerID, err)
		case t.Status == StatusProcessing && t.Owner == workerID:
			ids = append(ids, c.TaskID)
		}
	}
	return ids, nil
}
