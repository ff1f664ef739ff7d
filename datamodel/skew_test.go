package datamodel_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
)

// TestZipfShareOfTheHottestValueMatchesKnownSums checks Share against
// harmonic numbers worked out elsewhere: H(100) = 5.18737751763962,
// H(10^6) = 14.3927267228657 (past the terms added one by one: the
// Euler-Maclaurin tail), zeta(2) = pi^2/6 for a billion keys at s = 2,
// and a direct sum at s = 1.5 over 250,000 keys.
func TestZipfShareOfTheHottestValueMatchesKnownSums(t *testing.T) {
	assert.InDelta(t, 1/5.18737751763962, datamodel.Popularity{Keys: 100, Exponent: 1}.Share(), 1e-12)
	assert.InDelta(t, 1/14.3927267228657, datamodel.Popularity{Keys: 1_000_000, Exponent: 1}.Share(), 1e-12)
	assert.InDelta(t, 6/(math.Pi*math.Pi), datamodel.Popularity{Keys: 1_000_000_000, Exponent: 2}.Share(), 1e-9)
	var h float64
	for k := 250_000; k >= 1; k-- {
		h += math.Pow(float64(k), -1.5)
	}
	assert.InDelta(t, 1/h, datamodel.Popularity{Keys: 250_000, Exponent: 1.5}.Share(), 1e-12)
	assert.InDelta(t, 0.25, datamodel.Popularity{Keys: 4}.Share(), 1e-12, "s = 0 is an even spread")
	assert.InDelta(t, 1/(1+0.5+1.0/3+0.25), datamodel.Popularity{Keys: 4, Exponent: 1}.Share(), 1e-12)
	assert.Equal(t, 1.0, datamodel.Popularity{Keys: 1, Exponent: 1}.Share(), "one value takes everything")
	assert.Equal(t, 1.0, datamodel.Popularity{}.Share(), "no keys: as if one")
}

// users declares writes and a read keyed per user: 3,000 writes/s of 1 KB
// ("post") and 1,000 ("like"), 6,000 eventually consistent 8 KB reads.
func users() []access.Pattern {
	return pats(
		access.Pattern{Name: "post", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 3000, Partition: "USER#{userId}"},
		access.Pattern{Name: "like", Operation: access.UpdateItem, ItemSize: 1024, RatePerSecond: 1000, Partition: "USER#{userId}"},
		access.Pattern{Name: "feed", Operation: access.GetItem, ItemSize: 8192, RatePerSecond: 6000, Partition: "USER#{userId}"},
	)
}

// TestSkewPutsTheZipfShareOfATemplatesLoadOnItsHottestValue: 4,000 WCU/s
// and 6,000 RCU/s keyed by USER#{userId}, Zipf s = 1 over 10 users: the
// busiest takes 1/H(10) = 34.14%, 1,365.67 WCU/s (past 1,000: hot, and
// "post" alone, 1,024.25, too) and 2,048.5 RCU/s; two shards would do.
// Over 100 users it takes 19.28%: 771.1 WCU/s, not hot.
func TestSkewPutsTheZipfShareOfATemplatesLoadOnItsHottestValue(t *testing.T) {
	h10 := 2.9289682539682538
	est, err := datamodel.EstimateSchema(testSchema(), users(), datamodel.WithPopularity(map[string]datamodel.Popularity{
		"USER#{userId}": {Keys: 10, Exponent: 1, Why: "ten tenants"},
	}))
	require.NoError(t, err)
	require.Len(t, est.Skewed, 1)
	sl := est.Skewed[0]
	assert.Equal(t, "USER#{userId}", sl.Partition)
	assert.True(t, sl.Declared)
	assert.Equal(t, "declared", sl.KeysFrom)
	assert.InDelta(t, 1/h10, sl.Share, 1e-12)
	assert.InDelta(t, 4000/h10, sl.WritePerSecond, 1e-9)
	assert.InDelta(t, 6000/h10, sl.ReadPerSecond, 1e-9)
	assert.InDelta(t, 4000, est.PerEntity[0].WritePerSecond, 1e-9, "the bound stays all on one value")
	require.Len(t, sl.ByPattern, 3)
	parts := map[string]datamodel.PatternLoad{}
	for _, b := range sl.ByPattern {
		parts[b.Pattern] = b
	}
	assert.InDelta(t, 3000/h10, parts["post"].WritePerSecond, 1e-9)
	assert.True(t, parts["post"].Hot(), "post alone passes 1,000 WCU/s on the busiest user")
	assert.InDelta(t, 1000/h10, parts["like"].WritePerSecond, 1e-9)
	assert.False(t, parts["like"].Hot())
	assert.InDelta(t, 6000/h10, parts["feed"].ReadPerSecond, 1e-9)
	assert.True(t, sl.Hot())
	assert.Equal(t, []datamodel.SkewedLoad{sl}, est.HotSkewed())
	assert.Contains(t, sl.Remedy(), "USER#{userId}#{0..1}", "1,365.67 WCU/s over 2 shards is under 1,000 each")

	est, err = datamodel.EstimateSchema(testSchema(), users(), datamodel.WithPopularity(map[string]datamodel.Popularity{
		"USER#{userId}": {Keys: 100, Exponent: 1},
	}))
	require.NoError(t, err)
	assert.InDelta(t, 4000/5.18737751763962, est.Skewed[0].WritePerSecond, 1e-9)
	assert.Empty(t, est.HotSkewed(), "771 WCU/s and 1,157 RCU/s on the busiest of 100")
}

