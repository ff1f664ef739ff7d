package dynamotest

import (
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

// EventualEnv names the environment variable that turns the eventual mode
// on for every DB that New makes without EventualConsistency: a duration
// ("1s", "250ms") that New reads as if EventualConsistency(d) were given.
// It is a test aid, to run a whole test suite under the mode without
// editing each test:
//
//	TABLEKIT_DYNAMOTEST_EVENTUAL=1s go test ./...
//
// A DB made with EventualConsistency ignores it: a positive lag replaces
// the variable's, a negative one keeps the mode off (for a test that is
// about strongly consistent behaviour itself).
const EventualEnv = "TABLEKIT_DYNAMOTEST_EVENTUAL"

// EventualConsistency sets Options.EventualLag: the DB then keeps DynamoDB's
// promise and no more. Global secondary indexes are eventually consistent,
// and so are reads that do not ask for ConsistentRead: code that reads its
// own write through an index passes on DynamoDB Local and on the fake by
// default, and fails in production. Under this option it fails in tests.
//
// A write reaches index reads and eventually consistent reads (GetItem,
// BatchGetItem, Query, Scan and PartiQL SELECT without ConsistentRead;
// every read of a global secondary index) only once lag has passed on the
// fake's clock: such a read sees the newest version of each item that is
// at least lag old, as if a replica applied the writes lag late. Strongly
// consistent reads, transactions (TransactGetItems, TransactWriteItems,
// ExecuteTransaction), the conditions of writes and the items writes
// return (ReturnValues) see every write at once, as on DynamoDB; streams
// are unchanged. The fake's clock decides (Advance, SetTime, Options.Clock),
// so tests stay deterministic: no sleeps. A negative lag keeps the mode off
// even where the EventualEnv variable asks for it; 0 is the default (off,
// unless EventualEnv sets a lag).
func EventualConsistency(lag time.Duration) func(*Options) {
	return func(o *Options) { o.EventualLag = lag }
}

// eventualLagFromEnv is the lag EventualEnv asks for, 0 when it is unset.
// A value that is not a duration is a mistake in the test run's set-up,
// which must not pass unnoticed as a run in the default mode.
func eventualLagFromEnv() time.Duration {
	v := os.Getenv(EventualEnv)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		panic(fmt.Sprintf("dynamotest: %s=%q is not a duration (for example 1s): %v", EventualEnv, v, err))
	}
	return d
}

// lagged is what eventually consistent reads of a table see in the eventual
// mode: a replica of the table and its indexes (view) that applies each
// write lag after it happened. Writes queue in pending, in the order they
// were applied, stamped with the fake's time; a read first applies those
// at least lag old (settle), then reads the replica. Everything here is
// guarded by the table's mu.
type lagged struct {
	lag     time.Duration
	now     func() time.Time
	view    *dbTable
	pending []pendingWrite
}

// pendingWrite is one item change the replica has not applied yet: the
// new version (e, nil for a deletion) at position pos of partition id.
type pendingWrite struct {
	at      time.Time
	id, pos string
	e       *store.Entry
}

// newLagged starts the eventual view of t, empty like t.
func newLagged(t *dbTable, lag time.Duration, now func() time.Time) *lagged {
	return &lagged{lag: lag, now: now, view: t.replica()}
}

// replica returns an empty table with t's keys and indexes: the eventual
// view. It has no stream, TTL order or item collection limits of its own;
// those belong to the table.
func (t *dbTable) replica() *dbTable {
	r := &dbTable{name: t.name, pk: t.pk, sk: t.sk, keySchema: t.keySchema, items: store.New()}
	for _, ix := range t.indexes {
		r.indexes = append(r.indexes, ix.replica())
	}
	return r
}

// replica returns an empty index shaped like ix.
func (ix *dbIndex) replica() *dbIndex {
	return &dbIndex{name: ix.name, local: ix.local, pk: ix.pk, sk: ix.sk, keySchema: ix.keySchema,
		projection: ix.projection, keep: ix.keep, items: store.New()}
}

// record queues a write for the replica: e is the item's new entry at pos
// in partition id, nil when the item was deleted. It then applies what has
// become due, so the queue holds only the writes of the last lag. The
// caller holds the table's write lock.
func (l *lagged) record(id, pos string, e *store.Entry) {
	at := l.now()
	if n := len(l.pending); n > 0 && at.Before(l.pending[n-1].at) {
		// SetTime moved the clock back: the queue stays in write order.
		at = l.pending[n-1].at
	}
	l.pending = append(l.pending, pendingWrite{at: at, id: id, pos: pos, e: e})
	l.catchUp(at)
}

