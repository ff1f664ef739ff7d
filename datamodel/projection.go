package datamodel

import (
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/access"
)

// defaultAttributeBytes is an attribute's size (name and value) when no
// representative item shows it.
const defaultAttributeBytes = 32

// ProjectionOption is one projection a GSI could have and what it would
// cost at the declared average rates (the seed: "Project only what you
// query to GSIs").
type ProjectionOption struct {
	Projection types.ProjectionType
	// Attributes are INCLUDE's non-key attributes: what the index's read
	// patterns need (Model.Attributes).
	Attributes []string
	// WritePerSecond is the index's write units a second; ReadPerSecond
	// its queries' read units plus, where the entry lacks what a pattern
	// needs, the GetItem per row that fetches it from the table.
	WritePerSecond, ReadPerSecond float64
	StorageGB                     float64
	// MonthlyCost is the index's reads, writes and storage on demand.
	MonthlyCost float64
}

// ProjectionAnalysis compares a GSI's projection with the alternatives.
type ProjectionAnalysis struct {
	Index   string
	Current types.ProjectionType
	// Needed is what the index's read patterns need beyond keys; Whole
	// says a read pattern lists no attributes, i.e. needs the whole item.
	Needed  []string
	Whole   bool
	Options []ProjectionOption // ALL, INCLUDE (when Needed is known), KEYS_ONLY
}

// Projections analyses every GSI of the model: for ALL, INCLUDE of the
// attributes its read patterns need, and KEYS_ONLY, the index write
// units (an update that changes no projected attribute and no index key
// writes nothing to a KEYS_ONLY index; to INCLUDE it is counted, an upper
// bound), the index's storage (its entities' entries plus 100 bytes each)
// and its reads (queries over smaller entries, plus a GetItem per row
// where the entry lacks what the pattern needs). Key and attribute sizes
// come from the representative items (Model.Items), 32 bytes an attribute
// where none shows it.
func (m Model) Projections() ([]ProjectionAnalysis, error) {
	est, err := m.Estimate()
	if err != nil {
		return nil, err
	}
	o := Options{Prices: Prices{ReadPerMillion: PricePerMillionReads, WritePerMillion: PricePerMillionWrites, StorageGBMonth: PricePerGBMonth}}
	for _, f := range m.Options {
		f(&o)
	}
	var out []ProjectionAnalysis
	for _, ix := range m.Schema.Indexes {
		pa := ProjectionAnalysis{Index: ix.Name, Current: ix.Projection}
		if pa.Current == "" {
			pa.Current = types.ProjectionTypeAll
		}
		for _, pe := range est.Patterns {
			if pe.Pattern.Index != ix.Name {
				continue
			}
			attrs := m.Attributes[pe.Pattern.Name]
			if len(attrs) == 0 {
				pa.Whole = true
			}
			for _, a := range attrs {
				if !slices.Contains(pa.Needed, a) {
					pa.Needed = append(pa.Needed, a)
				}
			}
		}
		keys := m.attrBytes(m.Schema.PartitionKey.Name) + m.attrBytes(m.Schema.SortKey.Name) +
			m.attrBytes(ix.PartitionKey.Name) + m.attrBytes(ix.SortKey.Name)
		included := keys
		for _, a := range pa.Needed {
			included += m.attrBytes(a)
		}
		opts := []struct {
			p     types.ProjectionType
			entry float64
			attrs []string
			lacks bool
		}{
			{types.ProjectionTypeAll, -1, nil, false},
			{types.ProjectionTypeInclude, included, pa.Needed, pa.Whole},
			{types.ProjectionTypeKeysOnly, keys, nil, pa.Whole || len(pa.Needed) > 0},
		}
		for _, op := range opts {
			if op.p == types.ProjectionTypeInclude && len(pa.Needed) == 0 {
				continue
			}
			entry := func(size int) float64 {
				if op.entry < 0 {
					return float64(size)
				}
				return min(op.entry, float64(size))
			}
			po := ProjectionOption{Projection: op.p, Attributes: op.attrs}
			for _, pe := range est.Patterns {
				ap := pe.Pattern
				avg := averageOf(ap)
				if ap.Index == ix.Name {
					n := 0.0
					total := 0.0
					for _, it := range itemsOf(ap) {
						c := float64(max(it.Count, 1))
						n += c
						total += c * entry(it.Size)
						if op.lacks {
							po.ReadPerSecond += avg * c * readUnits(it.Size, false)
						}
					}
					po.ReadPerSecond += avg * readUnits(int(total), false)
					continue
				}
				factor := 1.0
				if ap.Operation == access.TransactWriteItems || ap.Transactional {
					factor = 2
				}
				for _, it := range itemsOf(ap) {
					op2 := itemOp(ap, it)
					for _, iw := range it.IndexWrites {
						if iw.Index != ix.Name {
							continue
						}
						if op.p == types.ProjectionTypeKeysOnly && op2 == access.UpdateItem && !iw.Move {
							continue // no key and no projected attribute changes
						}
						mult := 1.0
						if iw.Move {
							mult = 2
						}
						po.WritePerSecond += avg * factor * mult * float64(max(it.Count, 1)) * writeUnits(int(entry(it.Size)))
					}
				}
			}
			for _, st := range est.Storage {
				if slices.Contains(st.Entity.Indexes, ix.Name) {
					po.StorageGB += st.Items * (entry(st.Entity.Size) + itemOverheadBytes) / bytesPerGB
				}
			}
			po.MonthlyCost = monthly(po.ReadPerSecond, o.Prices.ReadPerMillion) + monthly(po.WritePerSecond, o.Prices.WritePerMillion) + po.StorageGB*o.Prices.StorageGBMonth
			pa.Options = append(pa.Options, po)
		}
		out = append(out, pa)
	}
	return out, nil
}

// attrBytes estimates an attribute's stored size (name and value) from
// the representative items; 0 for "".
func (m Model) attrBytes(name string) float64 {
	if name == "" {
		return 0
	}
	total, n := 0, 0
	for _, it := range m.Items {
		if v, ok := it.get(name); ok {
			total += len(name) + len(v)
			n++
		}
	}
	if n == 0 {
		return defaultAttributeBytes
	}
	return float64(total) / float64(n)
}