// TestHottestValueExactlyAtTheLimitIsNotHot: one value taking 1,000 WCU/s
// is at a partition's limit, not past it; a hair more throttles.
func TestHottestValueExactlyAtTheLimitIsNotHot(t *testing.T) {
	ap := access.Pattern{Name: "post", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 2000, Partition: "USER#{userId}"}
	one := datamodel.WithPopularity(map[string]datamodel.Popularity{"USER#{userId}": {Keys: 2}})
	est, err := datamodel.EstimateSchema(testSchema(), pats(ap), one)
	require.NoError(t, err)
	assert.InDelta(t, 1000, est.Skewed[0].WritePerSecond, 1e-9)
	assert.False(t, est.Skewed[0].Hot())
	ap.RatePerSecond = 2000.2
	est, err = datamodel.EstimateSchema(testSchema(), pats(ap), one)
	require.NoError(t, err)
	assert.True(t, est.Skewed[0].Hot())
}

// TestPopularityDefaultsToZipfOneOverTheEntitiesKeyedByTheTemplate: a
// template no one declares gets s = 1 over the items of the entity that
// heads its partitions (1,000 users; not their 50,000 orders, which share
// the partition), a GSI template over the method's 100 values, or over a
// named entity's items.
func TestPopularityDefaultsToZipfOneOverTheEntitiesKeyedByTheTemplate(t *testing.T) {
	ps := append(users(), access.Pattern{Name: "by order", Operation: access.Query, Index: "GSI1", ItemSize: 1024, RatePerSecond: 10, Partition: "ORDER#{orderId}"})
	ents := datamodel.WithEntities([]access.Entity{
		{Name: "User", Size: 1024, Count: 1000, Partition: "USER#{userId}", Sort: "META"},
		{Name: "Order", Size: 1024, Count: 50_000, Partition: "USER#{userId}", Sort: "ORDER#{orderId}", Parent: "User", PerParent: 50},
	})
	est, err := datamodel.EstimateSchema(testSchema(), ps, ents)
	require.NoError(t, err)
	require.Len(t, est.Skewed, 2)
	user, order := est.Skewed[0], est.Skewed[1]
	if user.Partition != "USER#{userId}" {
		user, order = order, user
	}
	assert.False(t, user.Declared)
	assert.Equal(t, int64(1000), user.Popularity.Keys, "the users, not their orders")
	assert.Equal(t, 1.0, user.Popularity.Exponent)
	assert.Contains(t, user.KeysFrom, "User")
	assert.InDelta(t, datamodel.Popularity{Keys: 1000, Exponent: 1}.Share(), user.Share, 1e-12)
	assert.Equal(t, int64(datamodel.MinPartitionValues), order.Popularity.Keys, "no entity is keyed by ORDER#{orderId}")
	assert.Contains(t, order.KeysFrom, "aim")

	est, err = datamodel.EstimateSchema(testSchema(), ps, ents, datamodel.WithPopularity(map[string]datamodel.Popularity{
		"ORDER#{orderId}": {Entity: "Order", Exponent: 0},
	}))
	require.NoError(t, err)
	for _, sl := range est.Skewed {
		if sl.Partition == "ORDER#{orderId}" {
			assert.Equal(t, int64(50_000), sl.Popularity.Keys, "the orders named")
			assert.InDelta(t, 10*0.5/50_000, sl.ReadPerSecond, 1e-12)
		}
	}
}

