package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryDocumentPricesItsAlternativesWithOneChoicePerDecision: every
// model's alternatives have exactly one chosen option per decision; the
// tasks and jobs production presets are priced beside on demand; tasks'
// payload inline is cheaper than an S3 object per task, and journey's full
// logs cheaper in S3 than as items, as their designs chose.
func TestEveryDocumentPricesItsAlternativesWithOneChoicePerDecision(t *testing.T) {
	for _, m := range models() {
		alts, err := m.Alternatives()
		require.NoError(t, err, m.Store)
		chosen := map[string]int{}
		options := map[string]bool{}
		for _, a := range alts {
			if a.Chosen {
				chosen[a.Decision]++
				assert.Zero(t, a.Delta, "%s %s", m.Store, a.Decision)
			}
			options[a.Key+" "+a.Option] = true
			if _, ok := chosen[a.Decision]; !ok {
				chosen[a.Decision] = 0
			}
		}
		for d, n := range chosen {
			assert.Equal(t, 1, n, "%s: %q has %d chosen options", m.Store, d, n)
		}
		switch m.Store {
		case "tasks":
			assert.True(t, options["capacity tasks.ProductionCapacity() (the design's production plan)"])
			for _, a := range alts {
				if a.Key == "offload:a task's payload" && !a.Chosen {
					assert.Greater(t, a.Delta, 0.0, "S3 per task costs more than inline")
				}
			}
		case "jobs":
			assert.True(t, options["capacity jobs.ProductionCapacity() (the seed's production plan)"])
		case "journey":
			for _, a := range alts {
				if a.Key == "offload:a job's full log" && !a.Chosen {
					assert.Greater(t, a.Delta, 0.0, "logs as items cost more than in S3")
				}
			}
		}
	}
}
