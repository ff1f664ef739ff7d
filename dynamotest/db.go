package dynamotest

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/table"
)

// Options configure a DB.
type Options struct {
	// Clock is the fake's time source; nil means the wall clock. Advance and
	// SetTime move the fake's time relative to it. TTL expiry, table creation
	// times and transaction idempotency windows all read this time.
	Clock func() time.Time

	// ItemCollectionSizeLimit bounds an item collection (the items sharing
	// a partition key value, with their local secondary index entries) in a
	// table with local secondary indexes; a write that would pass it fails
	// with ItemCollectionSizeLimitExceededException. 0 means DynamoDB's
	// 10 GB; tests set a small one to reach it.
	ItemCollectionSizeLimit int64

	// EventualLag, when positive, turns on the eventual mode: index reads
	// and eventually consistent reads see a write only once this much of
	// the fake's time has passed (see EventualConsistency). 0 means the
	// default, every read sees every write at once, unless the EventualEnv
	// environment variable asks for a lag; a negative lag keeps the mode
	// off whatever EventualEnv says.
	EventualLag time.Duration

	// Dir, when set (see Persist), is the directory the DB keeps its data
	// in: it loads what is there and makes every write durable there
	// before answering. Empty: the DB lives in memory only.
	Dir string
	// persist is set by Persist, so that Persist("") is refused rather
	// than taken for memory.
	persist bool
}

// DB is an in-memory DynamoDB. It satisfies table.API, so a store built on
// tablekit runs against it unchanged. The zero value is not usable; call New.
// A DB is safe for concurrent use, and each operation is atomic.
type DB struct {
	clock           func() time.Time
	collectionLimit int64
	lag             time.Duration // Options.EventualLag; 0: the eventual mode is off

	// tables is replaced, never modified, under mu: readers load it without
	// locking, which keeps the table lookup off the hot path's lock.
	tables atomic.Pointer[map[string]*dbTable]
	mu     sync.Mutex // serialises CreateTable, DeleteTable and clock moves

	offset atomic.Int64 // nanoseconds added to clock by Advance and SetTime

	stats stats

	tokens tokenLedger

	streams streamRegistry // every table stream, by ARN (see stream.go)

	// persist is the data directory's storage (persist.go); nil in
	// memory.
	persist *persistence
	// replayOffset is the clock offset recovery has replayed so far.
	replayOffset int64
}

var _ table.API = (*DB)(nil)

// New returns an empty in-memory DynamoDB.
func New(opts ...func(*Options)) *DB {
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.ItemCollectionSizeLimit <= 0 {
		o.ItemCollectionSizeLimit = maxItemCollection
	}
	if o.EventualLag == 0 {
		o.EventualLag = eventualLagFromEnv()
	}
	db := &DB{clock: o.Clock, collectionLimit: o.ItemCollectionSizeLimit, lag: max(o.EventualLag, 0)}
	empty := map[string]*dbTable{}
	db.tables.Store(&empty)
	db.stats.init()
	if o.Dir != "" || o.persist {
		if err := db.openPersistence(o.Dir); err != nil {
			// New cannot return it: every call will (Open reports it).
			empty := map[string]*dbTable{}
			db.tables.Store(&empty)
			db.fail(err)
		}
	}
	return db
}

// now is the fake's current time.
func (db *DB) now() time.Time {
	return db.base().Add(time.Duration(db.offset.Load()))
}

// base is the time of the fake's clock before Advance and SetTime moved it
// (time.Now for a DB not made by New).
func (db *DB) base() time.Time {
	if db.clock == nil {
		return time.Now()
	}
	return db.clock()
}

// Now returns the fake's current time: its clock plus every Advance. It
// makes the fake a table.Clock, so the clock options of tablekit's packages
// default to it when given the fake (table.ClockOf): a test passes no clock.
func (db *DB) Now() time.Time { return db.now() }

// Advance moves the fake's clock forward by d and then deletes every item
// whose TTL has passed, as DynamoDB's background sweeper would. Until the
// clock moves, expired items stay visible, as they do in DynamoDB until the
// sweeper reaches them.
func (db *DB) Advance(d time.Duration) {
	db.mu.Lock()
	db.offset.Add(int64(d))
	lsn := db.logClock()
	db.mu.Unlock()
	db.persist.durable(lsn)
	db.sweepExpired()
	db.finishIndexes()
}

// SetTime sets the fake's clock to t and then deletes every item whose TTL
// has passed.
func (db *DB) SetTime(t time.Time) {
	db.mu.Lock()
	db.offset.Store(int64(t.Sub(db.base())))
	lsn := db.logClock()
	db.mu.Unlock()
	db.persist.durable(lsn)
	db.sweepExpired()
}

// tableMap is the current map of tables: empty for a DB not made by New,
// which then behaves as an empty DynamoDB instead of panicking.
func (db *DB) tableMap() map[string]*dbTable {
	if m := db.tables.Load(); m != nil {
		return *m
	}
	return nil
}

// table returns the named table or nil.
func (db *DB) table(name string) *dbTable {
	return (db.tableMap())[name]
}

// tableNames returns every table's name in order.
func (db *DB) tableNames() []string {
	m := db.tableMap()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lockTables write-locks every named table in name order, so two
// transactions over the same tables can never deadlock. It returns the
// tables by name and the function that unlocks them. A missing table is
// absent from the map.
func (db *DB) lockTables(names []string, write bool) (map[string]*dbTable, func()) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	tables := make(map[string]*dbTable, len(sorted))
	var locked []*dbTable
	for i, n := range sorted {
		if i > 0 && sorted[i-1] == n {
			continue
		}
		t := db.table(n)
		if t == nil {
			continue
		}
		if write {
			t.mu.Lock()
		} else {
			t.mu.RLock()
		}
		if t.deleted {
			// DeleteTable won the race: the table is gone.
			if write {
				t.mu.Unlock()
			} else {
				t.mu.RUnlock()
			}
			continue
		}
		tables[n] = t
		locked = append(locked, t)
	}
	return tables, func() {
		// A write over several tables is one journal record: a crash
		// keeps all of it or none.
		var lsn uint64
		if write {
			lsn = db.sealTables(locked)
		}
		defer db.persist.durable(lsn)
		for i := len(locked) - 1; i >= 0; i-- {
			if write {
				locked[i].mu.Unlock()
			} else {
				locked[i].mu.RUnlock()
			}
		}
	}
}

// orEmpty stands in an empty input for a nil one, as the SDK's client does
// before it validates, so a nil input fails like a missing table name rather
// than panicking inside the fake.
func orEmpty[T any](in *T) *T {
	if in == nil {
		return new(T)
	}
	return in
}

// contextErr is ctx's error; a nil context counts as context.Background, so
// a nil one never panics inside the fake.
func contextErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}
