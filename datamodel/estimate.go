package datamodel

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// The seed's constants: on-demand prices in US dollars, the seconds in its
// month, and the throughput one partition serves.
const (
	PricePerMillionReads  = 0.125     // read request unit (RRU)
	PricePerMillionWrites = 0.625     // write request unit (WRU)
	PricePerGBMonth       = 0.25      // storage
	SecondsPerMonth       = 2_592_000 // 30 days
	PartitionReadLimit    = 3000      // RCU per second on one partition
	PartitionWriteLimit   = 1000      // WCU per second on one partition
)

// DynamoDB's capacity unit sizes.
const (
	readUnitBytes  = 4 * 1024 // one strongly consistent read of up to 4 KB
	writeUnitBytes = 1024     // one write of up to 1 KB
	maxPageBytes   = 1 << 20  // a Query or Scan page stops after 1 MB read
)

// Prices are on-demand prices in US dollars.
type Prices struct {
	ReadPerMillion  float64 // per million read request units
	WritePerMillion float64 // per million write request units
	StorageGBMonth  float64 // per GB stored for a month
}

// Options tune Estimate.
type Options struct {
	// Rates replaces the declared peak RatePerSecond of the patterns it
	// names: a service's own traffic instead of the store's defaults. A
	// declared average above the new peak is lowered to it.
	Rates map[string]float64
	// Averages replaces the declared AveragePerSecond of the patterns it
	// names, the rate the bill is computed from.
	Averages map[string]float64
	// Partitions replaces the declared Partitions of the patterns it
	// names: the write shards a service configured for their constant
	// keys (tasks' Options.Shards, say).
	Partitions map[string]int
	// Entities are the kinds of items the table keeps (a store's
	// Entities function); the storage line of the bill is derived from
	// them. None: no storage cost.
	Entities []access.Entity
	// Horizon is how far ahead storage is planned for entities kept until
	// deleted (Retention 0): their items after Horizon of growth. 0 means
	// DefaultHorizon.
	Horizon time.Duration
	// Prices defaults to the seed's.
	Prices Prices
	// Popularity declares, by per-entity key template
	// ("JOURNEY#{journeyId}", as the patterns name it), how requests fall
	// on the template's values; a template not named gets
	// DefaultPopularity over its derived population (Estimate.Skewed).
	Popularity map[string]Popularity
}

// DefaultHorizon is the planning horizon for items kept until deleted:
// a year of growth.
const DefaultHorizon = 365 * 24 * time.Hour

// WithRates sets Options.Rates.
func WithRates(rates map[string]float64) func(*Options) {
	return func(o *Options) { o.Rates = rates }
}

// WithAverages sets Options.Averages.
func WithAverages(averages map[string]float64) func(*Options) {
	return func(o *Options) { o.Averages = averages }
}

// WithPartitions sets Options.Partitions.
func WithPartitions(partitions map[string]int) func(*Options) {
	return func(o *Options) { o.Partitions = partitions }
}

// WithPopularity sets Options.Popularity.
func WithPopularity(p map[string]Popularity) func(*Options) {
	return func(o *Options) { o.Popularity = p }
}

// WithEntities sets Options.Entities.
func WithEntities(entities []access.Entity) func(*Options) {
	return func(o *Options) { o.Entities = entities }
}

// WithHorizon sets Options.Horizon.
func WithHorizon(d time.Duration) func(*Options) {
	return func(o *Options) { o.Horizon = d }
}

// WithPrices sets Options.Prices.
func WithPrices(p Prices) func(*Options) {
	return func(o *Options) { o.Prices = p }
}

