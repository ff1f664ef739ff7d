package jobs

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

var (
	// ErrNotFound: no job has that id, or its ttl has passed. Errors
	// carrying it also match table.ErrNotFound.
	ErrNotFound = errors.New("jobs: job not found")

	// ErrInvalidTransition: a status move was asked of a job that is not in
	// the move's starting status. Returned as a *TransitionError.
	ErrInvalidTransition = errors.New("jobs: invalid status transition")

	// ErrLeaseLost: a worker move or heartbeat was made under a lease that
	// was taken from its worker: the job is QUEUED again or FAILED by
	// Recover (LEASE_EXPIRED) under the lease's attempt, or is on a later
	// attempt (see Store.Recover for the exact cases). Returned as a
	// *TransitionError with LeaseLost set; it does not match
	// ErrInvalidTransition.
	ErrLeaseLost = errors.New("jobs: lease lost")

	// ErrIdempotencyMismatch: Create was called with an idempotency key
	// that already created a job from other input. Returned as an
	// *IdempotencyError.
	ErrIdempotencyMismatch = errors.New("jobs: idempotency key reused with different input")

	// ErrUnknownProvider: a job was given a provider the store does not
	// know: none of the seed's gemini, seedream and stub, nor one
	// Options.Providers adds. Returned inside a *table.InputError (so it
	// matches table.ErrInvalidInput too) before anything is written.
	ErrUnknownProvider = errors.New("jobs: unknown provider")

	// ErrNoBlobStore: a job's result was offloaded to a blob store, and
	// the Store was made without one (NewStore with a nil blobstore.Store).
	ErrNoBlobStore = errors.New("jobs: no blob store")
)

// TransitionError reports a status move (or a heartbeat) that did not
// happen: the job was not in a status the move starts from (another worker
// moved it first, or the state machine has no such move from there), or it
// was, but under another attempt than the caller's lease (the lease was
// lost to Recover). Nothing was written.
//
// Current and Job come from the item DynamoDB returned with the refused
// conditional write (ReturnValuesOnConditionCheckFailure = ALL_OLD): the job
// at the moment the write was refused, not from a second read. Job is nil
// only when its offloaded results could not be read back.
type TransitionError struct {
	JobID   string
	Current Status   // the job's status when the write was refused
	From    []Status // the statuses the move starts from
	To      Status   // the status the move would have set; "" for Heartbeat
	// LeaseLost: the move was made under a lease the job no longer
	// honours because it was taken from the lease's worker (Recover, or
	// a job worker's takeover), not because the worker moved the job on
	// itself.
	LeaseLost bool
	Job       *Job  // the job as DynamoDB returned it with the refusal
	Cause     error // the condition failure from table, when there was one
}

func (e *TransitionError) Error() string {
	current := "is " + string(e.Current)
	if e.Current == "" {
		current = "has no status"
	}
	if e.LeaseLost {
		attempt := 0
		if e.Job != nil {
			attempt = e.Job.Attempt
		}
		return fmt.Sprintf("jobs: job %q %s on attempt %d: the caller's lease was lost", e.JobID, current, attempt)
	}
	if e.To == "" {
		return fmt.Sprintf("jobs: job %q %s, cannot renew a lease held in %s", e.JobID, current, joinStatuses(e.From))
	}
	return fmt.Sprintf("jobs: job %q %s, cannot move %s → %s", e.JobID, current, joinStatuses(e.From), e.To)
}

// Unwrap gives ErrInvalidTransition (or ErrLeaseLost) and the table error,
// so both errors.Is(err, ErrInvalidTransition) and errors.Is(err,
// table.ErrConditionFailed) hold.
func (e *TransitionError) Unwrap() []error {
	kind := ErrInvalidTransition
	if e.LeaseLost {
		kind = ErrLeaseLost
	}
	if e.Cause == nil {
		return []error{kind}
	}
	return []error{kind, e.Cause}
}

// IdempotencyError reports a Create whose idempotency key already created
// a job from other input. Nothing was written. Job is the stored job, as
// DynamoDB returned it with the refused write.
type IdempotencyError struct {
	Key   string // the idempotency key
	JobID string // the job the key created
	Field string // the first input field that differs, e.g. "fileSize"
	Job   *Job
}

func (e *IdempotencyError) Error() string {
	return fmt.Sprintf("jobs: idempotency key %q created job %q with another %s", e.Key, e.JobID, e.Field)
}

// Unwrap gives ErrIdempotencyMismatch.
func (e *IdempotencyError) Unwrap() error { return ErrIdempotencyMismatch }

// notFound is the error for a missing or expired job: ErrNotFound and
// table.ErrNotFound, plus table's error when a request told us.
func notFound(id string, cause error) error {
	return &notFoundError{id: id, cause: cause}
}

type notFoundError struct {
	id    string
	cause error
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("jobs: job %q not found", e.id)
}

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
