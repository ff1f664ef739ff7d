package wire

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a request body. DynamoDB allows documents 32
// levels deep, which is about 70 levels of JSON with the request around them;
// the bound leaves the engine room to answer deeper documents with its own
// ValidationException and keeps a hostile body from exhausting the stack.
const maxDepth = 512

// DecodeError reports a request body that is not JSON, or whose JSON types do
// not fit the operation's input shape. DynamoDB answers these with
// SerializationException.
type DecodeError struct {
	Offset int // byte offset in the body
	Msg    string
	// Java is DynamoDB's own message for the error, in the words of the
	// Java framework that reads its requests ("TRUE_VALUE cannot be
	// converted to String"), when the decoder knows it; empty otherwise.
	Java string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("wire: %s at offset %d", e.Msg, e.Offset)
}

// ValidationError reports well-formed JSON that DynamoDB rejects while reading
// the request: an AttributeValue with no member or with several. Message is
// DynamoDB's wording.
type ValidationError struct {
	Message string
}

func (e *ValidationError) Error() string { return "wire: " + e.Message }

// Unmarshal decodes the JSON in data into v, which must be a non-nil pointer
// to a struct such as *dynamodb.GetItemInput. Members v does not have are
// skipped. The error is a *DecodeError, or a *ValidationError for the first
// AttributeValue with no member or several.
func Unmarshal(data []byte, v any) error {
	_, err := unmarshal(data, v, true)
	return err
}

// UnmarshalDeferred is Unmarshal for a server that reports a request's
// other faults before its attribute values, as DynamoDB does: an
// AttributeValue with no member or several decodes as attr.Invalid (see
// attributeValue) and is no error here; invalid says whether v holds one.
func UnmarshalDeferred(data []byte, v any) (invalid bool, err error) {
	return unmarshal(data, v, false)
}

// unmarshal decodes data into v and reports whether it decoded an
// attr.Invalid.
func unmarshal(data []byte, v any, strict bool) (bool, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false, fmt.Errorf("wire: Unmarshal needs a non-nil pointer, not %T", v)
	}
	d := decoder{data: data, strict: strict}
	if err := d.value(codecFor(rv.Type().Elem()), rv.Elem()); err != nil {
		return d.invalid, err
	}
	d.space()
	if d.pos != len(d.data) {
		return d.invalid, d.errorf("unexpected data after the top-level value")
	}
	return d.invalid, nil
}

// decoder reads JSON from data; pos is the next unread byte.
type decoder struct {
	data    []byte
	pos     int
	scratch []byte // unescaped member names
	depth   int32
	// strict: an AttributeValue with no member or several is a
	// *ValidationError rather than attr.Invalid; invalid says one was
	// decoded.
	strict, invalid bool
	// elem: the value being read is an element of a list or a map's
	// value, not a structure's member (DynamoDB words a mistyped
	// container by where it is; see container).
	elem bool
}

func (d *decoder) errorf(format string, args ...any) error {
	return &DecodeError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end of the body.
func (d *decoder) peek() byte {
	d.space()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func describe(c byte) string {
	switch {
	case c == 0:
		return "end of body"
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "number"
	}
	return strconv.QuoteRune(rune(c))
}

// enter consumes the opening '{' or '[' of a container.
func (d *decoder) enter(open byte) error {
	if c := d.peek(); c != open {
		want := "object"
		if open == '[' {
			want = "array"
		}
		return d.errorf("expected %s, found %s", want, describe(c))
	}
	d.pos++
	d.depth++
	if d.depth > maxDepth {
		return d.errorf("nesting deeper than %d levels", maxDepth)
	}
	return nil
}

// more reports whether the container has an i'th element, consuming the comma
// before it or the closing byte after the last one.
func (d *decoder) more(i int, closing byte) (bool, error) {
	c := d.peek()
	if c == closing {
		d.pos++
		d.depth--
		return false, nil
	}
	if i == 0 {
		return true, nil
	}
	if c != ',' {
		return false, d.errorf("expected ',' or %q, found %s", closing, describe(c))
	}
	d.pos++
	return true, nil
}

// value decodes one JSON value into v with c; null leaves v at its zero value,
// as the protocol treats a null member as an absent one.
func (d *decoder) value(c *codec, v reflect.Value) error {
	if d.peek() == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		v.SetZero()
		return nil
	}
	return c.dec(d, v)
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.errorf("invalid literal, expected %s", lit)
	}
	d.pos += len(lit)
	return nil
}

