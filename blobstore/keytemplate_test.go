package blobstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"testing/quick"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pipeline design's layout (docs/systems/pipeline.md), with its "exections" folder.
var testOutputKey = MustKeyTemplate("pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt")

// adversarialID builds an id from pieces chosen to collide under naive
// joining or escaping: separators, dot segments, escape-like text, control
// bytes, invalid UTF-8, composed and decomposed characters.
func adversarialID(r *rand.Rand) string {
	pieces := []string{
		"/", "//", ".", "..", "%", "%2F", "%2E", "%25", "%2f", "\x00", "\n", "\t", "\x7f", " ", "\\",
		"é", "e\u0301", "\xff", "\xc3", "日本", "a", "A", "z", "1", "-", "_", ":", "#", "?", "+",
		"exections", "output.txt", "pipelines", ".blobstore",
	}
	n := 1 + r.Intn(5)
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

func TestKeyTemplateDistinctIDsBuildDistinctKeys(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	owner := map[string][3]string{}
	for range 50000 {
		ids := [3]string{adversarialID(r), adversarialID(r), adversarialID(r)}
		key, err := testOutputKey.Build(ids[:]...)
		require.NoError(t, err, "ids %q", ids)
		if prev, ok := owner[key]; ok {
			require.Equal(t, prev, ids, "two id tuples build key %q", key)
		}
		owner[key] = ids
		assert.NoError(t, ValidateKey(key), "ValidateKey refuses %q", key)
		back, err := testOutputKey.Parse(key)
		require.NoError(t, err, "key %q", key)
		assert.Equal(t, ids[:], back)
	}
	assert.Greater(t, len(owner), 40000, "the generator repeats itself too much to test anything")
}

func TestKeyTemplateSeparatesTheIssue17Collision(t *testing.T) {
	// Joined naively, both tuples give pipelines/a/1/exections/y/1/exections/z/output.txt.
	k1, err := testOutputKey.Build("a", "1", "y/1/exections/z")
	require.NoError(t, err)
	k2, err := testOutputKey.Build("a/1/exections/y", "1", "z")
	require.NoError(t, err)
	assert.NotEqual(t, k1, k2)
	assert.Equal(t, "pipelines/a/1/exections/y%2F1%2Fexections%2Fz/output.txt", k1)
	assert.Equal(t, "pipelines/a%2F1%2Fexections%2Fy/1/exections/z/output.txt", k2)
}

func TestKeyTemplatePlainIDsBuildTheSeedKeys(t *testing.T) {
	key, err := testOutputKey.Build("sap-emissions_01.v2", "12", "01JD5Z3W7Q8X9Y0ZABCDEFGHJK")
	require.NoError(t, err)
	assert.Equal(t, "pipelines/sap-emissions_01.v2/12/exections/01JD5Z3W7Q8X9Y0ZABCDEFGHJK/output.txt", key)

	logKey := MustKeyTemplate("journeys/{journeyId}/stages/{stageId}/executions/{jobId}/logs/{stepId}.json")
	key, err = logKey.Build("JRN-ABC123", "raw_analysis", "JOB-1", "step-1")
	require.NoError(t, err)
	assert.Equal(t, "journeys/JRN-ABC123/stages/raw_analysis/executions/JOB-1/logs/step-1.json", key)
	back, err := logKey.Parse(key)
	require.NoError(t, err)
	assert.Equal(t, []string{"JRN-ABC123", "raw_analysis", "JOB-1", "step-1"}, back)
}

func TestEscapeSegmentRoundTripsEveryString(t *testing.T) {
	roundTrip := func(s string) bool {
		if s == "" {
			return true
		}
		e := EscapeSegment(s)
		back, err := UnescapeSegment(e)
		return err == nil && back == s && !strings.Contains(e, "/") && e != "." && e != ".."
	}
	require.NoError(t, quick.Check(roundTrip, &quick.Config{MaxCount: 20000}))
	// quick's strings are mostly valid UTF-8; raw bytes too.
	bytesRoundTrip := func(b []byte) bool { return roundTrip(string(b)) }
	require.NoError(t, quick.Check(bytesRoundTrip, &quick.Config{MaxCount: 20000}))
}

func TestEscapeSegmentDotSegmentsAndReservedBytes(t *testing.T) {
	for in, want := range map[string]string{
		".":        "%2E",
		"..":       "%2E%2E",
		"...":      "...",
		"a.b":      "a.b",
		"a/b":      "a%2Fb",
		"%":        "%25",
		"%2F":      "%252F",
		"\x00":     "%00",
		"a b":      "a%20b",
		"é":        "%C3%A9",
		"e\u0301":  "e%CC%81",
		"\xff":     "%FF",
		"Az09_-.x": "Az09_-.x",
	} {
		assert.Equal(t, want, EscapeSegment(in), "EscapeSegment(%q)", in)
	}
}

func TestUnescapeSegmentRefusesNonCanonicalForms(t *testing.T) {
	for _, s := range []string{"", "%2f", "%41", "a/b", "%", "%2", "%G0", ".", "..", "a b", "é", "%2E.", "a%2E"} {
		_, err := UnescapeSegment(s)
		assert.Error(t, err, "UnescapeSegment(%q)", s)
	}
}

func TestKeyTemplateParseRefusesKeysBuildCannotWrite(t *testing.T) {
	for _, key := range []string{
		"",
		"pipelines/a/1/exections/b",
		"pipelines/a/1/exections/b/output.txt/x",
		"pipelines/a/1/executions/b/output.txt",
		"pipelines/a/1/exections/b/input.txt",
		"pipelines/a%2f/1/exections/b/output.txt",
		"pipelines/../1/exections/b/output.txt",
		"pipelines//1/exections/b/output.txt",
		"pipelines/a b/1/exections/b/output.txt",
	} {
		_, err := testOutputKey.Parse(key)
		assert.ErrorIs(t, err, ErrKeyMismatch, "Parse(%q)", key)
		assert.False(t, testOutputKey.Match(key))
	}
	logKey := MustKeyTemplate("logs/{stepId}.json")
	for _, key := range []string{"logs/.json", "logs/a.txt", "logs/a"} {
		_, err := logKey.Parse(key)
		assert.ErrorIs(t, err, ErrKeyMismatch, "Parse(%q)", key)
	}
	v, err := logKey.Parse("logs/a.json.json")
	require.NoError(t, err)
	assert.Equal(t, []string{"a.json"}, v)
}

func TestKeyTemplateBuildRefusesWhatItCannotWrite(t *testing.T) {
	long := strings.Repeat("x", 200)
	first := MustKeyTemplate("{bucket}/x")
	for name, build := range map[string]func() (string, error){
		"empty value":           func() (string, error) { return testOutputKey.Build("a", "", "b") },
		"too few values":        func() (string, error) { return testOutputKey.Build("a", "1") },
		"too many values":       func() (string, error) { return testOutputKey.Build("a", "1", "b", "c") },
		"segment over 255":      func() (string, error) { return testOutputKey.Build(strings.Repeat("/", 90), "1", "b") },
		"key over 1024":         func() (string, error) { return testOutputKey.Build(long, long, long+long+long+long) },
		"Dir's reserved folder": func() (string, error) { return first.Build(".blobstore") },
		"nil template":          func() (string, error) { return (*KeyTemplate)(nil).Build("a") },
	} {
		key, err := build()
		var ke *KeyError
		assert.ErrorAs(t, err, &ke, name)
		assert.ErrorIs(t, err, ErrInvalidKey, name)
		assert.Empty(t, key, name)
	}
}

func TestKeyTemplatePrefixReadsOnlyItsOwnIDs(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	for _, ids := range [][]string{{"a", "1", "x"}, {"a", "2", "y"}, {"a/1", "1", "z"}, {"a%2F1", "1", "w"}, {"ab", "1", "v"}} {
		key, err := testOutputKey.Build(ids...)
		require.NoError(t, err)
		require.NoError(t, m.Put(ctx, key, strings.NewReader("out")))
	}
	list := func(prefix string) []string {
		var got []string
		for info, err := range m.List(ctx, prefix) {
			require.NoError(t, err)
			got = append(got, info.Key)
		}
		return got
	}
	p, err := testOutputKey.Prefix("a")
	require.NoError(t, err)
	assert.Equal(t, "pipelines/a/", p)
	assert.Equal(t, []string{"pipelines/a/1/exections/x/output.txt", "pipelines/a/2/exections/y/output.txt"}, list(p))

	p, err = testOutputKey.Prefix("a/1")
	require.NoError(t, err)
	assert.Equal(t, []string{"pipelines/a%2F1/1/exections/z/output.txt"}, list(p))

	p, err = testOutputKey.Prefix("a", "1")
	require.NoError(t, err)
	assert.Equal(t, "pipelines/a/1/", p)

	p, err = testOutputKey.Prefix()
	require.NoError(t, err)
	assert.Equal(t, "pipelines/", p)

	_, err = testOutputKey.Prefix("a", "1", "x")
	assert.ErrorIs(t, err, ErrInvalidKey)
	_, err = testOutputKey.Prefix("")
	assert.ErrorIs(t, err, ErrInvalidKey)
}

func TestNewKeyTemplateRefusesBadPatterns(t *testing.T) {
	for _, pattern := range []string{
		"", "/a", "a/", "a//b", "./a", "a/..", "a\\b", "a/\x00", ".blobstore/{x}",
		"{a}{b}", "a{", "a}", "}a{", "{}", "{a-b}", "{a}/{a}", "a/{b}}",
	} {
		_, err := NewKeyTemplate(pattern)
		assert.Error(t, err, "NewKeyTemplate(%q)", pattern)
	}
	assert.Panics(t, func() { MustKeyTemplate("a//b") })
	tpl, err := NewKeyTemplate("reports/{id}-report.json")
	require.NoError(t, err)
	assert.Equal(t, []string{"id"}, tpl.Names())
	assert.Equal(t, "reports/{id}-report.json", tpl.String())
}

func ExampleKeyTemplate() {
	output := MustKeyTemplate("pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt")

	// Plain ids give the seed's keys, unchanged.
	key, _ := output.Build("sap-emissions", "1", "01JD5Z3W7Q8X9Y0ZABCDEFGHJK")
	fmt.Println(key)

	// An id cannot reach into another pipeline's folder.
	key, _ = output.Build("a", "1", "y/1/exections/z")
	fmt.Println(key)
	ids, _ := output.Parse(key)
	fmt.Printf("%q\n", ids)

	_, err := output.Build("a", "1", "")
	fmt.Println(errors.Is(err, ErrInvalidKey))
	// Output:
	// pipelines/sap-emissions/1/exections/01JD5Z3W7Q8X9Y0ZABCDEFGHJK/output.txt
	// pipelines/a/1/exections/y%2F1%2Fexections%2Fz/output.txt
	// ["a" "1" "y/1/exections/z"]
	// true
}
