package datamodel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/tasks"
)

// queueItems is a task queue's items as the store writes them at its
// default four shards.
func queueItems() []datamodel.Sample {
	return []datamodel.Sample{
		{{"PK", "TASK#t-1"}, {"SK", "META"}, {"GSI1PK", "STATUS#PENDING#3"}, {"GSI1SK", "CREATED#2026-09-23T10:00:00.000000Z"}},
		{{"PK", "TASK#t-1"}, {"SK", "EVENT#0001"}},
		{{"PK", "IDEM#k-1"}, {"SK", "TASK#t-1"}},
		{{"PK", "WORKER#w-1"}, {"SK", "TASK#t-2"}},
		{{"PK", "CONFIG"}, {"SK", "QUEUE"}},
	}
}

func queueModel(items []datamodel.Sample) datamodel.Model {
	return datamodel.Model{Store: "tasks", Schema: tasks.Schema("tasks"), Patterns: tasks.Patterns(), Entities: tasks.Entities(), Items: items}
}

// CheckItems passes the items a store writes and names each one it does
// not: too few or too many, a key of no declared entity, an index
// partition no pattern declares (an unsharded or out-of-range shard of a
// sharded one included), a missing key attribute.
func TestCheckItemsNamesEveryItemTheStoreDoesNotWrite(t *testing.T) {
	require.NoError(t, datamodel.CheckItems(queueModel(queueItems())))

	bad := map[string]struct {
		edit  func([]datamodel.Sample) []datamodel.Sample
		fault string
	}{
		"too few":         {func(s []datamodel.Sample) []datamodel.Sample { return s[:4] }, "4 items, the method asks for 5-10"},
		"too many":        {func(s []datamodel.Sample) []datamodel.Sample { return append(append(s, s...), s[0]) }, "11 items, the method asks for 5-10"},
		"unknown sk":      {func(s []datamodel.Sample) []datamodel.Sample { s[1][1][1] = "HISTORY#0001"; return s }, "item 2 (TASK#t-1 HISTORY#0001) has the keys of no declared entity"},
		"sk of another":   {func(s []datamodel.Sample) []datamodel.Sample { s[2][1][1] = "META"; return s }, "item 3 (IDEM#k-1 META) has the keys of no declared entity"},
		"unknown pk":      {func(s []datamodel.Sample) []datamodel.Sample { s[3][0][1] = "CLAIM#w-1"; return s }, "item 4 (CLAIM#w-1 TASK#t-2) has the keys of no declared entity"},
		"literal partial": {func(s []datamodel.Sample) []datamodel.Sample { s[4][0][1] = "CONFIGS"; return s }, "item 5 (CONFIGS QUEUE) has the keys of no declared entity"},
		"unsharded":       {func(s []datamodel.Sample) []datamodel.Sample { s[0][2][1] = "STATUS#PENDING"; return s }, `GSI1PK "STATUS#PENDING" is no partition the patterns declare on GSI1`},
		"shard past":      {func(s []datamodel.Sample) []datamodel.Sample { s[0][2][1] = "STATUS#PENDING#4"; return s }, `GSI1PK "STATUS#PENDING#4" is no partition`},
		"shard not int":   {func(s []datamodel.Sample) []datamodel.Sample { s[0][2][1] = "STATUS#PENDING#x"; return s }, `GSI1PK "STATUS#PENDING#x" is no partition`},
		"unknown status":  {func(s []datamodel.Sample) []datamodel.Sample { s[0][2][1] = "STATUS#PAUSED#1"; return s }, `GSI1PK "STATUS#PAUSED#1" is no partition`},
		"no sort key":     {func(s []datamodel.Sample) []datamodel.Sample { s[1] = s[1][:1]; return s }, "item 2 lacks the table's key attributes PK, SK"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			err := datamodel.CheckItems(queueModel(c.edit(queueItems())))
			require.ErrorIs(t, err, datamodel.ErrItems)
			var ie *datamodel.ItemsError
			require.ErrorAs(t, err, &ie)
			assert.Len(t, ie.Faults, 1, "%v", ie.Faults)
			assert.Contains(t, err.Error(), c.fault)
		})
	}
}