// isNull consumes a null and reports whether there was one.
func (d *decoder) isNull() (bool, error) {
	if d.peek() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

// keyBytes reads a member name and its colon. The bytes are valid until the
// next call.
func (d *decoder) keyBytes() ([]byte, error) {
	if c := d.peek(); c != '"' {
		return nil, d.errorf("expected member name, found %s", describe(c))
	}
	raw, escaped, err := d.rawString()
	if err != nil {
		return nil, err
	}
	if escaped {
		d.scratch, err = d.unescape(d.scratch[:0], raw)
		if err != nil {
			return nil, err
		}
		raw = d.scratch
	}
	if c := d.peek(); c != ':' {
		return nil, d.errorf("expected ':' after member name, found %s", describe(c))
	}
	d.pos++
	return raw, nil
}

func (d *decoder) key() (string, error) {
	b, err := d.keyBytes()
	return string(b), err
}

// rawString consumes a JSON string and returns the bytes between its quotes
// (escapes not yet resolved) and whether it holds any escape. It checks that
// the string has no raw control characters and is valid UTF-8.
func (d *decoder) rawString() ([]byte, bool, error) {
	d.pos++ // opening quote, checked by the caller
	start := d.pos
	escaped := false
	ascii := true
	for d.pos < len(d.data) {
		if d.pos+8 <= len(d.data) {
			if x := load8b(d.data[d.pos:]); !special(x) {
				if x&highBits != 0 {
					ascii = false
				}
				d.pos += 8
				continue
			}
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			raw := d.data[start:d.pos]
			d.pos++
			if !ascii && !utf8.Valid(raw) {
				return nil, false, &DecodeError{Offset: start, Msg: "string is not valid UTF-8"}
			}
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			d.pos += 2
		case c < 0x20:
			return nil, false, d.errorf("control character in string")
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			d.pos++
		}
	}
	d.pos = len(d.data)
	return nil, false, d.errorf("unterminated string")
}

// unescape appends the text of raw, with its escapes resolved, to dst.
func (d *decoder) unescape(dst, raw []byte) ([]byte, error) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return nil, d.errorf("invalid escape in string")
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			dst = append(dst, raw[i+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				return nil, d.errorf("invalid \\u escape in string")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A lone surrogate cannot be UTF-8; it becomes U+FFFD, as
				// encoding/json does.
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2, ok := hex4(raw[i+2:]); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							dst = utf8.AppendRune(dst, pair)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return nil, d.errorf("invalid escape in string")
		}
		i += 2
	}
	return dst, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// str reads a JSON string.
func (d *decoder) str() (string, error) {
	if c := d.peek(); c != '"' {
		return "", d.mismatch("String", "expected string, found "+describe(c))
	}
	raw, escaped, err := d.rawString()
	if err != nil {
		return "", err
	}
	if !escaped {
		return string(raw), nil
	}
	b, err := d.unescape(make([]byte, 0, len(raw)), raw)
	return string(b), err
}

// blob reads a base64 JSON string.
func (d *decoder) blob() ([]byte, error) {
	if c := d.peek(); c != '"' {
		// DynamoDB's words, as mismatch's (assertType's Blob table).
		err := &DecodeError{Offset: d.pos, Msg: "expected base64 string, found " + describe(c)}
		switch c {
		case '[':
			err.Java = "Unrecognized collection type class java.nio.ByteBuffer"
		case '{':
			err.Java = "Start of structure or map found where not expected"
		default:
			err.Java = "only base-64-encoded strings are convertible to bytes"
		}
		return nil, err
	}
	start := d.pos
	raw, escaped, err := d.rawString()
	if err != nil {
		return nil, err
	}
	if escaped {
		if raw, err = d.unescape(nil, raw); err != nil {
			return nil, err
		}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(out, raw)
	if err != nil {
		de := &DecodeError{Offset: start, Msg: "invalid base64: " + err.Error()}
		if len(raw)%4 != 0 {
			de.Java = fmt.Sprintf("Base64 encoded length is expected a multiple of 4 bytes but found: %d", len(raw))
		}
		return nil, de
	}
	return out[:n], nil
}

// number reads a JSON number and returns its text.
func (d *decoder) number() ([]byte, error) {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		return nil, d.errorf("expected number, found %s", describe(c))
	}
	start := d.pos
	if c == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	intStart := d.pos
	if n := digits(); n == 0 || n > 1 && d.data[intStart] == '0' {
		return nil, d.errorf("invalid number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	return d.data[start:d.pos], nil
}

// skip consumes one JSON value of any type, checking its syntax.
func (d *decoder) skip() error {
	switch c := d.peek(); {
	case c == '{':
		if err := d.enter('{'); err != nil {
			return err
		}
		for i := 0; ; i++ {
			if more, err := d.more(i, '}'); !more {
				return err
			}
			if _, err := d.keyBytes(); err != nil {
				return err
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	case c == '[':
		if err := d.enter('['); err != nil {
			return err
		}
		for i := 0; ; i++ {
			if more, err := d.more(i, ']'); !more {
				return err
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	case c == '"':
		raw, escaped, err := d.rawString()
		if err == nil && escaped {
			// Check the escapes, so a bad one is reported wherever it is.
			d.scratch, err = d.unescape(d.scratch[:0], raw)
		}
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	default:
		_, err := d.number()
		return err
	}
}

func (d *decoder) boolean() (bool, error) {
	switch c := d.peek(); c {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	default:
		return false, d.mismatch("Boolean", "expected boolean, found "+describe(c))
	}
}

// javaPackage is where DynamoDB's model classes live, as its messages name
// them.
const javaPackage = "com.amazonaws.dynamodb.v20120810."

// castMessage is what DynamoDB's framework says of a scalar where a list
// or a map nested in another collection belongs.
const castMessage = "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class " +
	"(sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of loader 'bootstrap')"

// Container kinds, as container words them.
const (
	kindList = iota
	kindMap
	kindStruct
)

// container is the error for a value of the wrong JSON type where a list,
// a map or a structure belongs: err is the decoder's, and Java DynamoDB's
// words for it (dynalite's tests written against DynamoDB, assertType's
// List, Map, FieldStruct, ValueStruct and Parameterized tables). elem is
// whether the value is a collection's element; java the Java type an
// array is reported as (a map's or a structure's).
func (d *decoder) container(err error, kind int, elem bool, java string) error {
	de, ok := err.(*DecodeError)
	if !ok {
		return err
	}
	switch c := d.peek(); {
	case c == '{':
		de.Java = "Start of structure or map found where not expected"
	case c == '[':
		if kind == kindMap {
			de.Java = "Unrecognized collection type java.util.Map<java.lang.String, " + java + ">"
		} else {
			de.Java = "Unrecognized collection type class " + java
		}
	case c == '"' || c == 't' || c == 'f' || c == '-' || c >= '0' && c <= '9':
		switch {
		case elem && kind != kindStruct:
			de.Java = castMessage
		case elem:
			de.Java = "Unexpected value type in payload"
		default:
			de.Java = "Unexpected field type"
		}
	}
	return de
}

// mismatch is the error for a value of the wrong JSON type where a member
// of Java type javaType (String, Boolean, Integer, Long) belongs, msg in
// the decoder's words and Java in DynamoDB's (dynalite's tests written
// against DynamoDB, assertType).
func (d *decoder) mismatch(javaType, msg string) error {
	err := &DecodeError{Offset: d.pos, Msg: msg}
	switch c := d.peek(); {
	case c == 't':
		err.Java = "TRUE_VALUE cannot be converted to " + javaType
	case c == 'f':
		err.Java = "FALSE_VALUE cannot be converted to " + javaType
	case c == '-' || c >= '0' && c <= '9':
		kind := "NUMBER_VALUE"
		for i := d.pos; i < len(d.data) && strings.IndexByte("-+.eE0123456789", d.data[i]) >= 0; i++ {
			if c := d.data[i]; c == '.' || c == 'e' || c == 'E' {
				kind = "DECIMAL_VALUE"
			}
		}
		err.Java = kind + " cannot be converted to " + javaType
	case c == '"' && javaType == "Boolean":
		err.Java = "Unexpected token received from parser"
	case c == '"':
		err.Java = "STRING_VALUE cannot be converted to " + javaType
	case c == '[':
		err.Java = "Unrecognized collection type class java.lang." + javaType
	case c == '{':
		err.Java = "Start of structure or map found where not expected"
	}
	return err
}

func decodeString(d *decoder, v reflect.Value) error {
	s, err := d.str()
	if err != nil {
		return err
	}
	v.SetString(s)
	return nil
}

func decodeBool(d *decoder, v reflect.Value) error {
	b, err := d.boolean()
	if err != nil {
		return err
	}
	v.SetBool(b)
	return nil
}

func decodeBytes(d *decoder, v reflect.Value) error {
	b, err := d.blob()
	if err != nil {
		return err
	}
	v.SetBytes(b)
	return nil
}

// decodeInt reads an integer that fits in bits; a fraction or an exponent is
// a type error, as it is for DynamoDB's Integer members.
func decodeInt(d *decoder, v reflect.Value, bits int) error {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		javaType := "Long"
		if bits <= 32 {
			javaType = "Integer"
		}
		return d.mismatch(javaType, "expected number, found "+describe(c))
	}
	start := d.pos
	tok, err := d.number()
	if err != nil {
		return err
	}
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	var n uint64
	for _, c := range tok {
		if c < '0' || c > '9' {
			return &DecodeError{Offset: start, Msg: "expected integer, found " + string(d.data[start:d.pos])}
		}
		if n > (math.MaxUint64-9)/10 {
			return &DecodeError{Offset: start, Msg: "integer out of range"}
		}
		n = n*10 + uint64(c-'0')
	}
	limit := uint64(1) << (bits - 1)
	if !neg && n >= limit || neg && n > limit {
		return &DecodeError{Offset: start, Msg: fmt.Sprintf("integer %s out of range for %d bits", d.data[start:d.pos], bits)}
	}
	i := int64(n)
	if neg {
		i = -i
	}
	v.SetInt(i)
	return nil
}

// decodeFloat reads a number, or the strings "NaN", "Infinity" and
// "-Infinity" that the protocol uses for the values JSON cannot write.
func decodeFloat(d *decoder, v reflect.Value, bits int) error {
	if d.peek() == '"' {
		s, err := d.str()
		if err != nil {
			return err
		}
		switch s {
		case "NaN":
			v.SetFloat(math.NaN())
		case "Infinity":
			v.SetFloat(math.Inf(1))
		case "-Infinity":
			v.SetFloat(math.Inf(-1))
		default:
			return d.errorf("expected number, found string %q", s)
		}
		return nil
	}
	start := d.pos
	tok, err := d.number()
	if err != nil {
		return err
	}
	f, err := strconv.ParseFloat(string(tok), bits)
	if err != nil {
		return &DecodeError{Offset: start, Msg: "number out of range"}
	}
	v.SetFloat(f)
	return nil
}

// decodeTime reads epoch seconds. The fraction is read as decimal digits, not
// through a float, so milliseconds survive exactly.
func decodeTime(d *decoder, v reflect.Value) error {
	start := d.pos
	tok, err := d.number()
	if err != nil {
		return err
	}
	var sec, nsec int64
	neg := tok[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		if sec > (math.MaxInt64-9)/10 {
			return &DecodeError{Offset: start, Msg: "timestamp out of range"}
		}
		sec = sec*10 + int64(tok[i]-'0')
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		scale := int64(1e8)
		for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			nsec += int64(tok[i]-'0') * scale
			scale /= 10
		}
	}
	if i < len(tok) {
		// An exponent: rare enough to go through a float.
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil || math.Abs(f) > 1<<62 {
			return &DecodeError{Offset: start, Msg: "timestamp out of range"}
		}
		whole := math.Floor(f)
		v.Set(reflect.ValueOf(time.Unix(int64(whole), int64((f-whole)*1e9)).UTC()))
		return nil
	}
	if neg {
		sec, nsec = -sec, -nsec
	}
	v.Set(reflect.ValueOf(time.Unix(sec, nsec).UTC()))
	return nil
}
