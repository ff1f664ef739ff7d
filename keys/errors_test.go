package keys

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorMessageWithoutReasonUsesSentinel(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Template: "A#{b}", Part: "b", Value: "x#y", Err: ErrDelimiter},
			`keys: A#{b}: part "b": part holds the delimiter: "x#y"`},
		{&Error{Template: "A#{b}", Err: ErrArity}, `keys: A#{b}: wrong number of values`},
		{&Error{}, `keys: invalid key`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestErrorMessageCutsLongValuesButKeepsThemInValue(t *testing.T) {
	long := strings.Repeat("é", 600) + "#" // 1201 bytes
	_, err := stageSK.Build(1, long)
	var ke *Error
	if !errors.As(err, &ke) || !errors.Is(err, ErrDelimiter) {
		t.Fatalf("Build with a 1201-byte id: %v, want ErrDelimiter", err)
	}
	if ke.Value != long || ke.Part != "stageId" {
		t.Errorf("Error.Value is %d bytes, Part %q; want the whole 1201-byte value of stageId", len(ke.Value), ke.Part)
	}
	msg := err.Error()
	if len(msg) > 300 || !strings.Contains(msg, "(1201 bytes)") || !utf8.ValidString(msg) {
		t.Errorf("message is %d bytes (valid UTF-8 %v): %s", len(msg), utf8.ValidString(msg), msg)
	}
}

func TestParseMismatchMessagesSayWhy(t *testing.T) {
	colonTime := MustSort("E:{at:time}:{id}", WithDelimiter(":"))
	tests := []struct {
		tmpl *Template
		key  string
		want string
	}{
		{stageSK, "STAGE#01#" + strings.Repeat("x", 1020), "over the 1024-byte limit of a DynamoDB sort key"},
		{stageSK, "STAGE#01#\xff", "not valid UTF-8"},
		{stageSK, "STAGE#100#s", `part "order": "STAGE#100#s" does not match: the part is not followed by the delimiter "#" at byte 8`},
		{stageSK, "STAGE", "the key ends at byte 5, before this part"},
		{ruleSK, "RULE#s", `part "index": "RULE#s" does not match: the key ends at byte 6, before this part`},
		{journeyStages, "JOURNEY#j", `the key ends at byte 9, before literal "STAGES"`},
		{stageSK, "STAGE#01#", `part "stageId": "STAGE#01#" does not match: the part at byte 9 is empty`},
		{stageSK, "STAGE#01#a#b", `the last part, at byte 9, holds the delimiter "#"`},
		{stageSK, "STAGE#0x#s", "no 2-digit number at byte 6"},
		{MustSort("{n:019d}"), "9999999999999999999", "larger than the largest int"},
		{colonTime, "E:2025-11-01T20:30:00Z:e1", "no timestamp of the form 2006-01-02T15:04:05.000000Z at byte 2"},
		{colonTime, "E:0001-01-01T00:00:00.000000Z:e1", "the zero time, which Build never writes"},
		{metadataSK, "METADATAX", "text follows the last part at byte 8"},
		{metadataSK, "META", `literal "METADATA" expected at byte 0`},
		{tagSK, "T#x", `literal "T" is not followed by the delimiter ":" at byte 1`},
	}
	for _, tt := range tests {
		_, err := tt.tmpl.Parse(tt.key)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s.Parse(%.40q) error %v, want it to say %s", tt.tmpl, tt.key, err, tt.want)
		}
	}
}

type (
	myInt8    int8
	myUint16  uint16
	myUintptr uintptr
	myInt     int
)

func TestBuildAcceptsEveryIntegerKind(t *testing.T) {
	tm := MustSort("N#{n:03d}")
	for _, v := range []any{
		int(7), int8(7), int16(7), int32(7), int64(7),
		uint(7), uint8(7), uint16(7), uint32(7), uint64(7), uintptr(7),
		myInt8(7), myUint16(7), myUintptr(7), myInt(7),
	} {
		k, err := tm.Build(v)
		if err != nil || k != "N#007" {
			t.Errorf("Build(%T(7)) = %q, %v; want N#007", v, k, err)
		}
	}
	for _, v := range []any{int8(-7), int32(-7), myInt(-7)} {
		if _, err := tm.Build(v); !errors.Is(err, ErrNegative) {
			t.Errorf("Build(%T(-7)) error %v, want ErrNegative", v, err)
		}
	}
	for _, v := range []any{true, 7.0, float32(7), "7", []byte("7"), struct{}{}, fmt.Errorf("7")} {
		_, err := tm.Build(v)
		if !errors.Is(err, ErrType) {
			t.Errorf("Build(%T) error %v, want ErrType", v, err)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%T", v)) {
			t.Errorf("ErrType message %q does not name the type %T", err, v)
		}
	}
}

func TestBuildManyPlaceholders(t *testing.T) {
	// More placeholders than Build keeps on the stack.
	names := make([]string, 12)
	values := make([]any, 12)
	for i := range names {
		names[i] = fmt.Sprintf("{p%d}", i)
		values[i] = fmt.Sprintf("v%d", i)
	}
	tm := MustSort(strings.Join(names, "#"))
	k, err := tm.Build(values...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tm.Parse(k)
	if err != nil || p.String("p11") != "v11" {
		t.Fatalf("Parse(%q) = %v, %v", k, p.Values(), err)
	}
	prefix, err := tm.Prefix(values[:10]...)
	if err != nil || !strings.HasPrefix(k, prefix) || !strings.HasSuffix(prefix, "v9#") {
		t.Fatalf("Prefix = %q, %v", prefix, err)
	}
	if s := tm.String(); s != tm.Pattern() {
		t.Errorf("String() = %q, want the pattern", s)
	}
}
