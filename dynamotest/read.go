package dynamotest

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/dynamotest/internal/wire"
)

// maxPageBytes is DynamoDB's limit on the data one Query or Scan reads
// before it stops and returns a LastEvaluatedKey.
const maxPageBytes = 1024 * 1024

// page collects the entries one Query or Scan evaluates. It runs under the
// table's read lock and does nothing but collect: filtering and copying
// happen after the lock is released (stored items are immutable).
type page struct {
	limit   int // 0: no Limit
	entries []*store.Entry
	bytes   int
	full    bool // stopped by Limit or the 1 MB limit
}

// newPage starts a page for a read with the given Limit (0: none).
func newPage(limit int) *page {
	p := &page{limit: limit}
	if limit > 0 {
		// A Limit is usually a page size; beyond a few hundred the entries
		// grow as they come.
		p.entries = make([]*store.Entry, 0, min(limit, 256))
	}
	return p
}

// add takes one more entry and reports whether the page can take another.
func (p *page) add(e *store.Entry) bool {
	p.entries = append(p.entries, e)
	p.bytes += e.Size
	if (p.limit > 0 && len(p.entries) >= p.limit) || p.bytes >= maxPageBytes {
		p.full = true
		return false
	}
	return true
}

// selection is a read's Select with its projection.
type selection struct {
	count bool
	all   bool // Select ALL_ATTRIBUTES
	proj  *readProj
}

// selection is what a Query or Scan returns of each item: only the count,
// the legacy AttributesToGet, a projection parsed within x (whose
// placeholders the request's other expressions share), or whole items.
func (x *exprs) selection(sel types.Select, expression *string, attributesToGet []string) (selection, error) {
	out := selection{count: sel == types.SelectCount, all: sel == types.SelectAllAttributes}
	switch {
	case attributesToGet != nil:
		out.proj = &readProj{attrs: attributesToGet}
	case expression != nil:
		p, err := x.projection(expression)
		if err != nil {
			return selection{}, err
		}
		out.proj = &readProj{p: p}
	}
	return out, nil
}

