package datamodel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// testSchema is a table with a PK/SK, an ALL GSI and a KEYS_ONLY GSI.
func testSchema() table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name:         "orders",
		PartitionKey: s("PK"),
		SortKey:      s("SK"),
		Indexes: []table.Index{
			{Name: "GSI1", PartitionKey: s("GSI1PK"), SortKey: s("GSI1SK")},
			{Name: "ByStatus", PartitionKey: s("status"), Projection: types.ProjectionTypeKeysOnly},
		},
	}
}

// pats lists access patterns declared on testSchema.
func pats(ps ...access.Pattern) []access.Pattern { return ps }

func estimateOne(t *testing.T, ap access.Pattern) datamodel.PatternEstimate {
	t.Helper()
	est, err := datamodel.EstimateSchema(testSchema(), pats(ap))
	require.NoError(t, err)
	return est.Patterns[0]
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestReadUnitsByDynamoDBRules checks read estimates against figures
// worked out by hand from the 4 KB rule.
func TestReadUnitsByDynamoDBRules(t *testing.T) {
	cases := []struct {
		name string
		ap   access.Pattern
		want float64
	}{
		// 7 KB rounds to two 4 KB units; eventual halves them.
		{"get 7 KB eventual", access.Pattern{Operation: access.GetItem, ItemSize: 7 * 1024}, 1},
		{"get 7 KB strong", access.Pattern{Operation: access.GetItem, ItemSize: 7 * 1024, Consistent: true}, 2},
		{"get 100 B eventual", access.Pattern{Operation: access.GetItem, ItemSize: 100}, 0.5},
		// A Query rounds the sum: 20 x 7 KB = 140 KB = 35 units, halved.
		{"query 20 x 7 KB on a GSI", access.Pattern{Operation: access.Query, Index: "GSI1", ItemSize: 7 * 1024, ItemsPerRequest: 20}, 17.5},
		// 3 x 200 B = 600 B: one unit, not three.
		{"query 3 x 200 B strong", access.Pattern{Operation: access.Query, ItemSize: 200, ItemsPerRequest: 3, Consistent: true}, 1},
		// BatchGetItem rounds each item: 25 x 0.5.
		{"batch get 25 x 2 KB", access.Pattern{Operation: access.BatchGetItem, ItemSize: 2048, ItemsPerRequest: 25}, 12.5},
		// Transactional reads: strong, doubled, per item: 2 x (2 x 2).
		{"transact get 2 x 5 KB", access.Pattern{Operation: access.TransactGetItems, ItemSize: 5 * 1024, ItemsPerRequest: 2}, 8},
		// Mixed sizes in one Query: 4 KB + 2 x 1 KB = 6 KB -> 2 units, halved.
		{"query mixed items", access.Pattern{Operation: access.Query, Items: []access.Item{{Size: 4096}, {Size: 1024, Count: 2}}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.ap.Name = c.name
			pe := estimateOne(t, c.ap)
			assert.True(t, near(pe.ReadUnits, c.want), "read %v, want %v", pe.ReadUnits, c.want)
			assert.Zero(t, pe.WriteUnits, "write units of a read")
		})
	}
}

// TestWriteUnitsIncludeIndexWritesAndTransactions checks write estimates
// (1 KB units, index writes, key moves, transactions) against hand figures.
func TestWriteUnitsIncludeIndexWritesAndTransactions(t *testing.T) {
	gsi := func(move bool) []access.IndexWrite {
		return []access.IndexWrite{{Index: "GSI1", Partition: "X", Move: move}}
	}
	cases := []struct {
		name            string
		ap              access.Pattern
		want, wantTable float64
		wantIndex       map[string]float64
	}{
		{"put 1.5 KB no index", access.Pattern{Operation: access.PutItem, ItemSize: 1536}, 2, 2, nil},
		// The GSI1 entry is the whole item (ALL): 2 more.
		{"put 1.5 KB into GSI1", access.Pattern{Operation: access.PutItem, ItemSize: 1536, IndexWrites: gsi(false)}, 4, 2, map[string]float64{"GSI1": 2}},
		// A key move is a delete and a put in the index.
		{"update 1 KB moving its GSI1 key", access.Pattern{Operation: access.UpdateItem, ItemSize: 1024, IndexWrites: gsi(true)}, 3, 1, map[string]float64{"GSI1": 2}},
		// KEYS_ONLY entries hold keys only: one unit whatever the item.
		{"put 3 KB into a KEYS_ONLY index", access.Pattern{Operation: access.PutItem, ItemSize: 3072,
			IndexWrites: []access.IndexWrite{{Index: "ByStatus", Partition: "NEW"}}}, 4, 3, map[string]float64{"ByStatus": 1}},
		// 25 x (1 + 1) in a batch.
		{"batch write 25 x 768 B into GSI1", access.Pattern{Operation: access.BatchWriteItem, ItemSize: 768, ItemsPerRequest: 25, IndexWrites: gsi(false)}, 50, 25, map[string]float64{"GSI1": 25}},
		// Transactions double everything: (1 + 1 + 1 + 1) x 2.
		{"transaction of three items", access.Pattern{Operation: access.TransactWriteItems, Items: []access.Item{
			{Operation: access.PutItem, Size: 1024, IndexWrites: gsi(false)},
			{Operation: access.PutItem, Size: 200},
			{Operation: access.ConditionCheck, Size: 150},
		}}, 8, 6, map[string]float64{"GSI1": 2}},
		{"delete 2 KB leaving GSI1", access.Pattern{Operation: access.DeleteItem, ItemSize: 2048, IndexWrites: gsi(false)}, 4, 2, map[string]float64{"GSI1": 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.ap.Name = c.name
			pe := estimateOne(t, c.ap)
			assert.True(t, near(pe.WriteUnits, c.want), "write %v, want %v", pe.WriteUnits, c.want)
			assert.True(t, near(pe.TableWriteUnits, c.wantTable), "table write %v, want %v", pe.TableWriteUnits, c.wantTable)
			assert.Zero(t, pe.ReadUnits, "read units of a write")
			got := map[string]float64{}
			for _, iu := range pe.IndexWriteUnits {
				got[iu.Index] = iu.Units
			}
			assert.Len(t, got, len(c.wantIndex), "index writes %v, want %v", got, c.wantIndex)
			for ix, u := range c.wantIndex {
				assert.True(t, near(got[ix], u), "index writes %v, want %v", got, c.wantIndex)
			}
		})
	}
}

// TestMonthlyCostAtSeed002Prices works a bill out by hand: 100 reads/s of
// 1 RCU, 10 writes/s of 1 WCU, 10 GB.
func TestMonthlyCostAtSeed002Prices(t *testing.T) {
	ps := pats(
		access.Pattern{Name: "read", Operation: access.GetItem, ItemSize: 4096, Consistent: true, RatePerSecond: 100, AveragePerSecond: 100},
		access.Pattern{Name: "write", Operation: access.PutItem, ItemSize: 1000, RatePerSecond: 10, AveragePerSecond: 10},
	)
	// 10 x 2^20 items of 924 B, each billed with DynamoDB's 100-byte
	// overhead: exactly 10 GB.
	ten := []access.Entity{{Name: "row", Size: 924, Count: 10 << 20}}
	est, err := datamodel.EstimateSchema(testSchema(), ps, datamodel.WithEntities(ten))
	require.NoError(t, err)
	// 100 x 2,592,000 / 1e6 x $0.125 = $32.40; 10 x 2.592 x $0.625 = $16.20;
	// 10 GB x $0.25 = $2.50.
	assert.InDelta(t, 100, est.ReadPerSecond, 1e-9)
	assert.InDelta(t, 10, est.WritePerSecond, 1e-9)
	assert.InDelta(t, 32.4, est.ReadCost, 1e-9)
	assert.InDelta(t, 16.2, est.WriteCost, 1e-9)
	assert.InDelta(t, 10, est.StorageGB, 1e-9)
	assert.InDelta(t, 2.5, est.StorageCost, 1e-9)
	assert.InDelta(t, 51.1, est.MonthlyCost, 1e-9)
	p, _ := est.Pattern("read")
	assert.InDelta(t, 32.4, p.MonthlyCost, 1e-9)
	assert.Empty(t, est.Undeclared)
}

// TestAverageRatesBillAndPeakRatesSizePartitions shows the split: a
// pattern at 1,200 writes/s at peak but 12/s on average is billed for 12
// and still makes its constant partition hot.
func TestAverageRatesBillAndPeakRatesSizePartitions(t *testing.T) {
	ap := access.Pattern{Name: "burst", Operation: access.PutItem, ItemSize: 1000, Partition: "DAY#today",
		RatePerSecond: 1200, AveragePerSecond: 12}
	est, err := datamodel.EstimateSchema(testSchema(), pats(ap))
	require.NoError(t, err)
	assert.InDelta(t, 1200, est.WritePerSecond, 1e-9, "capacity is the peak")
	assert.InDelta(t, 12, est.AverageWritePerSecond, 1e-9)
	// 12 WCU/s x 2.592 x $0.625 = $19.44, against $1,944 billed at peak.
	assert.InDelta(t, 19.44, est.MonthlyCost, 1e-9)
	assert.InDelta(t, 1944, est.PeakMonthlyCost, 1e-9)
	require.Len(t, est.Hot(), 1, "the hot-partition verdict reads the peak")
	assert.Equal(t, "DAY#today", est.Hot()[0].Partition)
}

// TestUndeclaredAverageIsBilledAtPeakAndNamed keeps old declarations
// working while the document says their bill is an upper bound.
func TestUndeclaredAverageIsBilledAtPeakAndNamed(t *testing.T) {
	est, err := datamodel.EstimateSchema(testSchema(), pats(
		access.Pattern{Name: "old", Operation: access.PutItem, ItemSize: 1000, RatePerSecond: 10},
		access.Pattern{Name: "idle", Operation: access.PutItem, ItemSize: 1000},
	))
	require.NoError(t, err)
	assert.Equal(t, []string{"old"}, est.Undeclared)
	assert.InDelta(t, est.PeakMonthlyCost, est.MonthlyCost, 1e-9)
}

// TestAveragesAndPeakOverrides: WithRates lowers a declared average that
// would pass the new peak; WithAverages sets the average alone.
func TestAveragesAndPeakOverrides(t *testing.T) {
	ap := access.Pattern{Name: "w", Operation: access.PutItem, ItemSize: 1000, RatePerSecond: 100, AveragePerSecond: 50}
	est, err := datamodel.EstimateSchema(testSchema(), pats(ap), datamodel.WithRates(map[string]float64{"w": 20}))
	require.NoError(t, err)
	assert.InDelta(t, 20, est.AverageWritePerSecond, 1e-9)
	est, err = datamodel.EstimateSchema(testSchema(), pats(ap), datamodel.WithAverages(map[string]float64{"w": 5}))
	require.NoError(t, err)
	assert.InDelta(t, 100, est.WritePerSecond, 1e-9)
	assert.InDelta(t, 5, est.AverageWritePerSecond, 1e-9)
}

// TestStorageFollowsGrowthRetentionAndProjection derives storage by hand:
// 10 items a second kept 1 day is 864,000 items; 924 B + 100 in the table,
// the same again in the ALL index GSI1, and 100 B of keys + 100 in the
// KEYS_ONLY index ByStatus.
func TestStorageFollowsGrowthRetentionAndProjection(t *testing.T) {
	create := access.Pattern{Name: "create", Operation: access.PutItem, ItemSize: 924, RatePerSecond: 100, AveragePerSecond: 10}
	e := access.Entity{Name: "order", Size: 924, CreatedBy: "create", Retention: 24 * time.Hour, Indexes: []string{"GSI1", "ByStatus"}}
	est, err := datamodel.EstimateSchema(testSchema(), pats(create), datamodel.WithEntities([]access.Entity{e}))
	require.NoError(t, err)
	require.Len(t, est.Storage, 1)
	st := est.Storage[0]
	assert.InDelta(t, 10, st.PerSecond, 1e-9, "growth is the creating pattern's average, not its peak")
	assert.InDelta(t, 864_000, st.Items, 1e-6)
	assert.InDelta(t, 864_000*1024.0, st.TableBytes, 1e-3)
	require.Len(t, st.IndexBytes, 2)
	assert.Equal(t, "GSI1", st.IndexBytes[0].Index)
	assert.InDelta(t, 864_000*1024.0, st.IndexBytes[0].Bytes, 1e-3)
	assert.InDelta(t, 864_000*200.0, st.IndexBytes[1].Bytes, 1e-3)
	assert.InDelta(t, 864_000*2248.0/(1<<30), est.StorageGB, 1e-9)
	assert.Zero(t, st.GrowthGBPerMonth(), "a TTL keeps storage steady")

	// Kept until deleted: the horizon's growth, and a monthly growth.
	e.Retention = 0
	est, err = datamodel.EstimateSchema(testSchema(), pats(create), datamodel.WithEntities([]access.Entity{e}), datamodel.WithHorizon(48*time.Hour))
	require.NoError(t, err)
	st = est.Storage[0]
	assert.True(t, st.Unbounded)
	assert.InDelta(t, 2*864_000, st.Items, 1e-6)
	assert.InDelta(t, 10*2_592_000*2248.0/(1<<30), st.GrowthGBPerMonth(), 1e-9)
}

// TestBadEntityDeclarationsAreRefused: each mistake is a *PatternError
// naming the field, and nothing is estimated.
func TestBadEntityDeclarationsAreRefused(t *testing.T) {
	create := access.Pattern{Name: "create", Operation: access.PutItem, ItemSize: 100, RatePerSecond: 1}
	cases := []struct {
		name  string
		e     access.Entity
		want  error
		field string
	}{
		{"no name", access.Entity{Size: 10}, datamodel.ErrInvalidEntity, "Name"},
		{"zero size", access.Entity{Name: "a"}, datamodel.ErrInvalidSize, "Size"},
		{"unknown creator", access.Entity{Name: "a", Size: 10, CreatedBy: "nope"}, datamodel.ErrUnknownPattern, "CreatedBy"},
		{"negative retention", access.Entity{Name: "a", Size: 10, Retention: -time.Second}, datamodel.ErrInvalidRetention, "Retention"},
		{"unknown index", access.Entity{Name: "a", Size: 10, Indexes: []string{"GSI9"}}, datamodel.ErrUnknownIndex, "Indexes"},
		{"negative count", access.Entity{Name: "a", Size: 10, Count: -1}, datamodel.ErrInvalidCount, "Count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			est, err := datamodel.EstimateSchema(testSchema(), pats(create), datamodel.WithEntities([]access.Entity{c.e}))
			require.ErrorIs(t, err, c.want)
			assert.Nil(t, est)
			var pe *datamodel.PatternError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Field, c.field)
		})
	}
	_, err := datamodel.EstimateSchema(testSchema(), pats(access.Pattern{Name: "p", Operation: access.PutItem, ItemSize: 10, RatePerSecond: 1, AveragePerSecond: 2}))
	assert.ErrorIs(t, err, datamodel.ErrInvalidRate, "an average above the peak")
}