// Templates take placeholders and optional parts as the stores declare
// them: pipeline's tag partition T:{key}[#{parent}] with and without its
// parent, and its group membership under the pipeline's key.
func TestCheckItemsReadsOptionalPartsOfATemplate(t *testing.T) {
	m := datamodel.Model{Store: "pipeline", Schema: pipeline.Schema("pipelines"), Patterns: pipeline.Patterns(), Entities: pipeline.Entities(), Items: []datamodel.Sample{
		{{"pk", "P:p1"}, {"sk", "PV:current"}, {"siKey1", "P"}},
		{{"pk", "P:p1"}, {"sk", "PV:0000000003"}},
		{{"pk", "P:p1"}, {"sk", "G:/usa"}, {"siKey1", "G:/usa"}},
		{{"pk", "T:source"}, {"sk", "T:sap:P:p1"}},
		{{"pk", "T:region#usa"}, {"sk", "T:west:P:p1"}},
	}}
	require.NoError(t, datamodel.CheckItems(m))
	m.Items[2] = datamodel.Sample{{"pk", "G:/usa"}, {"sk", "P:p1"}, {"siKey1", "G:/usa"}}
	assert.ErrorContains(t, datamodel.CheckItems(m), "item 3 (G:/usa P:p1) has the keys of no declared entity")
}

// A GSI partition written and read by no declared pattern is listed with
// its writers; one read by the same template (whatever its placeholders'
// names), by a template it is a value of, or as one value of the write's
// template, is not. The document's "unnecessary GSIs" box names it.
func TestUnreadIndexPartitionsAreTheEntriesWrittenAndNeverRead(t *testing.T) {
	gsi := func(p string) []access.IndexWrite { return []access.IndexWrite{{Index: tasks.IndexGSI1, Partition: p}} }
	write := func(name, p string) access.Pattern {
		return access.Pattern{Name: name, Operation: access.PutItem, ItemSize: 100, RatePerSecond: 1, Partition: "X#{id}", IndexWrites: gsi(p)}
	}
	read := func(name, p string) access.Pattern {
		return access.Pattern{Name: name, Operation: access.Query, Index: tasks.IndexGSI1, ItemSize: 100, ItemsPerRequest: 1, RatePerSecond: 1, Partition: p}
	}
	ps := []access.Pattern{
		write("w1", "J#{journeyId}#STAGES"), read("r1", "J#{id}#STAGES"),
		write("w2", "STATUS#OPEN"), read("r2", "STATUS#{status}"),
		write("w3", "{status}"), read("r3", "DONE"),
		write("w4", "J#{journeyId}#RULES"), write("w5", "J#{journeyId}#RULES"),
		write("w6", "CLOSED"),
		read("r4", "J#{journeyId}#RULESET"),
	}
	e, err := datamodel.EstimateSchema(tasks.Schema("tasks"), ps)
	require.NoError(t, err)
	assert.Equal(t, []datamodel.UnreadIndexPartition{
		{Index: tasks.IndexGSI1, Partition: "J#{journeyId}#RULES", Writers: []string{"w4", "w5"}},
		{Index: tasks.IndexGSI1, Partition: "CLOSED", Writers: []string{"w6"}},
	}, e.UnreadIndexPartitions())

	doc, err := datamodel.Render(t.Context(), datamodel.Model{Store: "x", Schema: tasks.Schema("tasks"), Patterns: ps})
	require.NoError(t, err)
	assert.Contains(t, string(doc), "- [ ] Unnecessary GSIs are removed and solved with an identifying relationship: `J#{journeyId}#RULES` entries written to GSI1 (w4, w5) that no declared read names; `CLOSED` entries written to GSI1 (w6) that no declared read names\n")
	assert.Nil(t, (*datamodel.Estimate)(nil).UnreadIndexPartitions())
}
