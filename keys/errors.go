package keys

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error this package returns is an *Error whose Err
// is one of these, so callers test the cause with errors.Is and read the
// template, part and value with errors.As.
var (
	// ErrEmpty: a string part is "" or a time part is the zero time.Time.
	// DynamoDB rejects empty key strings, and an empty part between two
	// delimiters would make "STAGE##x" a key of no entity.
	ErrEmpty = errors.New("keys: empty part")
	// ErrDelimiter: a string part holds the template's delimiter, so the key
	// would parse back into other parts (a user id "abc#STAGE" would land in
	// the STAGE# range of the same partition).
	ErrDelimiter = errors.New("keys: part holds the delimiter")
	// ErrInvalidUTF8: DynamoDB string attributes must be valid UTF-8.
	ErrInvalidUTF8 = errors.New("keys: part is not valid UTF-8")
	// ErrTooLong: the key would exceed DynamoDB's limit (2048 bytes for a
	// partition key, 1024 for a sort key).
	ErrTooLong = errors.New("keys: key too long")
	// ErrOverflow: an integer needs more digits than its width, or a time's
	// year is outside 0000-9999; either would break the key's sort order.
	ErrOverflow = errors.New("keys: value does not fit its width")
	// ErrNegative: an integer part is negative; "-1" would not sort before "00".
	ErrNegative = errors.New("keys: negative integer")
	// ErrType: a value's type does not suit its placeholder.
	ErrType = errors.New("keys: wrong value type")
	// ErrArity: Build got a number of values other than the template's
	// placeholders, or Prefix got more.
	ErrArity = errors.New("keys: wrong number of values")
	// ErrMismatch: Parse (or ParseTime) was given a string of another shape.
	ErrMismatch = errors.New("keys: key does not match template")
	// ErrPattern: Partition or Sort was given a pattern or delimiter it
	// cannot build unambiguous keys from.
	ErrPattern = errors.New("keys: invalid pattern")
	// ErrNilTemplate: Build, Prefix or Parse was called on a nil
	// *Template.
	ErrNilTemplate = errors.New("keys: nil template")
)

// Error reports a key, part or pattern that was rejected. Its message names
// the template, the part and the value:
//
//	keys: STAGE#{order:02d}#{stageId}: part "order": 100 does not fit width 2
type Error struct {
	Template string // the template's pattern ("" for FormatTime/ParseTime)
	Part     string // the placeholder's name ("" when the whole key or pattern is at fault)
	Value    string // the offending value as text, in full
	Err      error  // one of the Err* sentinels

	reason string // what was wrong, with the value; the sentinel's text when empty
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("keys: ")
	if e.Template != "" {
		b.WriteString(e.Template)
		b.WriteString(": ")
	}
	if e.Part != "" {
		b.WriteString("part ")
		b.WriteString(strconv.Quote(e.Part))
		b.WriteString(": ")
	}
	switch {
	case e.reason != "":
		b.WriteString(e.reason)
	case e.Err != nil:
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "keys: "))
		if e.Value != "" {
			b.WriteString(": ")
			b.WriteString(quoteShort(e.Value))
		}
	default:
		b.WriteString("invalid key")
	}
	return b.String()
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// maxQuoted bounds how much of a value a message repeats: a 2 KB key in a
// log line helps nobody, and Error.Value keeps it whole.
const maxQuoted = 64

// quoteShort quotes s for a message, cutting it after maxQuoted bytes on a
// rune boundary when possible.
func quoteShort(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > maxQuoted-4 && cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
