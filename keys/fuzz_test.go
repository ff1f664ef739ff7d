package keys

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Run the fuzzers one at a time, for example
//
//	go test -run XXX -fuzz '^FuzzBuildParse$' -fuzztime 30s -fuzzminimizetime 2s -parallel 1 ./keys
//
// (the default minimize time of 60s can spend a whole short run shrinking
// one new input).

// fuzzShapes are key shapes covering every segment kind in every position;
// the fuzzers join them with a fuzzed delimiter.
var fuzzShapes = [][]string{
	{"L", "{a}", "{n:03d}", "{b}"},
	{"{a}", "{b}", "M"},
	{"{a}", "{t:time}", "{b}"},
	{"{a}"},
	{"L", "{n:02d}", "{a}", "{m:019d}", "{t:time}"},
	{"{n:01d}", "{b}", "{a}"},
	{"JOURNEY", "{a}", "STAGES"},
}

func fuzzTemplate(shape uint8, d string) (*Template, error) {
	segs := fuzzShapes[int(shape)%len(fuzzShapes)]
	pattern := strings.Join(segs, d)
	tm, err := Sort(pattern, WithDelimiter(d))
	if err != nil {
		var ke *Error
		if !errors.Is(err, ErrPattern) || !errors.As(err, &ke) || ke.Template != pattern {
			return nil, err
		}
	}
	return tm, nil
}

// fuzzValues returns the values for tm's placeholders by name.
func fuzzValues(tm *Template, a, b string, n int64, m uint64, t time.Time) []any {
	var out []any
	for _, name := range tm.Names() {
		switch name {
		case "a":
			out = append(out, a)
		case "b":
			out = append(out, b)
		case "n":
			out = append(out, n)
		case "m":
			out = append(out, m)
		case "t":
			out = append(out, t)
		}
	}
	return out
}

var buildSentinels = []error{ErrEmpty, ErrDelimiter, ErrInvalidUTF8, ErrTooLong, ErrOverflow, ErrNegative}

// FuzzBuildParse checks that every key Build accepts parses back to the
// values it was built from, that each Prefix of those values is a prefix of
// the key, and that no other accepted values produce a key under that
// prefix unless they share the prefix's values: no value reaches into
// another value's begins_with range.
func FuzzBuildParse(f *testing.F) {
	f.Add(uint8(0), "#", "raw_analysis", "rule-1", int64(1), uint64(7), int64(1761998400), uint32(234567), "raw_analysis_2", "abc#STAGE")
	f.Add(uint8(2), ":", "prod", "pipeline-123", int64(0), uint64(0), int64(1761998400), uint32(0), "prod:P", "x")
	f.Add(uint8(4), "::", "x:", ":y", int64(99), uint64(9223372036854775807), int64(253402300799), uint32(999999), "x", "y")
	f.Add(uint8(5), "0", "a0", "b", int64(5), uint64(1), int64(-62135596800), uint32(1), "a", "b0")
	f.Add(uint8(1), "ab", "xa", "b", int64(-1), uint64(1), int64(0), uint32(0), "x", "ab")
	f.Add(uint8(6), "#", "abc", "abc#STAGES", int64(1), uint64(1), int64(0), uint32(0), "abc#STAGES", "")
	f.Fuzz(func(t *testing.T, shape uint8, d, a, b string, n int64, m uint64, sec int64, usec uint32, a2, b2 string) {
		tm, err := fuzzTemplate(shape, d)
		require.NoError(t, err, "a pattern error that is not an ErrPattern *Error")
		if tm == nil {
			return
		}
		at := time.Unix(sec, int64(usec%1_000_000)*1000)
		values := fuzzValues(tm, a, b, n, m, at)
		key, err := tm.Build(values...)
		if err != nil {
			var ke *Error
			require.ErrorAs(t, err, &ke, "Build(%q)", values)
			require.True(t, isOneOf(err, buildSentinels), "Build(%q) error %v has a Build sentinel", values, err)
			require.Equal(t, tm.Pattern(), ke.Template, "the Build error names its template")
			require.NotEmpty(t, ke.Part, "the Build error names its part")
			return
		}
		require.LessOrEqual(t, len(key), MaxSortKeyLength, "Build wrote %q", key)
		require.True(t, utf8.ValidString(key), "Build wrote valid UTF-8: %q", key)
		parts, err := tm.Parse(key)
		require.NoError(t, err, "Parse(Build(%q) = %q)", values, key)
		require.True(t, tm.Match(key), "Match(%q)", key)
		for i, name := range tm.Names() {
			switch want := values[i].(type) {
			case string:
				require.Equal(t, want, parts.String(name), "part %s (key %q)", name, key)
			case int64:
				require.Equal(t, want, int64(parts.Int(name)), "part %s", name)
			case uint64:
				require.Equal(t, want, uint64(parts.Int(name)), "part %s", name)
			case time.Time:
				got := parts.Time(name)
				require.True(t, got.Equal(want), "part %s = %v, built from %v", name, got, want)
				require.Equal(t, time.UTC, got.Location(), "part %s", name)
			}
		}
		again, err := tm.Build(parts.Values()...)
		require.NoError(t, err, "Build(Parse(%q).Values())", key)
		require.Equal(t, key, again, "Build(Parse(%q).Values())", key)

		other, otherErr := tm.Build(fuzzValues(tm, a2, b2, n, m, at)...)
		otherParts, _ := tm.Parse(other)
		for k := 0; k <= len(values); k++ {
			p, err := tm.Prefix(values[:k]...)
			require.NoError(t, err, "Prefix of %d accepted values", k)
			require.True(t, strings.HasPrefix(key, p), "Prefix(%q) = %q is a prefix of %q", values[:k], p, key)
			if otherErr != nil || !strings.HasPrefix(other, p) || k == len(values) {
				continue
			}
			// other lies under the prefix of values[:k]: its first k
			// parts must be those values.
			for _, name := range tm.Names()[:k] {
				require.Equal(t, parts.String(name), otherParts.String(name), "%q lies under prefix %q: its part %s", other, p, name)
			}
		}
	})
}

// FuzzParse checks that Parse never panics and accepts only keys Build
// writes: parsing then building gives back the same key.
func FuzzParse(f *testing.F) {
	f.Add(uint8(0), "#", "L#a#001#b")
	f.Add(uint8(2), ":", "x:2025-11-01T20:30:00.000000Z:y")
	f.Add(uint8(4), "::", "L::07::x::0000000000000000001::2025-11-01T20:30:00.000000Z")
	f.Add(uint8(1), "##", "a###b##M")
	f.Add(uint8(5), "0", "100b0a")
	f.Add(uint8(6), "#", "JOURNEY#abc#STAGES")
	f.Add(uint8(3), "#", "\xff")
	f.Fuzz(func(t *testing.T, shape uint8, d, key string) {
		tm, err := fuzzTemplate(shape, d)
		require.NoError(t, err, "a pattern error that is not an ErrPattern *Error")
		if tm == nil {
			return
		}
		parts, err := tm.Parse(key)
		if err != nil {
			var ke *Error
			require.ErrorIs(t, err, ErrMismatch, "Parse(%q)", key)
			require.ErrorAs(t, err, &ke, "Parse(%q)", key)
			require.Equal(t, key, ke.Value)
			require.False(t, tm.Match(key), "Match(%q) where Parse failed: %v", key, err)
			return
		}
		require.True(t, tm.Match(key), "Match(%q) where Parse accepted it", key)
		again, err := tm.Build(parts.Values()...)
		require.NoError(t, err, "Build(Parse(%q).Values())", key)
		require.Equal(t, key, again, "Build(Parse(%q).Values())", key)
	})
}

func isOneOf(err error, sentinels []error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