// TestRatesOverrideTheDeclaredDefaults shows a service substituting its
// own traffic for a store's default rates.
func TestRatesOverrideTheDeclaredDefaults(t *testing.T) {
	ps := pats(access.Pattern{Name: "read", Operation: access.GetItem, ItemSize: 4096, Consistent: true, RatePerSecond: 100})
	est, err := datamodel.EstimateSchema(testSchema(), ps, datamodel.WithRates(map[string]float64{"read": 5}))
	require.NoError(t, err)
	p, _ := est.Pattern("read")
	assert.Equal(t, 5.0, p.Pattern.RatePerSecond, "rate")
	assert.True(t, near(p.ReadPerSecond, 5), "%v RCU/s; want 5", p.ReadPerSecond)
	assert.Equal(t, 100.0, ps[0].RatePerSecond, "the schema's own rate was changed")
}

// TestHotPartitionWarnsOnAConstantKeyAndNamesSharding sums the writes that
// land on one GSI key value from two patterns: 300 puts/s and 300 key moves
// away from it, 1 KB each, are 600 WCU on STATUS#PENDING, under the limit;
// 700 puts/s reach it and 701 pass it.
func TestHotPartitionWarnsOnAConstantKeyAndNamesSharding(t *testing.T) {
	submit := access.Pattern{Name: "submit", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 300,
		Partition: "TASK#{id}", IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "STATUS#PENDING"}}}
	claim := access.Pattern{Name: "claim", Operation: access.UpdateItem, ItemSize: 1024, RatePerSecond: 300,
		Partition: "TASK#{id}", IndexWrites: []access.IndexWrite{{Index: "GSI1", Move: true, From: "STATUS#PENDING", Partition: "STATUS#RUNNING"}}}
	list := access.Pattern{Name: "list", Operation: access.Query, Index: "GSI1", ItemSize: 1024, ItemsPerRequest: 100, RatePerSecond: 10, Partition: "STATUS#PENDING"}
	est, err := datamodel.EstimateSchema(testSchema(), pats(submit, claim, list))
	require.NoError(t, err)
	require.Empty(t, est.Hot(), "hot at 600 WCU")
	var pending datamodel.PartitionLoad
	for _, p := range est.Partitions {
		if p.Index == "GSI1" && p.Partition == "STATUS#PENDING" {
			pending = p
		}
	}
	// 300 x 1 (put) + 300 x 1 (the move's delete); reads 10 x 12.5.
	assert.True(t, near(pending.WritePerSecond, 600), "STATUS#PENDING load %+v, want 600 WCU/s", pending)
	assert.True(t, near(pending.ReadPerSecond, 125), "STATUS#PENDING load %+v, want 125 RCU/s", pending)
	assert.Equal(t, "claim,list,submit", strings.Join(pending.Patterns, ","), "STATUS#PENDING load's patterns")
	est, err = datamodel.EstimateSchema(testSchema(), pats(submit, claim, list), datamodel.WithRates(map[string]float64{"submit": 700}))
	require.NoError(t, err)
	require.Empty(t, est.Hot(), "hot at exactly 1,000 WCU/s")
	// 700 + 300 = 1,000 is at the limit, not past it; one more put per
	// second passes it.
	est, _ = datamodel.EstimateSchema(testSchema(), pats(submit, claim, list), datamodel.WithRates(map[string]float64{"submit": 701}))
	hot := est.Hot()
	require.Len(t, hot, 1, "hot partitions %+v, want GSI1 STATUS#PENDING", hot)
	require.Equal(t, "STATUS#PENDING", hot[0].Partition, "hot partition")
	require.Equal(t, "GSI1", hot[0].Index, "hot partition's index")
	r := hot[0].Remedy()
	assert.Contains(t, r, "write sharding", "remedy does not name write sharding")
	assert.Contains(t, r, "STATUS#PENDING#{0..1}", "remedy does not name 2 shards")
}

