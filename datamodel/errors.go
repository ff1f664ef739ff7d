package datamodel

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error from Estimate, Policy and Measure that is
// caused by the declaration is a *PatternError wrapping one of these (or
// ErrInvalidSchema wrapping the table package's own error).
var (
	ErrInvalidSchema     = errors.New("datamodel: invalid schema")
	ErrUnknownIndex      = errors.New("datamodel: no such index in the schema")
	ErrInvalidSize       = errors.New("datamodel: item size must be positive and at most 400 KB")
	ErrInvalidCount      = errors.New("datamodel: item count must not be negative")
	ErrInvalidRate       = errors.New("datamodel: request rate must not be negative")
	ErrUnknownPattern    = errors.New("datamodel: no access pattern of that name")
	ErrConsistentIndex   = errors.New("datamodel: a global secondary index serves only eventually consistent reads")
	ErrInvalidOperation  = errors.New("datamodel: operation not allowed here")
	ErrDuplicatePattern  = errors.New("datamodel: two access patterns share a name")
	ErrUnnamedPattern    = errors.New("datamodel: access pattern without a name")
	ErrInvalidPartitions = errors.New("datamodel: partition count must not be negative")
	ErrInvalidRetention  = errors.New("datamodel: retention and horizon must not be negative")
	ErrInvalidEntity     = errors.New("datamodel: invalid entity declaration")
	ErrInvalidPopularity = errors.New("datamodel: popularity needs a per-entity key template the patterns name, keys >= 0 and a finite exponent >= 0")
)

// PatternError says which access pattern, and which of its fields, is wrong.
type PatternError struct {
	Table   string
	Pattern string // "" for an error about the schema or the options
	Field   string
	Value   any
	Err     error // one of the sentinels above
}

func (e *PatternError) Error() string {
	where := e.Table
	if e.Pattern != "" {
		where += fmt.Sprintf(": pattern %q", e.Pattern)
	}
	return fmt.Sprintf("%s: %s = %v: %v", where, e.Field, e.Value, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }
