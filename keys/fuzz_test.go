package keys

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
		if err != nil {
			t.Fatalf("pattern error is not an ErrPattern *Error: %v", err)
		}
		if tm == nil {
			return
		}
		at := time.Unix(sec, int64(usec%1_000_000)*1000)
		values := fuzzValues(tm, a, b, n, m, at)
		key, err := tm.Build(values...)
		if err != nil {
			var ke *Error
			if !errors.As(err, &ke) || !isOneOf(err, buildSentinels) {
				t.Fatalf("Build(%q) error %v is not a *Error with a Build sentinel", values, err)
			}
			if ke.Template != tm.Pattern() || ke.Part == "" {
				t.Fatalf("Build error %#v does not name template and part", ke)
			}
			return
		}
		if len(key) > MaxSortKeyLength || !utf8.ValidString(key) {
			t.Fatalf("Build wrote %d bytes, valid UTF-8 %v", len(key), utf8.ValidString(key))
		}
		parts, err := tm.Parse(key)
		if err != nil {
			t.Fatalf("Parse(Build(%q) = %q): %v", values, key, err)
		}
		if !tm.Match(key) {
			t.Fatalf("Match(%q) = false", key)
		}
		for i, name := range tm.Names() {
			switch want := values[i].(type) {
			case string:
				if got := parts.String(name); got != want {
					t.Fatalf("part %s = %q, built from %q (key %q)", name, got, want, key)
				}
			case int64:
				if got := parts.Int(name); int64(got) != want {
					t.Fatalf("part %s = %d, built from %d", name, got, want)
				}
			case uint64:
				if got := parts.Int(name); uint64(got) != want {
					t.Fatalf("part %s = %d, built from %d", name, got, want)
				}
			case time.Time:
				if got := parts.Time(name); !got.Equal(want) || got.Location() != time.UTC {
					t.Fatalf("part %s = %v, built from %v", name, got, want)
				}
			}
		}
		if again, err := tm.Build(parts.Values()...); err != nil || again != key {
			t.Fatalf("Build(Parse(%q).Values()) = %q, %v", key, again, err)
		}

		other, otherErr := tm.Build(fuzzValues(tm, a2, b2, n, m, at)...)
		otherParts, _ := tm.Parse(other)
		for k := 0; k <= len(values); k++ {
			p, err := tm.Prefix(values[:k]...)
			if err != nil {
				t.Fatalf("Prefix of %d accepted values: %v", k, err)
			}
			if !strings.HasPrefix(key, p) {
				t.Fatalf("Prefix(%q) = %q is not a prefix of %q", values[:k], p, key)
			}
			if otherErr != nil || !strings.HasPrefix(other, p) || k == len(values) {
				continue
			}
			// other lies under the prefix of values[:k]: its first k
			// parts must be those values.
			for _, name := range tm.Names()[:k] {
				if otherParts.String(name) != parts.String(name) {
					t.Fatalf("%q lies under prefix %q but its part %s is %q, not %q",
						other, p, name, otherParts.String(name), parts.String(name))
				}
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
		if err != nil {
			t.Fatalf("pattern error is not an ErrPattern *Error: %v", err)
		}
		if tm == nil {
			return
		}
		parts, err := tm.Parse(key)
		if err != nil {
			var ke *Error
			if !errors.Is(err, ErrMismatch) || !errors.As(err, &ke) || ke.Value != key {
				t.Fatalf("Parse(%q) error %v is not an ErrMismatch *Error", key, err)
			}
			if tm.Match(key) {
				t.Fatalf("Match(%q) = true, Parse: %v", key, err)
			}
			return
		}
		if !tm.Match(key) {
			t.Fatalf("Match(%q) = false, Parse accepted it", key)
		}
		again, err := tm.Build(parts.Values()...)
		if err != nil || again != key {
			t.Fatalf("Build(Parse(%q).Values()) = %q, %v", key, again, err)
		}
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
