package entity

import (
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/table"
)

// TxError is a transaction Transact could not apply because DynamoDB
// canceled it: the *table.TxError (which it unwraps to, so errors.As
// reaches it and errors.Is matches every reason's sentinel), told apart by
// the actions the caller built. Keep the Action values and ask the error
// about each, instead of counting positions:
//
//	user, email := users.TxCreate(u), emails.TxCreate(Email{Tenant: u.Tenant, Email: u.Email})
//	err := entity.Transact(ctx, user, email)
//	var txe *entity.TxError
//	if errors.As(err, &txe) && errors.Is(txe.Err(email), table.ErrAlreadyExists) {
//		return ErrEmailTaken
//	}
//
// It matches ErrVersionConflict when an action that compared a version
// (a TxPut of a versioned entity, IfVersion) found another one stored, and
// a rule's validation error (ErrValidation, a *table.InputError naming the
// attribute) when a rule in an action's condition refused it (an Add under
// Bounds).
type TxError struct {
	// Tx is the canceled transaction, its Reasons by position.
	Tx *table.TxError

	actions []Action
	now     time.Time // the transaction's time, which its conditions compared
}

func (e *TxError) Error() string {
	if e == nil || e.Tx == nil {
		return "entity: transaction canceled"
	}
	if e.conflict() {
		return "entity: version conflict: " + e.Tx.Error()
	}
	if why := e.ruleError(); why != nil {
		return "entity: " + why.Error() + ": " + e.Tx.Error()
	}
	return e.Tx.Error()
}

// Unwrap gives the *table.TxError, ErrVersionConflict when a compared
// version had moved, and the first refused action's input error (a rule's
// ErrValidation, an index key's ErrIndexKey).
func (e *TxError) Unwrap() []error {
	if e == nil || e.Tx == nil {
		return nil
	}
	var errs []error
	if e.conflict() {
		errs = append(errs, ErrVersionConflict)
	}
	errs = append(errs, e.Tx)
	if why := e.ruleError(); why != nil {
		errs = append(errs, why)
	}
	return errs
}

// Reason returns why DynamoDB refused action a, and false when it did not
// refuse a (a was not in the transaction, or DynamoDB reported "None" for
// it: another action canceled the transaction).
func (e *TxError) Reason(a Action) (table.TxReason, bool) {
	i := e.index(a)
	if i < 0 {
		return table.TxReason{}, false
	}
	for _, r := range e.Tx.Reasons {
		if r.Index == i {
			return r, true
		}
	}
	return table.TxReason{}, false
}

// Err returns the error of action a: nil when DynamoDB did not refuse it,
// else an error matching the reason's sentinel for that action
// (table.ErrAlreadyExists for a TxCreate whose key is taken,
// table.ErrNotFound for a TxDelete or a Patch's Action of a missing item,
// table.ErrConditionFailed for a failed condition, which the first two
// are too; table.ErrTransactionConflict, ...), and ErrVersionConflict when
// the version a compared had moved.
func (e *TxError) Err(a Action) error {
	r, ok := e.Reason(a)
	if !ok {
		return nil
	}
	ae := &actionError{reason: r, entity: e.actions[r.Index].entity}
	add := func(err error) {
		if err != nil && !slices.Contains(ae.errs, err) {
			ae.errs = append(ae.errs, err)
		}
	}
	if why := e.failure(r); why != nil {
		// The action's own meaning, as its call outside a transaction
		// answers, not table's guess from the condition's shape.
		add(why)
		add(table.ErrConditionFailed)
	} else {
		add(r.Err())
	}
	return ae
}

// index is a's position in the transaction, -1 when it is not there
// (the zero Action, whose id 0 no action of a sent transaction has).
func (e *TxError) index(a Action) int {
	if e == nil || e.Tx == nil {
		return -1
	}
	for i, b := range e.actions {
		if b.id == a.id {
			return i
		}
	}
	return -1
}

// failure is the sentinel of a refusal by the action's condition, decided
// by the action's failure function from the item DynamoDB returned with
// it, or nil when r is no failed condition.
func (e *TxError) failure(r table.TxReason) error {
	if r.Index >= len(e.actions) || r.Code != "ConditionalCheckFailed" {
		return nil
	}
	if f := e.actions[r.Index].failure; f != nil {
		return f(r.Item, e.now)
	}
	return table.ErrConditionFailed
}

// ruleError is the first refused action's input error (a rule broken,
// ErrValidation; an index key it could not build, ErrIndexKey), or nil.
func (e *TxError) ruleError() error {
	for _, r := range e.Tx.Reasons {
		if why := e.failure(r); errors.Is(why, ErrValidation) || errors.Is(why, ErrIndexKey) {
			return why
		}
	}
	return nil
}

// conflict reports whether any refused action's compared version had
// moved.
func (e *TxError) conflict() bool {
	for _, r := range e.Tx.Reasons {
		if errors.Is(e.failure(r), ErrVersionConflict) {
			return true
		}
	}
	return false
}

// actionError is the error of one refused action of a transaction.
type actionError struct {
	reason table.TxReason
	entity string
	errs   []error
}

func (e *actionError) Error() string {
	s := "entity: transaction action " + e.entity + " " + e.reason.Action
	if e.reason.Key != "" {
		s += " (" + e.reason.Key + ")"
	}
	s += " refused: " + e.reason.Code
	if e.reason.Message != "" {
		s += ": " + e.reason.Message
	}
	return s
}

func (e *actionError) Unwrap() []error { return e.errs }

// actionIDs numbers the actions built, so that a TxError can be asked
// about an Action value the caller kept (copies share the number).
var actionIDs atomic.Uint64

func nextActionID() uint64 { return actionIDs.Add(1) }

// txError turns a canceled transaction's error into a *TxError of its
// actions; other errors pass through.
func txError(err error, actions []Action, now time.Time) error {
	var txe *table.TxError
	if !errors.As(err, &txe) {
		return err
	}
	return &TxError{Tx: txe, actions: actions, now: now}
}
