package wire

import (
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Marshal returns the JSON encoding of v, a struct or a pointer to one such
// as *dynamodb.GetItemOutput. A nil pointer encodes as {}, as an operation
// with nothing to say answers.
func Marshal(v any) []byte {
	return Append(nil, v)
}

// Append appends the JSON encoding of v to dst and returns the extended
// buffer, so a server can reuse one buffer across responses.
func Append(dst []byte, v any) []byte {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return append(dst, "{}"...)
	}
	e := encoder{buf: dst}
	codecFor(rv.Type()).enc(&e, rv)
	return e.buf
}

type encoder struct {
	buf []byte
}

func (e *encoder) string(s string) { e.buf = appendString(e.buf, s) }

// float writes f the way encoding/json does (plain decimals for ordinary
// magnitudes, exponents beyond), and NaN and the infinities as the strings the
// protocol reserves for them.
func (e *encoder) float(f float64, bits int) {
	switch {
	case math.IsNaN(f):
		e.buf = append(e.buf, `"NaN"`...)
		return
	case math.IsInf(f, 1):
		e.buf = append(e.buf, `"Infinity"`...)
		return
	case math.IsInf(f, -1):
		e.buf = append(e.buf, `"-Infinity"`...)
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, bits)
}

func encodeString(e *encoder, v reflect.Value) { e.string(v.String()) }

func encodeBool(e *encoder, v reflect.Value) { e.buf = strconv.AppendBool(e.buf, v.Bool()) }

func encodeInt(e *encoder, v reflect.Value) { e.buf = strconv.AppendInt(e.buf, v.Int(), 10) }

func encodeBytes(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.blob(v.Bytes())
}

func (e *encoder) blob(b []byte) {
	e.buf = append(e.buf, '"')
	e.buf = base64.StdEncoding.AppendEncode(e.buf, b)
	e.buf = append(e.buf, '"')
}

// encodeTime writes epoch seconds with milliseconds, DynamoDB's precision.
func encodeTime(e *encoder, v reflect.Value) {
	t := v.Interface().(time.Time)
	ms := t.UnixMilli()
	sec, frac := ms/1000, ms%1000
	if frac < 0 {
		// Before 1970 the remainder is negative; write the sign once.
		e.buf = append(e.buf, '-')
		sec, frac = -sec, -frac
	}
	e.buf = strconv.AppendInt(e.buf, sec, 10)
	if frac != 0 {
		e.buf = append(e.buf, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	}
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, so
// the body is always valid JSON. Unlike encoding/json it leaves <, > and &
// alone: the body is never embedded in HTML.
//
// Quotes and backslashes are found with strings.IndexByte, which the runtime
// vectorises; the bytes before the next of them are then checked for
// control characters and non-ASCII eight at a time. Each search starts where
// the last one ended, so a string full of quotes still costs one pass.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	nextQuote, nextBackslash := indexFrom(s, 0, '"'), indexFrom(s, 0, '\\')
	start := 0
	for i := 0; i < len(s); {
		i += printablePrefix(s[i:min(nextQuote, nextBackslash)])
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', c)
				nextQuote = indexFrom(s, i+1, '"')
			case '\\':
				dst = append(dst, '\\', c)
				nextBackslash = indexFrom(s, i+1, '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendItem appends an item's JSON, {"name":{"S":"..."},...}, to dst.
func AppendItem(dst []byte, item map[string]types.AttributeValue) []byte {
	e := encoder{buf: dst}
	e.item(item)
	return e.buf
}

// AppendString appends s as a JSON string, escaped as the encoder escapes
// every string it writes.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// Verbatim reports whether AppendString writes s unchanged between its
// quotes: s is valid UTF-8 without quotes, backslashes or control
// characters. A store that checks its strings once, when it writes them,
// can then answer every read by copying them.
func Verbatim(s string) bool {
	// As in appendString: the runtime's vectorised IndexByte for quotes and
	// backslashes, then eight bytes at a time for the rest.
	if strings.IndexByte(s, '"') >= 0 || strings.IndexByte(s, '\\') >= 0 {
		return false
	}
	i := printablePrefix(s) // all printable ASCII before i
	ascii := true
	for _, c := range []byte(s[i:]) {
		if c < 0x20 {
			return false
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	return ascii || utf8.ValidString(s[i:])
}

// indexFrom is the index of the first c in s at or after from, or len(s).
func indexFrom(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}
