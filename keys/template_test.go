package keys

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
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
			if err != nil {
				t.Fatalf("Build(%v): %v", tt.values, err)
			}
			if got != tt.want {
				t.Fatalf("Build(%v) = %q, want %q", tt.values, got, tt.want)
			}
			if !tt.tmpl.Match(got) {
				t.Fatalf("Match(%q) = false for a key Build wrote", got)
			}
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
			if err == nil {
				t.Fatalf("Build(%q) = %q, want error %v", tt.values, got, tt.sentinel)
			}
			if got != "" {
				t.Errorf("Build returned %q with its error; want no key", got)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("Build error %v is not %v", err, tt.sentinel)
			}
			var ke *Error
			if !errors.As(err, &ke) {
				t.Fatalf("Build error %T is not *keys.Error", err)
			}
			if ke.Template != tt.tmpl.Pattern() || ke.Part != tt.part || ke.Value != tt.value {
				t.Errorf("Error{Template %q, Part %q, Value %q}, want {%q, %q, %q}",
					ke.Template, ke.Part, ke.Value, tt.tmpl.Pattern(), tt.part, tt.value)
			}
			if !strings.Contains(err.Error(), tt.tmpl.Pattern()) || !strings.Contains(err.Error(), `"`+tt.part+`"`) {
				t.Errorf("message %q does not name template and part", err)
			}
			// The same value is refused by Prefix too, so no query is sent
			// with it either.
			if _, err := tt.tmpl.Prefix(tt.values...); !errors.Is(err, tt.sentinel) {
				t.Errorf("Prefix error %v, want %v", err, tt.sentinel)
			}
		})
	}
}

func TestBuildOverflowMessageNamesTemplatePartAndValue(t *testing.T) {
	_, err := stageSK.Build(100, "raw_analysis")
	want := `keys: STAGE#{order:02d}#{stageId}: part "order": 100 does not fit width 2`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %s", err, want)
	}
}

func TestBuildRejectsWrongNumberOfValues(t *testing.T) {
	for _, values := range [][]any{nil, {1}, {1, "s", "extra"}} {
		_, err := stageSK.Build(values...)
		if !errors.Is(err, ErrArity) {
			t.Errorf("Build(%v) error %v, want ErrArity", values, err)
		}
	}
	if _, err := metadataSK.Build("x"); !errors.Is(err, ErrArity) {
		t.Errorf("literal-only Build(x) error %v, want ErrArity", err)
	}
}

func TestBuildKeyLengthLimits(t *testing.T) {
	pk := MustPartition("P#{id}")
	sk := MustSort("S#{id}")
	for _, tt := range []struct {
		tmpl *Template
		max  int
	}{{pk, 2048}, {sk, 1024}} {
		fits := strings.Repeat("a", tt.max-2)
		if k, err := tt.tmpl.Build(fits); err != nil || len(k) != tt.max {
			t.Errorf("%s: %d-byte key: %v, want accepted", tt.tmpl, tt.max, err)
		}
		_, err := tt.tmpl.Build(fits + "a")
		if !errors.Is(err, ErrTooLong) {
			t.Errorf("%s: %d-byte key: error %v, want ErrTooLong", tt.tmpl, tt.max+1, err)
		}
		// Bytes count, not runes: "é" is two bytes.
		if _, err := tt.tmpl.Build(strings.Repeat("é", tt.max/2)); !errors.Is(err, ErrTooLong) {
			t.Errorf("%s: multi-byte key over the limit: error %v, want ErrTooLong", tt.tmpl, err)
		}
	}
}

func TestIntWidthKeepsSortOrder(t *testing.T) {
	var prev string
	for n := 0; n <= 99; n++ {
		k, err := stageSK.Build(n, "s")
		if err != nil {
			t.Fatal(err)
		}
		if prev != "" && k <= prev {
			t.Fatalf("key for %d (%q) does not sort after %q", n, k, prev)
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
		if err != nil {
			t.Fatal(err)
		}
		if prev != "" && k <= prev {
			t.Fatalf("key for %v (%q) does not sort after %q", tm, k, prev)
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
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Prefix(%v) = %q, want %q", tt.values, got, tt.want)
			}
		})
	}
	if _, err := stageSK.Prefix(1, "s", "x"); !errors.Is(err, ErrArity) {
		t.Errorf("Prefix with too many values: %v, want ErrArity", err)
	}
}

func TestPrefixNeverMatchesLongerValue(t *testing.T) {
	p, err := ruleSK.Prefix("raw_analysis")
	if err != nil {
		t.Fatal(err)
	}
	other, err := ruleSK.Build("raw_analysis_2", 1, "r")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(other, p) {
		t.Fatalf("prefix %q matches %q, a rule of another stage", p, other)
	}
	own, _ := ruleSK.Build("raw_analysis", 1, "r")
	if !strings.HasPrefix(own, p) {
		t.Fatalf("prefix %q does not match its own rule %q", p, own)
	}
}