// Estimate is the capacity and on-demand cost of a table's declared
// access patterns.
type Estimate struct {
	Table    string
	Patterns []PatternEstimate // in declaration order
	// ReadPerSecond and WritePerSecond are the sums over the patterns at
	// their peak rates, in read and write units (RCU, WCU) per second:
	// what the table must serve in its busiest second.
	ReadPerSecond, WritePerSecond float64
	// AverageReadPerSecond and AverageWritePerSecond are the same sums at
	// the average rates: what the month is billed for.
	AverageReadPerSecond, AverageWritePerSecond float64
	// Monthly costs in US dollars, on demand: reads and writes at the
	// average rates, storage, and their sum.
	ReadCost, WriteCost, StorageCost, MonthlyCost float64
	// PeakMonthlyCost is what the month would cost if every pattern ran
	// at its peak all month (and the same storage): the figure a
	// single-rate model gives, kept for comparison.
	PeakMonthlyCost float64
	// StorageGB is what the table and its indexes hold (Storage summed).
	StorageGB float64
	// Storage is each declared entity's items and bytes, in declaration
	// order.
	Storage []EntityStorage
	// Horizon is the planning horizon used for entities kept until
	// deleted.
	Horizon time.Duration
	// Undeclared lists the patterns declaring no average rate, billed at
	// their peak.
	Undeclared []string
	// local names the table's local secondary indexes, whose reads and
	// writes the table's capacity serves (Load).
	local map[string]bool
	// Partitions are the key values on which patterns concentrate their
	// load (a constant Partition, or a template with Partitions set),
	// hottest first. Hot ones pass a partition's limits.
	Partitions []PartitionLoad
	// PerEntity are the per-entity key templates (JOURNEY#{journeyId}),
	// hottest first, each loaded as if every request of every pattern
	// keyed by it hit one entity: the most one entity's key value can take
	// at the declared peaks. Declared rates are the service's, not one
	// entity's, so this is an upper bound; it is also the load when one
	// entity is all the traffic there is (the journey design's one running job, its
	// dashboard open). Hot ones would pass a partition's limits so.
	PerEntity []PartitionLoad
	// Skewed are the same templates under their popularity (Options.
	// Popularity): the load on the most requested value of each, in
	// PerEntity's order. Hot ones throttle at the declared peaks.
	Skewed []SkewedLoad
	// Popularity is Options.Popularity, as declared.
	Popularity map[string]Popularity
}

// Hot returns the partitions that would pass a partition's limits.
func (e *Estimate) Hot() []PartitionLoad { return hotOf(e.Partitions) }

// HotPerEntity returns the per-entity templates whose bound passes a
// partition's limits: one entity taking all their traffic would throttle.
func (e *Estimate) HotPerEntity() []PartitionLoad { return hotOf(e.PerEntity) }

func hotOf(loads []PartitionLoad) []PartitionLoad {
	var hot []PartitionLoad
	for _, p := range loads {
		if p.Hot() {
			hot = append(hot, p)
		}
	}
	return hot
}

// Pattern returns the estimate of the pattern called name.
func (e *Estimate) Pattern(name string) (PatternEstimate, bool) {
	for _, p := range e.Patterns {
		if p.Pattern.Name == name {
			return p, true
		}
	}
	return PatternEstimate{}, false
}

// PatternEstimate is one access pattern's cost.
type PatternEstimate struct {
	// Pattern is the declaration, with RatePerSecond the rate used.
	Pattern access.Pattern
	// ReadUnits and WriteUnits are what one request consumes; WriteUnits
	// is TableWriteUnits plus the index writes.
	ReadUnits, WriteUnits float64
	TableWriteUnits       float64
	IndexWriteUnits       []IndexUnits // by index name
	// Per second at the pattern's peak rate (Pattern.RatePerSecond).
	ReadPerSecond, WritePerSecond float64
	// Per second at the pattern's average rate (Pattern.AveragePerSecond,
	// the peak when none is declared), and the monthly on-demand cost
	// they make.
	AverageReadPerSecond, AverageWritePerSecond float64
	MonthlyCost                                 float64
}

// IndexUnits is the write units one request spends on one GSI.
type IndexUnits struct {
	Index string
	Units float64
}

// PartitionLoad is the load on one constant partition key value of the
// table or of a GSI (per shard, when the patterns shard it).
type PartitionLoad struct {
	Index     string // "" for the table
	Partition string // the key value, before any shard suffix
	// Spread is how many shards the load is divided over (1 when not
	// sharded); the figures below are per shard.
	Spread                        int
	ReadPerSecond, WritePerSecond float64
	Patterns                      []string // the patterns that load it, sorted
	// ByPattern is each pattern's part of the load, in Patterns' order.
	ByPattern []PatternLoad
}

// PatternLoad is one pattern's part of a PartitionLoad, per second.
type PatternLoad struct {
	Pattern                       string
	ReadPerSecond, WritePerSecond float64
}

