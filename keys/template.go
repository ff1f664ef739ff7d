package keys

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DynamoDB's limits on key attribute values, in UTF-8 bytes.
const (
	MaxPartitionKeyLength = 2048
	MaxSortKeyLength      = 1024
)

// DefaultDelimiter separates segments unless WithDelimiter says otherwise;
// the journey and task-queue designs (docs/systems/journey.md, docs/systems/tasks.md) use it.
const DefaultDelimiter = "#"

// maxIntWidth is the widest {name:0Nd}: every int up to math.MaxInt64 has
// at most 19 digits, and Parts.Int must be able to return what Build took.
const maxIntWidth = 19

// Options configure a Template.
type Options struct {
	// Delimiter separates the pattern's segments and the parts of every
	// key built from it. Default "#". The pipeline design (docs/systems/pipeline.md) uses ":".
	Delimiter string
}

// WithDelimiter sets the delimiter of a template.
func WithDelimiter(d string) func(*Options) {
	return func(o *Options) { o.Delimiter = d }
}

type segmentKind uint8

const (
	literalSegment segmentKind = iota
	stringSegment
	intSegment
	timeSegment
)

type segment struct {
	kind   segmentKind
	text   string // the literal, or the placeholder's name
	width  int    // digits of an intSegment
	casing casing // of a stringSegment
}

// casing is what a string placeholder does to its value's case.
type casing uint8

const (
	keepCase casing = iota
	lowerCase
	upperCase
)

// apply returns s in the casing.
func (c casing) apply(s string) string {
	switch c {
	case lowerCase:
		return strings.ToLower(s)
	case upperCase:
		return strings.ToUpper(s)
	}
	return s
}

// holds reports whether s is already in the casing: what Parse accepts.
func (c casing) holds(s string) bool { return c == keepCase || c.apply(s) == s }

// Template is one key shape, declared once and safe for concurrent use.
type Template struct {
	pattern  string
	delim    string
	maxLen   int
	keyKind  string // "partition" or "sort", for messages
	segments []segment
	slots    []int    // index in segments of each placeholder, in order
	names    []string // placeholder names, in order
	fixedLen int      // bytes of literals, delimiters and fixed-width parts
	strings  int      // number of string placeholders
	overlaps []int    // see delimOverlaps
}

// Partition parses a pattern for a partition key (at most 2048 bytes).
// A pattern the package cannot build unambiguous keys from fails with
// ErrPattern.
func Partition(pattern string, opts ...func(*Options)) (*Template, error) {
	return newTemplate(pattern, MaxPartitionKeyLength, "partition", opts)
}

// Sort parses a pattern for a sort key (at most 1024 bytes).
func Sort(pattern string, opts ...func(*Options)) (*Template, error) {
	return newTemplate(pattern, MaxSortKeyLength, "sort", opts)
}

