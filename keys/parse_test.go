package keys

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReadsSeedKeys(t *testing.T) {
	p, err := jobSK.Parse("JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z")
	require.NoError(t, err)
	assert.Equal(t, 1, p.Int("order"))
	assert.Equal(t, "raw_analysis", p.String("stageId"))
	assert.Equal(t, 1, p.Int("execution"))
	want := time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC)
	got := p.Time("startedAt")
	assert.True(t, got.Equal(want), "startedAt = %v, want %v", got, want)
	assert.Equal(t, time.UTC, got.Location())
	assert.Equal(t, "01", p.String("order"), `String("order") is the key's text`)

	p, err = tagSK.Parse("T:prod:P:pipeline-123")
	require.NoError(t, err)
	assert.Equal(t, "prod", p.String("value"))
	assert.Equal(t, "pipeline-123", p.String("pipelineId"))
}

func TestPartsUnknownNamesAndKindsGiveZeroValues(t *testing.T) {
	p, err := stageSK.Parse("STAGE#07#s")
	require.NoError(t, err)
	assert.Empty(t, p.String("nope"), "an unknown name")
	assert.Zero(t, p.Int("nope"), "an unknown name")
	assert.True(t, p.Time("nope").IsZero(), "an unknown name")
	assert.Zero(t, p.Int("stageId"), "a part read as another kind")
	assert.True(t, p.Time("order").IsZero(), "a part read as another kind")
	var zero Parts
	assert.Empty(t, zero.String("a"), "zero Parts")
	assert.Zero(t, zero.Int("a"), "zero Parts")
	assert.True(t, zero.Time("a").IsZero(), "zero Parts")
	assert.Nil(t, zero.Values(), "zero Parts")
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
			require.ErrorIs(t, err, ErrMismatch, "Parse(%q) = %v", tt.key, p.Values())
			var ke *Error
			require.ErrorAs(t, err, &ke)
			require.Equal(t, tt.tmpl.Pattern(), ke.Template)
			require.Equal(t, tt.key, ke.Value)
			require.Equal(t, tt.part, ke.Part)
			assert.Nil(t, p.Values(), "a failed Parse returns no parts")
			assert.False(t, tt.tmpl.Match(tt.key), "Match(%q) where Parse failed", tt.key)
		})
	}
}

func TestParseErrorSaysWhereKeyDiffers(t *testing.T) {
	_, err := stageSK.Parse("STAGE#1x#raw")
	want := `keys: STAGE#{order:02d}#{stageId}: part "order": "STAGE#1x#raw" does not match: no 2-digit number at byte 6`
	require.EqualError(t, err, want)
}

func TestPartsValuesRebuildTheKey(t *testing.T) {
	for _, key := range []string{
		"JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z",
		"JOB#99#x#000#9999-12-31T23:59:59.999999Z",
		"JOB#00#é#123#0000-01-01T00:00:00.000000Z",
	} {
		p, err := jobSK.Parse(key)
		require.NoError(t, err, "Parse(%q)", key)
		got, err := jobSK.Build(p.Values()...)
		require.NoError(t, err, "Build(Parse(%q).Values())", key)
		require.Equal(t, key, got, "Build(Parse(%q).Values())", key)
	}
}
