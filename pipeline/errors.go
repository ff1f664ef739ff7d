package pipeline

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

var (
	// ErrNotFound: no pipeline, version or execution has that id. Errors
	// carrying it also match table.ErrNotFound.
	ErrNotFound = errors.New("pipeline: not found")
	// ErrNoStore: the *Store is nil or was not made by NewStore. Errors
	// carrying it also match table.ErrInvalidInput.
	ErrNoStore = errors.New("pipeline: Store not made by NewStore")

	// ErrConflict: an update was based on a version that is no longer the
	// current one. Returned as a *ConflictError; nothing was written.
	ErrConflict = errors.New("pipeline: version conflict")

	// ErrDisabled: Executions.Create of a pipeline whose state is
	// StateDisabled. Returned as a *DisabledError; nothing was written.
	ErrDisabled = errors.New("pipeline: pipeline is disabled")

	// ErrTooManyTags: a create or update would need more writes than one
	// DynamoDB transaction holds (100 actions). Returned as a
	// *TooManyTagsError before any request.
	ErrTooManyTags = errors.New("pipeline: too many tags for one transaction")
)

// ConflictError reports an update that lost an optimistic race: the
// pipeline's current version is not the one the update was based on.
// Nothing was written: the version item, the tag items, the aggregates and
// the group items are all in the transaction the failed condition canceled.
type ConflictError struct {
	PipelineID string
	Expected   int   // the version the update was based on
	Current    int   // the current version when the write was refused (0 when unknown)
	Cause      error // the table error of the canceled transaction, if any
}

func (e *ConflictError) Error() string {
	if e.Current == 0 {
		return fmt.Sprintf("pipeline: %q: update based on version %d, which is no longer current", e.PipelineID, e.Expected)
	}
	return fmt.Sprintf("pipeline: %q: update based on version %d, but version %d is current", e.PipelineID, e.Expected, e.Current)
}

// Unwrap gives ErrConflict and, when the conflict was found by DynamoDB, the
// transaction's error (so table.ErrConditionFailed matches too).
func (e *ConflictError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrConflict}
	}
	return []error{ErrConflict, e.Cause}
}

// DisabledError reports a new execution refused because its pipeline is
// disabled (its current item's state is StateDisabled, as Update sets it).
// The refusal is the execution's own transaction's condition, so a
// pipeline disabled after the caller read it is refused too. Nothing was
// written: no execution, no reference, no input copy.
type DisabledError struct {
	PipelineID string
	Cause      error // the canceled transaction's error; nil when a read found it disabled first
}

func (e *DisabledError) Error() string {
	return fmt.Sprintf("pipeline: %q is disabled: it takes no new executions (enable it with Update)", e.PipelineID)
}

// Unwrap gives ErrDisabled and, when DynamoDB refused the write, the
// transaction's error.
func (e *DisabledError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrDisabled}
	}
	return []error{ErrDisabled, e.Cause}
}

// TooManyTagsError reports a create or update whose writes do not fit one
// transaction. Every tag level is a tag item plus an aggregate counter, and
// every group an item, besides the current and the version item:
// DynamoDB's TransactWriteItems takes at most 100 actions.
type TooManyTagsError struct {
	PipelineID string
	Actions    int // the writes the call needs
	Max        int // table's limit per transaction
}

func (e *TooManyTagsError) Error() string {
	return fmt.Sprintf("pipeline: %q: needs %d writes in one transaction, at most %d fit (fewer tags, tag levels or groups)",
		e.PipelineID, e.Actions, e.Max)
}

func (e *TooManyTagsError) Unwrap() error { return ErrTooManyTags }

// notFoundError is a missing pipeline, version or execution.
type notFoundError struct {
	what, id string
	cause    error
}

func (e *notFoundError) Error() string { return fmt.Sprintf("pipeline: %s %q not found", e.what, e.id) }

func (e *notFoundError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNotFound, table.ErrNotFound}
	}
	return []error{ErrNotFound, table.ErrNotFound, e.cause}
}

func notFound(what, id string, cause error) error {
	return &notFoundError{what: what, id: id, cause: cause}
}

// inputError is the typed error for bad input caught before any request.
func inputError(field string, value any, reason string) error {
	return &table.InputError{Field: field, Value: fmt.Sprint(value), Reason: reason}
}
