package datamodel

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// Popularity is how the requests keyed by a per-entity template
// ("USER#{userId}") fall on its values: Zipf's law over Keys values with
// exponent Exponent, the k-th most requested value taking
// k^-Exponent / H(Keys, Exponent) of them, where H(N, s) is the sum of
// k^-s for k = 1..N. Exponent 0 is an even spread (each value 1/Keys);
// 1 is the classic skew of user traffic (the busiest of 100 values takes
// 19.3%, of a million 6.9%); above 1 a few values take most of it. The
// data-modeling method's popularity skew ("influencers create hot
// partitions ... with 10,000+ reads/sec") is the hottest value's share
// of a template's load.
type Popularity struct {
	// Keys is how many distinct values the requests fall on. 0 derives
	// it: the items of Entity when set, else of the entity whose
	// partition the template is, or, when no entity is (a GSI key),
	// MinPartitionValues. For a write-sharded constant ("STATUS#PENDING"
	// with Pattern.Partitions) the values are its shards: Keys must be 0
	// or the shard count.
	Keys int64
	// Entity names the entity (Entity.Name) whose items the template's
	// values are, for a key no entity's partition is (GSI1 JOB#{jobId}:
	// the jobs).
	Entity string
	// Exponent is Zipf's s, at least 0.
	Exponent float64
	// Why is the reason the document gives for the figures (the seed's
	// sentence they come from).
	Why string
}

// DefaultPopularity is the popularity of a template the model does not
// declare: Zipf's law with exponent 1 (the classic skew of user traffic)
// over the template's derived population.
var DefaultPopularity = Popularity{Exponent: 1, Why: "not declared: Zipf's law with exponent 1 (the common skew of user traffic)"}

// Share is the hottest value's share of the requests: 1/H(Keys, Exponent),
// 1 for one key or fewer.
func (p Popularity) Share() float64 {
	if p.Keys <= 1 {
		return 1
	}
	return 1 / zipfSum(p.Keys, p.Exponent)
}

// exactTerms is how many terms of a Zipf sum are added one by one; the
// rest is the Euler-Maclaurin tail, exact to far below what the
// documents print.
const exactTerms = 100_000

// zipfSum is H(n, s) = sum of k^-s for k = 1..n.
func zipfSum(n int64, s float64) float64 {
	if s == 0 {
		return float64(n)
	}
	m := min(n, exactTerms)
	var h float64
	for k := m; k >= 1; k-- { // smallest terms first
		h += math.Pow(float64(k), -s)
	}
	if n == m {
		return h
	}
	// Terms m+1..n: the integral of x^-s from m to n, plus the ends'
	// trapezoid correction and the first derivative term.
	a, b := float64(m), float64(n)
	integral := math.Log(b / a)
	if s != 1 {
		integral = (math.Pow(b, 1-s) - math.Pow(a, 1-s)) / (1 - s)
	}
	return h + integral + (math.Pow(b, -s)-math.Pow(a, -s))/2 - s/12*(math.Pow(b, -s-1)-math.Pow(a, -s-1))
}

// SkewedLoad is the load on the most requested value of a per-entity key
// template under its popularity: the template's PerEntity load times
// Share, each pattern's part too. Hot (PartitionLoad's) says whether that
// one value passes a partition's limits; DynamoDB's adaptive capacity can
// isolate a hot item on a partition of its own, but that partition is
// still capped at 3,000 RCU and 1,000 WCU a second.
type SkewedLoad struct {
	PartitionLoad
	// Popularity is the one applied, Keys resolved; Declared says the
	// model named the template (else DefaultPopularity).
	Popularity Popularity
	Declared   bool
	// KeysFrom says where Keys came from: "declared", the entity whose
	// items they are, or the method's aim.
	KeysFrom string
	// Share is the hottest value's share of the template's requests.
	Share float64
}

// HotSkewed returns the templates whose hottest value passes a partition's
// limits at the declared peaks under their popularity.
func (e *Estimate) HotSkewed() []SkewedLoad {
	if e == nil {
		return nil
	}
	var hot []SkewedLoad
	for _, s := range e.Skewed {
		if s.Hot() {
			hot = append(hot, s)
		}
	}
	return hot
}

// skew applies each template's popularity to its PerEntity load.
func skew(perEntity []PartitionLoad, storage []EntityStorage, declared map[string]Popularity) []SkewedLoad {
	var out []SkewedLoad
	for _, pl := range perEntity {
		p, ok := declared[pl.Partition]
		if !ok {
			p = DefaultPopularity
		}
		from := "declared"
		switch {
		case p.Keys > 0:
		case p.Entity != "":
			p.Keys, from = 0, "the "+p.Entity+" items stored"
			for _, st := range storage {
				if st.Entity.Name == p.Entity {
					p.Keys = int64(math.Round(st.Items))
				}
			}
		default:
			p.Keys, from = population(pl.Partition, storage)
		}
		sl := SkewedLoad{PartitionLoad: pl, Popularity: p, Declared: ok, KeysFrom: from, Share: p.Share()}
		sl.ReadPerSecond *= sl.Share
		sl.WritePerSecond *= sl.Share
		sl.ByPattern = nil
		for _, b := range pl.ByPattern {
			sl.ByPattern = append(sl.ByPattern, PatternLoad{Pattern: b.Pattern, ReadPerSecond: b.ReadPerSecond * sl.Share, WritePerSecond: b.WritePerSecond * sl.Share})
		}
		out = append(out, sl)
	}
	return out
}

