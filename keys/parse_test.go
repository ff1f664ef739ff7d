package keys

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseReadsSeedKeys(t *testing.T) {
	p, err := jobSK.Parse("JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z")
	if err != nil {
		t.Fatal(err)
	}
	if p.Int("order") != 1 || p.String("stageId") != "raw_analysis" || p.Int("execution") != 1 {
		t.Errorf("parts = %d %q %d", p.Int("order"), p.String("stageId"), p.Int("execution"))
	}
	want := time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC)
	if got := p.Time("startedAt"); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("startedAt = %v, want %v in UTC", got, want)
	}
	if p.String("order") != "01" {
		t.Errorf(`String("order") = %q, want the key's text "01"`, p.String("order"))
	}

	p, err = tagSK.Parse("T:prod:P:pipeline-123")
	if err != nil {
		t.Fatal(err)
	}
	if p.String("value") != "prod" || p.String("pipelineId") != "pipeline-123" {
		t.Errorf("tag parts = %q %q", p.String("value"), p.String("pipelineId"))
	}
}

func TestPartsUnknownNamesAndKindsGiveZeroValues(t *testing.T) {
	p, err := stageSK.Parse("STAGE#07#s")
	if err != nil {
		t.Fatal(err)
	}
	if p.String("nope") != "" || p.Int("nope") != 0 || !p.Time("nope").IsZero() {
		t.Error("unknown name gave a non-zero value")
	}
	if p.Int("stageId") != 0 || !p.Time("order").IsZero() {
		t.Error("a part read as another kind gave a non-zero value")
	}
	var zero Parts
	if zero.String("a") != "" || zero.Int("a") != 0 || !zero.Time("a").IsZero() || zero.Values() != nil {
		t.Error("zero Parts is not empty")
	}
}

func TestParseRejectsKeysOfAnotherShape(t *testing.T) {
	tests := []struct {
		name string
		tmpl *Template
		key  string
		part string
	}{
		{"another entity", stageSK, "RULE#raw_analysis#001#r", ""},
		{"empty key", stageSK, "", ""},
		{"literal only", stageSK, "STAGE", "order"},
		{"prefix only", stageSK, "STAGE#", "order"},
		{"cut short", stageSK, "STAGE#01", "stageId"},
		{"empty string part", stageSK, "STAGE#01#", "stageId"},
		{"extra part", stageSK, "STAGE#01#s#x", "stageId"},
		{"int too wide", stageSK, "STAGE#100#s", "order"},
		{"int too narrow", stageSK, "STAGE#1#s", "order"},
		{"int with sign", stageSK, "STAGE#-1#s", "order"},
		{"int with space", stageSK, "STAGE# 1#s", "order"},
		{"non-ASCII digit", stageSK, "STAGE#٠١#s", "order"},
		{"lower-case literal", stageSK, "stage#01#s", ""},
		{"RFC3339 time without micros", jobSK, "JOB#01#s#001#2025-11-01T20:30:00Z", "startedAt"},
		{"time with offset", jobSK, "JOB#01#s#001#2025-11-01T20:30:00.000000+01:00", "startedAt"},
		{"impossible date", jobSK, "JOB#01#s#001#2025-02-30T20:30:00.000000Z", "startedAt"},
		{"zero time", jobSK, "JOB#01#s#001#0001-01-01T00:00:00.000000Z", "startedAt"},
		{"invalid UTF-8", journeyPK, "JOURNEY#a\xffb", ""},
		{"delimiter in last part", journeyPK, "JOURNEY#a#STAGES", "journeyId"},
		{"other delimiter", tagSK, "T#prod#P#p", ""},
		{"trailing text after literal", metadataSK, "METADATA#x", ""},
		{"too long", journeyPK, "JOURNEY#" + strings.Repeat("a", 2041), ""},
		{"int beyond int range", MustSort("{n:019d}"), "9999999999999999999", "n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.tmpl.Parse(tt.key)
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("Parse(%q) = %v, %v; want ErrMismatch", tt.key, p.Values(), err)
			}
			var ke *Error
			if !errors.As(err, &ke) || ke.Template != tt.tmpl.Pattern() || ke.Value != tt.key || ke.Part != tt.part {
				t.Fatalf("error %#v, want Template %q, Value %q, Part %q", err, tt.tmpl.Pattern(), tt.key, tt.part)
			}
			if p.Values() != nil {
				t.Errorf("failed Parse returned parts %v", p.Values())
			}
			if tt.tmpl.Match(tt.key) {
				t.Errorf("Match(%q) = true, Parse failed", tt.key)
			}
		})
	}
}

func TestParseErrorSaysWhereKeyDiffers(t *testing.T) {
	_, err := stageSK.Parse("STAGE#1x#raw")
	want := `keys: STAGE#{order:02d}#{stageId}: part "order": "STAGE#1x#raw" does not match: no 2-digit number at byte 6`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
}

func TestPartsValuesRebuildTheKey(t *testing.T) {
	for _, key := range []string{
		"JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z",
		"JOB#99#x#000#9999-12-31T23:59:59.999999Z",
		"JOB#00#é#123#0000-01-01T00:00:00.000000Z",
	} {
		p, err := jobSK.Parse(key)
		if err != nil {
			t.Fatalf("Parse(%q): %v", key, err)
		}
		got, err := jobSK.Build(p.Values()...)
		if err != nil || got != key {
			t.Fatalf("Build(Parse(%q).Values()) = %q, %v", key, got, err)
		}
	}
}
