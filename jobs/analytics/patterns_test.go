package analytics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
)

// The declared writes are what Apply sends a job lifecycle when each
// batch holds one change (the consumer's batches at the jobs design's
// volume): per job created, the write patterns' rates add up to the
// requests and write units Apply really sends, at peak and on average.
func TestDeclaredWritesPerJobAreWhatApplySendsAtOneChangeABatch(t *testing.T) {
	var createPeak, createAverage float64
	for _, ap := range jobs.Patterns() {
		if ap.Name == "Create job" {
			createPeak, createAverage = ap.RatePerSecond, ap.AveragePerSecond
		}
	}
	require.Positive(t, createAverage, "the jobs store declares its job rate")
	var peak, average float64
	for _, ap := range analytics.Patterns() {
		if ap.Operation == access.UpdateItem {
			peak += ap.RatePerSecond
			average += ap.AveragePerSecond
		}
	}
	const users, perUser = 3, 2
	db, all := lifecycles(t, users, perUser)
	u := applyCost(t, db, all, 1, "declared", 0)
	n := float64(users * perUser)
	assert.InDelta(t, float64(u.Requests)/n, average/createAverage, 1e-9, "declared writes per job, on average")
	assert.InDelta(t, float64(u.Requests)/n, peak/createPeak, 1e-9, "declared writes per job, at peak")
	assert.InDelta(t, u.WriteUnits/n, average/createAverage, 1e-9, "declared write units per job (one per row write)")
}