// A user id like "abc#STAGE" must never become a key inside another
// entity's range. With it refused, no id can make JOURNEY#{journeyId}
// collide with JOURNEY#{journeyId}#STAGES, nor a rule's stage id sort
// inside another stage's rules.
func TestUserIDCannotReachAnotherEntitysRange(t *testing.T) {
	for _, id := range []string{"abc#STAGES", "abc#", "#abc", "a#b#c"} {
		if k, err := journeyPK.Build(id); err == nil {
			t.Errorf("journeyPK.Build(%q) = %q; want ErrDelimiter", id, k)
		}
	}
	stages, _ := journeyStages.Build("abc")
	if journeyPK.Match(stages) {
		t.Errorf("journeyPK matches %q, the GSI key of the stages list", stages)
	}
	plain, _ := journeyPK.Build("abc")
	if journeyStages.Match(plain) {
		t.Errorf("journeyStages matches %q, a journey key", plain)
	}
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
			if a != b && b.Match(key) {
				t.Errorf("%s matches %q, a key of %s", b, key, a)
			}
		}
	}
}

func TestMultiByteDelimiterValueCannotRunIntoDelimiter(t *testing.T) {
	tm := MustSort("R::{a}::{b}", WithDelimiter("::"))
	// "x:" followed by "::" reads as "x" then ":::", so it is refused.
	for _, v := range []string{"x:", "x::y", "::"} {
		k, err := tm.Build(v, "b")
		if !errors.Is(err, ErrDelimiter) {
			t.Errorf("Build(%q) = %q, %v; want ErrDelimiter", v, k, err)
		}
		if v == "x:" && (err == nil || !strings.Contains(err.Error(), "runs into the delimiter")) {
			t.Errorf("error for %q = %v, want it to say the value runs into the delimiter", v, err)
		}
	}
	for _, v := range []string{":x", "x:y", "x"} {
		k, err := tm.Build(v, "b")
		if err != nil {
			t.Errorf("Build(%q): %v", v, err)
			continue
		}
		p, err := tm.Parse(k)
		if err != nil || p.String("a") != v {
			t.Errorf("Parse(%q) = %q, %v; want a=%q", k, p.String("a"), err, v)
		}
	}
}

func TestTimeWithColonDelimiterIsFixedWidth(t *testing.T) {
	tm := MustSort("E:{at:time}:{id}", WithDelimiter(":"))
	at := time.Date(2025, 11, 1, 20, 30, 15, 234567000, time.UTC)
	k, err := tm.Build(at, "e1")
	if err != nil {
		t.Fatal(err)
	}
	if k != "E:2025-11-01T20:30:15.234567Z:e1" {
		t.Fatalf("Build = %q", k)
	}
	p, err := tm.Parse(k)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Time("at").Equal(at) || p.String("id") != "e1" {
		t.Fatalf("Parse(%q) = %v, %q", k, p.Time("at"), p.String("id"))
	}
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
			if !errors.Is(err, ErrPattern) {
				t.Fatalf("Sort(%q, %q) error %v, want ErrPattern", tt.pattern, tt.delim, err)
			}
			var ke *Error
			if !errors.As(err, &ke) || ke.Template != tt.pattern || ke.Part != tt.part {
				t.Fatalf("error %#v, want Template %q Part %q", err, tt.pattern, tt.part)
			}
		})
	}
	// The same 1025-byte literal is a fine partition key.
	if _, err := Partition(strings.Repeat("L", 1025)); err != nil {
		t.Errorf("1025-byte partition pattern: %v", err)
	}
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
				if !ok || !errors.Is(err, ErrPattern) {
					t.Errorf("%s panicked with %v, want an ErrPattern error", name, r)
				}
			}()
			f()
		}()
	}
}

func TestTemplateAccessors(t *testing.T) {
	if got := jobSK.Pattern(); got != "JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}" {
		t.Errorf("Pattern() = %q", got)
	}
	names := jobSK.Names()
	want := []string{"order", "stageId", "execution", "startedAt"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("Names() = %v, want %v", names, want)
	}
	names[0] = "changed"
	if jobSK.Names()[0] != "order" {
		t.Error("changing the slice Names returned changed the template")
	}
	if tagSK.Delimiter() != ":" || stageSK.Delimiter() != "#" {
		t.Errorf("Delimiter() = %q, %q", tagSK.Delimiter(), stageSK.Delimiter())
	}
	if journeyPK.MaxLength() != 2048 || stageSK.MaxLength() != 1024 {
		t.Errorf("MaxLength() = %d, %d", journeyPK.MaxLength(), stageSK.MaxLength())
	}
	if len(metadataSK.Names()) != 0 {
		t.Errorf("literal-only Names() = %v", metadataSK.Names())
	}
}

func TestBuildAllocatesOnlyTheKey(t *testing.T) {
	at := mustTime("2025-11-01T20:30:15.234567Z")
	values := []any{1, "raw_analysis", 1, at}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := jobSK.Build(values...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Build allocates %v times, want 1 (the key)", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() {
		jobSK.Match("JOB#01#raw_analysis#001#2025-11-01T20:30:15.234567Z")
		jobSK.Match("STAGE#01#raw_analysis")
	})
	if allocs > 0 {
		t.Errorf("Match allocates %v times, want 0", allocs)
	}
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
			if got := tm.delimFree(v); got != want {
				t.Fatalf("delimFree(%q) with delimiter %q = %v, want %v", v, d, got, want)
			}
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
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
