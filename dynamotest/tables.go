package dynamotest

import (
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tidwall/btree"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

// keyAttr is one key attribute of a table or index.
type keyAttr struct {
	name string
	typ  types.ScalarAttributeType
}

// dbTable is one table: its description, its items and its indexes. mu
// guards everything below it; a write operation holds it exclusively for
// its whole read-check-write, which is what makes each operation atomic.
type dbTable struct {
	name    string
	arn     string
	id      string
	created time.Time
	billing types.BillingMode
	// billingChanged is when UpdateTable last changed the billing mode.
	billingChanged time.Time
	// throughput is kept only to describe the table; the fake does not
	// throttle by it (inject a Throttle fault instead).
	throughput *types.ProvisionedThroughput
	attrDefs   []types.AttributeDefinition
	keySchema  []types.KeySchemaElement
	pk, sk     keyAttr // sk.name == "" when the table has no sort key

	// mu is a read-write lock whose write unlock, in a persistent DB,
	// first logs what the holder changed and then waits until it is
	// durable (see effects.go).
	mu      tableMutex
	deleted bool
	items   *store.Collection
	indexes []*dbIndex // in creation order

	// collections is, for a table with local secondary indexes, the size of
	// each item collection (a partition's items and their local index
	// entries) by partition; nil otherwise.
	collections     map[string]int64
	collectionLimit int64

	// tags are the table's tags (TagResource), by key.
	tags map[string]string

	ttlAttr    string
	ttlEnabled bool
	// expiries orders items by their TTL so that a clock move deletes the
	// expired ones in O(expired · log n), not by scanning the table.
	expiries *btree.BTreeG[expiry]

	stream *stream // the enabled stream, or nil (see stream.go)
	// lastStream is the stream UpdateTable disabled last, which
	// DescribeTable still names until another is enabled.
	lastStream *stream

	// lagged is the view eventually consistent reads see in the eventual
	// mode (EventualConsistency), nil otherwise: every write is queued for
	// it (see eventual.go).
	lagged *lagged

	// Settings the fake stores and describes but does not act on (see
	// backups.go): server-side encryption with a KMS key (kmsKeyARN ""
	// means the AWS owned key), deletion protection (DeleteTable refuses a
	// protected table), point-in-time recovery, and the table class (""
	// when CreateTable named none: described without a TableClassSummary,
	// which means STANDARD; the fake prices no class).
	kmsKeyARN          string
	deletionProtection bool
	pitr               bool
	tableClass         types.TableClass
}

// dbIndex is a secondary index, global or local. Its entries share the
// base item's encoding when it projects ALL attributes; otherwise each
// entry holds the projected map, built at write. A local index has the
// table's partition key and serves consistent reads; a Query of it may ask
// for attributes it does not project, which are fetched from the table.
type dbIndex struct {
	name       string
	local      bool
	arn        string
	pk, sk     keyAttr
	keySchema  []types.KeySchemaElement
	projection types.Projection
	// keep lists the attributes a KEYS_ONLY or INCLUDE index stores; nil for
	// ALL.
	keep       map[string]bool
	throughput *types.ProvisionedThroughput
	items      *store.Collection
	// creating is set while an index UpdateTable added is CREATING: it is
	// backfilled already, but serves no reads until a DescribeTable has
	// reported it CREATING once or the fake's clock moves.
	creating atomic.Bool
}

// expiry is one item's place in the TTL order.
type expiry struct {
	at  int64  // epoch seconds
	id  string // partition
	key string // position in the partition
}

// compareKeys orders key values for the trees: numbers numerically, strings
// and binaries by bytes. Values of different types cannot meet in one tree
// (key types are checked on every write), but the order stays total anyway.
func compareKeys(a, b types.AttributeValue) int {
	if c, ok := attr.Compare(a, b); ok {
		return c
	}
	ta, tb := attr.TypeOf(a), attr.TypeOf(b)
	switch {
	case ta < tb:
		return -1
	case ta > tb:
		return 1
	}
	return 0
}

func newExpiries() *btree.BTreeG[expiry] {
	return btree.NewBTreeGOptions(func(a, b expiry) bool {
		if a.at != b.at {
			return a.at < b.at
		}
		if a.id != b.id {
			return a.id < b.id
		}
		return a.key < b.key
	}, btree.Options{NoLocks: true})
}

// keyOf locates an item (or a key) in the table: its partition key, the
// partition's identity and the position in the partition.
func (t *dbTable) keyOf(item map[string]types.AttributeValue) (pk types.AttributeValue, id, key string) {
	pk = item[t.pk.name]
	if t.sk.name != "" {
		key = store.Key(item[t.sk.name], nil, nil)
	}
	return pk, attr.KeyString(pk), key
}

// lookup returns the stored entry with the given key attributes, or nil.
func (t *dbTable) lookup(key map[string]types.AttributeValue) *store.Entry {
	var idBuf, posBuf [128]byte
	id, pos := t.locate(idBuf[:0], posBuf[:0], key[t.pk.name], key[t.sk.name])
	return t.items.Lookup(id, pos)
}

// locate appends the partition identity of pk and the position of sk (nil
// when the table has no sort key) to the buffers: where a point read looks.
func (t *dbTable) locate(idBuf, posBuf []byte, pk, sk types.AttributeValue) (id, pos []byte) {
	if t.sk.name != "" {
		pos = store.AppendKey(posBuf, sk, nil, nil)
	}
	return attr.AppendKeyBytes(idBuf, pk), pos
}

// isKeyAttr reports whether name is one of the table's key attributes.
func (t *dbTable) isKeyAttr(name string) bool {
	return name == t.pk.name || (t.sk.name != "" && name == t.sk.name)
}

// isIndexKeyAttr reports whether name is a key attribute of one of the
// table's secondary indexes and not of the table.
func (t *dbTable) isIndexKeyAttr(name string) bool {
	if t.isKeyAttr(name) {
		return false
	}
	for _, ix := range t.indexes {
		if name == ix.pk.name || (ix.sk.name != "" && name == ix.sk.name) {
			return true
		}
	}
	return false
}

func (t *dbTable) index(name string) *dbIndex {
	for _, ix := range t.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// indexEntry returns item's entry in ix, or nil when the item lacks one of
// the index's key attributes or holds it with another type (the index is
// sparse: such items are simply absent). data is the item's encoding; an
// index projecting ALL shares it. encode false leaves a projected entry's
// Data empty, for an entry that is only looked up or deleted.
func (t *dbTable) indexEntry(ix *dbIndex, item map[string]types.AttributeValue, data string, size int, encode bool) (pkID string, e *store.Entry) {
	ipk, ok := item[ix.pk.name]
	if !ok || !hasType(ipk, ix.pk.typ) {
		return "", nil
	}
	var isk types.AttributeValue
	if ix.sk.name != "" {
		v, ok := item[ix.sk.name]
		if !ok || !hasType(v, ix.sk.typ) {
			return "", nil
		}
		isk = v
	}
	e = &store.Entry{}
	e.Key = store.Key(isk, item[t.pk.name], item[t.sk.name])
	if encode {
		// The entry's key values are decoded from the item's encoding, so
		// they hold on to nothing else.
		e.Sort, e.TablePK, e.TableSK = store.Attr(data, ix.sk.name), store.Attr(data, t.pk.name), store.Attr(data, t.sk.name)
	}
	if ix.keep == nil {
		e.Data, e.Size = data, size
	} else {
		p := make(map[string]types.AttributeValue, len(ix.keep))
		for name := range ix.keep {
			if v, ok := item[name]; ok {
				p[name] = v
			}
		}
		e.Size = table.ItemSize(p)
		if encode {
			e.Data = store.Encode(p, e.Size)
		}
	}
	return attr.KeyString(ipk), e
}

// needsOld reports whether a write must decode the item it replaces to keep
// indexes and the TTL order in step.
func (t *dbTable) needsOld() bool { return len(t.indexes) > 0 || t.expiries != nil }

func hasType(v types.AttributeValue, typ types.ScalarAttributeType) bool {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return typ == types.ScalarAttributeTypeS
	case *types.AttributeValueMemberN:
		return typ == types.ScalarAttributeTypeN
	case *types.AttributeValueMemberB:
		return typ == types.ScalarAttributeTypeB
	}
	return false
}

// ttlOf returns the item's expiry in epoch seconds, if it has one DynamoDB
// honours: a number attribute (a string or any other type is ignored).
func (t *dbTable) ttlOf(item map[string]types.AttributeValue) (int64, bool) {
	if !t.ttlEnabled || t.ttlAttr == "" {
		return 0, false
	}
	n, ok := item[t.ttlAttr].(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	f, ok := attr.NumberFloat(n.Value)
	if !ok || f < 0 || f > 1<<62 {
		return 0, false
	}
	return int64(f), true
}

// put stores item (already validated and normalised) and keeps every
// index and the TTL order in step. oldItem, when the caller has decoded it
// already, is the item being replaced. It returns the entry it replaced, or
// nil, and adds index write costs to u.
func (t *dbTable) put(item map[string]types.AttributeValue, size int, oldItem map[string]types.AttributeValue, u *usage) (old *store.Entry) {
	_, id, key := t.keyOf(item)
	return t.putEntry(id, store.NewEntry(key, item, size), item, oldItem, u)
}

// putEntry is put for an item already encoded as the entry e, at its
// position in partition id. item is the item decoded, or nil when the
// caller has not decoded it (a persistent DB loading its data): it is then
// decoded only if indexes or the TTL order need it.
func (t *dbTable) putEntry(id string, e *store.Entry, item, oldItem map[string]types.AttributeValue, u *usage) (old *store.Entry) {
	data, key, size := e.Data, e.Key, e.Size
	e.Sort = store.Attr(data, t.sk.name)
	var pk types.AttributeValue
	if t.items.Partition(id) == nil {
		// A new partition keeps its key value: take it from the encoding
		// rather than the caller's map.
		pk = store.Attr(data, t.pk.name)
	}
	old = t.items.Put(pk, id, e)
	if l := t.mu.log; l != nil {
		l.put(data)
	}
	if t.lagged != nil {
		t.lagged.record(id, key, e)
	}
	if !t.needsOld() {
		return old
	}
	if item == nil {
		item = e.Item()
	}
	var oldSize int
	if old != nil {
		oldSize = old.Size
		if oldItem == nil {
			oldItem = old.Item()
		}
	} else {
		oldItem = nil
	}
	t.reindex(id, key, oldItem, oldSize, item, data, size, u)
	return old
}

// remove deletes the item with item's key, keeping indexes and the TTL order
// in step, and returns the removed entry or nil.
func (t *dbTable) remove(key map[string]types.AttributeValue, u *usage) *store.Entry {
	_, id, pos := t.keyOf(key)
	old := t.items.Delete(id, pos)
	if l := t.mu.log; l != nil && old != nil {
		l.remove(t, key)
	}
	if old != nil && t.lagged != nil {
		t.lagged.record(id, pos, nil)
	}
	if old == nil || !t.needsOld() {
		return old
	}
	t.reindex(id, pos, old.Item(), old.Size, nil, "", 0, u)
	return old
}

// reindex moves an item from its old to its new state in every index and
// in the TTL order. Index writes cost by DynamoDB's rules: one write when
// the item enters or leaves the index or a projected attribute changes, two
// when the index key changes (a delete and a put), none when the index
// does not see the change.
func (t *dbTable) reindex(id, pos string, oldItem map[string]types.AttributeValue, oldSize int,
	newItem map[string]types.AttributeValue, newData string, newSize int, u *usage) {
	if t.collections != nil {
		size := t.collections[id] + t.collectionBytes(newItem, newSize) - t.collectionBytes(oldItem, oldSize)
		if size == 0 {
			delete(t.collections, id)
		} else {
			t.collections[id] = size
		}
	}
	for _, ix := range t.indexes {
		var oldID, newID string
		var oldE, newE *store.Entry
		if oldItem != nil {
			oldID, oldE = t.indexEntry(ix, oldItem, "", oldSize, false)
		}
		if newItem != nil {
			newID, newE = t.indexEntry(ix, newItem, newData, newSize, true)
		}
		switch {
		case oldE == nil && newE == nil:
			continue
		case oldE != nil && newE != nil && oldID == newID && oldE.Key == newE.Key:
			// Same index key: the entry is replaced either way (it must
			// point at the new item), but DynamoDB charges an index write
			// only when an attribute the index stores changed.
			ix.items.Put(store.Attr(newData, ix.pk.name), newID, newE)
			if u != nil && !sameProjection(ix, oldItem, newItem) {
				u.indexOf(ix).WriteUnits += writeUnits(newE.Size)
			}
			continue
		}
		if oldE != nil {
			ix.items.Delete(oldID, oldE.Key)
			if u != nil {
				u.indexOf(ix).WriteUnits += writeUnits(oldE.Size)
			}
		}
		if newE != nil {
			ix.items.Put(store.Attr(newData, ix.pk.name), newID, newE)
			if u != nil {
				u.indexOf(ix).WriteUnits += writeUnits(newE.Size)
			}
		}
	}
	if t.expiries == nil {
		return
	}
	if oldItem != nil {
		if at, ok := t.ttlOf(oldItem); ok {
			t.expiries.Delete(expiry{at: at, id: id, key: pos})
		}
	}
	if newItem != nil {
		if at, ok := t.ttlOf(newItem); ok {
			t.expiries.Set(expiry{at: at, id: id, key: pos})
		}
	}
}

// sameProjection reports whether the attributes ix stores are equal in
// both versions of an item.
func sameProjection(ix *dbIndex, a, b map[string]types.AttributeValue) bool {
	if ix.keep == nil {
		return equalItems(a, b)
	}
	for name := range ix.keep {
		av, aok := a[name]
		bv, bok := b[name]
		if aok != bok || (aok && !attr.Equal(av, bv)) {
			return false
		}
	}
	return true
}

// equalItems reports whether two items hold the same attributes and values.
func equalItems(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for name, av := range a {
		bv, ok := b[name]
		if !ok || !attr.Equal(av, bv) {
			return false
		}
	}
	return true
}

// rebuildExpiries recomputes the TTL order after TTL is enabled or its
// attribute changes.
func (t *dbTable) rebuildExpiries() {
	if !t.ttlEnabled {
		t.expiries = nil
		return
	}
	t.expiries = newExpiries()
	t.items.AscendPartitions(0, "", func(p *store.Partition) bool {
		p.Ascend("", func(e *store.Entry) bool {
			if at, ok := t.ttlOf(e.Item()); ok {
				t.expiries.Set(expiry{at: at, id: p.ID(), key: e.Key})
			}
			return true
		})
		return true
	})
}

// sweepExpired deletes, in every table with TTL enabled, the items whose
// expiry is before the fake's current time (an item at exactly its TTL
// is still stored: DynamoDB deletes some time after expiry, and reads
// that must not see it filter it, TTL <= now, as table.Expired does). As in DynamoDB, items
// that expired more than five years ago are left alone: DynamoDB treats
// such values as not being TTL timestamps.
func (db *DB) sweepExpired() {
	now := db.now().Unix()
	oldest := now - 5*365*24*3600
	for _, name := range db.tableNames() {
		t := db.table(name)
		if t == nil {
			continue
		}
		t.mu.Lock()
		if !t.deleted && t.expiries != nil {
			var due []expiry
			t.expiries.Scan(func(x expiry) bool {
				if x.at >= now { // DynamoDB expires an item once its TTL is less than the current time
					return false
				}
				due = append(due, x)
				return true
			})
			for _, x := range due {
				if x.at < oldest {
					continue
				}
				old := t.items.Get(x.id, x.key)
				if old != nil {
					item := old.Item()
					t.remove(item, nil)
					t.recordChange(old, item, true) // DynamoDB's own deletion
				}
			}
		}
		t.mu.Unlock()
	}
}