// TestPartitionsSpreadAShardedKeysLoad divides a constant key's load over
// its declared shards; templates never concentrate.
func TestPartitionsSpreadAShardedKeysLoad(t *testing.T) {
	ap := access.Pattern{Name: "log", Operation: access.BatchWriteItem, ItemSize: 1024, ItemsPerRequest: 25,
		RatePerSecond: 200, Partition: "LOGS", Partitions: 4}
	est, err := datamodel.EstimateSchema(testSchema(), pats(ap))
	require.NoError(t, err)
	// 200 x 25 = 5,000 WCU/s over 4 shards: 1,250 each, still hot.
	require.Len(t, est.Partitions, 1, "partitions %+v, want one at 1,250 WCU/s", est.Partitions)
	require.True(t, near(est.Partitions[0].WritePerSecond, 1250), "partitions %+v, want one at 1,250 WCU/s", est.Partitions)
	require.True(t, est.Partitions[0].Hot(), "partitions %+v, want one hot at 1,250 WCU/s", est.Partitions)
	assert.Contains(t, est.Partitions[0].Remedy(), "{0..7}", "remedy: 4 shards each needing 2 are 8")
	ap.Partition = "JOB#{jobId}" // keyed per entity
	est, _ = datamodel.EstimateSchema(testSchema(), pats(ap))
	assert.Empty(t, est.Partitions, "a per-entity template concentrated")
}

