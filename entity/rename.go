package entity

import (
	"fmt"
	"maps"
	"unicode/utf8"

	"github.com/tablekit/tablekit/table"
)

// Rename is one step of renaming an attribute without downtime ("add the
// new name alongside the old; write both; read the new first; backfill;
// stop writing the old"): while an entity declares it, every write of the
// attribute From (Create, Put, Upsert, batches, transactions, every
// update's Set, SetIfNotExists, Add, Append and Remove) writes To as well,
// with the same value, and every read takes To first, falling back to From
// for items written before the rename; To is not an extra. Conditions
// (If, Where) keep naming From, which every writer writes while the rename
// runs. From is an attribute of the struct that is written whole: not a
// key of the table or of an index, not KeyOnly, not the TTL, Created,
// Updated or Version (their writes are the entity's own).
type Rename struct {
	From, To string
}

// RenameAttribute adds a Rename to Options.Renames.
func RenameAttribute(from, to string) func(*Options) {
	return func(o *Options) { o.Renames = append(o.Renames, Rename{From: from, To: to}) }
}

// maxRenameLen bounds a new name: DynamoDB allows 64 KB, but a name is
// stored in every item.
const maxRenameLen = 255

// declareRenames checks the renames (after the keys, the kept attributes
// and Extra's known names) and records them.
func (m *model) declareRenames(rs []Rename) error {
	for i, r := range rs {
		option := fmt.Sprintf("Renames[%d]", i)
		f, err := m.field(option, r.From)
		if err != nil {
			return err
		}
		switch {
		case m.isKey(f):
			return declError(m.name, option, r.From+" is a key of the table or of an index: a new key is a new table or index, not a rename")
		case containsField(m.keyOnly, f):
			return declError(m.name, option, r.From+" is KeyOnly: it is stored in keys only")
		case f == m.ttl || f == m.version || m.created != nil && f == m.created.f || m.updated != nil && f == m.updated.f:
			return declError(m.name, option, r.From+" is kept by the entity (TTL, Created, Updated, Version)")
		case r.To == "" || !utf8.ValidString(r.To) || len(r.To) > maxRenameLen:
			return declError(m.name, option, fmt.Sprintf("the new name %q must be 1 to %d bytes of UTF-8", r.To, maxRenameLen))
		case m.known[r.To]:
			return declError(m.name, option, fmt.Sprintf("the new name %q is already an attribute of the entity", r.To))
		case m.renamed[f] != "":
			return declError(m.name, option, r.From+" is renamed twice")
		}
		if m.renamed == nil {
			m.renamed = map[*field]string{}
		}
		m.renamed[f] = r.To
		m.known[r.To] = true
	}
	return nil
}

// isKey reports whether f is a key attribute of the table or of an index
// (a key that is the attribute itself, or one built from it).
func (m *model) isKey(f *field) bool {
	for _, k := range m.parts() {
		if k.own == f || containsField(k.fields, f) {
			return true
		}
	}
	return false
}

// writeRenamed adds to an item about to be written each renamed attribute
// it has under its new name too, and refuses the item if the copies take
// it over DynamoDB's size (offloading, if any, has run: a copy of an
// offload pointer points at the same object).
func (m *model) writeRenamed(item table.Item) error {
	if len(m.renamed) == 0 {
		return nil
	}
	for f, to := range m.renamed {
		if v, ok := item[f.name]; ok {
			item[to] = v
		}
	}
	if size := table.ItemSize(item); size > table.MaxItemSize {
		return &table.InputError{Field: m.name, Value: m.keyOf(item).String(),
			Reason: fmt.Sprintf("item is %d bytes with its renamed attributes written twice, over DynamoDB's %d", size, table.MaxItemSize),
			Err:    table.ErrItemTooLarge}
	}
	return nil
}

// readRenamed is item as the entity reads it: each renamed attribute from
// its new name when the item has it, else from its old one; the new name
// is not left for Extra. item is not changed.
func (m *model) readRenamed(item table.Item) table.Item {
	var out table.Item
	for f, to := range m.renamed {
		v, ok := item[to]
		if !ok {
			continue
		}
		if out == nil {
			out = maps.Clone(item)
		}
		out[f.name] = v
		delete(out, to)
	}
	if out == nil {
		return item
	}
	return out
}
