package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryStoreDeclaresItsSkewFromItsSeedAndNoHottestValueThrottles:
// the four seeded stores declare how their keys' requests are skewed
// (each with its reason), every template the model names is one its
// patterns use (Estimate checks), and at the seeds' peaks no key's hottest
// value passes a partition's limits. Spot figures: jobs' 12 in-flight jobs
// take 1/12 each; pipeline's commonest of 20 tag keys 1/H(20) = 27.8%;
// journey's running journey all of its load; tasks' shards a quarter.
func TestEveryStoreDeclaresItsSkewFromItsSeedAndNoHottestValueThrottles(t *testing.T) {
	shares := map[string]map[string]float64{
		"jobs":     {"{jobId}": 1.0 / 12},
		"pipeline": {"T:{key}[#{parent}]": 1 / 3.597739657143682},
		"journey":  {"JOURNEY#{journeyId}": 1},
		"tasks":    {"TASK#{taskId}": 1 / 302_400_000.0},
	}
	for _, m := range models() {
		est, err := m.Estimate()
		require.NoError(t, err, m.Store)
		assert.Empty(t, est.HotSkewed(), "%s: a hottest value throttles", m.Store)
		want, seeded := shares[m.Store]
		if !seeded {
			continue
		}
		require.NotEmpty(t, m.Popularity, m.Store)
		for tmpl, p := range m.Popularity {
			assert.NotEmpty(t, p.Why, "%s %s: the reason from the seed", m.Store, tmpl)
		}
		got := map[string]float64{}
		for _, sl := range est.Skewed {
			got[sl.Partition] = sl.Share
		}
		for tmpl, share := range want {
			assert.InDelta(t, share, got[tmpl], share*1e-6, "%s %s", m.Store, tmpl)
		}
		if m.Store == "tasks" {
			for _, pl := range est.Partitions {
				if pl.Spread > 1 {
					_, ok := m.Popularity[pl.Partition]
					assert.True(t, ok, "tasks: the shards of %s declare their spread", pl.Partition)
				}
			}
		}
	}
}