// TestPerEntityBoundSumsEveryPatternKeyedByATemplateOnOneEntity: a
// template's load is never hot (entities spread it), but PerEntity says
// what one entity's key value takes if all of it lands there: 100 log
// batches/s of 25 x 1 KB into JOB#{jobId} and its GSI1 entries, plus 20
// eventually consistent reads of 8 KB, sum to 2,500 WCU/s on the table's
// value (past the limit: one job may take at most 40% of it) and 20 RCU/s.
func TestPerEntityBoundSumsEveryPatternKeyedByATemplateOnOneEntity(t *testing.T) {
	logs := access.Pattern{Name: "log", Operation: access.BatchWriteItem, ItemSize: 1024, ItemsPerRequest: 25,
		RatePerSecond: 100, Partition: "JOB#{jobId}", IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "JOB#{jobId}"}}}
	get := access.Pattern{Name: "get", Operation: access.GetItem, ItemSize: 8192, RatePerSecond: 20, Partition: "JOB#{jobId}"}
	est, err := datamodel.EstimateSchema(testSchema(), pats(logs, get))
	require.NoError(t, err)
	assert.Empty(t, est.Partitions, "a template is not a constant key value")
	assert.Empty(t, est.Hot())
	require.Len(t, est.PerEntity, 2, "per entity: %+v", est.PerEntity)
	table, gsi := est.PerEntity[0], est.PerEntity[1]
	assert.Equal(t, [2]string{"", "JOB#{jobId}"}, [2]string{table.Index, table.Partition})
	assert.InDelta(t, 2500, table.WritePerSecond, 1e-9)
	assert.InDelta(t, 20, table.ReadPerSecond, 1e-9, "20 GetItems of two 4 KB units, halved")
	assert.Equal(t, []string{"get", "log"}, table.Patterns)
	assert.Equal(t, [2]string{"GSI1", "JOB#{jobId}"}, [2]string{gsi.Index, gsi.Partition})
	assert.InDelta(t, 2500, gsi.WritePerSecond, 1e-9)
	assert.Equal(t, est.PerEntity, est.HotPerEntity(), "both pass 1,000 WCU/s")
	assert.InDelta(t, 2.5, table.Use(), 1e-9)

	logs.RatePerSecond = 30 // 750 WCU/s: within the limit even on one job
	est, err = datamodel.EstimateSchema(testSchema(), pats(logs, get))
	require.NoError(t, err)
	assert.Empty(t, est.HotPerEntity())
	assert.InDelta(t, 0.75, est.PerEntity[0].Use(), 1e-9)
}

