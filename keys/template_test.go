package keys

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The seeds' key shapes, as the entity packages declare them.
var (
	journeyPK      = MustPartition("JOURNEY#{journeyId}")
	journeyStages  = MustPartition("JOURNEY#{journeyId}#STAGES")
	stageSK        = MustSort("STAGE#{order:02d}#{stageId}")
	ruleSK         = MustSort("RULE#{stageId}#{index:03d}#{ruleId}")
	jobSK          = MustSort("JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}")
	logSK          = MustSort("LOG#{jobId}#{stepName}#{at:time}#{logId}")
	tagSK          = MustSort("T:{value}:P:{pipelineId}", WithDelimiter(":"))
	versionSK      = MustSort("PV:{version}", WithDelimiter(":"))
	metadataSK     = MustSort("METADATA")
	creationGSI1SK = MustSort("{createdAt:time}")
)

type stageStatus string

type order uint8

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestBuildWritesSeedKeys(t *testing.T) {
	at := mustTime("2025-11-01T20:30:00Z")
	tests := []struct {
		name   string
		tmpl   *Template
		values []any
		want   string
	}{
		{"partition", journeyPK, []any{"JRN-ABC123456789"}, "JOURNEY#JRN-ABC123456789"},
		{"trailing literal", journeyStages, []any{"JRN-1"}, "JOURNEY#JRN-1#STAGES"},
		{"padded order", stageSK, []any{1, "raw_analysis"}, "STAGE#01#raw_analysis"},
		{"rule", ruleSK, []any{"raw_analysis", 1, "rule-raw_analysis-field_mapping-a1b2c3d4"},
			"RULE#raw_analysis#001#rule-raw_analysis-field_mapping-a1b2c3d4"},
		{"job with time", jobSK, []any{1, "raw_analysis", 1, at}, "JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z"},
		{"log keeps microseconds", logSK, []any{"JOB-456", "schema_extraction", mustTime("2025-11-01T20:30:15.234567Z"), "LOG-789"},
			"LOG#JOB-456#schema_extraction#2025-11-01T20:30:15.234567Z#LOG-789"},
		{"colon delimiter", tagSK, []any{"prod", "pipeline-123"}, "T:prod:P:pipeline-123"},
		{"colon delimiter latest", versionSK, []any{"latest"}, "PV:latest"},
		{"literal only", metadataSK, nil, "METADATA"},
		{"time only", creationGSI1SK, []any{at}, "2025-11-01T20:30:00.000000Z"},
		{"typed string enum", journeyPK, []any{stageStatus("ACTIVE")}, "JOURNEY#ACTIVE"},
		{"uint8 kind", stageSK, []any{order(7), "s"}, "STAGE#07#s"},
		{"int64", stageSK, []any{int64(99), "s"}, "STAGE#99#s"},
		{"uint64", stageSK, []any{uint64(0), "s"}, "STAGE#00#s"},
		{"int16", stageSK, []any{int16(10), "s"}, "STAGE#10#s"},
		{"time in other zone becomes UTC", creationGSI1SK,
			[]any{time.Date(2025, 11, 1, 22, 30, 0, 0, time.FixedZone("CEST", 2*3600))}, "2025-11-01T20:30:00.000000Z"},
		{"nanoseconds truncate", creationGSI1SK, []any{time.Date(2025, 12, 31, 23, 59, 59, 999999999, time.UTC)},
			"2025-12-31T23:59:59.999999Z"},
		{"unicode part", journeyPK, []any{"Zürich-東京"}, "JOURNEY#Zürich-東京"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tmpl.Build(tt.values...)
			require.NoError(t, err, "Build(%v)", tt.values)
			require.Equal(t, tt.want, got, "Build(%v)", tt.values)
			require.True(t, tt.tmpl.Match(got), "Match(%q) for a key Build wrote", got)
		})
	}
}