// Hot reports whether the load passes a partition's 3,000 RCU or 1,000
// WCU per second.
func (p PartitionLoad) Hot() bool { return pastLimits(p.ReadPerSecond, p.WritePerSecond) }

// pastLimits is the one test of a load against a partition's limits:
// reads and writes throttle independently, each past its own.
func pastLimits(read, write float64) bool {
	return read > PartitionReadLimit || write > PartitionWriteLimit
}

// limitUse is a load's share of a partition's limits: the larger of its
// read and write fractions.
func limitUse(read, write float64) float64 {
	return max(read/PartitionReadLimit, write/PartitionWriteLimit)
}

// Use is the load's share of a partition's limits: the larger of its read
// and write fractions (1 is at the limit).
func (p PartitionLoad) Use() float64 { return limitUse(p.ReadPerSecond, p.WritePerSecond) }

// Remedy names the fix for a hot partition: the seed's write sharding,
// with the smallest shard count that brings the load under the limits.
func (p PartitionLoad) Remedy() string {
	if !p.Hot() {
		return ""
	}
	shards := max(int(math.Ceil(p.WritePerSecond/PartitionWriteLimit)), int(math.Ceil(p.ReadPerSecond/PartitionReadLimit)), 2)
	where := "the table's partition key"
	if p.Index != "" {
		where = p.Index + "'s partition key"
	}
	return fmt.Sprintf("write sharding (the seed): suffix %s with a shard number, %s#{0..%d} (at least %d shards; more for headroom), "+
		"chosen by hash of the item id, and query every shard and merge the results", where, p.Partition, shards*p.Spread-1, shards*p.Spread)
}

// EstimateSchema computes the capacity and on-demand cost of the access
// patterns ps declared for the table s, per request, per second and per month, and the load on every
// key value the patterns concentrate on. A declaration that cannot be
// costed (an unknown index, a zero size, a strongly consistent GSI read, a
// rate for a pattern the schema lacks) is a *PatternError and nothing is
// estimated.
func EstimateSchema(s table.Schema, ps []access.Pattern, opts ...func(*Options)) (*Estimate, error) {
	o := Options{Prices: Prices{ReadPerMillion: PricePerMillionReads, WritePerMillion: PricePerMillionWrites, StorageGBMonth: PricePerGBMonth}}
	for _, f := range opts {
		f(&o)
	}
	if o.Horizon == 0 {
		o.Horizon = DefaultHorizon
	}
	if err := check(s, ps, o); err != nil {
		return nil, err
	}
	est := &Estimate{Table: s.Name, Horizon: o.Horizon, Popularity: o.Popularity}
	for _, ix := range s.Indexes {
		if ix.Local {
			if est.local == nil {
				est.local = map[string]bool{}
			}
			est.local[ix.Name] = true
		}
	}
	loads, perEntity := map[[2]string]*PartitionLoad{}, map[[2]string]*PartitionLoad{}
	for _, ap := range ps {
		if r, ok := o.Rates[ap.Name]; ok {
			ap.RatePerSecond = r
			ap.AveragePerSecond = min(ap.AveragePerSecond, r)
		}
		if a, ok := o.Averages[ap.Name]; ok {
			ap.AveragePerSecond = a
		}
		if n, ok := o.Partitions[ap.Name]; ok {
			ap.Partitions = n
		}
		pe, err := estimatePattern(s, ap)
		if err != nil {
			return nil, err
		}
		avg := ap.AveragePerSecond
		if avg == 0 && ap.RatePerSecond > 0 {
			avg = ap.RatePerSecond
			est.Undeclared = append(est.Undeclared, ap.Name)
		}
		pe.ReadPerSecond = pe.ReadUnits * ap.RatePerSecond
		pe.WritePerSecond = pe.WriteUnits * ap.RatePerSecond
		pe.AverageReadPerSecond = pe.ReadUnits * avg
		pe.AverageWritePerSecond = pe.WriteUnits * avg
		pe.MonthlyCost = monthly(pe.AverageReadPerSecond, o.Prices.ReadPerMillion) + monthly(pe.AverageWritePerSecond, o.Prices.WritePerMillion)
		est.Patterns = append(est.Patterns, pe)
		est.ReadPerSecond += pe.ReadPerSecond
		est.WritePerSecond += pe.WritePerSecond
		est.AverageReadPerSecond += pe.AverageReadPerSecond
		est.AverageWritePerSecond += pe.AverageWritePerSecond
		addLoads(s, ap, pe, loads, perEntity)
	}
	est.Storage = storageOf(s, est.Patterns, o.Entities, o.Horizon)
	for _, st := range est.Storage {
		est.StorageGB += st.GB()
	}
	est.ReadCost = monthly(est.AverageReadPerSecond, o.Prices.ReadPerMillion)
	est.WriteCost = monthly(est.AverageWritePerSecond, o.Prices.WritePerMillion)
	est.StorageCost = est.StorageGB * o.Prices.StorageGBMonth
	est.MonthlyCost = est.ReadCost + est.WriteCost + est.StorageCost
	est.PeakMonthlyCost = monthly(est.ReadPerSecond, o.Prices.ReadPerMillion) + monthly(est.WritePerSecond, o.Prices.WritePerMillion) + est.StorageCost
	est.Partitions = skewShards(hottestFirst(loads), o.Popularity)
	est.PerEntity = hottestFirst(perEntity)
	est.Skewed = skew(est.PerEntity, est.Storage, o.Popularity)
	return est, nil
}

