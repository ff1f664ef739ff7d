package datamodel

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// Storage accounting, from DynamoDB's developer guide: a table's billed
// size is the sum of its items' sizes plus 100 bytes of overhead per item,
// and a GSI's is the sum of its entries' sizes (the projected attributes
// with the table's and the index's keys) plus 100 bytes per entry.
const (
	itemOverheadBytes = 100
	// keysOnlyEntryBytes is what a KEYS_ONLY entry holds beyond the
	// overhead when no better figure is known: the table's and the index's
	// key attributes, names and values, typically a few ids and a time.
	keysOnlyEntryBytes = 100
	bytesPerGB         = 1 << 30
)

// EntityStorage is what one declared entity occupies at steady state
// (items kept for their Retention) or after the planning horizon (items
// kept until deleted).
type EntityStorage struct {
	Entity access.Entity
	// PerSecond is the growth: new items a second, from the CreatedBy
	// pattern's average rate.
	PerSecond float64
	// Kept is how long an item stays: Retention, or the horizon when the
	// entity is kept until deleted (Unbounded).
	Kept      time.Duration
	Unbounded bool
	// Items is how many are stored: PerSecond over Kept, plus Count.
	Items float64
	// TableBytes is their size in the table; IndexBytes in each GSI that
	// holds them, in the schema's index order.
	TableBytes float64
	IndexBytes []IndexBytes
}

// IndexBytes is one GSI's share of an entity's storage.
type IndexBytes struct {
	Index string
	Bytes float64
}

// Bytes is the entity's whole storage, table and indexes.
func (e EntityStorage) Bytes() float64 {
	b := e.TableBytes
	for _, ix := range e.IndexBytes {
		b += ix.Bytes
	}
	return b
}

// GB is Bytes in gigabytes (2^30 bytes, as DynamoDB bills).
func (e EntityStorage) GB() float64 { return e.Bytes() / bytesPerGB }

// GrowthGBPerMonth is how much an entity kept until deleted adds every
// month (the seed's 30-day month); 0 for one with a retention.
func (e EntityStorage) GrowthGBPerMonth() float64 {
	if !e.Unbounded || e.Items == 0 {
		return 0
	}
	perItem := e.Bytes() / e.Items
	return e.PerSecond * SecondsPerMonth * perItem / bytesPerGB
}

// indexEntryBytes is the stored size of an item's entry in ix: the whole
// item for ALL, the keys for KEYS_ONLY, and for INCLUDE the keys plus the
// included attributes, at most the item.
func indexEntryBytes(ix table.Index, itemSize int) float64 {
	switch ix.Projection {
	case types.ProjectionTypeKeysOnly:
		return float64(min(keysOnlyEntryBytes, itemSize))
	case types.ProjectionTypeInclude:
		// Without attribute sizes, each included attribute is counted as
		// a key's worth: an estimate between KEYS_ONLY and ALL.
		return float64(min(keysOnlyEntryBytes*(1+len(ix.NonKeyAttributes)), itemSize))
	}
	return float64(itemSize)
}

// storageOf derives every entity's storage from its size, growth (its
// CreatedBy pattern's average rate) and retention. ps are the estimated
// patterns, which carry the rates in use.
func storageOf(s table.Schema, ps []PatternEstimate, es []access.Entity, horizon time.Duration) []EntityStorage {
	var out []EntityStorage
	for _, e := range es {
		st := EntityStorage{Entity: e, Kept: e.Retention}
		if e.CreatedBy != "" {
			for _, pe := range ps {
				if pe.Pattern.Name == e.CreatedBy {
					avg := pe.Pattern.AveragePerSecond
					if avg == 0 {
						avg = pe.Pattern.RatePerSecond
					}
					st.PerSecond = avg * float64(max(e.PerRequest, 1))
				}
			}
		}
		if st.Kept == 0 {
			st.Kept, st.Unbounded = horizon, true
		}
		st.Items = st.PerSecond*st.Kept.Seconds() + float64(e.Count)
		st.TableBytes = st.Items * float64(e.Size+itemOverheadBytes)
		for _, ix := range s.Indexes {
			for _, name := range e.Indexes {
				if name == ix.Name {
					st.IndexBytes = append(st.IndexBytes, IndexBytes{Index: ix.Name, Bytes: st.Items * (indexEntryBytes(ix, e.Size) + itemOverheadBytes)})
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// checkEntities validates entity declarations against the schema and the
// pattern names.
func checkEntities(s table.Schema, patterns map[string]bool, es []access.Entity) error {
	seen := map[string]bool{}
	for i, e := range es {
		field := fmt.Sprintf("Entities[%d]", i)
		if e.Name == "" {
			return &PatternError{Table: s.Name, Field: field + ".Name", Value: `""`, Err: ErrInvalidEntity}
		}
		if seen[e.Name] {
			return &PatternError{Table: s.Name, Field: field + ".Name", Value: e.Name, Err: fmt.Errorf("%w: two entities share a name", ErrInvalidEntity)}
		}
		seen[e.Name] = true
		if e.Size <= 0 || e.Size > table.MaxItemSize {
			return &PatternError{Table: s.Name, Field: field + ".Size", Value: e.Size, Err: ErrInvalidSize}
		}
		if e.CreatedBy != "" && !patterns[e.CreatedBy] {
			return &PatternError{Table: s.Name, Field: field + ".CreatedBy", Value: fmt.Sprintf("%q", e.CreatedBy), Err: ErrUnknownPattern}
		}
		if e.PerRequest < 0 || e.Count < 0 {
			return &PatternError{Table: s.Name, Field: field + ".PerRequest/Count", Value: fmt.Sprint(e.PerRequest, "/", e.Count), Err: ErrInvalidCount}
		}
		if e.Retention < 0 {
			return &PatternError{Table: s.Name, Field: field + ".Retention", Value: e.Retention, Err: ErrInvalidRetention}
		}
		for j, ix := range e.Indexes {
			if _, ok := s.Index(ix); !ok {
				return &PatternError{Table: s.Name, Field: fmt.Sprintf("%s.Indexes[%d]", field, j), Value: ix, Err: ErrUnknownIndex}
			}
		}
	}
	return nil
}
