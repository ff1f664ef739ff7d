package entity

import (
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// usage counts an operation's calls and samples the sizes of the items it
// moved (the first call and every 64th), from which Registry.Patterns
// describes it without costing a size computation per call.
type usage struct {
	calls   atomic.Int64
	maxSize atomic.Int64
	items   atomic.Int64 // most items in one call (reads, batches)
	sorts   atomic.Uint32
}

// sent is the one rule of which calls are access patterns: a call counts
// once it was sent to DynamoDB, whatever DynamoDB answered. A Get of a
// missing item, a write refused by its condition or by a version, a
// canceled transaction are calls the code makes, which a least-privilege
// policy derived from Patterns (package iam) must allow; a call refused
// before any request (bad input, a rule, a nil context: a
// *table.InputError from entity or table) sent nothing and is none. err
// is the request's own error, before entity maps it (a canceled
// transaction's TxError may carry a rule's InputError, sent all the same).
func sent(err error) bool {
	if err == nil {
		return true // the common case, without errors.As's heap-allocated target
	}
	var ie *table.InputError
	return !errors.As(err, &ie)
}

// counts counts a call whose request's error was err, when it was sent,
// and reports whether to sample its sizes (the first call and every 64th).
func (u *usage) counts(err error) bool {
	if !sent(err) {
		return false
	}
	n := u.calls.Add(1)
	return n == 1 || n&63 == 0
}

// sample records an item size and a count of items.
func (u *usage) sample(size, items int) {
	storeMax(&u.maxSize, int64(size))
	storeMax(&u.items, int64(items))
}

func storeMax(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// call counts a call that moved known sizes (sent: see sent).
func (u *usage) call(err error, size, items int) {
	if u.counts(err) {
		u.sample(size, items)
	}
}

// callItem counts a call that read item (none when it found nothing),
// sizing it when sampled.
func (u *usage) callItem(err error, item table.Item) {
	if u.counts(err) {
		u.sample(table.ItemSize(item), 1)
	}
}

// patternLog is a registry's record of the transactions it ran, by the
// actions they held (which entities, which writes).
type patternLog struct {
	mu  sync.Mutex
	txs map[string]*txUse
}

type txUse struct {
	op    access.Op // TransactWriteItems or TransactGetItems
	calls int64
	items []access.Item
}

// recordTx counts a transaction of actions whose request's error was err,
// when it was sent (canceled or not: see sent).
func (l *patternLog) recordTx(err error, actions []Action) {
	if !sent(err) {
		return
	}
	parts := make([]string, len(actions))
	for i, a := range actions {
		a.m.ops[opTx].use.calls.Add(1)
		parts[i] = a.entity + " " + string(a.op)
	}
	l.add(access.TransactWriteItems, parts, func() []access.Item {
		items := make([]access.Item, len(actions))
		for i, a := range actions {
			items[i] = access.Item{Operation: a.op, Size: a.m.typicalSize(), Partition: a.m.pk.accessPattern()}
			if a.op != access.ConditionCheck {
				items[i].IndexWrites = a.m.indexWrites()
			}
		}
		return items
	})
}

// recordTxGet counts a read transaction of reads whose request's error
// was err, when it was sent (see sent), sampling the sizes of the items it
// read.
func (l *patternLog) recordTxGet(err error, reads []*txRead, items []table.Item) {
	if !sent(err) {
		return
	}
	parts := make([]string, len(reads))
	for i, r := range reads {
		r.m.ops[opTxGet].use.callItem(nil, items[i])
		parts[i] = r.m.name + " " + string(access.GetItem)
	}
	l.add(access.TransactGetItems, parts, func() []access.Item {
		out := make([]access.Item, len(reads))
		for i, r := range reads {
			out[i] = access.Item{Operation: access.GetItem, Size: r.m.typicalSize(), Partition: r.m.pk.accessPattern()}
		}
		return out
	})
}

// add counts one transaction of op whose actions are parts, describing
// its items (by items) the first time one of that kind is seen.
func (l *patternLog) add(op access.Op, parts []string, items func() []access.Item) {
	sig := strings.Join(parts, ", ")
	if op == access.TransactGetItems {
		sig = "read " + sig // a read and a write transaction of the same entities are two patterns
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.txs == nil {
		l.txs = map[string]*txUse{}
	}
	u := l.txs[sig]
	if u == nil {
		u = &txUse{op: op, items: items()}
		l.txs[sig] = u
	}
	u.calls++
}

// Patterns describes what the registry's entities were asked to do, one
// access.Pattern per operation, entity and index called at least once
// (and one per kind of transaction), a call counting once it was sent to
// DynamoDB, failed or not (see sent; "<entity> delete expired" is the
// DeleteItem clearing an expired item before a write over it): the operation, the index, the key
// condition in the templates' terms, the largest item seen (sampled), the
// items a request moved and the index writes the entity's indexes cost.
// datamodel and iam turn them into the data-model document, costs and the
// least-privilege policy of the table. Calls do not tell rates: give them
// with datamodel.WithRates and WithAverages, by pattern name ("album
// create", "photo list GSI1").
func (r *Registry) Patterns() []access.Pattern {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	models := append([]*model(nil), r.models...)
	cols := append([]*Collection(nil), r.collections...)
	r.mu.RUnlock()
	var out []access.Pattern
	for _, m := range models {
		out = append(out, m.patterns()...)
	}
	for _, c := range cols {
		if c.use.calls.Load() == 0 {
			continue
		}
		pk, _, _, _ := c.members[0].readKeys(c.index)
		size := 0
		for _, m := range c.members {
			size = max(size, m.typicalSize())
		}
		out = append(out, access.Pattern{Name: c.name + " list", Operation: access.Query, Index: c.index,
			KeyCondition: pk.attr.Name + " = " + pk.accessPattern(), Partition: pk.accessPattern(),
			ItemSize: size, ItemsPerRequest: int(max(1, c.use.items.Load()))})
	}
	r.patterns.mu.Lock()
	for sig, u := range r.patterns.txs {
		out = append(out, access.Pattern{Name: "transaction: " + sig, Operation: u.op,
			Transactional: true, Items: append([]access.Item(nil), u.items...), Partition: u.items[0].Partition,
			KeyCondition: "one action per item: " + sig, ItemsPerRequest: len(u.items), ItemSize: u.items[0].Size})
	}
	r.patterns.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Entities describes the registry's entities for datamodel's storage
// estimate: the largest item seen, the pattern that creates them, their
// indexes and, for a TTL with TTLAfter, their retention.
func (r *Registry) Entities() []access.Entity {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]access.Entity, 0, len(r.models))
	for _, m := range r.models {
		e := access.Entity{Name: m.name, Size: m.typicalSize(), Retention: m.ttlAfter}
		if m.ops[opCreate].use.calls.Load() > 0 {
			e.CreatedBy = m.name + " create"
		}
		for _, ix := range m.indexes {
			e.Indexes = append(e.Indexes, ix.name)
		}
		out = append(out, e)
	}
	return out
}

// typicalSize is the largest item the entity moved, or 1 KB before any.
func (m *model) typicalSize() int {
	size := int64(0)
	for o := range opCount {
		size = max(size, m.ops[o].use.maxSize.Load())
	}
	if size == 0 {
		return 1024
	}
	return int(size)
}

// indexWrites are the index entries a write of one of the entity's items
// costs.
func (m *model) indexWrites() []access.IndexWrite {
	var out []access.IndexWrite
	for _, ix := range m.indexes {
		out = append(out, access.IndexWrite{Index: ix.name, Partition: ix.pk.accessPattern()})
	}
	return out
}

// accessPattern is the key part in access's notation: the template, a
// constant, or the attribute ("{jobId}").
func (k *keyPart) accessPattern() string {
	switch {
	case k.constant != nil:
		return keyText(k.constant)
	case k.attr.Name == "":
		return ""
	}
	return k.pattern()
}

// keyCondition is the key condition of a read of (pk, sk) by sort
// operations sorts (a bit set of sortOp).
func keyCondition(pk, sk *keyPart, sorts uint32, get bool) string {
	c := pk.attr.Name + " = " + pk.accessPattern()
	if sk.attr.Name == "" {
		return c
	}
	if get {
		return c + " AND " + sk.attr.Name + " = " + sk.accessPattern()
	}
	var conds []string
	for op := sortNone; op <= sortGreaterOrEqual; op++ {
		if sorts&(1<<op) == 0 {
			continue
		}
		switch op {
		case sortNone:
			if sk.constant != nil {
				conds = append(conds, c+" AND "+sk.attr.Name+" = "+sk.accessPattern())
			} else if sk.prefix != "" {
				conds = append(conds, c+" AND begins_with("+sk.attr.Name+", "+sk.prefix+")")
			} else {
				conds = append(conds, c)
			}
		case sortBeginsWith:
			conds = append(conds, c+" AND begins_with("+sk.attr.Name+", "+sk.accessPattern()+" prefix)")
		case sortBetween:
			conds = append(conds, c+" AND "+sk.attr.Name+" BETWEEN "+sk.accessPattern()+" bounds")
		default:
			conds = append(conds, c+" AND "+sk.attr.Name+" "+[...]string{"", "", "", "<", "<=", ">", ">="}[op]+" "+sk.accessPattern())
		}
	}
	if len(conds) == 0 {
		return c
	}
	return strings.Join(conds, "; ")
}

// patterns is the access patterns of the entity's calls so far.
func (m *model) patterns() []access.Pattern {
	var out []access.Pattern
	size := m.typicalSize()
	key := keyCondition(&m.pk, &m.sk, 0, true)
	add := func(o op, operation access.Op, verb string, writes bool) {
		u := &m.ops[o].use
		if u.calls.Load() == 0 {
			return
		}
		p := access.Pattern{Name: m.name + " " + verb, Operation: operation, KeyCondition: key,
			Partition: m.pk.accessPattern(), ItemSize: size, ItemsPerRequest: int(max(1, u.items.Load()))}
		if writes {
			p.IndexWrites = m.indexWrites()
		}
		out = append(out, p)
	}
	add(opCreate, access.PutItem, "create", true)
	add(opGet, access.GetItem, "get", false)
	add(opPut, access.PutItem, "put", true)
	add(opUpsert, access.UpdateItem, "upsert", true)
	add(opUpdate, access.UpdateItem, "update", true)
	add(opPatch, access.UpdateItem, "patch", true)
	add(opDelete, access.DeleteItem, "delete", true)
	add(opBatchGet, access.BatchGetItem, "batch get", false)
	add(opBatchPut, access.BatchWriteItem, "batch put", true)
	add(opBatchDelete, access.BatchWriteItem, "batch delete", true)
	// Create, Put, Update and Upsert over an item past its TTL that
	// DynamoDB has not yet removed delete it first (model.afresh).
	add(opClearExpired, access.DeleteItem, "delete expired", true)
	for i := range m.listUse {
		u := &m.listUse[i]
		if u.calls.Load() == 0 {
			continue
		}
		pk, sk, index := &m.pk, &m.sk, ""
		if i > 0 {
			ix := &m.indexes[i-1]
			pk, sk, index = &ix.pk, &ix.sk, ix.name
		}
		name := m.name + " list"
		if index != "" {
			name += " " + index
		}
		out = append(out, access.Pattern{Name: name, Operation: access.Query, Index: index,
			KeyCondition: keyCondition(pk, sk, u.sorts.Load(), false), Partition: pk.accessPattern(),
			ItemSize: size, ItemsPerRequest: int(max(1, u.items.Load()))})
	}
	return out
}
