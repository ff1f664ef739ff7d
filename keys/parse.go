package keys

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Parts holds the values Parse read from a key, by placeholder name.
// The zero Parts (what a failed Parse returns) holds nothing.
type Parts struct {
	t    *Template
	vals []parsed
}

type parsed struct {
	text string    // the part as it appears in the key
	n    int       // int part
	tm   time.Time // time part
}

// String returns the named part as it appears in the key ("01" for an int
// part of width 2), or "" for a name the template does not have.
func (p Parts) String(name string) string {
	if i := p.index(name); i >= 0 {
		return p.vals[i].text
	}
	return ""
}

// Int returns the named int part, or 0 for a name that is not an int part.
func (p Parts) Int(name string) int {
	if i := p.index(name); i >= 0 {
		return p.vals[i].n
	}
	return 0
}

// Time returns the named time part in UTC, or the zero time for a name that
// is not a time part.
func (p Parts) Time(name string) time.Time {
	if i := p.index(name); i >= 0 {
		return p.vals[i].tm
	}
	return time.Time{}
}

// Values returns the parts in the order of the template's Names, typed as
// Build takes them (string, int, time.Time), so
// t.Build(parts.Values()...) gives back the parsed key.
func (p Parts) Values() []any {
	if p.t == nil {
		return nil
	}
	out := make([]any, len(p.vals))
	for i, v := range p.vals {
		switch p.t.segments[p.t.slots[i]].kind {
		case intSegment:
			out[i] = v.n
		case timeSegment:
			out[i] = v.tm
		default:
			out[i] = v.text
		}
	}
	return out
}