// due reports whether a write is waiting that a read at now must see.
func (l *lagged) due(now time.Time) bool {
	return len(l.pending) > 0 && !l.pending[0].at.After(now.Add(-l.lag))
}

// catchUp applies, in order, every queued write at least lag old at now.
// The caller holds the table's write lock.
func (l *lagged) catchUp(now time.Time) {
	cutoff := now.Add(-l.lag)
	n := 0
	for n < len(l.pending) && !l.pending[n].at.After(cutoff) {
		l.view.apply(l.pending[n])
		l.pending[n] = pendingWrite{}
		n++
	}
	if n > 0 {
		l.pending = l.pending[n:]
		if len(l.pending) == 0 {
			l.pending = nil // let the backing array go
		}
	}
}

// catchUpAll applies every queued write: the items a persistent DB loads
// from its snapshot at start. The snapshot says only when it was taken, not
// when each item was written, and most were written long before: stamped
// with the snapshot's time, every item would vanish from eventually
// consistent reads and index reads for a lag after each restart, which
// DynamoDB never does to an item written long ago (a read may see a recent
// write early, never an old one late). The log replayed after the
// snapshot keeps each write's own time. The caller holds the table's write
// lock, or owns the table (loading).
func (l *lagged) catchUpAll() {
	if n := len(l.pending); n > 0 {
		l.catchUp(l.pending[n-1].at.Add(l.lag))
	}
}

// apply carries one write out on the replica, keeping its indexes in step.
// The replica's entries share the table's immutable encodings.
func (t *dbTable) apply(w pendingWrite) {
	if w.e == nil {
		old := t.items.Delete(w.id, w.pos)
		if old != nil && len(t.indexes) > 0 {
			t.reindex(w.id, w.pos, old.Item(), old.Size, nil, "", 0, nil)
		}
		return
	}
	e := &store.Entry{Data: w.e.Data, Size: w.e.Size, Key: w.e.Key, Sort: w.e.Sort}
	old := t.items.Put(store.Attr(e.Data, t.pk.name), w.id, e)
	if len(t.indexes) == 0 {
		return
	}
	var oldItem map[string]types.AttributeValue
	oldSize := 0
	if old != nil {
		oldItem, oldSize = old.Item(), old.Size
	}
	t.reindex(w.id, w.pos, oldItem, oldSize, e.Item(), e.Data, e.Size, nil)
}

// settle brings t's eventual view up to the fake's current time, so a read
// that follows sees every write at least lag old. It takes the table's
// write lock only when a write has become due.
func (t *dbTable) settle() {
	l := t.lagged
	now := l.now()
	t.mu.RLock()
	due := l.due(now)
	t.mu.RUnlock()
	if !due {
		return
	}
	t.mu.Lock()
	l.catchUp(now)
	t.mu.Unlock()
}

// source is the table a read of t reads: t itself, or its eventual view
// for an eventually consistent read in the eventual mode, brought up to
// date first. The caller then takes t's read lock (which guards the view
// too) and reads the returned table's collections (see collection).
func (t *dbTable) source(consistent bool) *dbTable {
	if t.lagged == nil || consistent {
		return t
	}
	t.settle()
	return t.lagged.view
}

// collection is what a read walks: src's items, or the entries of the
// index ix when src is the table, of the view's index of the same name when
// src is the eventual view (nil when UpdateTable has deleted it since the
// read began). The caller holds the table's read lock.
func (t *dbTable) collection(src *dbTable, ix *dbIndex) *store.Collection {
	switch {
	case ix == nil:
		return src.items
	case src == t:
		return ix.items
	}
	if own := src.index(ix.name); own != nil {
		return own.items
	}
	return nil
}

// addIndex gives t, an eventual view, an index shaped like ix, backfilled
// from the items t holds: UpdateTable created ix on the table.
func (t *dbTable) addIndex(ix *dbIndex) {
	r := ix.replica()
	t.backfill(r)
	t.indexes = append(t.indexes, r)
}

// dropIndex removes the view's index of that name: UpdateTable deleted it.
func (t *dbTable) dropIndex(name string) {
	for i, ix := range t.indexes {
		if ix.name == name {
			t.indexes = append(t.indexes[:i:i], t.indexes[i+1:]...)
			return
		}
	}
}