// hottestFirst lists loads by their share of a partition's limits,
// highest first; ties by index and key value.
func hottestFirst(loads map[[2]string]*PartitionLoad) []PartitionLoad {
	var out []PartitionLoad
	for _, l := range loads {
		sort.Strings(l.Patterns)
		sort.Slice(l.ByPattern, func(i, j int) bool { return l.ByPattern[i].Pattern < l.ByPattern[j].Pattern })
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ha, hb := a.Use(), b.Use(); ha != hb {
			return ha > hb
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		return a.Partition < b.Partition
	})
	return out
}

// monthly is what units per second cost for the seed's month.
func monthly(perSecond, pricePerMillion float64) float64 {
	return perSecond * SecondsPerMonth / 1e6 * pricePerMillion
}

// check validates the schema, the patterns' names, operations and indexes,
// and the options before any arithmetic.
func check(s table.Schema, ps []access.Pattern, o Options) error {
	if err := s.Validate(); err != nil {
		return &PatternError{Table: s.Name, Field: "schema", Value: s.Name, Err: fmt.Errorf("%w: %w", ErrInvalidSchema, err)}
	}
	names := map[string]bool{}
	for i, ap := range ps {
		if ap.Name == "" {
			return &PatternError{Table: s.Name, Field: fmt.Sprintf("patterns[%d].Name", i), Value: `""`, Err: ErrUnnamedPattern}
		}
		if !ap.Operation.IsRequest() {
			return &PatternError{Table: s.Name, Pattern: ap.Name, Field: "Operation", Value: string(ap.Operation), Err: ErrInvalidOperation}
		}
		if ap.Index != "" {
			if _, ok := s.Index(ap.Index); !ok {
				return &PatternError{Table: s.Name, Pattern: ap.Name, Field: "Index", Value: ap.Index, Err: ErrUnknownIndex}
			}
		}
		if names[ap.Name] {
			return &PatternError{Table: s.Name, Pattern: ap.Name, Field: "Name", Value: ap.Name, Err: ErrDuplicatePattern}
		}
		names[ap.Name] = true
	}
	for _, n := range slices.Sorted(maps.Keys(o.Rates)) {
		if !names[n] {
			return &PatternError{Table: s.Name, Field: "Rates", Value: fmt.Sprintf("%q", n), Err: ErrUnknownPattern}
		}
		if r := o.Rates[n]; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
			return &PatternError{Table: s.Name, Pattern: n, Field: "Rates", Value: r, Err: ErrInvalidRate}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(o.Averages)) {
		if !names[n] {
			return &PatternError{Table: s.Name, Field: "Averages", Value: fmt.Sprintf("%q", n), Err: ErrUnknownPattern}
		}
		if r := o.Averages[n]; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
			return &PatternError{Table: s.Name, Pattern: n, Field: "Averages", Value: r, Err: ErrInvalidRate}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(o.Partitions)) {
		if !names[n] {
			return &PatternError{Table: s.Name, Field: "Partitions", Value: fmt.Sprintf("%q", n), Err: ErrUnknownPattern}
		}
		if o.Partitions[n] < 0 {
			return &PatternError{Table: s.Name, Pattern: n, Field: "Partitions", Value: o.Partitions[n], Err: ErrInvalidPartitions}
		}
	}
	if o.Horizon < 0 {
		return &PatternError{Table: s.Name, Field: "Horizon", Value: o.Horizon, Err: ErrInvalidRetention}
	}
	if err := checkPopularity(s, ps, o); err != nil {
		return err
	}
	return checkEntities(s, names, o.Entities)
}

