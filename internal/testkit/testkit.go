// Package testkit holds test helpers several packages' tests share: a
// follower of a table's stream and the counters an OpenTelemetry reader
// collected. Tests only; nothing in the library imports it.
package testkit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// Follow turns on tableName's stream (new and old images) and returns a
// function that reads the changes made since its last call, as a
// consumer of the default lease table sees them. clock is the fake's, so
// leases agree with the store's time.
func Follow(t testing.TB, db table.API, streams changes.StreamsAPI, tableName string, clock func() time.Time) func() []changes.Change[table.Item] {
	t.Helper()
	ctx := context.Background()
	_, err := changes.EnableStream(ctx, db, tableName, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, db))
	c, err := changes.New[table.Item](db, streams, tableName, changes.Decode(changes.DecodeItem),
		changes.Name("follower-"+tableName), changes.Clock(clock), changes.PollInterval(0))
	require.NoError(t, err)
	return func() []changes.Change[table.Item] {
		t.Helper()
		var all []changes.Change[table.Item]
		for {
			n, err := c.Step(ctx, func(_ context.Context, batch []changes.Change[table.Item]) error {
				all = append(all, batch...)
				return nil
			})
			require.NoError(t, err)
			if n == 0 {
				return all
			}
		}
	}
}

// Counts is the value of every int64 counter of the meter scope the
// reader collected, per set of attributes other than db.collection.name
// ("key=value,..."), by instrument name.
func Counts(t testing.TB, reader *sdkmetric.ManualReader, scope string) map[string]map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	out := map[string]map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != scope {
			continue
		}
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				continue
			}
			out[m.Name] = map[string]int64{}
			for _, dp := range sum.DataPoints {
				var keys []string
				for _, kv := range dp.Attributes.ToSlice() {
					if kv.Key != "db.collection.name" {
						keys = append(keys, string(kv.Key)+"="+kv.Value.Emit())
					}
				}
				out[m.Name][strings.Join(keys, ",")] += dp.Value
			}
		}
	}
	return out
}
