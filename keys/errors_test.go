package keys

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestErrorMessageCutsLongValuesButKeepsThemInValue(t *testing.T) {
	long := strings.Repeat("é", 600) + "#" // 1201 bytes
	_, err := stageSK.Build(1, long)
	var ke *Error
	require.ErrorAs(t, err, &ke, "Build with a 1201-byte id")
	require.ErrorIs(t, err, ErrDelimiter, "Build with a 1201-byte id")
	assert.Equal(t, long, ke.Value, "Error.Value is the whole 1201-byte value")
	assert.Equal(t, "stageId", ke.Part)
	msg := err.Error()
	assert.LessOrEqual(t, len(msg), 300, "message %s", msg)
	assert.Contains(t, msg, "(1201 bytes)")
	assert.True(t, utf8.ValidString(msg), "message is valid UTF-8: %s", msg)
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
		if assert.Error(t, err, "%s.Parse(%.40q)", tt.tmpl, tt.key) {
			assert.Contains(t, err.Error(), tt.want, "%s.Parse(%.40q)", tt.tmpl, tt.key)
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
		if assert.NoError(t, err, "Build(%T(7))", v) {
			assert.Equal(t, "N#007", k, "Build(%T(7))", v)
		}
	}
	for _, v := range []any{int8(-7), int32(-7), myInt(-7)} {
		_, err := tm.Build(v)
		assert.ErrorIs(t, err, ErrNegative, "Build(%T(-7))", v)
	}
	for _, v := range []any{true, 7.0, float32(7), "7", []byte("7"), struct{}{}, fmt.Errorf("7")} {
		_, err := tm.Build(v)
		assert.ErrorIs(t, err, ErrType, "Build(%T)", v)
		if err != nil {
			assert.Contains(t, err.Error(), fmt.Sprintf("%T", v), "the ErrType message names the type")
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
	require.NoError(t, err)
	p, err := tm.Parse(k)
	require.NoError(t, err)
	require.Equal(t, "v11", p.String("p11"), "Parse(%q)", k)
	prefix, err := tm.Prefix(values[:10]...)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(k, prefix), "Prefix %q of %q", prefix, k)
	require.True(t, strings.HasSuffix(prefix, "v9#"), "Prefix %q", prefix)
	assert.Equal(t, tm.Pattern(), tm.String())
}
