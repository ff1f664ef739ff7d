package datamodel_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/tasks"
)

// The method's 100+ distinct partition key values: a key named per entity
// passes; constants count once per shard; a template that one of the
// constants is a value of ({status}) adds none; the box is unticked only
// when a low-cardinality key has a value past a partition's limits.
func TestCardinalityCountsDistinctPartitionValues(t *testing.T) {
	gsi := func(p string) []access.IndexWrite { return []access.IndexWrite{{Index: tasks.IndexGSI1, Partition: p}} }
	ps := []access.Pattern{
		{Name: "put", Operation: access.PutItem, ItemSize: 100, RatePerSecond: 10, Partition: "T#{id}", IndexWrites: gsi("OPEN"), Partitions: 4},
		{Name: "close", Operation: access.UpdateItem, ItemSize: 100, RatePerSecond: 10, Partition: "T#{id}", IndexWrites: gsi("CLOSED")},
		{Name: "drop", Operation: access.DeleteItem, ItemSize: 100, RatePerSecond: 1, Partition: "T#{id}", IndexWrites: gsi("{status}")},
		{Name: "open", Operation: access.Query, Index: tasks.IndexGSI1, ItemSize: 100, ItemsPerRequest: 1, RatePerSecond: 1, Partition: "OPEN", Partitions: 4},
	}
	e, err := datamodel.EstimateSchema(tasks.Schema("tasks"), ps)
	require.NoError(t, err)
	cs := e.Cardinality()
	require.Len(t, cs, 2)
	assert.Equal(t, "", cs[0].Index)
	assert.True(t, cs[0].PerEntity, "T#{id}: one value per task")
	assert.False(t, cs[0].Low())
	assert.Equal(t, tasks.IndexGSI1, cs[1].Index)
	assert.False(t, cs[1].PerEntity, "{status} names the constants' values")
	assert.ElementsMatch(t, []string{"OPEN", "CLOSED"}, cs[1].Constants)
	assert.Equal(t, 5, cs[1].Values, "OPEN over 4 shards, CLOSED")
	assert.True(t, cs[1].Low())
	assert.Empty(t, cs[1].Hot)

	box := func(ps []access.Pattern) string {
		doc, err := datamodel.Render(t.Context(), datamodel.Model{Store: "x", Schema: tasks.Schema("tasks"), Patterns: ps})
		require.NoError(t, err)
		return string(doc)
	}
	assert.Contains(t, box(ps), "- [x] Partition keys have 100+ distinct values (the method's aim against hot partitions), or fewer with every value under a partition's limits at the declared peaks (hot-partition analysis): GSI1: 5 values (")

	ps[1].RatePerSecond = 2000 // CLOSED takes 2,000 WCU/s
	assert.Contains(t, box(ps), "- [ ] Partition keys have 100+ distinct values (the method's aim against hot partitions): fewer, with values past a partition's limits: GSI1: 5 values (")

	var many []access.Pattern
	for i := range datamodel.MinPartitionValues {
		many = append(many, access.Pattern{Name: fmt.Sprint(i), Operation: access.GetItem, ItemSize: 100, RatePerSecond: 1, Partition: fmt.Sprintf("K#%d", i)})
	}
	e, err = datamodel.EstimateSchema(tasks.Schema("tasks"), many)
	require.NoError(t, err)
	require.Len(t, e.Cardinality(), 1)
	assert.False(t, e.Cardinality()[0].Low(), "100 constants are enough")
	many = many[1:]
	e, err = datamodel.EstimateSchema(tasks.Schema("tasks"), many)
	require.NoError(t, err)
	assert.True(t, e.Cardinality()[0].Low(), "99 are not")
	assert.Nil(t, (*datamodel.Estimate)(nil).Cardinality())
}
