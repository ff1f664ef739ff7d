package entity

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/table"
)

// Sentinel errors of this package. Failures of a write are table's
// sentinels (table.ErrAlreadyExists, table.ErrNotFound,
// table.ErrConditionFailed), as every store returns them; bad input is a
// *table.InputError (table.ErrInvalidInput) whose Err is one of these or a
// keys sentinel, and nothing is sent.
var (
	// ErrDeclaration: New was given a declaration it cannot serve (a
	// template naming a missing field, a key type the table does not have,
	// two entities whose keys can collide). Returned as a *DeclarationError.
	ErrDeclaration = errors.New("entity: invalid declaration")
	// ErrVersionConflict: an optimistic write (Put of a versioned entity,
	// IfVersion) found another version stored. It also matches
	// table.ErrConditionFailed.
	ErrVersionConflict = errors.New("entity: version conflict")
	// ErrValidation: a value broke a declared rule (Required, Enum,
	// Bounds, Check). Returned inside a *table.InputError; nothing is sent,
	// or, for a rule only DynamoDB could check (an Add or Append under
	// Bounds), nothing is written: the *table.InputError is then the Err of
	// the refused write's *table.Error.
	ErrValidation = errors.New("entity: validation failed")
	// ErrIndexKey: an update would write one key of a secondary index
	// without the other, which it cannot build (it does not set the
	// attributes that key is built from), where a Put of the item would
	// write both or neither. Returned inside a *table.InputError naming
	// those attributes; nothing is written. See "Index keys on updates" in
	// the package documentation.
	ErrIndexKey = errors.New("entity: index key cannot be built")
	// ErrNoEntity: the *Entity or *Registry is nil or was not made by New
	// or NewRegistry.
	ErrNoEntity = errors.New("entity: not made by New")
	// ErrUnknownItem: an item matches none of a registry's entities
	// (Registry.Decode, a collection read).
	ErrUnknownItem = errors.New("entity: item of no declared entity")
)

// DeclarationError reports a declaration New refused: which entity, which
// option and why.
type DeclarationError struct {
	Entity string // the entity's name
	Option string // "Key", "Index GSI1", "Version", ...
	Reason string
	Err    error // a more specific cause (a keys error), when there is one
}

func (e *DeclarationError) Error() string {
	s := fmt.Sprintf("entity: %s: %s: %s", e.Entity, e.Option, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap gives ErrDeclaration and the cause.
func (e *DeclarationError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrDeclaration}
	}
	return []error{ErrDeclaration, e.Err}
}

func declError(entity, option, reason string) error {
	return &DeclarationError{Entity: entity, Option: option, Reason: reason}
}

// inputError is bad input found before any request.
func inputError(field, value, reason string, sentinel error) error {
	return &table.InputError{Field: field, Value: value, Reason: reason, Err: sentinel}
}

// keyInputError turns a keys error (an empty or delimiter-holding key
// part) into the *table.InputError every bad input is, keeping the keys
// error reachable.
func keyInputError(entity, field string, err error) error {
	return &table.InputError{Field: entity + "." + field, Reason: err.Error(), Err: err}
}

func noEntity() error {
	return &table.InputError{Field: "entity", Value: "nil", Reason: "Entity not made by New", Err: ErrNoEntity}
}
