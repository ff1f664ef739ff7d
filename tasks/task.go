package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// Status is where a task stands.
//
//	            Claim              Complete
//	PENDING ───────────> PROCESSING ───────> COMPLETED
//	 │   ^                  │    │
//	 │   └── Fail (retry) ──┘    │ Fail, attempts used up
//	 │   └── lease expired ──┘   └────────────────────> DEAD
//	 └── Cancel ──> CANCELLED
type Status string

const (
	StatusPending    Status = "PENDING"
	StatusProcessing Status = "PROCESSING"
	StatusCompleted  Status = "COMPLETED"
	StatusDead       Status = "DEAD"
	StatusCancelled  Status = "CANCELLED"
)

// Task is one unit of work and where it stands. The json names are the
// stored attribute names.
type Task struct {
	ID             string `json:"taskId"`
	Status         Status `json:"status"`
	Payload        []byte `json:"payload,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"` // "" when submitted without one
	// Attempt counts the claims so far: 0 while a new task waits, 1 during
	// its first processing. It is also the lease's fencing token.
	Attempt int `json:"attempt"`
	// AttemptBase is the attempt number when the task was last re-driven
	// from DEAD (0 if never): it has MaxAttempts claims after that.
	AttemptBase int `json:"attemptBase,omitempty"`
	// MaxAttempts is how many claims the task gets (after each Redrive):
	// the Options.MaxAttempts of the store that submitted it, kept with the
	// task so that every store and the CLI count alike. 0 for a task from
	// before tasks carried it: each store then uses its own.
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// Events is the number of events in the task's history; the last one
	// is EVENT#{Events:04d}.
	Events int `json:"events"`
	// Owner and LeaseExpiresAt are set while the task is PROCESSING.
	Owner          string    `json:"owner,omitempty"`
	LeaseExpiresAt time.Time `json:"leaseExpiresAt,omitzero"`
	// AvailableAt is when a PENDING task may be claimed: its creation for a
	// new task (or the later time its submission asked for,
	// SubmitInput.AvailableAt), the end of its backoff after a failed
	// attempt.
	AvailableAt time.Time `json:"availableAt,omitzero"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// LastError is the reason given by the last Fail or lease expiry.
	LastError string `json:"lastError,omitempty"`
	// Result is what Complete stored.
	Result []byte `json:"result,omitempty"`
	// TraceParent is the W3C traceparent of the span that submitted the
	// task ("" when the submitter's context carried none): the worker
	// runtime links the task's span to it.
	TraceParent string `json:"traceParent,omitempty"`
}

// Task metadata, the seed's first row:
//
//	PK TASK#t-123   SK META   GSI1PK STATUS#PENDING   GSI1SK CREATED#2026-09-23T10:00:00Z
//
// GSI1 holds a task while it is PENDING, PROCESSING or DEAD:
//
//   - PENDING: CREATED#<availableAt>, the time the task may be claimed. For
//     a new task that is its creation, exactly the seed's key. After a
//     failed attempt it is the end of the task's backoff, so the queue's
//     order is the order tasks become claimable, and Claim reads only
//     claimable tasks with a key condition (GSI1SK <= CREATED#<now>): a
//     task in backoff is never even read by a claim. The key keeps the
//     seed's shape (and its name) so tables and tools built from the seed
//     work unchanged; only its meaning widens from "created" to "queued".
//   - PROCESSING: LEASE#<lease expiry>, so expired leases are a key
//     condition.
//   - DEAD: CREATED#<the time it died>, the dead letters in the order they
//     arrived.
//
// COMPLETED and CANCELLED tasks leave the index: nothing lists them, and a
// sparse index costs no write for them after they leave. With
// Options.Shards > 1 the PENDING and PROCESSING partitions are
// STATUS#PENDING#<n> and STATUS#PROCESSING#<n>.
var (
	taskPK    = keys.MustPartition("TASK#{taskId}")
	metaSK    = keys.MustSort("META")
	createdSK = keys.MustSort("CREATED#{createdAt:time}")
	leaseSK   = keys.MustSort("LEASE#{expiresAt:time}")
)

// Attribute names. The key attributes are the seed's.
const (
	attrPK             = "PK"
	attrSK             = "SK"
	attrGSI1PK         = "GSI1PK"
	attrGSI1SK         = "GSI1SK"
	attrType           = "type"
	attrTaskID         = "taskId"
	attrStatus         = "status"
	attrPayload        = "payload"
	attrIdemKey        = "idempotencyKey"
	attrAttempt        = "attempt"
	attrEvents         = "events"
	attrOwner          = "owner"
	attrLeaseExpiresAt = "leaseExpiresAt"
	attrClaimedAt      = "claimedAt"
	attrAvailableAt    = "availableAt"
	attrAttemptBase    = "attemptBase"
	attrCreatedAt      = "createdAt"
	attrUpdatedAt      = "updatedAt"
	attrLastError      = "lastError"
	attrResult         = "result"
	attrAt             = "at" // an event's time
)

// Item types, in attribute "type", so a scan of the single table can tell
// the entities apart without parsing keys.
const (
	typeTask        = "TASK"
	typeEvent       = "EVENT"
	typeIdempotency = "IDEMPOTENCY"
	typeClaim       = "CLAIM"
)

// metaItem is the stored form of a task. Times are keys.FormatTime text,
// the same fixed-width UTC form the index keys use.
//
// Its table key (TASK#<taskId>, META) and type are its declaration's
// (entities); its GSI1 keys are its own attributes, set by queueKeys.
type metaItem struct {
	GSI1PK         string `dynamodbav:"GSI1PK,omitempty"`
	GSI1SK         string `dynamodbav:"GSI1SK,omitempty"`
	TaskID         string `dynamodbav:"taskId"`
	Status         Status `dynamodbav:"status"`
	Payload        []byte `dynamodbav:"payload,omitempty"`
	IdempotencyKey string `dynamodbav:"idempotencyKey,omitempty"`
	Attempt        int    `dynamodbav:"attempt"`
	Events         int    `dynamodbav:"events"`
	Owner          string `dynamodbav:"owner,omitempty"`
	LeaseExpiresAt string `dynamodbav:"leaseExpiresAt,omitempty"`
	// ClaimedAt is the time of the claim that set the current lease (its
	// PROCESSING event's time), so a takeover can rebuild that event.
	ClaimedAt   string `dynamodbav:"claimedAt,omitempty"`
	AvailableAt string `dynamodbav:"availableAt,omitempty"`
	AttemptBase int    `dynamodbav:"attemptBase,omitempty"`
	MaxAttempts int    `dynamodbav:"maxAttempts,omitempty"`
	CreatedAt   string `dynamodbav:"createdAt"`
	UpdatedAt   string `dynamodbav:"updatedAt"`
	LastError   string `dynamodbav:"lastError,omitempty"`
	Result      []byte `dynamodbav:"result,omitempty"`
	// TTL is set when the task finishes (COMPLETED, CANCELLED): Retention
	// later. A live or DEAD task has none.
	TTL         int64  `dynamodbav:"ttl,omitempty"`
	TraceParent string `dynamodbav:"traceParent,omitempty"`
}

func (m *metaItem) task() (*Task, error) {
	t := &Task{
		ID: m.TaskID, Status: m.Status, Payload: m.Payload, IdempotencyKey: m.IdempotencyKey,
		Attempt: m.Attempt, AttemptBase: m.AttemptBase, MaxAttempts: m.MaxAttempts, Events: m.Events, Owner: m.Owner, LastError: m.LastError, Result: m.Result,
		TraceParent: m.TraceParent,
	}
	var err error
	if t.CreatedAt, err = parseTime("createdAt", m.CreatedAt); err != nil {
		return nil, err
	}
	if t.UpdatedAt, err = parseTime("updatedAt", m.UpdatedAt); err != nil {
		return nil, err
	}
	if t.LeaseExpiresAt, err = parseTime("leaseExpiresAt", m.LeaseExpiresAt); err != nil {
		return nil, err
	}
	if t.AvailableAt, err = parseTime("availableAt", m.AvailableAt); err != nil {
		return nil, err
	}
	return t, nil
}

func parseTime(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := keys.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("tasks: stored %s %q: %w", name, s, err)
	}
	return t, nil
}

// move is a read-free conditional change of task id's META item: one
// UpdateItem (Run) or a transaction's first action (transact) that the caller
// conditions on the task being as it read it or as its lease says (If),
// setting the new status and its place in GSI1 (inQueue, or leaving it)
// in the same write. Patch: a missing or expired task refuses it, as any
// failed condition does (table.ErrConditionFailed, with the item as it
// was, when there is one, in the error).
func (s *Store) move(id string) *entity.Update[metaItem] {
	return s.ent.tasks.Patch(metaItem{TaskID: id})
}

// transact applies the move u and the writes beside it (events, claim
// items) all together or not at all (entity.Transact), u first: a
// refusal's reason at index 0 is META's, which the refusal handlers read.
func (s *Store) transact(ctx context.Context, u *entity.Update[metaItem], writes ...entity.Action) error {
	return entity.Transact(ctx, append([]entity.Action{u.Action()}, writes...)...)
}

// queueKeys are the GSI1 keys of task id in status st at at: its status
// partition (the shard's for PENDING and PROCESSING), and CREATED#<at>, or
// LEASE#<at> while PROCESSING (see metaItem). COMPLETED and CANCELLED
// tasks leave the index (their moves remove both).
func (s *Store) queueKeys(st Status, id string, at time.Time) (pk, sk string) {
	t := createdSK
	if st == StatusProcessing {
		t = leaseSK
	}
	return s.statusPartition(st, s.shardOf(id)), mustBuild(t, at)
}

// inQueue sets u's task's status to st and its GSI1 keys to st's at at.
func (s *Store) inQueue(u *entity.Update[metaItem], st Status, id string, at time.Time) *entity.Update[metaItem] {
	pk, sk := s.queueKeys(st, id, at)
	return u.Set(attrStatus, st).Set(attrGSI1PK, pk).Set(attrGSI1SK, sk)
}

// leaveQueue sets u's task's status to st, a final one, and takes it out
// of GSI1: nothing lists it, and a sparse index costs no write for it
// after it leaves.
func leaveQueue(u *entity.Update[metaItem], st Status) *entity.Update[metaItem] {
	return u.Set(attrStatus, st).Remove(attrGSI1PK, attrGSI1SK)
}

// mustBuild builds a key from values the caller has already checked with
// the same template (checkTaskID and friends), so it cannot fail.
func mustBuild(t *keys.Template, values ...any) string {
	k, err := t.Build(values...)
	if err != nil {
		panic(fmt.Sprintf("tasks: key %s from checked values: %v", t.Pattern(), err))
	}
	return k
}
