package blobstore

import (
	"errors"
	"fmt"
	"strings"
)

// ErrKeyMismatch: KeyTemplate.Parse was given a key that the template's
// Build cannot write (another layout, or an id segment that is not in the
// canonical escaped form).
var ErrKeyMismatch = errors.New("blobstore: key does not match the template")

// MaxSegmentLength is the longest path segment (the text between two '/')
// a built key may hold: 255 bytes, the file-name limit of Linux and most
// file systems, which every store applies (see ValidateKey).
const MaxSegmentLength = maxSegment

// KeyTemplate builds object keys from ids, one-to-one: two different
// tuples of ids never build the same key, and Parse reads the ids back.
//
// A pattern is '/'-separated segments. A segment is a literal (pipelines,
// exections, output.txt) or holds exactly one placeholder {name}, with an
// optional literal prefix and suffix ({stepId}.json, report-{id}.txt):
//
//	var outputKey = blobstore.MustKeyTemplate(
//		"pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt")
//
// Literals are written as they stand, so a seed's folder names (typos
// included) are kept. Every value is escaped with EscapeSegment before it
// takes its placeholder's place, so no value can add a '/', leave its
// folder with "..", or look like another value's escape. Values made only of
// the characters A-Z a-z 0-9 '_' '-' '.' (other than "." and "..") are
// written unchanged: for such ids the keys are exactly the seed's keys, and
// buckets written before this template existed keep working.
//
// Build refuses with a *KeyError (ErrInvalidKey), before any I/O, what it
// cannot write: an empty value, a segment longer than MaxSegmentLength, a
// key longer than MaxKeyLength. Every key Build returns passes ValidateKey
// and the stricter rules of Dir. A KeyTemplate is safe for concurrent use.
type KeyTemplate struct {
	pattern string
	segs    []keySegment
	names   []string
}

// keySegment is one '/'-separated part of a pattern: a literal when hole is
// false, otherwise prefix + escaped value + suffix.
type keySegment struct {
	hole           bool
	prefix, suffix string
	name           string
}

// NewKeyTemplate compiles a pattern (see KeyTemplate). A pattern is
// refused when a segment is empty, "." or "..", holds more than one
// placeholder, a backslash, a NUL or a stray brace, when two placeholders
// share a name, or when the first segment is Dir's reserved ".blobstore".
func NewKeyTemplate(pattern string) (*KeyTemplate, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("blobstore: key template %q: %s", pattern, fmt.Sprintf(format, args...))
	}
	if pattern == "" {
		return nil, bad("empty")
	}
	t := &KeyTemplate{pattern: pattern}
	seen := map[string]bool{}
	for i, text := range strings.Split(pattern, "/") {
		open, close := strings.Count(text, "{"), strings.Count(text, "}")
		switch {
		case text == "" || text == "." || text == "..":
			return nil, bad("segment %d is %q, which no file path can hold", i, text)
		case strings.ContainsAny(text, "\\\x00"):
			return nil, bad("segment %q holds a backslash or NUL", text)
		case i == 0 && text == dirInternal:
			return nil, bad("%q is reserved for the directory store's own files", dirInternal)
		case open == 0 && close == 0:
			t.segs = append(t.segs, keySegment{prefix: text})
			continue
		case open != 1 || close != 1:
			return nil, bad("segment %q: at most one placeholder {name} per segment", text)
		}
		start, end := strings.IndexByte(text, '{'), strings.IndexByte(text, '}')
		if end < start || !isPlaceholderName(text[start+1:end]) {
			return nil, bad("segment %q: a placeholder is {name} with name of letters, digits and '_'", text)
		}
		name := text[start+1 : end]
		if seen[name] {
			return nil, bad("placeholder {%s} appears twice", name)
		}
		seen[name] = true
		t.segs = append(t.segs, keySegment{hole: true, prefix: text[:start], suffix: text[end+1:], name: name})
		t.names = append(t.names, name)
	}
	// Whatever the values, a built key differs from this sample only inside
	// escaped holes, which hold no '/', so the sample passing Dir's rules
	// means every built key within the length limits does.
	sample := make([]string, len(t.names))
	for i := range sample {
		sample[i] = "x"
	}
	if key, err := t.write(sample, len(t.segs)); err != nil {
		return nil, bad("%v", err)
	} else if err := ValidateKey(key); err != nil {
		return nil, bad("%v", err)
	}
	return t, nil
}