func TestBuildRejectsBadParts(t *testing.T) {
	long := strings.Repeat("x", 1100)
	tests := []struct {
		name     string
		tmpl     *Template
		values   []any
		sentinel error
		part     string
		value    string
	}{
		{"empty string", stageSK, []any{1, ""}, ErrEmpty, "stageId", ""},
		{"user id holding the delimiter", journeyPK, []any{"abc#STAGE"}, ErrDelimiter, "journeyId", "abc#STAGE"},
		{"stage id holding the delimiter", ruleSK, []any{"a#001", 1, "r"}, ErrDelimiter, "stageId", "a#001"},
		{"colon in a colon template", tagSK, []any{"a:P", "p"}, ErrDelimiter, "value", "a:P"},
		{"invalid UTF-8", journeyPK, []any{"ab\xffc"}, ErrInvalidUTF8, "journeyId", "ab\xffc"},
		{"order 100 in width 2", stageSK, []any{100, "s"}, ErrOverflow, "order", "100"},
		{"negative order", stageSK, []any{-1, "s"}, ErrNegative, "order", "-1"},
		{"min int", stageSK, []any{math.MinInt64, "s"}, ErrNegative, "order", "-9223372036854775808"},
		{"uint64 beyond int", MustSort("{n:019d}"), []any{uint64(math.MaxUint64)}, ErrOverflow, "n", "18446744073709551615"},
		{"19 digits beyond int", MustSort("{n:019d}"), []any{uint64(math.MaxInt64) + 1}, ErrOverflow, "n", "9223372036854775808"},
		{"string for int", stageSK, []any{"01", "s"}, ErrType, "order", "01"},
		{"int for string", stageSK, []any{1, 2}, ErrType, "stageId", "2"},
		{"float for int", stageSK, []any{1.0, "s"}, ErrType, "order", "1"},
		{"nil", stageSK, []any{1, nil}, ErrType, "stageId", ""},
		{"string for time", creationGSI1SK, []any{"2025-11-01T20:30:00.000000Z"}, ErrType, "createdAt", "2025-11-01T20:30:00.000000Z"},
		{"pointer to time", creationGSI1SK, []any{&time.Time{}}, ErrType, "createdAt", "0001-01-01 00:00:00 +0000 UTC"},
		{"zero time", creationGSI1SK, []any{time.Time{}}, ErrEmpty, "createdAt", "0001-01-01T00:00:00.000000Z"},
		{"year 10000", creationGSI1SK, []any{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, ErrOverflow, "createdAt", "10000-01-01T00:00:00Z"},
		{"negative year", creationGSI1SK, []any{time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}, ErrOverflow, "createdAt", "-0001-01-01T00:00:00Z"},
		{"year 9999 in UTC+ becomes 10000", creationGSI1SK,
			[]any{time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("W", -2*3600))}, ErrOverflow, "createdAt", "10000-01-01T01:00:00Z"},
		{"sort key over 1024 bytes", ruleSK, []any{"s", 1, long}, ErrTooLong, "ruleId", long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tmpl.Build(tt.values...)
			require.Error(t, err, "Build(%q) = %q", tt.values, got)
			assert.Empty(t, got, "Build returns no key with its error")
			require.ErrorIs(t, err, tt.sentinel)
			var ke *Error
			require.ErrorAs(t, err, &ke)
			assert.Equal(t, tt.tmpl.Pattern(), ke.Template)
			assert.Equal(t, tt.part, ke.Part)
			assert.Equal(t, tt.value, ke.Value)
			assert.Contains(t, err.Error(), tt.tmpl.Pattern(), "the message names the template")
			assert.Contains(t, err.Error(), `"`+tt.part+`"`, "the message names the part")
			// The same value is refused by Prefix too, so no query is sent
			// with it either.
			_, err = tt.tmpl.Prefix(tt.values...)
			assert.ErrorIs(t, err, tt.sentinel, "Prefix")
		})
	}
}

func TestBuildOverflowMessageNamesTemplatePartAndValue(t *testing.T) {
	_, err := stageSK.Build(100, "raw_analysis")
	want := `keys: STAGE#{order:02d}#{stageId}: part "order": 100 does not fit width 2`
	require.EqualError(t, err, want)
}

func TestBuildRejectsWrongNumberOfValues(t *testing.T) {
	for _, values := range [][]any{nil, {1}, {1, "s", "extra"}} {
		_, err := stageSK.Build(values...)
		assert.ErrorIs(t, err, ErrArity, "Build(%v)", values)
	}
	_, err := metadataSK.Build("x")
	assert.ErrorIs(t, err, ErrArity, "literal-only Build(x)")
}

func TestBuildKeyLengthLimits(t *testing.T) {
	pk := MustPartition("P#{id}")
	sk := MustSort("S#{id}")
	for _, tt := range []struct {
		tmpl *Template
		max  int
	}{{pk, 2048}, {sk, 1024}} {
		fits := strings.Repeat("a", tt.max-2)
		k, err := tt.tmpl.Build(fits)
		if assert.NoError(t, err, "%s: %d-byte key", tt.tmpl, tt.max) {
			assert.Len(t, k, tt.max)
		}
		_, err = tt.tmpl.Build(fits + "a")
		assert.ErrorIs(t, err, ErrTooLong, "%s: %d-byte key", tt.tmpl, tt.max+1)
		// Bytes count, not runes: "é" is two bytes.
		_, err = tt.tmpl.Build(strings.Repeat("é", tt.max/2))
		assert.ErrorIs(t, err, ErrTooLong, "%s: multi-byte key over the limit", tt.tmpl)
	}
}

