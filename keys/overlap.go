package keys

import "strings"

// Overlaps reports whether some key could be built by both t and u, so
// that an item written through one could be read, or replaced, through
// the other. Two entities sharing a key attribute need templates that do
// not overlap ("ALBUM#{albumId}" and "PHOTO#{photoId}" do not;
// "ALBUM#{albumId}" and "ALBUM#META" do, for the album "META").
//
// With one delimiter the answer is exact for the templates' shapes: a key
// has exactly one segment per template segment (no part holds the
// delimiter), so the templates overlap when they have as many segments and
// each pair can hold one text: equal literals, a literal and a placeholder
// whose kind can spell it, two placeholders of kinds that share a value
// (ints only of one width). Where segments cannot be counted that way
// (different delimiters, or a delimiter that occurs inside a time or a
// number), Overlaps compares the literal text before the first
// placeholder, and answers true unless one cannot start where the other
// does: it may report an overlap no key exhibits, never miss one.
func (t *Template) Overlaps(u *Template) bool {
	if t == nil || u == nil {
		return false
	}
	if t.delim != u.delim || !t.countable() || !u.countable() {
		a, b := t.leadingLiteral(), u.leadingLiteral()
		return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
	}
	if len(t.segments) != len(u.segments) {
		return false
	}
	for i := range t.segments {
		if !segmentsMeet(t.segments[i], u.segments[i]) {
			return false
		}
	}
	return true
}

// countable reports whether every key the template builds has one segment
// per template segment: no int or time part can hold the delimiter.
func (t *Template) countable() bool {
	for _, s := range t.segments {
		switch {
		case s.kind == timeSegment && strings.Contains(TimeLayout, t.delim),
			s.kind == intSegment && strings.ContainsAny(t.delim, "0123456789"):
			return false
		}
	}
	return true
}

// leadingLiteral is the text every key of t starts with: the literal
// segments before the first placeholder, with their delimiters.
func (t *Template) leadingLiteral() string {
	var b strings.Builder
	for i, s := range t.segments {
		if s.kind != literalSegment {
			if i > 0 {
				b.WriteString(t.delim)
			}
			break
		}
		if i > 0 {
			b.WriteString(t.delim)
		}
		b.WriteString(s.text)
	}
	return b.String()
}

// segmentsMeet reports whether one segment text can stand for both a and b.
func segmentsMeet(a, b segment) bool {
	if a.kind > b.kind {
		a, b = b, a
	}
	switch a.kind {
	case literalSegment:
		switch b.kind {
		case literalSegment:
			return a.text == b.text
		case stringSegment:
			return true
		case intSegment:
			return len(a.text) == b.width && strings.Trim(a.text, "0123456789") == ""
		case timeSegment:
			_, ok := parseTime(a.text)
			return ok
		}
	case stringSegment:
		return true // a string part can spell any int or time
	case intSegment:
		return b.kind == intSegment && a.width == b.width
	case timeSegment:
		return b.kind == timeSegment
	}
	return false
}