// checkSelect applies DynamoDB's rules on Select, ProjectionExpression and
// AttributesToGet.
func checkSelect(sel types.Select, ix *dbIndex, hasProjection bool, hasAttributesToGet bool) error {
	what := "ProjectionExpression"
	if hasAttributesToGet {
		what = "AttributesToGet"
	}
	proj := hasProjection || hasAttributesToGet
	switch sel {
	case "":
	case types.SelectAllAttributes:
		if proj {
			return validationf("Cannot specify the %s when choosing to get ALL_ATTRIBUTES", what)
		}
		if ix != nil && ix.keep != nil && !ix.local {
			return invalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", ix.name)
		}
	case types.SelectAllProjectedAttributes:
		if proj {
			return validationf("Cannot specify the %s when choosing to get ALL_PROJECTED_ATTRIBUTES", what)
		}
		if ix == nil {
			return validationf("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	case types.SelectCount:
		if proj {
			return validationf("Cannot specify the %s when choosing to get only the Count", what)
		}
	case types.SelectSpecificAttributes:
		if !proj {
			return validationf("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	default:
		return constraint(string(sel), "select", "Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]")
	}
	return nil
}

// checkProjected decides how a read of a KEYS_ONLY or INCLUDE index gets
// attributes the index does not store: a local index fetches them from the
// table (fetch true: Select ALL_ATTRIBUTES, or a projection naming them),
// a global one refuses. A filter may name only attributes the index
// stores, for both kinds, in a Scan as in a Query: DynamoDB Local refuses
// such a filter in a Query but evaluates it on the table's item in a Scan
// of a global index, which DynamoDB cannot do (a global index is a table of
// its own holding only the projected attributes, and the API reference
// lets a read of it request only those); the fake refuses both.
func checkProjected(ix *dbIndex, sel selection, filter *condition) (fetch bool, err error) {
	if ix == nil || ix.keep == nil {
		return false, nil
	}
	if filter != nil {
		if missing := notProjected(ix, filter.c.TopLevelNames()); len(missing) > 0 {
			return false, invalidParam("Secondary index %s does not project one or more filter attributes: [%s]", ix.name, strings.Join(missing, ", "))
		}
	}
	if sel.all {
		return ix.local, nil
	}
	if sel.proj == nil {
		return false, nil
	}
	requested := sel.proj.attrs
	if sel.proj.p != nil {
		requested = sel.proj.p.names()
	}
	missing := notProjected(ix, requested)
	switch {
	case len(missing) == 0:
		return false, nil
	case ix.local:
		return true, nil
	}
	return false, invalidParam("Global secondary index %s does not project [%s]", ix.name, strings.Join(missing, ", "))
}

// notProjected lists the names the index does not store.
func notProjected(ix *dbIndex, names []string) []string {
	var missing []string
	for _, n := range names {
		if !ix.keep[n] {
			missing = append(missing, n)
		}
	}
	return missing
}

// startKey is a validated ExclusiveStartKey: its partition, the position
// of the entry it names there, and the sort key value (the index's, when
// reading an index) for the range check.
type startKey struct {
	pk   types.AttributeValue
	id   string
	pos  string
	sort types.AttributeValue
}

var errStartKey = validationf("The provided starting key is invalid: The provided key element does not match the schema")

// checkStartKey validates an ExclusiveStartKey: the table's key attributes,
// plus the index's when reading an index, of their declared types.
func (t *dbTable) checkStartKey(esk map[string]types.AttributeValue, ix *dbIndex) (*startKey, error) {
	if esk == nil {
		return nil, nil
	}
	want := []keyAttr{t.pk}
	if t.sk.name != "" {
		want = append(want, t.sk)
	}
	if ix != nil {
		for _, k := range []keyAttr{ix.pk, ix.sk} {
			if k.name != "" && !t.isKeyAttr(k.name) {
				want = append(want, k)
			}
		}
	}
	if len(esk) != len(want) {
		return nil, validationf("The provided starting key is invalid")
	}
	for _, k := range want {
		v, ok := esk[k.name]
		if !ok {
			return nil, validationf("The provided starting key is invalid")
		}
		if !hasType(v, k.typ) {
			return nil, errStartKey
		}
		if err := checkKeyValue(k.name, v, k.typ, k == t.sk); err != nil {
			return nil, validationf("The provided starting key is invalid: %s", errorMessage(err))
		}
	}
	own := ownKey(esk)
	s := &startKey{}
	if ix == nil {
		s.pk, s.id, s.pos = t.keyOf(own)
		if t.sk.name != "" {
			s.sort = own[t.sk.name]
		}
		return s, nil
	}
	s.pk = own[ix.pk.name]
	s.id = keyString(s.pk)
	var tsk types.AttributeValue
	if t.sk.name != "" {
		tsk = own[t.sk.name]
	}
	if ix.sk.name != "" {
		s.sort = own[ix.sk.name]
	}
	s.pos = store.Key(s.sort, own[t.pk.name], tsk)
	return s, nil
}

// lastKey is the LastEvaluatedKey for an entry: the table's key attributes,
// and the index's when reading an index.
func (t *dbTable) lastKey(e *store.Entry, ix *dbIndex) map[string]types.AttributeValue {
	// Only the key attributes are decoded: Attr builds each value afresh,
	// so the caller owns them.
	names := [4]string{t.pk.name, t.sk.name}
	if ix != nil {
		names[2], names[3] = ix.pk.name, ix.sk.name
	}
	k := make(map[string]types.AttributeValue, 4)
	for _, name := range names {
		if name != "" {
			k[name] = store.Attr(e.Data, name)
		}
	}
	return k
}

// openRead begins a Query or Scan: it counts the call (and applies any
// fault), then finds the table, nil when there is none.
func (db *DB) openRead(ctx context.Context, o op, name string) (*dbTable, error) {
	if _, err := db.stats.begin(ctx, o, name); err != nil {
		return nil, err
	}
	return db.table(name), nil
}

// readIndex returns the index a Query or Scan names, nil for the table.
// Global secondary indexes serve no consistent reads; local ones do.
func (t *dbTable) readIndex(name *string, consistent bool) (*dbIndex, error) {
	if name == nil {
		return nil, nil
	}
	ix := t.index(*name)
	if ix == nil {
		return nil, validationf("The table does not have the specified index: %s", *name)
	}
	if consistent && !ix.local {
		return nil, validationf("Consistent reads are not supported on global secondary indexes")
	}
	if ix.creating.Load() {
		return nil, validationf("Cannot read from backfilling global secondary index: %s", ix.name)
	}
	return ix, nil
}

// pageRead is the part of a Query or Scan that reads: fill collects the
// page's entries from the table's or the index's collection under the
// table's read lock; filtering, projection and the capacity follow outside
// it.
type pageRead struct {
	t          *dbTable
	ix         *dbIndex
	limit      int
	consistent bool
	filter     *condition
	sel        selection
	mode       types.ReturnConsumedCapacity
	fill       func(col *store.Collection, p *page)
	// fetch: the page's entries are replaced by the table's items, for a
	// local index's Query of attributes it does not project.
	fetch bool
}

// fetch replaces index entries by the table items they point at and
// returns each item's size. The caller holds the table's read lock.
func (t *dbTable) fetch(entries []*store.Entry) []int {
	sizes := make([]int, len(entries))
	var idBuf, posBuf [128]byte
	for i, e := range entries {
		id, pos := t.locate(idBuf[:0], posBuf[:0], e.TablePK, e.TableSK)
		if base := t.items.Lookup(id, pos); base != nil {
			entries[i] = base
			sizes[i] = base.Size
		}
	}
	return sizes
}

// pageResult is what a Query or Scan output reports of its page.
type pageResult struct {
	items          []readItem
	count, scanned int32
	lastKey        map[string]types.AttributeValue
	consumed       *types.ConsumedCapacity
}

func (db *DB) readPage(ctx context.Context, r pageRead) (pageResult, error) {
	p := newPage(r.limit)
	src := r.t.source(r.consistent)
	r.t.mu.RLock()
	if r.t.deleted {
		r.t.mu.RUnlock()
		return pageResult{}, resourceNotFound()
	}
	col := r.t.collection(src, r.ix)
	if col == nil {
		r.t.mu.RUnlock()
		return pageResult{}, validationf("The table does not have the specified index: %s", r.ix.name)
	}
	r.fill(col, p)
	var fetched []int
	if r.fetch {
		fetched = src.fetch(p.entries)
	}
	r.t.mu.RUnlock()

	items, count, err := finish(p, r.filter, r.sel)
	if err != nil {
		return pageResult{}, err
	}
	res := pageResult{items: items, count: int32(count), scanned: int32(len(p.entries))}
	if p.full {
		res.lastKey = r.t.lastKey(p.entries[len(p.entries)-1], r.ix)
	}
	u := &usage{table: r.t.name}
	units := readUnits(p.bytes, r.consistent)
	if r.ix != nil {
		u.indexOf(r.ix).ReadUnits = units
		// A local index's Query reads each item it fetches from the table
		// as a read of its own.
		for _, size := range fetched {
			u.read += readUnits(size, r.consistent)
		}
	} else {
		u.read = units
	}
	db.record(ctx, u)
	res.consumed = u.consumedCapacity(r.mode)
	return res, nil
}

// finish filters and projects a page's entries outside the lock and fills
// in the counts: ScannedCount counts every entry read, Count those the
// filter kept. items is nil when only the count was asked for.
func finish(p *page, filter *condition, sel selection) (items []readItem, count int, err error) {
	if !sel.count {
		items = make([]readItem, 0, len(p.entries))
	}
	for _, e := range p.entries {
		r := readItem{data: e.Data}
		if filter != nil {
			r.attrs = e.Item()
			ok, err := filter.eval(r.attrs)
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				continue
			}
		}
		count++
		if sel.count {
			continue
		}
		if sel.proj != nil {
			r = readItem{attrs: sel.proj.project(r.item())}
		}
		items = append(items, r)
	}
	return items, count, nil
}

// readItem is one item a read returns. A whole item stays in its stored
// encoding until the caller wants it: the Go API decodes it into a map, the
// HTTP handler writes its JSON straight from the encoding. attrs holds the
// item when it is a projection (data is then empty) or when a filter had to
// decode it already.
type readItem struct {
	data  string
	attrs map[string]types.AttributeValue
}

// found reports whether r holds an item: the zero readItem stands for none.
func (r readItem) found() bool { return r.data != "" || r.attrs != nil }

// item returns the item as a map the caller owns.
func (r readItem) item() map[string]types.AttributeValue {
	if r.attrs != nil {
		return r.attrs
	}
	return store.Decode(r.data)
}

// appendJSON appends the item's JSON to b.
func (r readItem) appendJSON(b []byte) []byte {
	if r.data != "" {
		return store.AppendJSON(b, r.data)
	}
	return wire.AppendItem(b, r.attrs)
}

// readItems returns the items as the Go API does: nil for a count,
// otherwise one map per item.
func readItems(items []readItem) []map[string]types.AttributeValue {
	if items == nil {
		return nil
	}
	out := make([]map[string]types.AttributeValue, len(items))
	for i, r := range items {
		out[i] = r.item()
	}
	return out
}
