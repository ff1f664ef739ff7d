package datamodel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/tasks"
)

// storeSchemas are the four stores' declared schemas and the jobs
// analytics view's, under their default table names.
func storeSchemas() []decl {
	return []decl{
		{journey.Schema(""), journey.Patterns()},
		{jobs.Schema(jobs.TableNameForEnv("prod")), jobs.Patterns()},
		{tasks.Schema(tasks.DefaultTableName), tasks.Patterns()},
		{pipeline.Schema(pipeline.DefaultTableName), pipeline.Patterns()},
		{analytics.Schema(analytics.TableNameForEnv("prod")), analytics.Patterns()},
	}
}

// TestEveryDeclaredPatternMeasuresWithinTenPercentOnTheFake replays each
// access pattern of the four stores on dynamotest and compares the
// consumed capacity with the estimate.
func TestEveryDeclaredPatternMeasuresWithinTenPercentOnTheFake(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %-40s %9s %9s %9s %9s  %s\n", "table", "pattern", "est RCU", "meas RCU", "est WCU", "meas WCU", "ok")
	for _, s := range storeSchemas() {
		ms, err := datamodel.Measure(ctx, s.Schema, s.Patterns)
		require.NoError(t, err)
		for _, m := range ms {
			ok := m.Within(0.10)
			fmt.Fprintf(&b, "%-22s %-40s %9.1f %9.1f %9.1f %9.1f  %v\n", s.Name, m.Pattern, m.EstimatedRead, m.MeasuredRead, m.EstimatedWrite, m.MeasuredWrite, ok)
			assert.True(t, ok, "%s: %q: measured %.1f RCU %.1f WCU, estimated %.1f RCU %.1f WCU", s.Name, m.Pattern, m.MeasuredRead, m.MeasuredWrite, m.EstimatedRead, m.EstimatedWrite)
		}
	}
	t.Log(b.String())
}

// TestEveryStorePatternNamesItsPartition keeps the hot-partition analysis
// complete as stores add patterns: each must say which key value it hits.
func TestEveryStorePatternNamesItsPartition(t *testing.T) {
	for _, s := range storeSchemas() {
		for _, ap := range s.Patterns {
			assert.NotEmpty(t, ap.Partition, "%s: pattern %q declares no Partition (access.Pattern.Partition)", s.Name, ap.Name)
		}
	}
}