func TestIntWidthKeepsSortOrder(t *testing.T) {
	var prev string
	for n := 0; n <= 99; n++ {
		k, err := stageSK.Build(n, "s")
		require.NoError(t, err)
		if prev != "" {
			require.Greater(t, k, prev, "key for %d sorts after the one before", n)
		}
		prev = k
	}
}

func TestTimePartsSortByTime(t *testing.T) {
	// RFC3339Nano would write "...20:30:00Z" and "...20:30:00.5Z", which
	// sort the wrong way round as strings.
	times := []time.Time{
		time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC),
		time.Date(2025, 11, 1, 20, 30, 0, 1000, time.UTC),
		time.Date(2025, 11, 1, 20, 30, 0, 500_000_000, time.UTC),
		time.Date(2025, 11, 1, 20, 30, 1, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_000, time.UTC),
	}
	var prev string
	for _, tm := range times {
		k, err := jobSK.Build(1, "s", 1, tm)
		require.NoError(t, err)
		if prev != "" {
			require.Greater(t, k, prev, "key for %v sorts after the one before", tm)
		}
		prev = k
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct {
		name   string
		tmpl   *Template
		values []any
		want   string
	}{
		{"no values gives leading literals", stageSK, nil, "STAGE#"},
		{"one value ends with delimiter", ruleSK, []any{"raw_analysis"}, "RULE#raw_analysis#"},
		{"int value", stageSK, []any{3}, "STAGE#03#"},
		{"two values", ruleSK, []any{"raw_analysis", 2}, "RULE#raw_analysis#002#"},
		{"job by stage", jobSK, []any{1, "raw_analysis"}, "JOB#01#raw_analysis#"},
		{"job by execution", jobSK, []any{1, "raw_analysis", 3}, "JOB#01#raw_analysis#003#"},
		{"literals after the value", tagSK, []any{"prod"}, "T:prod:P:"},
		{"colon no values", tagSK, nil, "T:"},
		{"whole key when pattern ends in literals", journeyStages, []any{"J1"}, "JOURNEY#J1#STAGES"},
		{"all values is the key", stageSK, []any{1, "s"}, "STAGE#01#s"},
		{"literal only", metadataSK, nil, "METADATA"},
		{"leading placeholder", creationGSI1SK, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tmpl.Prefix(tt.values...)
			require.NoError(t, err)
			require.Equal(t, tt.want, got, "Prefix(%v)", tt.values)
		})
	}
	_, err := stageSK.Prefix(1, "s", "x")
	assert.ErrorIs(t, err, ErrArity, "Prefix with too many values")
}

func TestPrefixNeverMatchesLongerValue(t *testing.T) {
	p, err := ruleSK.Prefix("raw_analysis")
	require.NoError(t, err)
	other, err := ruleSK.Build("raw_analysis_2", 1, "r")
	require.NoError(t, err)
	assert.False(t, strings.HasPrefix(other, p), "prefix %q matches %q, a rule of another stage", p, other)
	own, _ := ruleSK.Build("raw_analysis", 1, "r")
	assert.True(t, strings.HasPrefix(own, p), "prefix %q matches its own rule %q", p, own)
}

// A user id like "abc#STAGE" must never become a key inside another
// entity's range. With it refused, no id can make JOURNEY#{journeyId}
// collide with JOURNEY#{journeyId}#STAGES, nor a rule's stage id sort
// inside another stage's rules.
func TestUserIDCannotReachAnotherEntitysRange(t *testing.T) {
	for _, id := range []string{"abc#STAGES", "abc#", "#abc", "a#b#c"} {
		k, err := journeyPK.Build(id)
		assert.Error(t, err, "journeyPK.Build(%q) = %q", id, k)
	}
	stages, _ := journeyStages.Build("abc")
	assert.False(t, journeyPK.Match(stages), "journeyPK matches %q, the GSI key of the stages list", stages)
	plain, _ := journeyPK.Build("abc")
	assert.False(t, journeyStages.Match(plain), "journeyStages matches %q, a journey key", plain)
	// Each seed sort key shape reads only its own keys.
	built := map[*Template]string{}
	at := mustTime("2025-11-01T20:30:00Z")
	built[stageSK], _ = stageSK.Build(1, "s")
	built[ruleSK], _ = ruleSK.Build("s", 1, "r")
	built[jobSK], _ = jobSK.Build(1, "s", 1, at)
	built[logSK], _ = logSK.Build("j", "s", at, "l")
	built[metadataSK], _ = metadataSK.Build()
	for a, key := range built {
		for b := range built {
			if a != b {
				assert.False(t, b.Match(key), "%s matches %q, a key of %s", b, key, a)
			}
		}
	}
}