// isRead reports whether op reads.
func isRead(op access.Op) bool {
	switch op {
	case access.GetItem, access.Query, access.Scan, access.BatchGetItem, access.TransactGetItems:
		return true
	}
	return false
}

// itemsOf expands a pattern into the items one request touches.
func itemsOf(ap access.Pattern) []access.Item {
	if len(ap.Items) > 0 {
		return ap.Items
	}
	return []access.Item{{Size: ap.ItemSize, Count: max(ap.ItemsPerRequest, 1), Partition: ap.Partition, IndexWrites: ap.IndexWrites}}
}

// itemOp is the operation an item of a request undergoes.
func itemOp(ap access.Pattern, it access.Item) access.Op {
	if it.Operation != "" {
		return it.Operation
	}
	switch ap.Operation {
	case access.BatchGetItem, access.TransactGetItems, access.Query, access.Scan:
		return access.GetItem
	case access.BatchWriteItem, access.TransactWriteItems:
		return access.PutItem
	}
	return ap.Operation
}

// allowedItemOps lists what an item of a request with operation op may do.
func allowedItemOps(op access.Op) []access.Op {
	switch op {
	case access.GetItem, access.Query, access.Scan, access.BatchGetItem, access.TransactGetItems:
		return []access.Op{access.GetItem}
	case access.BatchWriteItem:
		return []access.Op{access.PutItem, access.DeleteItem}
	case access.TransactWriteItems:
		return []access.Op{access.PutItem, access.UpdateItem, access.DeleteItem, access.ConditionCheck}
	}
	return []access.Op{op}
}

func perr(s table.Schema, ap access.Pattern, field string, value any, err error) error {
	return &PatternError{Table: s.Name, Pattern: ap.Name, Field: field, Value: value, Err: err}
}

