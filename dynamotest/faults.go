package dynamotest

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
)

// Fault makes the fake fail calls on purpose, so that a caller's retry and
// backoff paths run in tests. Build one with Throttle, FailNth or
// UnprocessedFraction, or fill in the fields; hand it to (*DB).Inject.
type Fault struct {
	// Op is the operation's name as in DynamoDB's API ("GetItem",
	// "BatchWriteItem"); "" matches every operation.
	Op string
	// Table restricts the fault to calls touching this table; "" matches
	// any. For batch operations it also restricts Unprocessed to this
	// table's items.
	Table string
	// Nth is the first matching call (counted from Inject, starting at 1)
	// that the fault hits; 0 means the next one.
	Nth int
	// Times is how many matching calls the fault hits from the Nth on;
	// 0 means every one until ClearFaults.
	Times int
	// Err is returned instead of performing the call. Nil with Unprocessed
	// zero means throttling (ProvisionedThroughputExceededException).
	Err error
	// Unprocessed, between 0 and 1, makes BatchGetItem and BatchWriteItem
	// succeed but hand back this fraction of their items as UnprocessedKeys
	// or UnprocessedItems (the last items of the request), as DynamoDB does
	// under load. Over many calls exactly this fraction is left, and a call
	// with a fraction below 1 always makes progress over a retry loop.
	Unprocessed float64
}

// Throttle makes the next times calls of op fail with
// *types.ProvisionedThroughputExceededException, as DynamoDB does when a
// table or partition is over its capacity. times < 1 throttles every call
// until ClearFaults.
func Throttle(op string, times int) Fault {
	if times < 1 {
		times = 0
	}
	return Fault{Op: op, Times: times, Err: throttled()}
}

// FailNth makes the nth call of op from now on (1 = the next) fail with err,
// once.
func FailNth(op string, n int, err error) Fault {
	return Fault{Op: op, Nth: n, Times: 1, Err: err}
}

// UnprocessedFraction makes every BatchGetItem or BatchWriteItem call (op)
// leave fraction of its items unprocessed until ClearFaults.
func UnprocessedFraction(op string, fraction float64) Fault {
	return Fault{Op: op, Unprocessed: fraction}
}

type faultState struct {
	Fault
	seen, fired int
	carry       float64 // fractional unprocessed items owed to later calls
}

func (f *faultState) matches(op string, tables []string) bool {
	if f.Op != "" && f.Op != op {
		return false
	}
	if f.Unprocessed > 0 && op != "BatchGetItem" && op != "BatchWriteItem" {
		return false
	}
	if f.Table == "" {
		return true
	}
	for _, t := range tables {
		if t == f.Table {
			return true
		}
	}
	return false
}

// hit counts a matching call and reports whether the fault applies to it.
func (f *faultState) hit() bool {
	f.seen++
	if f.seen < max(f.Nth, 1) {
		return false
	}
	if f.Times > 0 && f.fired >= f.Times {
		return false
	}
	f.fired++
	return true
}

// The operations the fake counts, in table.API's order.
var opNames = [...]string{
	"CreateTable", "DeleteTable", "DescribeTable", "ListTables", "UpdateTimeToLive", "DescribeTimeToLive",
	"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
	"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
	"TagResource", "UntagResource", "ListTagsOfResource", "DescribeLimits", "UpdateTable",
}

type op int

const (
	opCreateTable op = iota
	opDeleteTable
	opDescribeTable
	opListTables
	opUpdateTimeToLive
	opDescribeTimeToLive
	opGetItem
	opPutItem
	opUpdateItem
	opDeleteItem
	opQuery
	opScan
	opBatchGetItem
	opBatchWriteItem
	opTransactGetItems
	opTransactWriteItems
	opTagResource
	opUntagResource
	opListTagsOfResource
	opDescribeLimits
	opUpdateTable
	numOps
)

func (o op) String() string { return opNames[o] }

func opIndex(name string) (op, bool) {
	for i, n := range opNames {
		if n == name {
			return op(i), true
		}
	}
	return 0, false
}

// tableStats counts one table name's calls and consumed capacity, across
// deletes and re-creates. Capacity is kept in half units: every amount
// DynamoDB charges is a multiple of 0.5, so the sums stay exact.
type tableStats struct {
	calls               [numOps]atomic.Int64
	readHalf, writeHalf atomic.Int64
}