func TestMultiByteDelimiterValueCannotRunIntoDelimiter(t *testing.T) {
	tm := MustSort("R::{a}::{b}", WithDelimiter("::"))
	// "x:" followed by "::" reads as "x" then ":::", so it is refused.
	for _, v := range []string{"x:", "x::y", "::"} {
		k, err := tm.Build(v, "b")
		assert.ErrorIs(t, err, ErrDelimiter, "Build(%q) = %q", v, k)
		if v == "x:" && assert.Error(t, err) {
			assert.Contains(t, err.Error(), "runs into the delimiter", "the error for %q", v)
		}
	}
	for _, v := range []string{":x", "x:y", "x"} {
		k, err := tm.Build(v, "b")
		if !assert.NoError(t, err, "Build(%q)", v) {
			continue
		}
		p, err := tm.Parse(k)
		if assert.NoError(t, err, "Parse(%q)", k) {
			assert.Equal(t, v, p.String("a"), "Parse(%q)", k)
		}
	}
}

func TestTimeWithColonDelimiterIsFixedWidth(t *testing.T) {
	tm := MustSort("E:{at:time}:{id}", WithDelimiter(":"))
	at := time.Date(2025, 11, 1, 20, 30, 15, 234567000, time.UTC)
	k, err := tm.Build(at, "e1")
	require.NoError(t, err)
	require.Equal(t, "E:2025-11-01T20:30:15.234567Z:e1", k)
	p, err := tm.Parse(k)
	require.NoError(t, err)
	assert.True(t, p.Time("at").Equal(at), "Parse(%q) at = %v", k, p.Time("at"))
	assert.Equal(t, "e1", p.String("id"))
}

func TestPatternErrors(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		delim   string
		part    string
	}{
		{"empty pattern", "", "#", ""},
		{"empty segment", "A##{b}", "#", ""},
		{"trailing delimiter", "A#{b}#", "#", ""},
		{"leading delimiter", "#A", "#", ""},
		{"literal glued to placeholder", "PV{version}", "#", ""},
		{"two placeholders in a segment", "{a}{b}", "#", ""},
		{"unclosed brace", "A#{b", "#", ""},
		{"stray closing brace", "A}#{b}", "#", ""},
		{"empty name", "A#{}", "#", ""},
		{"name with dash", "A#{stage-id}", "#", "stage-id"},
		{"name starting with digit", "A#{1a}", "#", "1a"},
		{"duplicate name", "{a}#{a}", "#", "a"},
		{"unknown format", "A#{n:2d}", "#", "n"},
		{"width zero", "A#{n:00d}", "#", "n"},
		{"width too wide", "A#{n:020d}", "#", "n"},
		{"signed width", "A#{n:0+2d}", "#", "n"},
		{"format x", "A#{n:02x}", "#", "n"},
		{"empty format", "A#{n:}", "#", "n"},
		{"empty delimiter", "A", "", ""},
		{"brace delimiter", "A{b}", "{", ""},
		{"invalid UTF-8 delimiter", "A", "\xff", ""},
		{"invalid UTF-8 pattern", "A\xff#{b}", "#", ""},
		{"literal running into delimiter", "A:::{b}", "::", ""},
		{"literals longer than a key", strings.Repeat("L", 1025), "#", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Sort(tt.pattern, WithDelimiter(tt.delim))
			require.ErrorIs(t, err, ErrPattern, "Sort(%q, %q)", tt.pattern, tt.delim)
			var ke *Error
			require.ErrorAs(t, err, &ke)
			require.Equal(t, tt.pattern, ke.Template)
			require.Equal(t, tt.part, ke.Part)
		})
	}
	// The same 1025-byte literal is a fine partition key.
	_, err := Partition(strings.Repeat("L", 1025))
	assert.NoError(t, err, "1025-byte partition pattern")
}

