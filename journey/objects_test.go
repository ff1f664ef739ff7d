package journey

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// adversarial is the alphabet of the property tests: the characters ids
// may hold, and the ones that could split, escape or climb out of a key.
var adversarial = []string{"a", "Z", "0", "_", "-", "/", ".", "..", "%", "%2F", "#", ":", "\\", " ", "é", "日", "\x00", "{", "}"}

// randomID is 0 to 4 parts, most of them characters ids may hold, so
// that enough tuples are valid for the one-to-one check to mean something.
func randomID(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(5) {
		if r.IntN(10) < 8 {
			b.WriteString(adversarial[r.IntN(5)])
		} else {
			b.WriteString(adversarial[r.IntN(len(adversarial))])
		}
	}
	return b.String()
}

// TestObjectKeysAreOneToOneInTheirIds: over random tuples of adversarial
// ids, either an id is refused before any key is built, or the key parses
// back to exactly the tuple it was built from, so no two tuples share a
// key (a log file of job a/b can never be the log file of job a).
func TestObjectKeysAreOneToOneInTheirIds(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	seen := map[string][]string{}
	accepted := 0
	for range 20000 {
		ids := []string{randomID(r), randomID(r), randomID(r), randomID(r), randomID(r)}
		valid := true
		for _, id := range ids {
			if checkID("id", id) != nil {
				valid = false
			}
		}
		if !valid {
			continue
		}
		accepted++
		for _, tc := range []struct {
			name string
			n    int
		}{{"log", 4}, {"report", 5}} {
			tmpl := logObjects
			if tc.name == "report" {
				tmpl = reportObjects
			}
			key, err := objectKey(tmpl, ids[:tc.n]...)
			require.NoError(t, err)
			back, err := tmpl.Parse(key)
			require.NoError(t, err)
			assert.Equal(t, ids[:tc.n], back, "%s key %q", tc.name, key)
			if prev, ok := seen[key]; ok {
				assert.Equal(t, prev, ids[:tc.n], "two tuples share key %q", key)
			}
			seen[key] = ids[:tc.n]
		}
	}
	assert.Greater(t, accepted, 100, "too few valid tuples to mean anything")
}

// TestAdversarialIdsAreRefusedBeforeAnyRequest: every call that builds a
// key or object key from a caller's id refuses '/', "..", '%', '#',
// unicode and the empty id with table.ErrInvalidInput, sending nothing and
// writing no object.
func TestAdversarialIdsAreRefusedBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ref := startedJob(t, e)
	e.db.ResetCalls()
	logsBefore, reportsBefore := objects(t, e.logs), objects(t, e.reports)
	for _, bad := range []string{"", "a/b", "..", "a%2Fb", "a#b", "é", "a.json", "JOB 1", strings.Repeat("x", 129)} {
		t.Run(bad, func(t *testing.T) {
			badRefs := []JobRef{ref, ref, ref, ref}
			badRefs[0].JourneyID, badRefs[1].StageID, badRefs[2].JobID = bad, bad, bad
			for _, br := range badRefs[:3] {
				_, err := e.store.Logs().Logger(br, "step")
				assert.ErrorIs(t, err, table.ErrInvalidInput)
				_, err = e.store.Reports().Write(ctx, br, "step", Report{ReportType: ReportSummary, Title: "t"})
				assert.ErrorIs(t, err, table.ErrInvalidInput)
				_, err = e.store.Logs().Read(ctx, br)
				assert.ErrorIs(t, err, table.ErrInvalidInput)
				_, err = e.store.Reports().Read(ctx, br)
				assert.ErrorIs(t, err, table.ErrInvalidInput)
			}
			_, err := e.store.Logs().Logger(ref, bad)
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Reports().Write(ctx, ref, bad, Report{ReportType: ReportSummary, Title: "t"})
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Logs().ReadStep(ctx, ref, bad)
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Backups().Export(ctx, bad)
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Backups().Import(ctx, bad)
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			if bad == "" {
				return // "" asks CreateJourney, StartJob and AddRule for a new id
			}
			_, err = e.store.Journeys().Create(ctx, NewJourney{ID: bad, Name: "n"})
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis", JobID: bad})
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-T", StageID: "raw_analysis", RuleID: bad, Title: "t", Type: RuleValidation})
			assert.ErrorIs(t, err, table.ErrInvalidInput)
			_, err = e.store.Jobs().Get(ctx, JobRef{JourneyID: "JRN-T", StageID: "raw_analysis", Order: 1, Execution: 1, StartedAt: time.Now(), JobID: bad})
			assert.ErrorIs(t, err, table.ErrInvalidInput)
		})
	}
	assert.Zero(t, e.calls(), "requests sent for refused ids")
	assert.Equal(t, logsBefore, objects(t, e.logs))
	assert.Equal(t, reportsBefore, objects(t, e.reports))
}