// MustKeyTemplate is NewKeyTemplate for package-level variables: it panics
// on a bad pattern, which is a programming error found by the first test
// that loads the package.
func MustKeyTemplate(pattern string) *KeyTemplate {
	t, err := NewKeyTemplate(pattern)
	if err != nil {
		panic(err)
	}
	return t
}

func isPlaceholderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// String returns the pattern.
func (t *KeyTemplate) String() string {
	if t == nil {
		return "<nil>"
	}
	return t.pattern
}

// Names returns the placeholder names in the order Build takes their values.
func (t *KeyTemplate) Names() []string {
	if t == nil {
		return nil
	}
	return append([]string(nil), t.names...)
}

// Build writes the key for values, one per placeholder in pattern order.
func (t *KeyTemplate) Build(values ...string) (string, error) {
	if t == nil {
		return "", &KeyError{Key: "", Reason: "nil KeyTemplate", Err: ErrInvalidKey}
	}
	if len(values) != len(t.names) {
		return "", t.keyError("", "%d values for %d placeholders %v", len(values), len(t.names), t.names)
	}
	return t.write(values, len(t.segs))
}

// Prefix returns the key prefix shared by every key whose first
// placeholders hold values (fewer values than placeholders): the pattern's
// text up to and including the segment of the last given value, and the
// '/' after it. Because values are escaped, the prefix of pipeline "a"
// never matches a key of pipeline "a/b": List(ctx, t.Prefix("a")) reads
// only keys built with "a". With no values it is the literal text before
// the first placeholder's segment.
func (t *KeyTemplate) Prefix(values ...string) (string, error) {
	if t == nil {
		return "", &KeyError{Key: "", Reason: "nil KeyTemplate", Err: ErrInvalidKey}
	}
	if len(values) >= len(t.names) {
		return "", t.keyError("", "a prefix takes fewer values than the %d placeholders %v; got %d", len(t.names), t.names, len(values))
	}
	// n: the segments before the first placeholder, or through the
	// segment of the last given value.
	n, holes := 0, 0
	for ; n < len(t.segs); n++ {
		if !t.segs[n].hole {
			continue
		}
		if holes == len(values) {
			break
		}
		if holes++; holes == len(values) {
			n++
			break
		}
	}
	key, err := t.write(values, n)
	if err != nil {
		return "", err
	}
	if key == "" {
		return "", nil
	}
	return key + "/", nil
}

// write joins the first n segments, filling holes from values in order.
func (t *KeyTemplate) write(values []string, n int) (string, error) {
	var b strings.Builder
	v := 0
	for i, s := range t.segs[:n] {
		if i > 0 {
			b.WriteByte('/')
		}
		if !s.hole {
			b.WriteString(s.prefix)
			continue
		}
		value := values[v]
		v++
		if value == "" {
			return "", t.keyError("", "part %q is empty", s.name)
		}
		seg := s.prefix + EscapeSegment(value) + s.suffix
		switch {
		case len(seg) > MaxSegmentLength:
			return "", t.keyError(truncate(value), "part %q escapes to a segment of %d bytes, more than the %d a file name may have",
				s.name, len(seg), MaxSegmentLength)
		case i == 0 && seg == dirInternal:
			return "", t.keyError(value, "part %q makes the first segment %q, reserved for the directory store's own files", s.name, dirInternal)
		}
		b.WriteString(seg)
	}
	key := b.String()
	if len(key) > MaxKeyLength {
		return "", t.keyError(truncate(key), "%d bytes, more than the %d S3 allows", len(key), MaxKeyLength)
	}
	return key, nil
}

