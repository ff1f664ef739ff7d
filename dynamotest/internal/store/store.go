// Package store holds the fake's items: a collection of partitions, each an
// ordered tree, so that a point read or the start of a range costs O(log n)
// in the partition's size and never depends on how many other partitions
// the table holds.
//
// A Collection serves both a table and each of its global secondary indexes.
// In a table an entry's position is its sort key; in an index it is the
// index sort key followed by the table's partition and sort key, which makes
// every index entry unique even when many items share one index key. The
// position is encoded once, at write, as a byte string whose plain byte
// order is DynamoDB's order (see key.go), so the trees compare strings held
// inline in their nodes and a lookup touches one cache line per level
// rather than chasing interface values.
//
// Entries are immutable once inserted: a write replaces the entry, so a
// reader holding an entry (or an index sharing the same encoded item) never
// sees it change and may decode it after releasing its lock. The package
// does no locking; the caller serialises writes.
package store

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tidwall/btree"
)

// Item is an item as the SDK represents it.
type Item = map[string]types.AttributeValue

// Entry is one item in a collection.
type Entry struct {
	// Data is the item, encoded (see codec.go).
	Data string
	// Size is the item's size by DynamoDB's rules, computed once at write.
	Size int
	// Key is the entry's position in its partition: Key(Sort, TablePK,
	// TableSK). An entry made by NewEntry holds it just before Data, in the
	// same allocation.
	Key string
	// Sort is the table's sort key, or the index's sort key; nil when the
	// table or index has none.
	Sort types.AttributeValue
	// TablePK and TableSK are set in index entries only: the base item's key,
	// so that entries with equal index keys stay distinct and ordered.
	TablePK, TableSK types.AttributeValue

	// cell is the tree's handle on this position, passed from entry to
	// entry as the item at the position is replaced.
	cell *cell
}

// Item decodes the entry's item into a new map the caller owns.
func (e *Entry) Item() Item { return Decode(e.Data) }

// slot is a tree element: the position inline, for cheap comparisons,
// and the cell holding the entry at that position. Replacing an item (the
// common write) swaps the cell's entry without descending the tree.
type slot struct {
	key string
	c   *cell
}

type cell struct{ e *Entry }

func slotLess(a, b slot) bool { return a.key < b.key }

// Partition is the set of entries sharing one partition key value.
type Partition struct {
	// Key is the partition key value.
	Key  types.AttributeValue
	id   string
	hash uint64

	// A partition of one entry (every partition of a table without a sort
	// key, most partitions of a sparse index) keeps it here and allocates
	// no tree.
	one  *Entry
	tree *btree.BTreeG[slot]
	// byKey finds an entry by exact position in O(1) when the partition
	// holds a tree: GetItem, every write and every Scan resume are point
	// lookups, and a hash probe costs a cache miss or two where a tree
	// descent over scattered keys costs one per comparison. Its keys are
	// the entries' own Key strings, which for an entry made by NewEntry
	// sit just before its Data, and each value carries Data too: a read
	// then touches the map's slot and one line of the item, and never the
	// Entry.
	byKey map[string]ref
}

// ref is a byKey value.
type ref struct {
	data string // e.Data
	e    *Entry
}

// Collection is a table's or an index's entries grouped by partition.
type Collection struct {
	parts map[string]*Partition
	// order sorts partitions by (hash of id, id): Scan walks it, and a scan
	// segment is a contiguous range of hashes as in DynamoDB.
	order *btree.BTreeG[*Partition]
	count int
	bytes int64
}

var treeOptions = btree.Options{NoLocks: true, Degree: 32}

// New returns an empty collection.
func New() *Collection {
	return &Collection{
		parts: make(map[string]*Partition),
		order: btree.NewBTreeGOptions(partitionLess, treeOptions),
	}
}

func partitionLess(a, b *Partition) bool {
	if a.hash != b.hash {
		return a.hash < b.hash
	}
	return a.id < b.id
}

// Len is the number of entries in the collection.
func (c *Collection) Len() int { return c.count }

// Bytes is the sum of the entries' sizes.
func (c *Collection) Bytes() int64 { return c.bytes }

// Partitions is the number of partitions holding at least one entry.
func (c *Collection) Partitions() int { return len(c.parts) }

// Partition returns the partition whose key has identity id, or nil.
func (c *Collection) Partition(id string) *Partition { return c.parts[id] }

// Get returns the entry at position key in partition id, or nil.
func (c *Collection) Get(id, key string) *Entry {
	p := c.parts[id]
	if p == nil {
		return nil
	}
	return p.get(key)
}

// Lookup is Get with the identity and position as bytes: the map lookups
// convert them without copying, so a point read allocates nothing here.
func (c *Collection) Lookup(id, key []byte) *Entry { return c.find(id, key).e }

// Data is Lookup for a reader that wants only the item: its encoding, or
// "" when there is none. It reads nothing but the index's slot and the
// item's first cache line.
func (c *Collection) Data(id, key []byte) string { return c.find(id, key).data }

func (c *Collection) find(id, key []byte) ref {
	p := c.parts[string(id)]
	switch {
	case p == nil:
		return ref{}
	case p.tree != nil:
		return p.byKey[string(key)]
	case p.one != nil && p.one.Key == string(key):
		return ref{p.one.Data, p.one}
	}
	return ref{}
}