// TestDeclaredPopularitySkewsAShardedConstantsShards: 2,000 WCU/s on
// STATUS#OPEN over 4 shards is 500 a shard when shards are chosen by hash;
// shards chosen by a skewed key (Zipf s = 1) put 1/H(4) = 48% on the
// hottest: 960 WCU/s.
func TestDeclaredPopularitySkewsAShardedConstantsShards(t *testing.T) {
	ap := access.Pattern{Name: "open", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 2000, Partition: "ORDER#{orderId}", Partitions: 4,
		IndexWrites: []access.IndexWrite{{Index: "ByStatus", Partition: "STATUS#OPEN"}}}
	est, err := datamodel.EstimateSchema(testSchema(), pats(ap))
	require.NoError(t, err)
	require.Len(t, est.Partitions, 1)
	assert.InDelta(t, 500, est.Partitions[0].WritePerSecond, 1e-9)

	est, err = datamodel.EstimateSchema(testSchema(), pats(ap), datamodel.WithPopularity(map[string]datamodel.Popularity{"STATUS#OPEN": {Exponent: 1}}))
	require.NoError(t, err)
	assert.InDelta(t, 2000/(1+0.5+1.0/3+0.25), est.Partitions[0].WritePerSecond, 1e-9)
	assert.InDelta(t, 2000/(1+0.5+1.0/3+0.25), est.Partitions[0].ByPattern[0].WritePerSecond, 1e-9)
}

// TestBadPopularityIsATypedErrorAndEstimatesNothing covers each check.
func TestBadPopularityIsATypedErrorAndEstimatesNothing(t *testing.T) {
	ap := access.Pattern{Name: "open", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 20, Partition: "ORDER#{orderId}", Partitions: 4,
		IndexWrites: []access.IndexWrite{{Index: "ByStatus", Partition: "STATUS#OPEN"}}}
	get := access.Pattern{Name: "get", Operation: access.GetItem, ItemSize: 1024, RatePerSecond: 20, Partition: "CONFIG"}
	for name, p := range map[string]map[string]datamodel.Popularity{
		"negative exponent":          {"ORDER#{orderId}": {Exponent: -1}},
		"NaN exponent":               {"ORDER#{orderId}": {Exponent: math.NaN()}},
		"infinite exponent":          {"ORDER#{orderId}": {Exponent: math.Inf(1)}},
		"negative keys":              {"ORDER#{orderId}": {Keys: -1}},
		"a template no pattern uses": {"USER#{userId}": {Exponent: 1}},
		"an unsharded constant":      {"CONFIG": {Exponent: 1}},
		"shards other than declared": {"STATUS#OPEN": {Keys: 3}},
		"an entity not declared":     {"ORDER#{orderId}": {Entity: "Order"}},
		"an entity for a constant":   {"STATUS#OPEN": {Entity: "Order"}},
		"the empty template":         {"": {Exponent: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			est, err := datamodel.EstimateSchema(testSchema(), pats(ap, get), datamodel.WithPopularity(p))
			require.ErrorIs(t, err, datamodel.ErrInvalidPopularity)
			var pe *datamodel.PatternError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "Popularity", pe.Field)
			assert.Nil(t, est)
		})
	}
	_, err := datamodel.EstimateSchema(testSchema(), pats(ap, get), datamodel.WithPopularity(map[string]datamodel.Popularity{"STATUS#OPEN": {Keys: 4, Exponent: 1}}))
	assert.NoError(t, err, "the shard count itself is accepted")
}

// TestDocumentFlagsAHotValueUnderSkewWithTheMitigation: the busiest of
// ten users passes the limit: the partition section says so with the
// write-sharding remedy and the patterns' parts, and the checklist's hot
// partition box is unticked.
func TestDocumentFlagsAHotValueUnderSkewWithTheMitigation(t *testing.T) {
	m := datamodel.Model{Store: "users", Schema: testSchema(), Patterns: users(),
		Popularity: map[string]datamodel.Popularity{"USER#{userId}": {Keys: 10, Exponent: 1, Why: "ten tenants"}}}
	doc, err := datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	s := string(doc)
	assert.Contains(t, s, "N = 10 values (declared), Zipf s = 1 (ten tenants): the hottest takes 34.14%, 2,048.5 RCU/s, 1,365.67 WCU/s ⚠️ **the hottest value passes the partition limit**")
	assert.Contains(t, s, "post 0 RCU/s, 1,024.25 WCU/s ⚠️ alone")
	assert.Contains(t, s, "USER#{userId}#{0..1}")
	assert.Contains(t, s, "- [ ] Hot partition analysis completed: the hottest `USER#{userId}` pass")
	items, err := datamodel.Checklist(m)
	require.NoError(t, err)
	for _, it := range items {
		if it.Box == datamodel.BoxHotPartitions {
			assert.Contains(t, it.Detail, "the hottest `USER#{userId}`", "the requirements checklist names the hot value")
		}
	}

	m.Popularity = map[string]datamodel.Popularity{"USER#{userId}": {Keys: 100, Exponent: 1}}
	doc, err = datamodel.Render(context.Background(), m)
	require.NoError(t, err)
	assert.Contains(t, string(doc), "- [x] Hot partition analysis completed")
	assert.NotContains(t, string(doc), "the hottest value passes")
}