func (t *KeyTemplate) keyError(key, format string, args ...any) error {
	return &KeyError{Key: key, Reason: t.pattern + ": " + fmt.Sprintf(format, args...), Err: ErrInvalidKey}
}

// Parse reads back the values Build wrote into key, in placeholder order.
// It accepts exactly the keys Build can write; any other key (another
// layout, a value not in EscapeSegment's canonical form) fails with an
// error wrapping ErrKeyMismatch, so Parse never returns the ids of a key
// that some other tuple of ids would build.
func (t *KeyTemplate) Parse(key string) ([]string, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil KeyTemplate", ErrKeyMismatch)
	}
	mismatch := func(why string) error {
		return fmt.Errorf("%w: %q is not %s: %s", ErrKeyMismatch, truncate(key), t.pattern, why)
	}
	parts := strings.Split(key, "/")
	if len(parts) != len(t.segs) {
		return nil, mismatch(fmt.Sprintf("%d segments, want %d", len(parts), len(t.segs)))
	}
	values := make([]string, 0, len(t.names))
	for i, s := range t.segs {
		p := parts[i]
		if !s.hole {
			if p != s.prefix {
				return nil, mismatch(fmt.Sprintf("segment %d is %q, want %q", i, p, s.prefix))
			}
			continue
		}
		if len(p) <= len(s.prefix)+len(s.suffix) || !strings.HasPrefix(p, s.prefix) || !strings.HasSuffix(p, s.suffix) {
			return nil, mismatch(fmt.Sprintf("segment %d %q does not hold %s{%s}%s", i, p, s.prefix, s.name, s.suffix))
		}
		v, err := UnescapeSegment(p[len(s.prefix) : len(p)-len(s.suffix)])
		if err != nil {
			return nil, mismatch(fmt.Sprintf("part %q: %v", s.name, err))
		}
		values = append(values, v)
	}
	return values, nil
}

// Match reports whether Parse accepts key.
func (t *KeyTemplate) Match(key string) bool {
	_, err := t.Parse(key)
	return err == nil
}

// EscapeSegment escapes an id so that it can stand as one path segment of
// an object key and be read back unchanged. The bytes A-Z a-z 0-9 '_' '-'
// and '.' stay as they are; every other byte (including '/', '%', control
// characters, spaces and each byte of a multi-byte UTF-8 character)
// becomes %XX, upper-case hex. The values "." and ".." become "%2E" and
// "%2E%2E", so no id names the current or parent folder. The mapping is
// one-to-one, and the result holds no '/' and is never ".", ".." or empty
// unless s is empty.
//
// Escaping byte-wise, not by character, keeps the mapping one-to-one for
// every byte string: "é" written precomposed (%C3%A9) and decomposed
// (e%CC%81) stay two keys, as they are two ids.
func EscapeSegment(s string) string {
	dots := s == "." || s == ".."
	n := 0
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) || dots {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plainByte(c) && !dots {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return string(b)
}

// UnescapeSegment is the inverse of EscapeSegment. It accepts only what
// EscapeSegment writes (upper-case hex, no needless escapes), so that each
// id has exactly one escaped form; anything else is an error.
func UnescapeSegment(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty segment")
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			if !plainByte(c) {
				return "", fmt.Errorf("byte %q at %d must be escaped", c, i)
			}
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("truncated escape at %d", i)
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", fmt.Errorf("bad escape %q at %d (upper-case hex)", s[i:i+3], i)
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	out := string(b)
	if EscapeSegment(out) != s {
		return "", fmt.Errorf("%q is not the canonical escape of %q (%q)", s, out, EscapeSegment(out))
	}
	return out, nil
}

// plainByte reports the bytes EscapeSegment keeps: those of ids in the
// seeds, and safe in S3 keys, URLs and file names everywhere.
func plainByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
