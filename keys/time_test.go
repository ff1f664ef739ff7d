package keys

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatTimeIsFixedWidth(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC), "2025-11-01T20:30:00.000000Z"},
		{time.Date(2025, 11, 1, 20, 30, 0, 500_000_000, time.UTC), "2025-11-01T20:30:00.500000Z"},
		{time.Date(2025, 11, 1, 20, 30, 0, 999, time.UTC), "2025-11-01T20:30:00.000000Z"},
		{time.Date(2025, 11, 1, 20, 30, 15, 234_567_891, time.UTC), "2025-11-01T20:30:15.234567Z"},
		{time.Date(2025, 11, 1, 21, 30, 0, 0, time.FixedZone("CET", 3600)), "2025-11-01T20:30:00.000000Z"},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), "0000-01-01T00:00:00.000000Z"},
		{time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), "9999-12-31T23:59:59.999999Z"},
		{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "2024-02-29T00:00:00.000000Z"},
	}
	for _, tt := range tests {
		got := FormatTime(tt.in)
		assert.Equal(t, tt.want, got, "FormatTime(%v)", tt.in)
		assert.Len(t, got, len(TimeLayout), "FormatTime(%v)", tt.in)
		assert.Equal(t, tt.in.UTC().Format(TimeLayout), got, "FormatTime(%v) against time.Format", tt.in)
	}
}

func TestFormatTimeOutOfRangeYearsFallBackToTimeFormat(t *testing.T) {
	tm := time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, tm.Format(TimeLayout), FormatTime(tm))
}

func TestParseTimeRoundTrips(t *testing.T) {
	for _, s := range []string{
		"2025-11-01T20:30:00.000000Z",
		"2025-11-01T20:30:15.234567Z",
		"0000-01-01T00:00:00.000000Z",
		"9999-12-31T23:59:59.999999Z",
		"2024-02-29T12:00:00.000001Z",
	} {
		tm, err := ParseTime(s)
		require.NoError(t, err, "ParseTime(%q)", s)
		assert.Equal(t, time.UTC, tm.Location(), "ParseTime(%q)", s)
		assert.Equal(t, s, FormatTime(tm), "FormatTime(ParseTime(%q))", s)
	}
}

func TestParseTimeRejectsOtherForms(t *testing.T) {
	for _, s := range []string{
		"",
		"2025-11-01T20:30:00Z",             // RFC3339, no fraction
		"2025-11-01T20:30:00.5Z",           // RFC3339Nano drops zeros
		"2025-11-01T20:30:00.000000000Z",   // nanoseconds
		"2025-11-01T20:30:00.000000+00:00", // offset instead of Z
		"2025-11-01 20:30:00.000000Z",
		"2025-11-01T20:30:00.000000z",
		"2025-13-01T20:30:00.000000Z",
		"2025-00-01T20:30:00.000000Z",
		"2025-11-00T20:30:00.000000Z",
		"2025-11-31T20:30:00.000000Z",
		"2023-02-29T20:30:00.000000Z",
		"2025-11-01T24:00:00.000000Z",
		"2025-11-01T20:60:00.000000Z",
		"2025-11-01T20:30:60.000000Z", // DynamoDB keys have no leap seconds
		"+025-11-01T20:30:00.000000Z",
		"2025-11-01T20:30:00.00000aZ",
	} {
		tm, err := ParseTime(s)
		assert.ErrorIs(t, err, ErrMismatch, "ParseTime(%q) = %v", s, tm)
	}
}

// FormatTime writes digits by hand (so Build does not allocate); it must
// agree with time.Format everywhere in the years it accepts, and ParseTime
// must read every such string back.
func TestFormatTimeAgreesWithTimeFormat(t *testing.T) {
	lo := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		tm := time.UnixMicro(lo + r.Int64N(hi-lo+1))
		got, want := FormatTime(tm), tm.UTC().Format(TimeLayout)
		require.Equal(t, want, got, "FormatTime(%v) against time.Format", tm)
		back, err := ParseTime(got)
		require.NoError(t, err, "ParseTime(%q)", got)
		require.True(t, back.Equal(tm), "ParseTime(%q) = %v, want %v", got, back, tm)
	}
}