// Put inserts e into the partition with key pk (identity id), replacing the
// entry at the same position, which it returns. e.Key must be set:
// Key(e.Sort, e.TablePK, e.TableSK).
func (c *Collection) Put(pk types.AttributeValue, id string, e *Entry) (old *Entry) {
	p := c.parts[id]
	if p == nil {
		p = &Partition{Key: pk, id: id, hash: Hash(id), one: e}
		c.parts[id] = p
		c.order.Set(p)
		c.count++
		c.bytes += int64(e.Size)
		return nil
	}
	old = p.set(e)
	if old == nil {
		c.count++
	} else {
		c.bytes -= int64(old.Size)
	}
	c.bytes += int64(e.Size)
	return old
}

// Delete removes the entry at position key in partition id and returns it,
// or nil when there was none.
func (c *Collection) Delete(id, key string) *Entry {
	p := c.parts[id]
	if p == nil {
		return nil
	}
	old := p.delete(key)
	if old == nil {
		return nil
	}
	c.count--
	c.bytes -= int64(old.Size)
	if p.Len() == 0 {
		delete(c.parts, id)
		c.order.Delete(p)
	}
	return old
}

// Len is the number of entries in the partition.
func (p *Partition) Len() int {
	if p.tree != nil {
		return p.tree.Len()
	}
	if p.one != nil {
		return 1
	}
	return 0
}

// ID is the partition key's identity.
func (p *Partition) ID() string { return p.id }

// Hash is the partition's position in scan order.
func (p *Partition) Hash() uint64 { return p.hash }

func (p *Partition) get(key string) *Entry {
	if p.tree != nil {
		return p.byKey[key].e
	}
	if p.one != nil && p.one.Key == key {
		return p.one
	}
	return nil
}

func (p *Partition) set(e *Entry) (old *Entry) {
	if p.tree == nil {
		if p.one == nil {
			p.one = e
			return nil
		}
		if p.one.Key == e.Key {
			old, p.one = p.one, e
			return old
		}
		p.tree = btree.NewBTreeGOptions(slotLess, treeOptions)
		p.byKey = make(map[string]ref)
		p.insert(p.one)
		p.one = nil
	}
	if old = p.byKey[e.Key].e; old != nil {
		// Same position: swap the entry in its cell, leaving the tree as
		// it is. Assigning the key replaces the map's key string too, so
		// nothing keeps the old entry's allocation alive.
		e.cell = old.cell
		e.cell.e = e
		p.byKey[e.Key] = ref{e.Data, e}
		return old
	}
	p.insert(e)
	return nil
}

// insert adds e at a position the tree does not hold yet. The tree keeps
// its own copy of the position: e.Key may share e's allocation with the
// item, which must go when the entry is replaced, and the tree's compact
// copies keep its descents within a few cache lines.
func (p *Partition) insert(e *Entry) {
	e.cell = &cell{e: e}
	p.tree.Set(slot{key: strings.Clone(e.Key), c: e.cell})
	p.byKey[e.Key] = ref{e.Data, e}
}

func (p *Partition) delete(key string) *Entry {
	if p.tree == nil {
		if p.one != nil && p.one.Key == key {
			old := p.one
			p.one = nil
			return old
		}
		return nil
	}
	old := p.byKey[key].e
	if old == nil {
		return nil
	}
	p.tree.Delete(slot{key: key})
	delete(p.byKey, key)
	if p.tree.Len() == 1 {
		last, _ := p.tree.Min()
		p.one, p.tree, p.byKey = last.c.e, nil, nil
	}
	return old
}

// Ascend calls fn for the partition's entries in order, starting at the
// first entry whose position is at or after from ("" is before every
// entry), until fn returns false.
func (p *Partition) Ascend(from string, fn func(*Entry) bool) {
	if p.tree == nil {
		if p.one != nil && p.one.Key >= from {
			fn(p.one)
		}
		return
	}
	p.tree.Ascend(slot{key: from}, func(s slot) bool { return fn(s.c.e) })
}

// Descend calls fn for the partition's entries in reverse order, starting
// at the last entry whose position is at or before from, or at the very
// last entry when from is "", until fn returns false.
func (p *Partition) Descend(from string, fn func(*Entry) bool) {
	if p.tree == nil {
		if p.one != nil && (from == "" || p.one.Key <= from) {
			fn(p.one)
		}
		return
	}
	if from == "" {
		p.tree.Reverse(func(s slot) bool { return fn(s.c.e) })
		return
	}
	p.tree.Descend(slot{key: from}, func(s slot) bool { return fn(s.c.e) })
}

// AscendPartitions calls fn for the partitions in scan order, starting at
// the first whose (hash, id) is at or after (hash, id), until fn returns
// false.
func (c *Collection) AscendPartitions(hash uint64, id string, fn func(*Partition) bool) {
	c.order.Ascend(&Partition{hash: hash, id: id}, fn)
}

// Hash places a partition key identity in scan order: 64-bit FNV-1a with a
// final avalanche (MurmurHash3's fmix64), so that similar keys ("p1",
// "p2") spread over the whole range and over every scan segment. It is
// fixed across runs, so scans are reproducible.
func Hash(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Segment is the parallel-scan segment, of total, that hash falls in: the
// hash space cut into total equal contiguous ranges.
func Segment(hash uint64, total int) int {
	return int(((hash >> 32) * uint64(total)) >> 32)
}

// SegmentStart is the smallest hash in segment s of total.
func SegmentStart(s, total int) uint64 {
	lo := (uint64(s)<<32 + uint64(total) - 1) / uint64(total)
	return lo << 32
}
