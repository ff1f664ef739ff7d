package keys

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
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
		if got != tt.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) != len(TimeLayout) {
			t.Errorf("FormatTime(%v) is %d bytes, want %d", tt.in, len(got), len(TimeLayout))
		}
		if std := tt.in.UTC().Format(TimeLayout); std != got {
			t.Errorf("FormatTime(%v) = %q, time.Format gives %q", tt.in, got, std)
		}
	}
}

func TestFormatTimeOutOfRangeYearsFallBackToTimeFormat(t *testing.T) {
	tm := time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := FormatTime(tm); got != tm.Format(TimeLayout) {
		t.Errorf("FormatTime(%v) = %q", tm, got)
	}
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
		if err != nil {
			t.Fatalf("ParseTime(%q): %v", s, err)
		}
		if tm.Location() != time.UTC {
			t.Errorf("ParseTime(%q) location %v, want UTC", s, tm.Location())
		}
		if got := FormatTime(tm); got != s {
			t.Errorf("FormatTime(ParseTime(%q)) = %q", s, got)
		}
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
		if tm, err := ParseTime(s); !errors.Is(err, ErrMismatch) {
			t.Errorf("ParseTime(%q) = %v, %v; want ErrMismatch", s, tm, err)
		}
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
		if got != want {
			t.Fatalf("FormatTime(%v) = %q, time.Format gives %q", tm, got, want)
		}
		back, err := ParseTime(got)
		if err != nil || !back.Equal(tm) {
			t.Fatalf("ParseTime(%q) = %v, %v; want %v", got, back, err, tm)
		}
	}
}
