package keys

import (
	"time"
)

// TimeLayout is the layout of a {name:time} part: UTC, always six
// fractional digits, always 27 bytes. Fixed width is what makes keys sort
// by time as plain strings. time.RFC3339Nano is not fixed width: it drops
// trailing zeros, so "20:30:00Z" sorts after "20:30:00.5Z" ('Z' > '.').
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// timeLen is len(TimeLayout): the bytes a time part takes in every key.
const timeLen = len(TimeLayout)

// FormatTime formats t in UTC with TimeLayout, truncating to the
// microsecond (truncating, not rounding, so a time never moves into the
// next second, day or year and out of the order it had).
//
// The result is 27 bytes only for years 0000 through 9999; Build rejects
// other years with ErrOverflow rather than write a key that sorts wrong.
func FormatTime(t time.Time) string {
	var buf [timeLen]byte
	if b, ok := appendTime(buf[:0], t); ok {
		return string(b)
	}
	return t.UTC().Format(TimeLayout)
}

// ParseTime parses s written with TimeLayout. It accepts exactly the
// strings FormatTime produces for years 0000 through 9999 (27 bytes, six
// fractional digits, trailing Z, a real calendar date) and fails with
// ErrMismatch on anything else. The result is in UTC.
func ParseTime(s string) (time.Time, error) {
	t, ok := parseTime(s)
	if !ok {
		return time.Time{}, &Error{Value: s, Err: ErrMismatch,
			reason: quoteShort(s) + " is not a timestamp of the form " + TimeLayout}
	}
	return t, nil
}

// timeFits reports whether t's UTC year has four digits.
func timeFits(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// appendTime appends t as TimeLayout without going through time.Format, so
// Build does not allocate for it. ok is false when the year does not fit.
func appendTime(b []byte, t time.Time) ([]byte, bool) {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return b, false
	}
	hour, min, sec := t.Clock()
	micro := t.Nanosecond() / 1000
	var d [timeLen]byte
	copy(d[:], TimeLayout) // the separators
	put2 := func(at, n int) { d[at], d[at+1] = byte('0'+n/10), byte('0'+n%10) }
	put2(0, year/100)
	put2(2, year%100)
	put2(5, int(month))
	put2(8, day)
	put2(11, hour)
	put2(14, min)
	put2(17, sec)
	put2(20, micro/10000)
	put2(22, micro/100%100)
	put2(24, micro%100)
	return append(b, d[:]...), true
}

// parseTime is ParseTime without the error value, for Match.
func parseTime(s string) (time.Time, bool) {
	if len(s) != timeLen {
		return time.Time{}, false
	}
	// Separators at fixed offsets, digits everywhere else.
	for i := 0; i < timeLen; i++ {
		c := s[i]
		if l := TimeLayout[i]; l < '0' || l > '9' {
			if c != l {
				return time.Time{}, false
			}
		} else if c < '0' || c > '9' {
			return time.Time{}, false
		}
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range []byte(s[from:to]) {
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, min, sec, micro := num(11, 13), num(14, 16), num(17, 19), num(20, 26)
	if month < 1 || month > 12 || day < 1 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, micro*1000, time.UTC)
	// time.Date normalises 2025-02-30 to March 2nd; such a string is not one
	// FormatTime writes, so it is not a timestamp of ours.
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}