// stats holds the call counters, consumed capacity totals and injected
// faults. Counters are atomics so that the hot path takes no lock; the
// mutex guards the faults, which are checked only while some are armed.
type stats struct {
	calls       [numOps]atomic.Int64
	tables      sync.Map // table name -> *tableStats
	mu          sync.Mutex
	faults      []*faultState
	faultsArmed atomic.Bool
	// broken, once set, fails every call: a persistent DB that could not
	// open its directory, lost its disk, or was closed (see persist.go).
	broken atomic.Pointer[error]
}

func (s *stats) init() {}

func (s *stats) table(name string) *tableStats {
	if ts, ok := s.tables.Load(name); ok {
		return ts.(*tableStats)
	}
	ts, _ := s.tables.LoadOrStore(name, &tableStats{})
	return ts.(*tableStats)
}

// begin counts a call of o touching tables and decides which faults hit
// it: the error to fail it with, and the unprocessed-item faults that apply.
//
// A call whose context is already done fails here with the context's error,
// before it is counted or changes anything: the SDK's client checks its
// context before sending, so against DynamoDB such a call never arrives.
func (s *stats) begin(ctx context.Context, o op, tables ...string) (unprocessed []*faultState, err error) {
	if err := contextErr(ctx); err != nil {
		return nil, err
	}
	if e := s.broken.Load(); e != nil {
		return nil, *e
	}
	s.calls[o].Add(1)
	for i, t := range tables {
		if !dup(tables[:i], t) {
			s.table(t).calls[o].Add(1)
		}
	}
	if f := unprocessedFrom(ctx); f != nil {
		unprocessed = append(unprocessed, f) // Chaos's, for this call only
	}
	if !s.faultsArmed.Load() {
		return unprocessed, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if !f.matches(o.String(), tables) || !f.hit() {
			continue
		}
		if f.Unprocessed > 0 {
			unprocessed = append(unprocessed, f)
			continue
		}
		if err == nil {
			err = f.Err
			if err == nil {
				err = throttled()
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return unprocessed, nil
}

func dup(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// leaveUnprocessed returns how many of n items of tableName the faults
// leave unprocessed in this call.
func (s *stats) leaveUnprocessed(faults []*faultState, tableName string, n int) int {
	if len(faults) == 0 || n == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := 0
	for _, f := range faults {
		if f.Table != "" && f.Table != tableName {
			continue
		}
		k = max(k, f.owe(n))
	}
	return min(k, n)
}

// owe is how many of the next n items f leaves unprocessed: its fraction
// of them, the fractional rest carried to the next table or call, so that
// over a batch of several tables (taken in name order) and over many calls
// exactly the fraction is left. The caller holds stats.mu, or owns f.
func (f *faultState) owe(n int) int {
	f.carry += float64(n) * math.Min(f.Unprocessed, 1)
	owed := int(math.Floor(f.carry + 1e-9))
	f.carry -= float64(owed)
	return min(owed, n)
}

// Inject arms a fault. Faults stay armed until they have hit Times calls
// or ClearFaults is called; several faults may be armed at once, and the
// first armed error fault that hits a call decides its error.
func (db *DB) Inject(f Fault) {
	db.stats.mu.Lock()
	defer db.stats.mu.Unlock()
	db.stats.faults = append(db.stats.faults, &faultState{Fault: f})
	db.stats.faultsArmed.Store(true)
}

// ClearFaults disarms every injected fault.
func (db *DB) ClearFaults() {
	db.stats.mu.Lock()
	defer db.stats.mu.Unlock()
	db.stats.faults = nil
	db.stats.faultsArmed.Store(false)
}

// Calls returns how many times op ("GetItem", "Query", ...) was called,
// successful or not, since New or ResetCalls.
func (db *DB) Calls(op string) int {
	o, ok := opIndex(op)
	if !ok {
		return 0
	}
	return int(db.stats.calls[o].Load())
}

// CallsFor returns how many calls of op touched the named table. A batch or
// transaction over several tables counts once for each.
func (db *DB) CallsFor(op, tableName string) int {
	o, ok := opIndex(op)
	if !ok {
		return 0
	}
	ts, ok := db.stats.tables.Load(tableName)
	if !ok {
		return 0
	}
	return int(ts.(*tableStats).calls[o].Load())
}

// ResetCalls sets every call counter to zero.
func (db *DB) ResetCalls() {
	for i := range db.stats.calls {
		db.stats.calls[i].Store(0)
	}
	db.stats.tables.Range(func(_, ts any) bool {
		for i := range ts.(*tableStats).calls {
			ts.(*tableStats).calls[i].Store(0)
		}
		return true
	})
}