func TestMustPanicsOnBadPattern(t *testing.T) {
	for name, f := range map[string]func(){
		"MustSort":      func() { MustSort("{a}{b}") },
		"MustPartition": func() { MustPartition("") },
	} {
		func() {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if assert.True(t, ok, "%s panicked with %v, want an error", name, r) {
					assert.ErrorIs(t, err, ErrPattern, name)
				}
			}()
			f()
		}()
	}
}

func TestTemplateAccessors(t *testing.T) {
	assert.Equal(t, "JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}", jobSK.Pattern())
	names := jobSK.Names()
	require.Equal(t, []string{"order", "stageId", "execution", "startedAt"}, names)
	names[0] = "changed"
	assert.Equal(t, "order", jobSK.Names()[0], "changing the slice Names returned changes not the template")
	assert.Equal(t, ":", tagSK.Delimiter())
	assert.Equal(t, "#", stageSK.Delimiter())
	assert.Equal(t, 2048, journeyPK.MaxLength())
	assert.Equal(t, 1024, stageSK.MaxLength())
	assert.Empty(t, metadataSK.Names(), "literal-only Names()")
}

func TestBuildAllocatesOnlyTheKey(t *testing.T) {
	at := mustTime("2025-11-01T20:30:15.234567Z")
	values := []any{1, "raw_analysis", 1, at}
	allocs := testing.AllocsPerRun(100, func() {
		_, err := jobSK.Build(values...)
		require.NoError(t, err)
	})
	assert.LessOrEqual(t, allocs, 1.0, "Build allocates the key only")
	allocs = testing.AllocsPerRun(100, func() {
		jobSK.Match("JOB#01#raw_analysis#001#2025-11-01T20:30:15.234567Z")
		jobSK.Match("STAGE#01#raw_analysis")
	})
	assert.Zero(t, allocs, "Match allocates")
}

// delimFree must agree with its definition, the first occurrence of the
// delimiter in value+delimiter is at len(value), for every value and
// delimiter over a small alphabet (where overlaps are common).
func TestDelimFreeMatchesDefinition(t *testing.T) {
	var all []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		all = append(all, prefix)
		if n == 0 {
			return
		}
		for _, c := range []string{"a", "b", ":"} {
			gen(prefix+c, n-1)
		}
	}
	gen("", 5)
	for _, d := range all {
		if d == "" {
			continue
		}
		tm := &Template{delim: d, overlaps: delimOverlaps(d)}
		for _, v := range all {
			want := strings.Index(v+d, d) == len(v)
			require.Equal(t, want, tm.delimFree(v), "delimFree(%q) with delimiter %q", v, d)
		}
	}
}

// Templates are package-level values shared by every request a service
// handles; run with -race this fails if Build, Prefix or Parse write to one.
func TestTemplateConcurrentUse(t *testing.T) {
	at := mustTime("2025-11-01T20:30:15.234567Z")
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := 0; i < 200; i++ {
				k, err := jobSK.Build(g, "raw_analysis", i, at)
				if err != nil {
					done <- err
					return
				}
				if _, err := jobSK.Prefix(g, "raw_analysis"); err != nil {
					done <- err
					return
				}
				p, err := jobSK.Parse(k)
				if err != nil || p.Int("execution") != i || p.Int("order") != g {
					done <- fmt.Errorf("Parse(%q) = %v, %v", k, p.Values(), err)
					return
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		assert.NoError(t, <-done)
	}
}

// TestNilTemplateRefusesInsteadOfPanicking: a template variable never
// assigned from Partition or Sort is a nil *Template; every method answers
// it (ErrNilTemplate from the ones that return an error) rather than
// panicking in a request handler.
func TestNilTemplateRefusesInsteadOfPanicking(t *testing.T) {
	var tpl *Template
	_, err := tpl.Build("x")
	assert.ErrorIs(t, err, ErrNilTemplate)
	var ke *Error
	require.ErrorAs(t, err, &ke)
	assert.Contains(t, err.Error(), "nil *Template")
	_, err = tpl.Build()
	assert.ErrorIs(t, err, ErrNilTemplate)
	_, err = tpl.Prefix()
	assert.ErrorIs(t, err, ErrNilTemplate)
	p, err := tpl.Parse("JOB#1")
	assert.ErrorIs(t, err, ErrNilTemplate)
	assert.Nil(t, p.Values())
	assert.False(t, tpl.Match("JOB#1"))
	assert.Empty(t, tpl.Pattern())
	assert.Empty(t, tpl.Delimiter())
	assert.Zero(t, tpl.MaxLength())
	assert.Nil(t, tpl.Names())
	assert.Equal(t, "<nil>", tpl.String())
}
