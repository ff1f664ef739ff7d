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

	// ErrNoBlobStore: a job's result was offloaded to a blob store, and
	// the Store was made without one (NewStore with a nil blobstore.Store).
	ErrNoBlobStore = errors.New("jobs: no blob store")
)

// TransitionError reports a status move that did not happen because the job
// was not in the status the move starts from: another worker moved it first,
// or the move is not in the seed's state machine from there. Nothing was
// written.
//
// Current is read from the item DynamoDB returned with the failed
// conditional write (ReturnValuesOnConditionCheckFailure = ALL_OLD), so it is
// the status at the moment the write was refused, not from a second read.
type TransitionError struct {
	JobID   string
	Current Status // the job's status when the write was refused
	From    Status // the status the move requires
	To      Status // the status the move would have set
	Cause   error  // the condition failure from table, when there was one
}

func (e *TransitionError) Error() string {
	current := "is " + string(e.Current)
	if e.Current == "" {
		current = "has no status"
	}
	return fmt.Sprintf("jobs: job %q %s, cannot move %s → %s", e.JobID, current, e.From, e.To)
}

// Unwrap gives ErrInvalidTransition and the table error, so both
// errors.Is(err, ErrInvalidTransition) and errors.Is(err,
// table.ErrConditionFailed) hold.
func (e *TransitionError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrInvalidTransition}
	}
	return []error{ErrInvalidTransition, e.Cause}
}

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