// MustPartition is Partition for package-level declarations: it panics on a
// bad pattern, which is a programming error found the first time the
// package is loaded.
func MustPartition(pattern string, opts ...func(*Options)) *Template {
	t, err := Partition(pattern, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// MustSort is Sort for package-level declarations; it panics on a bad pattern.
func MustSort(pattern string, opts ...func(*Options)) *Template {
	t, err := Sort(pattern, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

func newTemplate(pattern string, maxLen int, keyKind string, opts []func(*Options)) (*Template, error) {
	o := Options{Delimiter: DefaultDelimiter}
	for _, f := range opts {
		f(&o)
	}
	bad := func(part, reason string) (*Template, error) {
		return nil, &Error{Template: pattern, Part: part, Value: pattern, Err: ErrPattern, reason: reason}
	}
	d := o.Delimiter
	switch {
	case d == "":
		return bad("", "the delimiter is empty")
	case !utf8.ValidString(d):
		return bad("", "the delimiter "+strconv.Quote(d)+" is not valid UTF-8")
	case strings.ContainsAny(d, "{}"):
		return bad("", "the delimiter "+strconv.Quote(d)+" holds a brace")
	case !utf8.ValidString(pattern):
		return bad("", "the pattern is not valid UTF-8")
	}
	t := &Template{pattern: pattern, delim: d, maxLen: maxLen, keyKind: keyKind, overlaps: delimOverlaps(d)}
	seen := map[string]bool{}
	for _, text := range splitOutsideBraces(pattern, d) {
		if text == "" {
			return bad("", "empty segment; every segment between delimiters "+strconv.Quote(d)+" needs a literal or a placeholder")
		}
		if !strings.ContainsAny(text, "{}") {
			// A literal that runs into the delimiter ("A#" + "##") would
			// let the delimiter match one byte early on parse.
			if !t.delimFree(text) {
				return bad("", "literal "+strconv.Quote(text)+" runs into the delimiter "+strconv.Quote(d))
			}
			t.segments = append(t.segments, segment{kind: literalSegment, text: text})
			continue
		}
		if text[0] != '{' || text[len(text)-1] != '}' || strings.Count(text, "{") != 1 || strings.Count(text, "}") != 1 {
			return bad("", "segment "+strconv.Quote(text)+" must be a literal or exactly one {placeholder}")
		}
		seg, reason := parsePlaceholder(text[1 : len(text)-1])
		if reason != "" {
			return bad(seg.text, reason)
		}
		if seen[seg.text] {
			return bad(seg.text, "placeholder appears twice")
		}
		seen[seg.text] = true
		t.slots = append(t.slots, len(t.segments))
		t.names = append(t.names, seg.text)
		t.segments = append(t.segments, seg)
	}
	t.fixedLen = len(d) * (len(t.segments) - 1)
	for _, s := range t.segments {
		switch s.kind {
		case literalSegment:
			t.fixedLen += len(s.text)
		case intSegment:
			t.fixedLen += s.width
		case timeSegment:
			t.fixedLen += timeLen
		case stringSegment:
			t.strings++
		}
	}
	if t.fixedLen+t.strings > maxLen {
		return bad("", "the shortest key is "+strconv.Itoa(t.fixedLen+t.strings)+" bytes, over the "+
			strconv.Itoa(maxLen)+"-byte limit of a DynamoDB "+keyKind+" key")
	}
	return t, nil
}

// splitOutsideBraces splits pattern at d, except inside braces: with the
// delimiter ":" (the pipeline design (docs/systems/pipeline.md)) "{at:time}" is one segment.
func splitOutsideBraces(pattern, d string) []string {
	var out []string
	depth, start, pos := 0, 0, 0
	for {
		j := strings.Index(pattern[pos:], d)
		if j < 0 {
			return append(out, pattern[start:])
		}
		j += pos
		// The delimiter holds no braces, so counting those between
		// occurrences tracks the depth.
		depth += strings.Count(pattern[pos:j], "{") - strings.Count(pattern[pos:j], "}")
		if depth == 0 {
			out = append(out, pattern[start:j])
			start, pos = j+len(d), j+len(d)
		} else {
			pos = j + 1
		}
	}
}

// parsePlaceholder parses the inside of {name}, {name:0Nd}, {name:time},
// {name:lower} or {name:upper}.
func parsePlaceholder(s string) (segment, string) {
	name, spec, hasSpec := strings.Cut(s, ":")
	seg := segment{kind: stringSegment, text: name}
	if !validName(name) {
		return seg, "placeholder name " + strconv.Quote(name) + " must be letters, digits and underscores, not starting with a digit"
	}
	if !hasSpec {
		return seg, ""
	}
	switch spec {
	case "time":
		seg.kind = timeSegment
		return seg, ""
	case "lower":
		seg.casing = lowerCase
		return seg, ""
	case "upper":
		seg.casing = upperCase
		return seg, ""
	}
	// 0Nd: a leading 0 (zero padding is the point), a width, a d.
	if len(spec) >= 3 && spec[0] == '0' && spec[len(spec)-1] == 'd' {
		digits := spec[1 : len(spec)-1]
		w, err := strconv.Atoi(digits)
		if err == nil && digits[0] != '+' && digits[0] != '-' && w >= 1 && w <= maxIntWidth {
			seg.kind = intSegment
			seg.width = w
			return seg, ""
		}
	}
	return seg, "format " + strconv.Quote(spec) + " is not time, lower, upper or 0Nd with N from 1 to " + strconv.Itoa(maxIntWidth)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// delimFree reports whether v can stand before the delimiter without
// making it ambiguous: the delimiter occurs in v+delimiter first at len(v).
// For a one-byte delimiter that just means v does not hold it; a longer one
// must also not start inside v ("a:" before "::" reads as "a" then ":::").
func (t *Template) delimFree(v string) bool {
	if strings.Contains(v, t.delim) {
		return false
	}
	for _, k := range t.overlaps {
		if k <= len(v) && v[len(v)-k:] == t.delim[:k] {
			return false
		}
	}
	return true
}

// delimOverlaps returns each k in 1..len(d)-1 where d could start k bytes
// before the end of a value and still be followed by a whole d: those where
// d[k:] == d[:len(d)-k], i.e. len(d)-k is a border of d. Computed once with
// the KMP prefix function, so a long delimiter costs linear time.
func delimOverlaps(d string) []int {
	if len(d) < 2 {
		return nil
	}
	pi := make([]int, len(d))
	for i := 1; i < len(d); i++ {
		j := pi[i-1]
		for j > 0 && d[i] != d[j] {
			j = pi[j-1]
		}
		if d[i] == d[j] {
			j++
		}
		pi[i] = j
	}
	var out []int
	for b := pi[len(d)-1]; b > 0; b = pi[b-1] {
		out = append(out, len(d)-b)
	}
	return out
}

// Pattern returns the pattern the template was declared with ("" for a
// nil template).
func (t *Template) Pattern() string {
	if t == nil {
		return ""
	}
	return t.pattern
}

// String returns the pattern, so templates print readably; a nil
// template prints as "<nil>", as fmt prints a nil pointer.
func (t *Template) String() string {
	if t == nil {
		return "<nil>"
	}
	return t.pattern
}

// Delimiter returns the template's delimiter ("" for a nil template).
func (t *Template) Delimiter() string {
	if t == nil {
		return ""
	}
	return t.delim
}

// MaxLength returns the longest key the template builds: 2048 bytes for a
// partition key, 1024 for a sort key (0 for a nil template, which builds
// none).
func (t *Template) MaxLength() int {
	if t == nil {
		return 0
	}
	return t.maxLen
}

// Names returns the placeholder names in the order Build takes their
// values (none for a nil template).
func (t *Template) Names() []string {
	if t == nil {
		return nil
	}
	return append([]string(nil), t.names...)
}

// nilError is what Build, Prefix and Parse return on a nil template (a
// template variable declared but never assigned from Partition or Sort):
// an *Error, like every other refusal of this package, never a panic.
func nilError() error {
	return &Error{Err: ErrNilTemplate, reason: "nil *Template: declare it with keys.Partition or keys.Sort"}
}

// part is one placeholder's value, checked and ready to write.
type part struct {
	s  string // string part
	n  uint64 // int part
	tm time.Time
}

// maxStackParts is how many placeholders Build handles without allocating
// a scratch slice; the seeds' longest template has five.
const maxStackParts = 8

// Build returns the key for values, given in the order of Names: strings
// (or any string kind) for {name}, non-negative integers of any integer
// kind for {name:0Nd}, time.Time for {name:time}. Nothing is written for a
// value that would make the key ambiguous, unsortable or longer than
// DynamoDB accepts: the error is an *Error naming the part.
func (t *Template) Build(values ...any) (string, error) {
	if t == nil {
		return "", nilError()
	}
	if len(values) != len(t.slots) {
		return "", t.arityError(len(values), "Build takes")
	}
	var stack [maxStackParts]part
	parts := stack[:0]
	if len(values) > maxStackParts {
		parts = make([]part, 0, len(values))
	}
	parts = parts[:len(values)]
	n, err := t.check(values, parts)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(n)
	t.write(&b, parts, len(t.segments))
	return b.String(), nil
}

// Prefix returns the start of every key whose first len(values)
// placeholders hold values: the leading literals and those values, each
// followed by the delimiter, then any literal segments that come next. With
// no values it is the leading literals ("STAGE#"). Because a string part
// never holds the delimiter, begins_with on the prefix matches exactly the
// keys with those values: RULE#raw_analysis# never matches a rule of stage
// raw_analysis_2.
//
// When the pattern ends before the next placeholder the prefix is a whole
// key (with every value given it is Build's result); begins_with on it
// also matches longer values in the last part, so query such a key with
// equality. A pattern that starts with a placeholder has the prefix "" for
// no values: it matches every key, so leave the sort condition out instead.
func (t *Template) Prefix(values ...any) (string, error) {
	if t == nil {
		return "", nilError()
	}
	if len(values) > len(t.slots) {
		return "", t.arityError(len(values), "Prefix takes at most")
	}
	var stack [maxStackParts]part
	parts := stack[:0]
	if len(values) > maxStackParts {
		parts = make([]part, 0, len(values))
	}
	parts = parts[:len(values)]
	if _, err := t.check(values, parts); err != nil {
		return "", err
	}
	// Segments up to the last given placeholder, then the literals after it.
	end := 0
	if len(values) > 0 {
		end = t.slots[len(values)-1] + 1
	}
	for end < len(t.segments) && t.segments[end].kind == literalSegment {
		end++
	}
	withDelim := end < len(t.segments)
	var b strings.Builder
	b.Grow(t.lengthOf(parts, end, withDelim))
	t.write(&b, parts, end)
	if withDelim && end > 0 {
		b.WriteString(t.delim)
	}
	return b.String(), nil
}

func (t *Template) arityError(got int, what string) error {
	return &Error{Template: t.pattern, Err: ErrArity, Value: strconv.Itoa(got),
		reason: what + " " + strconv.Itoa(len(t.slots)) + " values (" + strings.Join(t.names, ", ") +
			"), got " + strconv.Itoa(got)}
}

// lengthOf returns the bytes write(parts, end) takes, plus a trailing
// delimiter when withDelim and end > 0.
func (t *Template) lengthOf(parts []part, end int, withDelim bool) int {
	n, p := 0, 0
	for i, s := range t.segments[:end] {
		if i > 0 {
			n += len(t.delim)
		}
		switch s.kind {
		case literalSegment:
			n += len(s.text)
		case stringSegment:
			n += len(parts[p].s)
		case intSegment:
			n += s.width
		case timeSegment:
			n += timeLen
		}
		if s.kind != literalSegment {
			p++
		}
	}
	if withDelim && end > 0 {
		n += len(t.delim)
	}
	return n
}

// check converts and validates values into parts and returns the length of
// the whole key those values (completed with one-byte strings, for Prefix)
// would make.
func (t *Template) check(values []any, parts []part) (int, error) {
	// The key's length so far, counting one byte for each string part not
	// given (Prefix): a prefix no key can complete is rejected too.
	n := t.fixedLen + t.strings
	longest := -1
	for i, v := range values {
		seg := t.segments[t.slots[i]]
		p := &parts[i]
		switch seg.kind {
		case stringSegment:
			s, ok := stringValue(v)
			if !ok {
				return 0, t.typeError(seg, v, "a string")
			}
			if seg.casing != keepCase && utf8.ValidString(s) {
				// Cased before the checks: they hold for what is written.
				// (Invalid UTF-8 is refused as it is, not as ToLower would
				// mend it.)
				s = seg.casing.apply(s)
			}
			switch {
			case s == "":
				return 0, t.partError(seg, s, ErrEmpty, "empty string; a key part needs at least one byte")
			case !utf8.ValidString(s):
				return 0, t.partError(seg, s, ErrInvalidUTF8, quoteShort(s)+" is not valid UTF-8")
			case strings.Contains(s, t.delim):
				return 0, t.partError(seg, s, ErrDelimiter, quoteShort(s)+" holds the delimiter "+strconv.Quote(t.delim))
			case len(t.overlaps) > 0 && !t.delimFree(s): // a one-byte delimiter has no overlaps: Contains was the whole check
				return 0, t.partError(seg, s, ErrDelimiter, quoteShort(s)+" runs into the delimiter "+strconv.Quote(t.delim)+
					" that follows it")
			}
			p.s = s
			n += len(s) - 1
			if longest < 0 || len(s) > len(parts[longest].s) {
				longest = i
			}
		case intSegment:
			u, neg, ok := intValue(v)
			if !ok {
				return 0, t.typeError(seg, v, "an integer")
			}
			if neg {
				return 0, t.partError(seg, "-"+strconv.FormatUint(u, 10), ErrNegative,
					"-"+strconv.FormatUint(u, 10)+" is negative; only non-negative integers sort as zero-padded text")
			}
			if digits(u) > seg.width {
				s := strconv.FormatUint(u, 10)
				return 0, t.partError(seg, s, ErrOverflow, s+" does not fit width "+strconv.Itoa(seg.width))
			}
			if u > math.MaxInt {
				// Parts.Int could not give it back.
				s := strconv.FormatUint(u, 10)
				return 0, t.partError(seg, s, ErrOverflow, s+" is larger than the largest int")
			}
			p.n = u
		case timeSegment:
			tm, ok := v.(time.Time)
			if !ok {
				return 0, t.typeError(seg, v, "a time.Time")
			}
			if tm.IsZero() {
				return 0, t.partError(seg, FormatTime(tm), ErrEmpty, "zero time.Time; set the time the key is for")
			}
			if !timeFits(tm) {
				s := tm.UTC().Format(time.RFC3339Nano)
				return 0, t.partError(seg, s, ErrOverflow, s+" is outside years 0000-9999, so it does not fit the fixed-width timestamp")
			}
			p.tm = tm
		}
	}
	if n > t.maxLen {
		// Every string part contributes; name the longest, the one that is
		// out of the ordinary.
		name, val, atLeast := "", "", ""
		if len(values) < len(t.slots) {
			atLeast = "at least "
		}
		if longest >= 0 {
			name, val = t.names[longest], parts[longest].s
		}
		return 0, &Error{Template: t.pattern, Part: name, Value: val, Err: ErrTooLong,
			reason: strconv.Itoa(len(val)) + "-byte value makes the key " + atLeast + strconv.Itoa(n) + " bytes, over the " +
				strconv.Itoa(t.maxLen) + "-byte limit of a DynamoDB " + t.keyKind + " key"}
	}
	return n, nil
}

func (t *Template) partError(seg segment, value string, sentinel error, reason string) error {
	return &Error{Template: t.pattern, Part: seg.text, Value: value, Err: sentinel, reason: reason}
}

func (t *Template) typeError(seg segment, v any, want string) error {
	got := "nil"
	val := ""
	if v != nil {
		got = reflect.TypeOf(v).String()
		val = toText(v)
	}
	return &Error{Template: t.pattern, Part: seg.text, Value: val, Err: ErrType,
		reason: "got " + got + " " + quoteShort(val) + ", want " + want}
}

// write appends the first end segments, with the delimiters between them.
func (t *Template) write(b *strings.Builder, parts []part, end int) {
	var buf [timeLen]byte
	p := 0
	for i, s := range t.segments[:end] {
		if i > 0 {
			b.WriteString(t.delim)
		}
		switch s.kind {
		case literalSegment:
			b.WriteString(s.text)
			continue
		case stringSegment:
			b.WriteString(parts[p].s)
		case intSegment:
			b.Write(appendUintPadded(buf[:0], parts[p].n, s.width))
		case timeSegment:
			out, _ := appendTime(buf[:0], parts[p].tm)
			b.Write(out)
		}
		p++
	}
}

func digits(u uint64) int {
	n := 1
	for u >= 10 {
		u /= 10
		n++
	}
	return n
}

func appendUintPadded(b []byte, u uint64, width int) []byte {
	for i := digits(u); i < width; i++ {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, u, 10)
}

// stringValue accepts string and any type whose kind is string (typed
// enums such as type Status string), nothing else: a fmt.Stringer would
// let a struct or a time slip into a key by accident.
func stringValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "", false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String(), true
	}
	return "", false
}

// intValue returns v's magnitude and sign for any integer kind.
func intValue(v any) (u uint64, neg, ok bool) {
	switch x := v.(type) {
	case int:
		return abs(int64(x))
	case int64:
		return abs(x)
	case int32:
		return abs(int64(x))
	case uint:
		return uint64(x), false, true
	case uint64:
		return x, false, true
	case uint32:
		return uint64(x), false, true
	case nil:
		return 0, false, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return abs(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint(), false, true
	}
	return 0, false, false
}

func abs(i int64) (uint64, bool, bool) {
	if i < 0 {
		return uint64(-(i + 1)) + 1, true, true // no overflow at math.MinInt64
	}
	return uint64(i), false, true
}

// toText renders a rejected value for an error message.
func toText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case interface{ String() string }:
		return x.String()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool())
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'g', -1, 64)
	}
	return rv.Type().String() + " value"
}
