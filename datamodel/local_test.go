package datamodel_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/table"
)

// TestAStrongReadOfALocalIndexIsCostedNotRefused: DynamoDB reads a local
// secondary index strongly consistent on request (a global one never), at
// twice the eventually consistent units.
func TestAStrongReadOfALocalIndexIsCostedNotRefused(t *testing.T) {
	s := testSchema()
	s.Indexes = append(s.Indexes, table.Index{Name: "LSI1", PartitionKey: s.PartitionKey,
		SortKey: table.Attribute{Name: "LSI1SK", Type: types.ScalarAttributeTypeS}, Local: true})
	q := access.Pattern{Name: "q", Operation: access.Query, Index: "LSI1", ItemSize: 4096, ItemsPerRequest: 2, RatePerSecond: 1}
	strong := q
	strong.Name, strong.Consistent = "strong", true
	est, err := datamodel.EstimateSchema(s, pats(q, strong))
	require.NoError(t, err)
	require.Len(t, est.Patterns, 2)
	assert.InDelta(t, 2*est.Patterns[0].ReadUnits, est.Patterns[1].ReadUnits, 1e-9)
}

// TestALocalIndexLoadsTheTablesCapacity: a local secondary index has no
// throughput of its own (CreateTable takes none for it): the table's Load
// counts its reads and its entries' writes, and a provisioned plan has no
// part for it.
func TestALocalIndexLoadsTheTablesCapacity(t *testing.T) {
	s := testSchema()
	s.Indexes = append(s.Indexes, table.Index{Name: "LSI1", PartitionKey: s.PartitionKey,
		SortKey: table.Attribute{Name: "LSI1SK", Type: types.ScalarAttributeTypeS}, Local: true})
	put := access.Pattern{Name: "put", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 10,
		IndexWrites: []access.IndexWrite{{Index: "LSI1", Partition: "{p}"}, {Index: "GSI1", Partition: "{g}"}}}
	q := access.Pattern{Name: "q", Operation: access.Query, Index: "LSI1", ItemSize: 4096, RatePerSecond: 10}
	est, err := datamodel.EstimateSchema(s, pats(put, q))
	require.NoError(t, err)
	tbl, lsi, gsi := est.Load(""), est.Load("LSI1"), est.Load("GSI1")
	assert.InDelta(t, 10, lsi.PeakWrite, 1e-9, "one 1 KB entry per put")
	assert.InDelta(t, 10+lsi.PeakWrite, tbl.PeakWrite, 1e-9, "the table's writes and the local index's")
	assert.InDelta(t, 10, gsi.PeakWrite, 1e-9)
	assert.InDelta(t, lsi.PeakRead, tbl.PeakRead, 1e-9, "the local index's reads")
	assert.Positive(t, tbl.PeakRead)

	plan, err := est.Provisioned(s, table.Capacity{Read: 100, Write: 100})
	require.NoError(t, err)
	var parts []string
	for _, p := range plan.Parts {
		parts = append(parts, p.Load.Index)
	}
	assert.Equal(t, []string{"", "GSI1", "ByStatus"}, parts)
}