// skewShards applies a declared popularity to the shards of a
// write-sharded constant: the hottest shard takes Share of the value's
// load instead of 1/Spread (undeclared shards are even: the method
// chooses them by hash). The loads are re-sorted hottest first.
func skewShards(loads []PartitionLoad, declared map[string]Popularity) []PartitionLoad {
	for i, pl := range loads {
		p, ok := declared[pl.Partition]
		if !ok || pl.Spread <= 1 {
			continue
		}
		p.Keys = int64(pl.Spread)
		f := p.Share() * float64(pl.Spread)
		pl.ReadPerSecond *= f
		pl.WritePerSecond *= f
		pl.ByPattern = slices.Clone(pl.ByPattern)
		for j := range pl.ByPattern {
			pl.ByPattern[j].ReadPerSecond *= f
			pl.ByPattern[j].WritePerSecond *= f
		}
		loads[i] = pl
	}
	sort.SliceStable(loads, func(i, j int) bool { return loads[i].Use() > loads[j].Use() })
	return loads
}

// population is how many values a template has: the items of the entity
// that heads its partitions (keyed by it, its parent keyed otherwise),
// the largest when several do; MinPartitionValues, the method's aim, when
// none does (a GSI key, say).
func population(template string, storage []EntityStorage) (int64, string) {
	parts := map[string]string{}
	for _, st := range storage {
		parts[st.Entity.Name] = st.Entity.Partition
	}
	var best int64
	from := ""
	for _, st := range storage {
		en := st.Entity
		if en.Partition != template || (en.Parent != "" && parts[en.Parent] == template) {
			continue
		}
		if n := int64(math.Round(st.Items)); n > best {
			best, from = n, "the "+en.Name+" items stored"
		}
	}
	if best == 0 {
		return MinPartitionValues, fmt.Sprintf("no entity is keyed by it: the method's aim of %d values", MinPartitionValues)
	}
	return best, from
}

// checkPopularity validates Options.Popularity: every template named by
// some pattern, Keys and Exponent in range.
func checkPopularity(s table.Schema, ps []access.Pattern, o Options) error {
	pop, entities := o.Popularity, o.Entities
	// used: the templates and constants the patterns key requests by;
	// shards: each constant's shard count (0 or 1 when not sharded).
	used, shards := map[string]bool{}, map[string]int{}
	for _, ap := range ps {
		n := max(ap.Partitions, 1)
		if r, ok := o.Partitions[ap.Name]; ok {
			n = max(r, 1)
		}
		for _, v := range []string{ap.Partition} {
			used[v], shards[v] = true, max(shards[v], n)
		}
		for _, it := range itemsOf(ap) {
			used[it.Partition], shards[it.Partition] = true, max(shards[it.Partition], n)
			for _, iw := range it.IndexWrites {
				used[iw.Partition], shards[iw.Partition] = true, max(shards[iw.Partition], n)
				used[iw.From], shards[iw.From] = true, max(shards[iw.From], n)
			}
		}
	}
	for _, t := range slices.Sorted(maps.Keys(pop)) {
		p := pop[t]
		if !used[t] || t == "" || (isConstant(t) && shards[t] <= 1) {
			return &PatternError{Table: s.Name, Field: "Popularity", Value: fmt.Sprintf("%q", t), Err: fmt.Errorf("%w: no pattern keys requests by this template (or shards this constant)", ErrInvalidPopularity)}
		}
		if p.Keys < 0 || p.Exponent < 0 || math.IsNaN(p.Exponent) || math.IsInf(p.Exponent, 0) {
			return &PatternError{Table: s.Name, Field: "Popularity", Value: fmt.Sprintf("%q: %+v", t, p), Err: ErrInvalidPopularity}
		}
		if p.Entity != "" && !slices.ContainsFunc(entities, func(e access.Entity) bool { return e.Name == p.Entity }) {
			return &PatternError{Table: s.Name, Field: "Popularity", Value: fmt.Sprintf("%q: entity %q", t, p.Entity), Err: fmt.Errorf("%w: no such entity", ErrInvalidPopularity)}
		}
		if isConstant(t) && (p.Entity != "" || (p.Keys != 0 && int(p.Keys) != shards[t])) {
			return &PatternError{Table: s.Name, Field: "Popularity", Value: fmt.Sprintf("%q: %+v", t, p), Err: fmt.Errorf("%w: a sharded constant's values are its %d shards", ErrInvalidPopularity, shards[t])}
		}
	}
	return nil
}

// Hot reports whether the pattern's part alone passes a partition's
// limits.
func (b PatternLoad) Hot() bool { return pastLimits(b.ReadPerSecond, b.WritePerSecond) }

// Use is the part's share of a partition's limits, as PartitionLoad.Use.
func (b PatternLoad) Use() float64 { return limitUse(b.ReadPerSecond, b.WritePerSecond) }

// hottestPatterns lists a load's patterns by their part, largest share of
// a partition's limits first.
func hottestPatterns(bs []PatternLoad) []PatternLoad {
	out := slices.Clone(bs)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Use() > out[j].Use() })
	return out
}
