package tasks

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

var (
	// ErrNotFound: no task has that id. Errors carrying it also match
	// table.ErrNotFound.
	ErrNotFound = errors.New("tasks: task not found")

	// ErrNoTask: Claim found nothing to claim, neither a pending task nor
	// one whose lease has expired, or lost the race for every one it
	// tried (then as a *ClaimConflictError, which says what it found).
	// Workers wait and ask again. Test for it with errors.Is.
	ErrNoTask = errors.New("tasks: no task to claim")

	// ErrLeaseLost: a heartbeat, completion or failure came from a worker
	// that no longer holds the task: its lease expired and another worker
	// (or ReclaimExpired) took the task over, or the task already finished.
	// Returned as a *LeaseLostError; nothing was written.
	ErrLeaseLost = errors.New("tasks: lease lost")

	// ErrInvalidState: the task is not in the status the call needs (Cancel
	// of a task that is no longer PENDING). Returned as a *StateError.
	ErrInvalidState = errors.New("tasks: invalid state")

	// ErrIdempotencyMismatch: an idempotency key was submitted again with a
	// different payload. Returned as an *IdempotencyError; nothing was
	// created. DynamoDB treats a reused ClientRequestToken with other
	// parameters the same way (IdempotentParameterMismatchException): a key
	// names one request, not a slot to fill twice.
	ErrIdempotencyMismatch = errors.New("tasks: idempotency key reused with a different payload")

	// ErrShardsMismatch: the store was opened with an Options.Shards other
	// than the shard count its table records. Returned as a *ShardsError;
	// nothing was written.
	ErrShardsMismatch = errors.New("tasks: shard count differs from the table's")
)

// ShardsError reports a store opened with another shard count than its
// table's. Open it without Options.Shards to use the table's count.
type ShardsError struct {
	Table       string
	TableShards int // the count the table records
	StoreShards int // Options.Shards of the store
}

func (e *ShardsError) Error() string {
	return fmt.Sprintf("tasks: table %q is split into %d shards, but the store was opened with Shards(%d): "+
		"every client of a table uses its count; leave Options.Shards unset to follow the table",
		e.Table, e.TableShards, e.StoreShards)
}

func (e *ShardsError) Unwrap() error { return ErrShardsMismatch }

// LeaseLostError reports a call made under a lease the worker no longer
// holds. Status, Owner and Attempt describe the task when the write was
// refused, read from the item DynamoDB returned with the refusal.
type LeaseLostError struct {
	Lease   Lease  // the lease the call was made under
	Status  Status // the task's status when the write was refused
	Owner   string // the worker holding the task now, if any
	Attempt int    // the task's attempt number now
	Cause   error  // the refused write, from table
}

func (e *LeaseLostError) Error() string {
	msg := fmt.Sprintf("tasks: task %q: worker %q lost its lease (attempt %d): task is %s",
		e.Lease.TaskID, e.Lease.Worker, e.Lease.Attempt, e.Status)
	if e.Owner != "" {
		msg += fmt.Sprintf(", held by %q (attempt %d)", e.Owner, e.Attempt)
	}
	return msg
}

// Unwrap gives ErrLeaseLost and the refused write's error.
func (e *LeaseLostError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrLeaseLost}
	}
	return []error{ErrLeaseLost, e.Cause}
}

// ClaimConflictError reports a Claim that found candidates but lost the
// race for each: another worker's write came between its read of the
// queue and its conditional write (the seed's "returns old status for
// conflict detection"). It describes the last task it tried as DynamoDB
// returned it with the refusal (ReturnValuesOnConditionCheckFailure
// ALL_OLD: no read of its own). errors.Is(err, ErrNoTask) holds: nothing
// was claimed, nothing was written, and a worker asks again.
type ClaimConflictError struct {
	Worker  string // the worker that asked
	TaskID  string // the task it lost last
	Status  Status // that task's status at the refusal; "" when it was gone
	Owner   string // the worker holding it then, when it was PROCESSING
	Attempt int    // its attempt number then
	Cause   error  // the refused write, from table
}

func (e *ClaimConflictError) Error() string {
	msg := fmt.Sprintf("tasks: worker %q lost the claim of task %q: ", e.Worker, e.TaskID)
	switch {
	case e.Status == "":
		msg += "the task is gone"
	case e.Owner != "":
		msg += fmt.Sprintf("task is %s, held by %q (attempt %d)", e.Status, e.Owner, e.Attempt)
	default:
		msg += fmt.Sprintf("task is %s (attempt %d)", e.Status, e.Attempt)
	}
	return msg
}

// Unwrap gives ErrNoTask and the refused write's error
// (table.ErrConditionFailed).
func (e *ClaimConflictError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrNoTask}
	}
	return []error{ErrNoTask, e.Cause}
}

// StateError reports a call refused because the task was in another
// status. Status is read from the item DynamoDB returned with the refusal.
type StateError struct {
	TaskID string
	Op     string // "cancel"
	Status Status // the task's status when the write was refused
	Want   Status // the status the call needs
	Cause  error
}

func (e *StateError) Error() string {
	return fmt.Sprintf("tasks: %s task %q: task is %s, not %s", e.Op, e.TaskID, e.Status, e.Want)
}

// Unwrap gives ErrInvalidState and the refused write's error.
func (e *StateError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrInvalidState}
	}
	return []error{ErrInvalidState, e.Cause}
}

// IdempotencyError reports an idempotency key submitted again with a
// different payload. TaskID is the task the key created first.
type IdempotencyError struct {
	Key    string
	TaskID string
}

func (e *IdempotencyError) Error() string {
	return fmt.Sprintf("tasks: idempotency key %q already created task %q with a different payload", e.Key, e.TaskID)
}

func (e *IdempotencyError) Unwrap() error { return ErrIdempotencyMismatch }

// notFound is the error for a missing task: ErrNotFound and
// table.ErrNotFound, plus table's error when a request said so.
func notFound(id string, cause error) error {
	return &notFoundError{id: id, cause: cause}
}

type notFoundError struct {
	id    string
	cause error
}

func (e *notFoundError) Error() string { return fmt.Sprintf("tasks: task %q not found", e.id) }

func (e *notFoundError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNotFound, table.ErrNotFound}
	}
	return []error{ErrNotFound, table.ErrNotFound, e.cause}
}

// inputError is the typed error for bad input caught before any request.
func inputError(field string, value any, reason string) error {
	return &table.InputError{Field: field, Value: fmt.Sprint(value), Reason: reason}
}