// validatePattern checks the fields capacity estimation relies on.
func validatePattern(s table.Schema, ap access.Pattern) error {
	if ap.Index != "" {
		ix, ok := s.Index(ap.Index)
		if !ok {
			return perr(s, ap, "Index", ap.Index, ErrUnknownIndex)
		}
		if ap.Consistent && !ix.Local {
			return perr(s, ap, "Consistent", true, ErrConsistentIndex)
		}
	}
	if ap.Index != "" && ap.Operation != access.Query && ap.Operation != access.Scan {
		return perr(s, ap, "Index", ap.Index, fmt.Errorf("%w: only Query and Scan read an index, not %s", ErrInvalidOperation, ap.Operation))
	}
	if ap.RatePerSecond < 0 || math.IsNaN(ap.RatePerSecond) || math.IsInf(ap.RatePerSecond, 0) {
		return perr(s, ap, "RatePerSecond", ap.RatePerSecond, ErrInvalidRate)
	}
	if ap.AveragePerSecond < 0 || math.IsNaN(ap.AveragePerSecond) || math.IsInf(ap.AveragePerSecond, 0) {
		return perr(s, ap, "AveragePerSecond", ap.AveragePerSecond, ErrInvalidRate)
	}
	if ap.AveragePerSecond > ap.RatePerSecond {
		return perr(s, ap, "AveragePerSecond", ap.AveragePerSecond, fmt.Errorf("%w: an average above the peak (RatePerSecond %v)", ErrInvalidRate, ap.RatePerSecond))
	}
	if ap.Partitions < 0 {
		return perr(s, ap, "Partitions", ap.Partitions, ErrInvalidPartitions)
	}
	if ap.ItemsPerRequest < 0 {
		return perr(s, ap, "ItemsPerRequest", ap.ItemsPerRequest, ErrInvalidCount)
	}
	if len(ap.Items) == 0 && (ap.ItemSize <= 0 || ap.ItemSize > table.MaxItemSize) {
		return perr(s, ap, "ItemSize", ap.ItemSize, ErrInvalidSize)
	}
	if ap.Operation == access.Query || ap.Operation == access.Scan {
		total := 0
		for _, it := range itemsOf(ap) {
			total += it.Size * max(it.Count, 1)
		}
		if total > maxPageBytes {
			return perr(s, ap, "ItemsPerRequest", fmt.Sprintf("%d bytes", total), fmt.Errorf("%w: one Query or Scan page reads at most 1 MB; declare the items of one page", ErrInvalidSize))
		}
	}
	read := isRead(ap.Operation)
	for i, it := range itemsOf(ap) {
		field := "Items[" + fmt.Sprint(i) + "]"
		if len(ap.Items) == 0 {
			field = ""
		}
		if len(ap.Items) > 0 && (it.Size <= 0 || it.Size > table.MaxItemSize) {
			return perr(s, ap, field+".Size", it.Size, ErrInvalidSize)
		}
		if it.Count < 0 {
			return perr(s, ap, field+".Count", it.Count, ErrInvalidCount)
		}
		op := itemOp(ap, it)
		ok := false
		for _, a := range allowedItemOps(ap.Operation) {
			ok = ok || a == op
		}
		if !ok {
			return perr(s, ap, field+".Operation", op, fmt.Errorf("%w: not inside %s", ErrInvalidOperation, ap.Operation))
		}
		if field == "" {
			field = "IndexWrites"
		} else {
			field += ".IndexWrites"
		}
		for j, iw := range it.IndexWrites {
			if read || op == access.ConditionCheck {
				return perr(s, ap, fmt.Sprintf("%s[%d]", field, j), iw.Index, fmt.Errorf("%w: a read or condition check writes no index", ErrInvalidOperation))
			}
			if _, ok := s.Index(iw.Index); !ok {
				return perr(s, ap, fmt.Sprintf("%s[%d].Index", field, j), iw.Index, ErrUnknownIndex)
			}
			if iw.Move && op == access.DeleteItem {
				return perr(s, ap, fmt.Sprintf("%s[%d].Move", field, j), true, fmt.Errorf("%w: a deleted item leaves the index (one write); its key cannot move", ErrInvalidOperation))
			}
		}
	}
	return nil
}

// readUnits is what reading size bytes costs: 4 KB units rounded up, at
// least one, half when eventually consistent.
func readUnits(size int, consistent bool) float64 {
	u := float64(max(1, (size+readUnitBytes-1)/readUnitBytes))
	if !consistent {
		u /= 2
	}
	return u
}

// writeUnits is what writing an item of size bytes costs: 1 KB units
// rounded up, at least one.
func writeUnits(size int) float64 {
	return float64(max(1, (size+writeUnitBytes-1)/writeUnitBytes))
}

// indexEntryUnits is what one write of an item's entry in ix costs: the
// item's size for ALL (and, as an upper bound, INCLUDE) projections; a
// KEYS_ONLY entry holds only keys, which fit one write unit.
func indexEntryUnits(ix table.Index, size int) float64 {
	if ix.Projection == types.ProjectionTypeKeysOnly {
		return 1
	}
	return writeUnits(size)
}