// TestBadDeclarationsAreTypedErrors: every declaration that cannot be
// costed names the pattern and field and wraps a sentinel.
func TestBadDeclarationsAreTypedErrors(t *testing.T) {
	get := access.Pattern{Name: "p", Operation: access.GetItem, ItemSize: 100, RatePerSecond: 1}
	with := func(f func(*access.Pattern)) []access.Pattern {
		ap := get
		f(&ap)
		return pats(ap)
	}
	cases := []struct {
		name  string
		ps    []access.Pattern
		opts  []func(*datamodel.Options)
		want  error
		field string
	}{
		{"zero item size", with(func(ap *access.Pattern) { ap.ItemSize = 0 }), nil, datamodel.ErrInvalidSize, "ItemSize"},
		{"item over 400 KB", with(func(ap *access.Pattern) { ap.ItemSize = 401 * 1024 }), nil, datamodel.ErrInvalidSize, "ItemSize"},
		{"zero size in Items", with(func(ap *access.Pattern) { ap.Items = []access.Item{{Size: 0}} }), nil, datamodel.ErrInvalidSize, "Items[0].Size"},
		{"query page over 1 MB", with(func(ap *access.Pattern) {
			ap.Operation, ap.ItemSize, ap.ItemsPerRequest = access.Query, 400*1024, 3
		}), nil, datamodel.ErrInvalidSize, "ItemsPerRequest"},
		{"negative count", with(func(ap *access.Pattern) { ap.ItemsPerRequest = -1 }), nil, datamodel.ErrInvalidCount, "ItemsPerRequest"},
		{"negative rate", with(func(ap *access.Pattern) { ap.RatePerSecond = -1 }), nil, datamodel.ErrInvalidRate, "RatePerSecond"},
		{"negative partitions", with(func(ap *access.Pattern) { ap.Partitions = -2 }), nil, datamodel.ErrInvalidPartitions, "Partitions"},
		{"unknown index written", with(func(ap *access.Pattern) {
			ap.Operation, ap.IndexWrites = access.PutItem, []access.IndexWrite{{Index: "GSI9"}}
		}), nil, datamodel.ErrUnknownIndex, "IndexWrites[0].Index"},
		{"strong read on a GSI", with(func(ap *access.Pattern) { ap.Operation, ap.Index, ap.Consistent = access.Query, "GSI1", true }), nil, datamodel.ErrConsistentIndex, "Consistent"},
		{"GetItem on an index", with(func(ap *access.Pattern) { ap.Index = "GSI1" }), nil, datamodel.ErrInvalidOperation, "Index"},
		{"a read writing an index", with(func(ap *access.Pattern) { ap.IndexWrites = []access.IndexWrite{{Index: "GSI1"}} }), nil, datamodel.ErrInvalidOperation, "IndexWrites[0]"},
		{"key move on a delete", with(func(ap *access.Pattern) {
			ap.Operation, ap.IndexWrites = access.DeleteItem, []access.IndexWrite{{Index: "GSI1", Move: true}}
		}), nil, datamodel.ErrInvalidOperation, "IndexWrites[0].Move"},
		{"condition check outside a transaction", with(func(ap *access.Pattern) {
			ap.Operation, ap.Items = access.BatchWriteItem, []access.Item{{Operation: access.ConditionCheck, Size: 10}}
		}), nil, datamodel.ErrInvalidOperation, "Items[0].Operation"},
		{"rate for an unknown pattern", pats(get), []func(*datamodel.Options){datamodel.WithRates(map[string]float64{"q": 1})}, datamodel.ErrUnknownPattern, "Rates"},
		{"negative rate override", pats(get), []func(*datamodel.Options){datamodel.WithRates(map[string]float64{"p": -3})}, datamodel.ErrInvalidRate, "Rates"},
		{"partitions for an unknown pattern", pats(get), []func(*datamodel.Options){datamodel.WithPartitions(map[string]int{"q": 2})}, datamodel.ErrUnknownPattern, "Partitions"},
		{"negative partitions override", pats(get), []func(*datamodel.Options){datamodel.WithPartitions(map[string]int{"p": -1})}, datamodel.ErrInvalidPartitions, "Partitions"},
		{"duplicate pattern names", pats(get, get), nil, datamodel.ErrDuplicatePattern, "Name"},
		{"pattern on an unknown index", with(func(ap *access.Pattern) { ap.Operation, ap.Index = access.Query, "GSI9" }), nil, datamodel.ErrUnknownIndex, "Index"},
		{"pattern without a name", with(func(ap *access.Pattern) { ap.Name = "" }), nil, datamodel.ErrUnnamedPattern, "patterns[0].Name"},
		{"unknown operation", with(func(ap *access.Pattern) { ap.Operation = "Select" }), nil, datamodel.ErrInvalidOperation, "Operation"},
		{"a condition check as a request", with(func(ap *access.Pattern) { ap.Operation = access.ConditionCheck }), nil, datamodel.ErrInvalidOperation, "Operation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			est, err := datamodel.EstimateSchema(testSchema(), c.ps, c.opts...)
			require.Nil(t, est)
			require.ErrorIs(t, err, c.want)
			var pe *datamodel.PatternError
			if assert.ErrorAs(t, err, &pe, "want a *PatternError") {
				assert.Equal(t, c.field, pe.Field, "*PatternError field")
				assert.Equal(t, "orders", pe.Table, "*PatternError table")
			}
			_, perr := datamodel.PolicyFor(testSchema(), c.ps)
			if c.opts == nil {
				assert.Error(t, perr, "PolicyFor accepted the declaration")
			}
		})
	}
	bad := testSchema()
	bad.Name = "x"
	_, err := datamodel.EstimateSchema(bad, pats(get))
	assert.ErrorIs(t, err, datamodel.ErrInvalidSchema, "an invalid schema")
	assert.ErrorIs(t, err, table.ErrInvalidInput, "an invalid schema should wrap the table package's error")
}

