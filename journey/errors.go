package journey

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/table"
)

// Sentinel errors. The not-found errors also match table.ErrNotFound, so
// code that only knows package table still recognises them.
var (
	// ErrJourneyNotFound: no METADATA item for the journey id.
	ErrJourneyNotFound = errors.New("journey: journey not found")
	// ErrStageNotFound: the journey has no stage with that id.
	ErrStageNotFound = errors.New("journey: stage not found")
	// ErrRuleNotFound: no rule with that key.
	ErrRuleNotFound = errors.New("journey: rule not found")
	// ErrJobNotFound: no job execution with that key or id.
	ErrJobNotFound = errors.New("journey: job not found")
	// ErrJourneyExists: Journeys.Create or Backups.Import found the journey already
	// there. Nothing was written.
	ErrJourneyExists = errors.New("journey: journey already exists")
	// ErrInvalidStatus: a guarded status move was refused because the
	// journey or job was not in a status the move starts from. Returned as
	// a *StatusError naming the current status.
	ErrInvalidStatus = errors.New("journey: invalid status for this operation")
	// ErrStageOrder: Jobs.Start on a stage while an earlier stage is
	// neither completed nor skipped (the seed runs stages in order). It
	// comes as the Cause of a *StatusError naming the earlier stage.
	ErrStageOrder = errors.New("journey: an earlier stage is not done")
	// ErrStageNotSkippable: Stages.Skip on a stage without canSkip.
	ErrStageNotSkippable = errors.New("journey: stage cannot be skipped")
	// ErrStageRan: Stages.Add, Move or Remove would move or remove a stage
	// that has run (or was skipped): its jobs' sort keys hold its order. It
	// comes as the Cause of a *StatusError naming the stage; nothing was
	// written.
	ErrStageRan = errors.New("journey: the stage has run")
	// ErrStageHasRules: Stages.Remove of a stage that has rules (they are
	// keyed by the stage's id); nothing was written.
	ErrStageHasRules = errors.New("journey: the stage has rules")
	// ErrLoggerClosed: a StepLogger was used after Close.
	ErrLoggerClosed = errors.New("journey: step logger closed")
	// ErrImportInProgress: the journey is being imported (its METADATA item
	// is an import's claim): reads and writes of it wait for the import to
	// finish, or for the next Import to complete an interrupted one. Import
	// also returns it when another import took its claim over.
	ErrImportInProgress = errors.New("journey: import in progress")
	// ErrDeleteInProgress: Journeys.Delete is removing the journey (its
	// METADATA item is marked): reads find no journey (the error also
	// matches ErrJourneyNotFound), writes are refused, and the next
	// Delete finishes an interrupted one.
	ErrDeleteInProgress = errors.New("journey: delete in progress")
	// ErrJobRunning: Journeys.Delete of a journey with a pending or
	// running job; nothing was deleted.
	ErrJobRunning = errors.New("journey: a job is running")
	// ErrInvalidBackup: Import was given a document that is not a backup of
	// one journey written by Export.
	ErrInvalidBackup = errors.New("journey: invalid backup")
)

// StatusError reports a status move that did not happen: the journey (or
// job) was in Current, and the operation needs one of Allowed. Nothing was
// written. Current comes from the item DynamoDB returned with the refused
// conditional write, not from a second read.
type StatusError struct {
	Entity  string // "journey" or "job"
	ID      string
	Op      string // "pause", "resume", "cancel", "start job", "finish job", ...
	Current string
	Allowed []string
	Cause   error
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("journey: cannot %s %s %q: its status is %q, not %s",
		e.Op, e.Entity, e.ID, e.Current, strings.Join(quoteAll(e.Allowed), " or "))
}

// Unwrap gives ErrInvalidStatus and the table error (a condition failure).
func (e *StatusError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrInvalidStatus}
	}
	return []error{ErrInvalidStatus, e.Cause}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// notFoundError names what was missing; it matches its sentinel and
// table.ErrNotFound.
type notFoundError struct {
	sentinel error
	what     string
	cause    error
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("%s: %s", e.sentinel.Error(), e.what)
}

func (e *notFoundError) Unwrap() []error {
	errs := []error{e.sentinel, table.ErrNotFound}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

func notFound(sentinel error, what string, cause error) error {
	return &notFoundError{sentinel: sentinel, what: what, cause: cause}
}

// inputError is bad input caught before any request: a *table.InputError,
// so errors.Is(err, table.ErrInvalidInput) holds for every package.
func inputError(field string, value any, reason string) error {
	return &table.InputError{Field: field, Value: fmt.Sprint(value), Reason: reason}
}

// deletingError is the error of a read or write of a journey that
// Journeys.Delete is removing: not found, and ErrDeleteInProgress (cause
// may be nil).
func deletingError(journeyID string, cause error) error {
	c := ErrDeleteInProgress
	if cause != nil {
		c = fmt.Errorf("%w: %w", ErrDeleteInProgress, cause)
	}
	return notFound(ErrJourneyNotFound, journeyID+" (being deleted)", c)
}
