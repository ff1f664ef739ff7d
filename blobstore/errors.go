package blobstore

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every Store returns these (wrapped) so callers test with
// errors.Is whatever the backend; the backend's own error, when there is
// one, stays reachable through errors.As.
var (
	// ErrNotFound: no object under the key (Get, Head).
	ErrNotFound = errors.New("blobstore: not found")
	// ErrInvalidKey: the key breaks the portable key rules (see ValidateKey)
	// or, for Dir, would leave the store's root. Returned as *KeyError.
	ErrInvalidKey = errors.New("blobstore: invalid key")
	// ErrUnsupported: the store cannot do this operation (for example
	// presigning on a Memory or Dir store that serves no URLs).
	ErrUnsupported = errors.New("blobstore: unsupported operation")
	// ErrInvalidRange: a negative offset or length, or an offset past the end
	// of the object.
	ErrInvalidRange = errors.New("blobstore: invalid range")
	// ErrInvalidExpiry: a presign expiry that is not positive or exceeds
	// MaxPresignExpiry.
	ErrInvalidExpiry = errors.New("blobstore: invalid presign expiry")
	// ErrInvalidMetadata: a metadata key or value S3 cannot carry portably.
	ErrInvalidMetadata = errors.New("blobstore: invalid metadata")
	// ErrSizeMismatch: PutOptions.Size was set and the body was longer or
	// shorter. Nothing is stored.
	ErrSizeMismatch = errors.New("blobstore: body size does not match PutOptions.Size")
	// ErrChecksumMismatch: an offloaded attribute's object does not have the
	// size or SHA-256 its pointer records (it was changed or truncated
	// behind the Offloader's back).
	ErrChecksumMismatch = errors.New("blobstore: object does not match its pointer's checksum")
	// ErrInvalidInput: a nil or out-of-range argument or option (a nil
	// client, store, context or body; a negative part size). Returned as
	// *InputError; nothing was sent or stored.
	ErrInvalidInput = errors.New("blobstore: invalid input")
)

// InputError reports an argument or option refused before any I/O.
type InputError struct {
	Field  string // "client", "Options.PartSize", "body", ...
	Value  string // the refused value, as text
	Reason string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("blobstore: invalid %s %s: %s", e.Field, e.Value, e.Reason)
}

func (e *InputError) Unwrap() error { return ErrInvalidInput }

func inputError(field string, value any, reason string) error {
	return &InputError{Field: field, Value: fmt.Sprint(value), Reason: reason}
}

// KeyError reports a key that was refused before any I/O, and why.
type KeyError struct {
	Key    string
	Reason string
	Err    error // ErrInvalidKey
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("blobstore: invalid key %q: %s", e.Key, e.Reason)
}

func (e *KeyError) Unwrap() error { return e.Err }

func keyError(key, format string, args ...any) error {
	return &KeyError{Key: key, Reason: fmt.Sprintf(format, args...), Err: ErrInvalidKey}
}
