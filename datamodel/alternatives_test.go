package datamodel_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/table"
)

// bareSchema is a table without indexes: a provisioned plan then prices
// the table alone.
func bareSchema() table.Schema {
	return table.Schema{Name: "bare", PartitionKey: table.Attribute{Name: "PK", Type: types.ScalarAttributeTypeS}}
}

// decision returns the alternatives of one decision, by key.
func decision(t *testing.T, alts []datamodel.Alternative, key string) []datamodel.Alternative {
	t.Helper()
	var out []datamodel.Alternative
	for _, a := range alts {
		if a.Key == key {
			out = append(out, a)
		}
	}
	require.NotEmpty(t, out, "no alternatives for %s", key)
	return out
}

// TestCapacityAlternativesPriceOnDemandEachPlanAndAPlanSizedToTheLoad:
// 1 KB writes at 100/s peak and 70/s on average cost on demand
// 70 x 2.592 x $0.625 = $113.40 a month; the sized plan scales 100-143 WCU
// (70/0.7 and 100/0.7 rounded up) and 1 RCU at 70%, held at 100 WCU and 1
// RCU all month: (100 x $0.00065 + $0.00013) x 720 h = $46.89, serving
// the peak; a fixed 5 RCU / 50 WCU plan costs $23.87 and throttles the
// peak. On demand is chosen unless the schema provisions a plan.
func TestCapacityAlternativesPriceOnDemandEachPlanAndAPlanSizedToTheLoad(t *testing.T) {
	fixed := table.Capacity{Read: 5, Write: 50}
	m := datamodel.Model{Schema: bareSchema(), Plans: []datamodel.Plan{{Name: "fixed", Capacity: fixed}},
		Patterns: []access.Pattern{{Name: "put", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 100, AveragePerSecond: 70, Partition: "{id}"}}}
	alts, err := m.Alternatives()
	require.NoError(t, err)
	capacity := decision(t, alts, "capacity")
	require.Len(t, capacity, 3)
	onDemand, plan, sized := capacity[0], capacity[1], capacity[2]
	assert.True(t, onDemand.Chosen)
	assert.InDelta(t, 113.40, onDemand.MonthlyCost, 1e-9)
	assert.Zero(t, onDemand.Delta)
	assert.False(t, plan.Chosen)
	assert.InDelta(t, (5*0.00013+50*0.00065)*720, plan.MonthlyCost, 1e-9)
	assert.Contains(t, plan.Note, "does **not** serve the declared peaks")
	assert.False(t, sized.Chosen)
	assert.InDelta(t, (100*0.00065+1*0.00013)*720, sized.MonthlyCost, 1e-9)
	assert.InDelta(t, sized.MonthlyCost-113.40, sized.Delta, 1e-9)
	assert.Contains(t, sized.Note, "1-1 RCU / 100-143 WCU at 70%")
	assert.Contains(t, sized.Note, "; serves the declared peaks")

	m.Schema.Provisioning = table.Provisioning{Capacity: &fixed}
	alts, err = m.Alternatives()
	require.NoError(t, err)
	capacity = decision(t, alts, "capacity")
	assert.False(t, capacity[0].Chosen, "on demand is not the schema's mode")
	assert.True(t, capacity[1].Chosen, "the schema's plan is chosen")
	assert.InDelta(t, 113.40-(5*0.00013+50*0.00065)*720, capacity[0].Delta, 1e-9)
}

// TestGSICopyAlternativeDoublesEveryWriteThatTouchesTheIndex: 10 puts a
// second of 1 KB writing a GSI1 entry (1 WCU) and moving a KEYS_ONLY
// ByStatus key (2 WCU): kept by the application in transactions, GSI1's
// copy adds 10 x (1 + 1) = 20 WCU/s ($32.40 a month), ByStatus's
// 10 x (1 + 2) = 30 ($48.60); a write already in a transaction adds nothing.
func TestGSICopyAlternativeDoublesEveryWriteThatTouchesTheIndex(t *testing.T) {
	put := access.Pattern{Name: "put", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 10, Partition: "{id}",
		IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "{g}"}, {Index: "ByStatus", Partition: "{s}", Move: true}}}
	tx := access.Pattern{Name: "tx", Operation: access.TransactWriteItems, ItemSize: 1024, RatePerSecond: 10, Partition: "{id}",
		IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "{g}"}}}
	m := datamodel.Model{Schema: testSchema(), Patterns: pats(put, tx)}
	est, err := m.Estimate()
	require.NoError(t, err)
	alts, err := m.Alternatives()
	require.NoError(t, err)
	gsi1 := decision(t, alts, "gsi:GSI1")
	require.Len(t, gsi1, 2)
	assert.True(t, gsi1[0].Chosen)
	assert.InDelta(t, est.MonthlyCost, gsi1[0].MonthlyCost, 1e-9)
	assert.InDelta(t, 20*2.592*0.625, gsi1[1].Delta, 1e-9)
	assert.Contains(t, gsi1[1].Note, "+20 WCU/s")
	byStatus := decision(t, alts, "gsi:ByStatus")
	assert.InDelta(t, 30*2.592*0.625, byStatus[1].Delta, 1e-9)
}