// TestShardingTheTasksQueueCoolsItsPartitions: the task-queue design's 500 tasks/s
// overload GSI1's STATUS#PENDING and STATUS#PROCESSING on one partition
// each; spread over 4 shards (tasks' DefaultShards, which its patterns
// declare) no value passes the limits.
func TestShardingTheTasksQueueCoolsItsPartitions(t *testing.T) {
	s, ps := tasks.Schema(tasks.DefaultTableName), tasks.Patterns()
	one, shards := map[string]int{}, map[string]int{}
	for _, ap := range ps {
		if strings.HasPrefix(ap.Partition, "STATUS#PENDING") || strings.HasPrefix(ap.Partition, "STATUS#PROCESSING") ||
			strings.Contains(fmt.Sprint(ap.Items, ap.IndexWrites), "STATUS#P") {
			one[ap.Name], shards[ap.Name] = 1, 4
		}
	}
	est, err := datamodel.EstimateSchema(s, ps, datamodel.WithPartitions(one))
	require.NoError(t, err)
	require.Len(t, est.Hot(), 2, "hot partitions at one shard, want STATUS#PENDING and STATUS#PROCESSING")
	est, err = datamodel.EstimateSchema(s, ps, datamodel.WithPartitions(shards))
	require.NoError(t, err)
	assert.Empty(t, est.Hot(), "hot partitions at four shards")
}