// estimatePattern computes one request's units by DynamoDB's rules (the
// same ones dynamotest's accounting follows).
func estimatePattern(s table.Schema, ap access.Pattern) (PatternEstimate, error) {
	if err := validatePattern(s, ap); err != nil {
		return PatternEstimate{}, err
	}
	pe := PatternEstimate{Pattern: ap}
	items := itemsOf(ap)
	switch ap.Operation {
	case access.Query, access.Scan:
		// One rounding over the sum of the items read, not per item.
		total := 0
		for _, it := range items {
			total += it.Size * max(it.Count, 1)
		}
		pe.ReadUnits = readUnits(total, ap.Consistent)
	case access.GetItem, access.BatchGetItem:
		for _, it := range items {
			pe.ReadUnits += readUnits(it.Size, ap.Consistent) * float64(max(it.Count, 1))
		}
	case access.TransactGetItems:
		// Transactional reads are strongly consistent and cost double.
		for _, it := range items {
			pe.ReadUnits += 2 * readUnits(it.Size, true) * float64(max(it.Count, 1))
		}
	default:
		factor := 1.0
		if ap.Operation == access.TransactWriteItems || ap.Transactional {
			factor = 2 // transactional writes cost double, index writes included
		}
		byIndex := map[string]float64{}
		for _, it := range items {
			n := float64(max(it.Count, 1))
			pe.TableWriteUnits += factor * writeUnits(it.Size) * n
			for _, iw := range it.IndexWrites {
				ix, _ := s.Index(iw.Index)
				u := indexEntryUnits(ix, it.Size)
				if iw.Move {
					u *= 2
				}
				byIndex[iw.Index] += factor * u * n
			}
		}
		pe.WriteUnits = pe.TableWriteUnits
		for _, ix := range s.Indexes {
			if u, ok := byIndex[ix.Name]; ok {
				pe.IndexWriteUnits = append(pe.IndexWriteUnits, IndexUnits{Index: ix.Name, Units: u})
				pe.WriteUnits += u
			}
		}
	}
	return pe, nil
}

// isConstant reports whether a partition value names one key value rather
// than a template of many.
func isConstant(p string) bool {
	return p != "" && !strings.ContainsAny(p, "{}")
}

// addLoads adds a pattern's load to the key values it concentrates on,
// and to the per-entity templates it is keyed by (all of it on one entity:
// the bound Estimate.PerEntity reports).
func addLoads(s table.Schema, ap access.Pattern, pe PatternEstimate, loads, perEntity map[[2]string]*PartitionLoad) {
	add := func(index, partition string, read, write float64) {
		if partition == "" {
			return
		}
		into, spread := loads, max(ap.Partitions, 1)
		if !isConstant(partition) {
			into, spread = perEntity, 1 // shards split constants, not entities
		}
		k := [2]string{index, partition}
		l := into[k]
		if l == nil {
			l = &PartitionLoad{Index: index, Partition: partition, Spread: spread}
			into[k] = l
		}
		r, w := read*ap.RatePerSecond/float64(spread), write*ap.RatePerSecond/float64(spread)
		l.ReadPerSecond += r
		l.WritePerSecond += w
		if !slices.Contains(l.Patterns, ap.Name) {
			l.Patterns = append(l.Patterns, ap.Name)
			l.ByPattern = append(l.ByPattern, PatternLoad{Pattern: ap.Name})
		}
		bp := &l.ByPattern[slices.IndexFunc(l.ByPattern, func(b PatternLoad) bool { return b.Pattern == ap.Name })]
		bp.ReadPerSecond += r
		bp.WritePerSecond += w
	}
	if isRead(ap.Operation) {
		if ap.Operation == access.Query || ap.Operation == access.Scan || len(ap.Items) == 0 {
			add(ap.Index, ap.Partition, pe.ReadUnits, 0)
			return
		}
		for _, it := range ap.Items {
			factor := 1.0
			if ap.Operation == access.TransactGetItems {
				factor = 2
			}
			add("", it.Partition, factor*readUnits(it.Size, ap.Consistent || ap.Operation == access.TransactGetItems)*float64(max(it.Count, 1)), 0)
		}
		return
	}
	factor := 1.0
	if ap.Operation == access.TransactWriteItems || ap.Transactional {
		factor = 2
	}
	for _, it := range itemsOf(ap) {
		n := float64(max(it.Count, 1))
		add("", it.Partition, 0, factor*writeUnits(it.Size)*n)
		for _, iw := range it.IndexWrites {
			ix, _ := s.Index(iw.Index)
			u := factor * indexEntryUnits(ix, it.Size) * n
			switch {
			case iw.Move && iw.From != "" && iw.From != iw.Partition:
				add(iw.Index, iw.From, 0, u)      // the old entry's delete
				add(iw.Index, iw.Partition, 0, u) // the new entry's put
			case iw.Move:
				add(iw.Index, iw.Partition, 0, 2*u)
			default:
				add(iw.Index, iw.Partition, 0, u)
			}
		}
	}
}
