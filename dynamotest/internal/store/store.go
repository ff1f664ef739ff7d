// Package store holds the fake's items: a collection of partitions, each an
// ordered tree, so that a point read or the start of a range costs O(log n)
// in the partition's size and never depends on how many other partitions
// the table holds.
//
// A Collection serves both a table and each of its global secondary indexes.
// In a table an entry's position is its sort key; in an index it is the
// index sort key followed by the table's partition and sort key, which makes
// every index entry unique even when many items share one index key.
//
// Entries are immutable once inserted: a write replaces the entry, so a
// reader holding an entry (or an index holding the same item map) never sees
// it change. The package does no locking; the caller serialises writes.
package store

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tidwall/btree"
)

// Item is a stored item. Its map and values are never modified after the
// entry holding it is inserted.
type Item = map[string]types.AttributeValue

// Compare orders two key values of one type: numbers numerically, strings
// and binaries by bytes. The collection's owner supplies it.
type Compare func(a, b types.AttributeValue) int

// Entry is one item in a collection.
type Entry struct {
	Item Item
	// Size is the item's size by DynamoDB's rules, computed once at write.
	Size int
	// Sort is the table's sort key, or the index's sort key; nil when the
	// table or index has none.
	Sort types.AttributeValue
	// TablePK and TableSK are set in index entries only: the base item's key,
	// so that entries with equal index keys stay distinct and ordered.
	TablePK, TableSK types.AttributeValue
	// Bias, in probes only, places the probe just before (-1) or just after
	// (+1) every entry whose Sort equals the probe's, so a range can start
	// or stop exactly at a sort key value even in an index, where many
	// entries share it.
	Bias int8
}

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
	tree *btree.BTreeG[*Entry]
	c    *Collection
}

// Collection is a table's or an index's entries grouped by partition.
type Collection struct {
	parts map[string]*Partition
	// order sorts partitions by (hash of id, id): Scan walks it, and a scan
	// segment is a contiguous range of hashes as in DynamoDB.
	order *btree.BTreeG[*Partition]
	cmp   Compare
	less  func(a, b *Entry) bool
	count int
	bytes int64
}

// New returns an empty collection ordering key values with cmp.
func New(cmp Compare) *Collection {
	c := &Collection{parts: make(map[string]*Partition), cmp: cmp}
	c.less = func(a, b *Entry) bool { return c.compareEntries(a, b) < 0 }
	c.order = btree.NewBTreeGOptions(partitionLess, btree.Options{NoLocks: true, Degree: 32})
	return c
}

func partitionLess(a, b *Partition) bool {
	if a.hash != b.hash {
		return a.hash < b.hash
	}
	return a.id < b.id
}

func (c *Collection) compareValues(a, b types.AttributeValue) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return c.cmp(a, b)
}

func (c *Collection) compareEntries(a, b *Entry) int {
	if r := c.compareValues(a.Sort, b.Sort); r != 0 {
		return r
	}
	if a.Bias != b.Bias {
		if a.Bias < b.Bias {
			return -1
		}
		return 1
	}
	if a.TablePK == nil && b.TablePK == nil {
		return 0
	}
	if r := c.compareValues(a.TablePK, b.TablePK); r != 0 {
		return r
	}
	return c.compareValues(a.TableSK, b.TableSK)
}

// Len is the number of entries in the collection.
func (c *Collection) Len() int { return c.count }

// Bytes is the sum of the entries' sizes.
func (c *Collection) Bytes() int64 { return c.bytes }

// Partitions is the number of partitions holding at least one entry.
func (c *Collection) Partitions() int { return len(c.parts) }

// Partition returns the partition whose key has identity id, or nil.
func (c *Collection) Partition(id string) *Partition { return c.parts[id] }

// Get returns the entry at probe's position in partition id, or nil.
func (c *Collection) Get(id string, probe *Entry) *Entry {
	p := c.parts[id]
	if p == nil {
		return nil
	}
	return p.get(probe)
}

// Put inserts e into the partition with key pk (identity id), replacing the
// entry at the same position, which it returns.
func (c *Collection) Put(pk types.AttributeValue, id string, e *Entry) (old *Entry) {
	p := c.parts[id]
	if p == nil {
		p = &Partition{Key: pk, id: id, hash: Hash(id), one: e, c: c}
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

// Delete removes the entry at probe's position in partition id and returns
// it, or nil when there was none.
func (c *Collection) Delete(id string, probe *Entry) *Entry {
	p := c.parts[id]
	if p == nil {
		return nil
	}
	old := p.delete(probe)
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

func (p *Partition) get(probe *Entry) *Entry {
	if p.tree != nil {
		e, _ := p.tree.Get(probe)
		return e
	}
	if p.one != nil && p.c.compareEntries(p.one, probe) == 0 {
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
		if p.c.compareEntries(p.one, e) == 0 {
			old, p.one = p.one, e
			return old
		}
		p.tree = btree.NewBTreeGOptions(p.c.less, btree.Options{NoLocks: true, Degree: 32})
		p.tree.Set(p.one)
		p.one = nil
	}
	old, _ = p.tree.Set(e)
	return old
}

func (p *Partition) delete(probe *Entry) *Entry {
	if p.tree == nil {
		if p.one != nil && p.c.compareEntries(p.one, probe) == 0 {
			old := p.one
			p.one = nil
			return old
		}
		return nil
	}
	old, _ := p.tree.Delete(probe)
	if p.tree.Len() == 1 {
		p.one, _ = p.tree.Min()
		p.tree = nil
	}
	return old
}

// Ascend calls fn for the partition's entries in order, starting at the
// first entry at or after from (every entry when from is nil), until fn
// returns false.
func (p *Partition) Ascend(from *Entry, fn func(*Entry) bool) {
	if p.tree == nil {
		if p.one != nil && (from == nil || p.c.compareEntries(p.one, from) >= 0) {
			fn(p.one)
		}
		return
	}
	if from == nil {
		p.tree.Scan(fn)
		return
	}
	p.tree.Ascend(from, fn)
}

// Descend calls fn for the partition's entries in reverse order, starting
// at the last entry at or before from (every entry when from is nil), until
// fn returns false.
func (p *Partition) Descend(from *Entry, fn func(*Entry) bool) {
	if p.tree == nil {
		if p.one != nil && (from == nil || p.c.compareEntries(p.one, from) <= 0) {
			fn(p.one)
		}
		return
	}
	if from == nil {
		p.tree.Reverse(fn)
		return
	}
	p.tree.Descend(from, fn)
}

// Compare orders two entries of this collection.
func (c *Collection) Compare(a, b *Entry) int { return c.compareEntries(a, b) }

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