// The jobs design's production plan priced on the jobs table at its
// declared rates: three parts (table, two ALL indexes) at 25 RCU and 10
// WCU, which the peaks never pass at 70%, so the month bills the base.
func TestProvisionedPricesAPlanAndSaysWhetherItServesThePeaks(t *testing.T) {
	s := jobs.Schema(jobs.TableNameForEnv("prod"))
	est, err := datamodel.EstimateSchema(s, jobs.Patterns(), datamodel.WithEntities(jobs.Entities()))
	require.NoError(t, err)
	plan, err := est.Provisioned(s, jobs.ProductionCapacity())
	require.NoError(t, err)
	require.Len(t, plan.Parts, 3)
	base := (25*datamodel.PricePerRCUHour + 10*datamodel.PricePerWCUHour) * datamodel.HoursPerMonth
	assert.InDelta(t, 7.02, base, 0.001)
	for _, p := range plan.Parts {
		assert.Equal(t, int64(25), p.Read, p.Index)
		assert.Equal(t, int64(100), p.MaxWrite*2, p.Index)
		assert.Equal(t, 25.0, p.AtPeakRead, "%s: the peak under 25 x 70%% holds the minimum", p.Index)
		assert.InDelta(t, base, p.MonthlyCost, 1e-9, p.Index)
		assert.True(t, p.Serves, p.Index)
		assert.Equal(t, est.Load(p.Index), p.Load, p.Index)
	}
	assert.InDelta(t, 3*base+est.StorageCost, plan.MonthlyCost, 1e-9)
	assert.InDelta(t, 3*base+est.StorageCost, plan.MinimumMonthlyCost, 1e-9)
	assert.InDelta(t, 3*(100*datamodel.PricePerRCUHour+50*datamodel.PricePerWCUHour)*datamodel.HoursPerMonth+est.StorageCost, plan.MaximumMonthlyCost, 1e-9)
	assert.True(t, plan.Serves)

	// A hundred times the traffic: the status index's writes (3.26 WCU/s
	// a hundred times over) need more than the 50-WCU maximum at 70%, and
	// the scaler holds its maximum at the peak.
	rates := map[string]float64{}
	for _, ap := range jobs.Patterns() {
		rates[ap.Name] = ap.RatePerSecond * 100
	}
	busy, err := datamodel.EstimateSchema(s, jobs.Patterns(), datamodel.WithRates(rates))
	require.NoError(t, err)
	plan, err = busy.Provisioned(s, jobs.ProductionCapacity())
	require.NoError(t, err)
	assert.False(t, plan.Serves)
	status := plan.Parts[2]
	require.Equal(t, jobs.IndexStatusCreatedAt, status.Index)
	assert.False(t, status.Serves)
	assert.Equal(t, 50.0, status.AtPeakWrite, "held at its maximum")
	// Twelve times: the status index's 39 WCU/s fit under its 50-WCU
	// maximum, but not under 70% of it, where the scaler aims.
	for name := range rates {
		rates[name] /= 100.0 / 12
	}
	twelve, err := datamodel.EstimateSchema(s, jobs.Patterns(), datamodel.WithRates(rates))
	require.NoError(t, err)
	plan, err = twelve.Provisioned(s, jobs.ProductionCapacity())
	require.NoError(t, err)
	require.InDelta(t, 38.9, plan.Parts[2].PeakWrite, 0.1)
	assert.False(t, plan.Parts[2].Serves, "a peak past the target utilization at the maximum is not served")
	// Fixed capacity (no auto-scaling) holds its base whatever the peak.
	fixed, err := busy.Provisioned(s, table.Capacity{Read: 500, Write: 400})
	require.NoError(t, err)
	assert.True(t, fixed.Serves)
	assert.Equal(t, 400.0, fixed.Parts[2].AtPeakWrite)
	// A plan CreateTable would refuse is refused here too.
	_, err = est.Provisioned(s, table.Capacity{Read: 0, Write: 10})
	assert.ErrorIs(t, err, table.ErrInvalidInput)
}