func (p Parts) index(name string) int {
	if p.t == nil {
		return -1
	}
	for i, n := range p.t.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Parse reads key back into its parts. It accepts exactly the keys Build
// can produce; any other string (another entity's key, a key of this
// entity cut short or run on, a number of the wrong width) fails with
// ErrMismatch, never with wrong values, so Parse also tells entities that
// share a key attribute apart.
func (t *Template) Parse(key string) (Parts, error) {
	if t == nil {
		return Parts{}, nilError()
	}
	vals := make([]parsed, len(t.slots))
	if m := t.scan(key, vals); m.code != matched {
		return Parts{}, t.mismatchError(key, m)
	}
	return Parts{t: t, vals: vals}, nil
}

// Match reports whether Parse would accept key, without allocating.
func (t *Template) Match(key string) bool {
	if t == nil {
		return false
	}
	return t.scan(key, nil).code == matched
}

// mismatch says where and why scan stopped; code 0 means the key matched.
// It holds no strings so that Match allocates nothing; mismatchError
// renders it when Parse needs an error.
type mismatch struct {
	code    mismatchCode
	segment int // index in t.segments, -1 for the key as a whole
	at      int // byte offset in the key
}

type mismatchCode uint8

const (
	matched mismatchCode = iota
	tooLong
	badUTF8
	noDelimiter // segment is not followed by the delimiter
	endsEarly   // key ends before segment
	badLiteral
	emptyPart
	lastHoldsDelim
	badCase // a cased part holding another case: Build never wrote it
	badDigits
	bigInt
	badTime
	zeroTime
	trailing
)

func (t *Template) mismatchError(key string, m mismatch) error {
	e := &Error{Template: t.pattern, Value: key, Err: ErrMismatch}
	var seg segment
	if m.segment >= 0 {
		seg = t.segments[m.segment]
		if seg.kind != literalSegment {
			e.Part = seg.text
		}
	}
	at := strconv.Itoa(m.at)
	var why string
	switch m.code {
	case tooLong:
		why = "it is " + strconv.Itoa(len(key)) + " bytes, over the " + strconv.Itoa(t.maxLen) +
			"-byte limit of a DynamoDB " + t.keyKind + " key"
	case badUTF8:
		why = "it is not valid UTF-8"
	case noDelimiter:
		if seg.kind == literalSegment {
			why = "literal " + strconv.Quote(seg.text) + " is not followed by the delimiter " + strconv.Quote(t.delim) + " at byte " + at
		} else {
			why = "the part is not followed by the delimiter " + strconv.Quote(t.delim) + " at byte " + at
		}
	case endsEarly:
		why = "the key ends at byte " + at + ", before this part"
		if seg.kind == literalSegment {
			why = "the key ends at byte " + at + ", before literal " + strconv.Quote(seg.text)
		}
	case badLiteral:
		why = "literal " + strconv.Quote(seg.text) + " expected at byte " + at
	case emptyPart:
		why = "the part at byte " + at + " is empty"
	case lastHoldsDelim:
		why = "the last part, at byte " + at + ", holds the delimiter " + strconv.Quote(t.delim)
	case badCase:
		why = "the part at byte " + at + " is not " + [...]string{"", "lower", "upper"}[seg.casing] + " case, as Build writes it"
	case badDigits:
		why = "no " + strconv.Itoa(seg.width) + "-digit number at byte " + at
	case bigInt:
		why = "the number at byte " + at + " is larger than the largest int"
	case badTime:
		why = "no timestamp of the form " + TimeLayout + " at byte " + at
	case zeroTime:
		why = "the timestamp at byte " + at + " is the zero time, which Build never writes"
	case trailing:
		why = "text follows the last part at byte " + at
	}
	e.reason = quoteShort(key) + " does not match: " + why
	return e
}

// scan walks key segment by segment, filling vals when it is not nil.
// Literals, ints and times have a known length; a string part ends at the
// first delimiter, which is unambiguous because Build never writes a string
// part that holds (or runs into) the delimiter.
func (t *Template) scan(key string, vals []parsed) mismatch {
	if len(key) > t.maxLen {
		return mismatch{tooLong, -1, 0}
	}
	if !utf8.ValidString(key) {
		return mismatch{badUTF8, -1, 0}
	}
	pos, p := 0, 0
	last := len(t.segments) - 1
	for i, s := range t.segments {
		if i > 0 {
			if !strings.HasPrefix(key[pos:], t.delim) {
				if pos == len(key) {
					return mismatch{endsEarly, i, pos}
				}
				return mismatch{noDelimiter, i - 1, pos}
			}
			pos += len(t.delim)
		}
		rest := key[pos:]
		var text string
		switch s.kind {
		case literalSegment:
			if !strings.HasPrefix(rest, s.text) {
				return mismatch{badLiteral, i, pos}
			}
			pos += len(s.text)
			continue
		case stringSegment:
			end := len(rest)
			if i < last {
				end = strings.Index(rest, t.delim)
				if end < 0 {
					return mismatch{endsEarly, i + 1, pos + len(rest)}
				}
			} else if !t.delimFree(rest) {
				return mismatch{lastHoldsDelim, i, pos}
			}
			text = rest[:end]
			if text == "" {
				return mismatch{emptyPart, i, pos}
			}
			if !s.casing.holds(text) {
				return mismatch{badCase, i, pos}
			}
			if vals != nil {
				vals[p].text = text
			}
		case intSegment:
			if len(rest) < s.width {
				return mismatch{badDigits, i, pos}
			}
			text = rest[:s.width]
			var n uint64
			for j := 0; j < len(text); j++ {
				c := text[j]
				if c < '0' || c > '9' {
					return mismatch{badDigits, i, pos}
				}
				n = n*10 + uint64(c-'0') // 19 digits fit a uint64
			}
			if n > math.MaxInt {
				return mismatch{bigInt, i, pos}
			}
			if vals != nil {
				vals[p].text, vals[p].n = text, int(n)
			}
		case timeSegment:
			if len(rest) < timeLen {
				return mismatch{badTime, i, pos}
			}
			text = rest[:timeLen]
			tm, ok := parseTime(text)
			if !ok {
				return mismatch{badTime, i, pos}
			}
			if tm.IsZero() {
				return mismatch{zeroTime, i, pos}
			}
			if vals != nil {
				vals[p].text, vals[p].tm = text, tm
			}
		}
		pos += len(text)
		p++
	}
	if pos != len(key) {
		return mismatch{trailing, -1, pos}
	}
	return mismatch{code: matched}
}