// TestOffloadAlternativesPriceS3AndInline works one body each way.
// A log of 10 entries of 768 B, written once a second, read every other
// second, 1,000 kept: in S3 2,592,000 PUTs ($12.96), 1,296,000 GETs
// ($0.5184) and 7,680,000 B of storage; inline 10 WCU/s ($16.20), one
// 4 KB page halved a read (0.5 RCU/s, $0.162) and 10,000 items of 868 B.
// A payload of 800 B in an item of 224 B adds no unit (1,024 B is one of
// each), only its bytes; of 900 B it adds a write unit to each of the
// item's 5 writes a second ($8.10).
func TestOffloadAlternativesPriceS3AndInline(t *testing.T) {
	const gb = 1 << 30
	log := datamodel.Offload{What: "log", Parts: 10, PartBytes: 768, Writes: 1, Reads: 0.5, Kept: 1000}
	payload := datamodel.Offload{What: "payload", PartBytes: 800, HostBytes: 224, Writes: 1, HostWrites: 5, Reads: 1, Kept: 1000, Inline: true}
	big := payload
	big.What, big.PartBytes = "big", 900
	huge := datamodel.Offload{What: "huge", PartBytes: 500 * 1024, Writes: 1, Kept: 1}
	m := datamodel.Model{Schema: bareSchema(), Offloads: []datamodel.Offload{log, payload, big, huge},
		Patterns: []access.Pattern{{Name: "put", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 1, Partition: "{id}"}}}
	alts, err := m.Alternatives()
	require.NoError(t, err)

	l := decision(t, alts, "offload:log")
	s3, inline := l[0], l[1]
	assert.True(t, s3.Chosen)
	assert.InDelta(t, 12.96+0.5184+1000*7680.0/gb*0.023, s3.MonthlyCost, 1e-9)
	assert.InDelta(t, 16.20+0.162+1000*10*868.0/gb*0.25, inline.MonthlyCost, 1e-9)
	assert.InDelta(t, inline.MonthlyCost-s3.MonthlyCost, inline.Delta, 1e-9)

	p := decision(t, alts, "offload:payload")
	assert.True(t, p[1].Chosen)
	assert.InDelta(t, 1000*800.0/gb*0.25, p[1].MonthlyCost, 1e-12, "no unit added: bytes only")
	assert.InDelta(t, 2.592*5+2.592*0.4+1000*800.0/gb*0.023, p[0].MonthlyCost, 1e-9)

	b := decision(t, alts, "offload:big")
	assert.InDelta(t, 5*2.592*0.625+1000*900.0/gb*0.25, b[1].MonthlyCost, 1e-9, "a write unit more on each of the item's writes")

	h := decision(t, alts, "offload:huge")
	assert.Contains(t, h[1].Note, "not possible")
}

// TestSplitAlternativePricesTheSecondRequestOfEveryJointRead: a parent
// read 9 times a second alone and once with its child (10% overlap: the
// framework says separate) shares its partition; in a table of its own
// the child costs each joint read a second request: 0.5 + 0.5 - 0.5 RCU
// (1 KB each, eventually consistent) = 0.5 RCU/s, $0.162 a month. The
// document shows the model's justification as the reason.
func TestSplitAlternativePricesTheSecondRequestOfEveryJointRead(t *testing.T) {
	m := datamodel.Model{Store: "split", Schema: testSchema(),
		Entities: []access.Entity{
			{Name: "Order", Size: 1024, Count: 10, Partition: "ORDER#{id}", Sort: "META"},
			{Name: "Line", Size: 1024, Count: 10, Partition: "ORDER#{id}", Sort: "LINE#{n}", Parent: "Order", PerParent: 1, MaxPerParent: 1},
		},
		Patterns: pats(
			access.Pattern{Name: "get order", Operation: access.GetItem, ItemSize: 1024, RatePerSecond: 9, Partition: "ORDER#{id}", Entities: []string{"Order"}},
			access.Pattern{Name: "get both", Operation: access.Query, ItemSize: 1024, ItemsPerRequest: 2, RatePerSecond: 1, Partition: "ORDER#{id}", Entities: []string{"Order", "Line"}},
			access.Pattern{Name: "put", Operation: access.BatchWriteItem, ItemSize: 1024, ItemsPerRequest: 2, RatePerSecond: 1, Partition: "ORDER#{id}", Entities: []string{"Order", "Line"}},
		),
		Prose: datamodel.Prose{Relationships: map[string]string{"Line": "lines are written with their order"}},
	}
	alts, err := m.Alternatives()
	require.NoError(t, err)
	split := decision(t, alts, "split:Line")
	require.Len(t, split, 2)
	assert.True(t, split[0].Chosen)
	assert.Contains(t, split[0].Decision, "10% access overlap")
	assert.InDelta(t, 0.5*2.592*0.125, split[1].Delta, 1e-9)

	doc, err := datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	s := string(doc)
	assert.Contains(t, s, "### Alternatives Priced")
	assert.Contains(t, s, "| Order → Line: one table or two (10% access overlap) | one item collection (the parent's partition) |")
	assert.Contains(t, s, "| — | ✅ chosen | a read of both is one Query. **Why**: lines are written with their order |")
	assert.Contains(t, s, "| Line in a table of its own |")
	assert.Contains(t, s, "| +$0.16 |  |")
}
