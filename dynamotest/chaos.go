package dynamotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// Chaos returns a Chaotic: the fake behind a table.API that, call by call,
// injects the faults DynamoDB shows under load and failure, every one drawn
// from seed:
//
//   - throttling (ProvisionedThroughputExceededException), nothing applied;
//   - a response lost before the request reached the table (nothing
//     applied) or after the write applied (ErrResponseLost either way: the
//     caller cannot tell which, as a caller whose connection dropped);
//   - unprocessed items: BatchWriteItem and BatchGetItem process part of a
//     batch and hand the rest back as UnprocessedItems or UnprocessedKeys;
//   - transaction conflicts: TransactWriteItems and TransactGetItems are
//     canceled with a TransactionConflict reason, a single-item write fails
//     with TransactionConflictException, nothing applied;
//   - clock jumps: the fake's clock moves forward before the call (leases
//     and TTLs pass as when a process pauses);
//   - eventual consistency: the fake runs with a lag drawn from the seed
//     (EventualConsistency), so index reads and reads without
//     ConsistentRead see writes late.
//
// Faults hit the item operations; CreateTable and the other table calls
// pass through. Chaotic.Faults is the log of what was injected, call by
// call, and every injected error names the seed, so a failing test says
// how to replay it (ChaosSeed reads the seed from TABLEKIT_CHAOS_SEED).
//
// Replay: the faults of a call are decided by a random source seeded with
// seed and the call's key, nothing else. By default the key is the
// operation, the first table it names and how many calls of that
// operation on that table came before it ("PutItem jobs #3"): a test that
// makes the same calls in the same order gets the same faults call by
// call, whatever the requests hold (ids, timestamps). When goroutines race,
// which of their calls is the third PutItem depends on the scheduler: each
// operation on each table still gets the same sequence of faults, but not
// necessarily the same caller. With ChaosOptions.ByRequest the key is the
// request's content and how many identical requests came before, so a
// request gets the same faults whichever goroutine sends it and when; it
// replays only if the requests are the same from run to run (no random
// ids or wall-clock times in them).
//
// The lag is drawn from the seed; which writes a lagged read sees depends
// on the fake's clock. The fake Chaos makes runs on the wall clock, so a
// test that polls an index until a write shows keeps working, and its
// reads see what the timing of the run allows. For reads that replay
// exactly too, give Chaos a fake with a clock of the test's own (ChaosOn)
// and move it with DB.Advance.
func Chaos(seed int64, opts ...func(*ChaosOptions)) *Chaotic {
	o := ChaosOptions{MaxLag: 250 * time.Millisecond, MaxJump: time.Second}
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.Rates == (ChaosRates{}) {
		o.Rates = DefaultChaosRates()
	}
	switch {
	case o.MaxJump <= 0:
		o.MaxJump = time.Second
	case o.MaxJump < time.Millisecond:
		o.MaxJump = time.Millisecond // jumps are drawn in whole milliseconds
	}
	c := &Chaotic{seed: seed, o: o, counters: map[string]int{}}
	if o.API != nil {
		// Another store: no clock to jump, no lag to set.
		c.api = o.API
		c.db, _ = o.API.(*DB)
		if c.db != nil {
			c.lag = c.db.lag
		}
		return c
	}
	c.db = o.DB
	if c.db == nil {
		if o.MaxLag > 0 {
			r := c.source("eventual lag")
			c.lag = time.Duration(r.Int64N(int64(o.MaxLag/time.Millisecond)+1)) * time.Millisecond
		}
		lag := c.lag
		if lag == 0 {
			lag = -1 // off, whatever EventualEnv says: the seed decided
		}
		c.db = New(EventualConsistency(lag))
	} else {
		c.lag = c.db.lag
	}
	c.api = c.db
	return c
}

// ChaosOptions configure Chaos.
type ChaosOptions struct {
	// DB is the fake to run; nil makes a new one, in the eventual mode with
	// a lag drawn from the seed between 0 and MaxLag.
	DB *DB
	// API, when set, is the store the faults are injected in front of
	// instead of the fake: DynamoDB Local, say, so a chaos test runs there
	// too. Clock jumps and the lag need the fake's clock and are left out;
	// a batch left partly unprocessed is sent as the part it processes.
	API table.API
	// MaxLag bounds the drawn lag (when DB is nil); 0 or less: no lag.
	// Default 250ms.
	MaxLag time.Duration
	// Rates are the chances per call of each fault; the zero value means
	// DefaultChaosRates.
	Rates ChaosRates
	// RatesFor, when set, gives the rates of one call instead of Rates:
	// to aim faults at some calls, or spare others (zero rates).
	RatesFor func(op, table string, in any) ChaosRates
	// MaxJump bounds a clock jump, drawn in whole milliseconds between 1ms
	// and MaxJump; 0 or less: the default, 1s.
	MaxJump time.Duration
	// ByRequest keys faults by the request's content instead of by the
	// order of calls per operation and table (see Chaos).
	ByRequest bool
}

// ChaosOn sets ChaosOptions.DB: the faults hit calls to db.
func ChaosOn(db *DB) func(*ChaosOptions) {
	return func(o *ChaosOptions) { o.DB = db }
}

// ChaosRates are chances per call, between 0 and 1. A call gets at most one
// of the faults (throttle, lost before, lost after, unprocessed, conflict;
// their chances add up), and a clock jump besides, drawn on its own.
// Unprocessed applies to batches of two or more, Conflict to transactions
// and single-item writes; elsewhere their chance is no fault.
type ChaosRates struct {
	Throttle, LostBefore, LostAfter, Unprocessed, Conflict, ClockJump float64
}

// DefaultChaosRates are the rates Chaos uses unless told otherwise: about
// one call in six gets a fault, and a batch one in three.
func DefaultChaosRates() ChaosRates {
	return ChaosRates{Throttle: 0.05, LostBefore: 0.02, LostAfter: 0.02, Unprocessed: 0.2, Conflict: 0.05, ClockJump: 0.02}
}

// ChaosKind names a fault.
type ChaosKind string

// The faults Chaos injects.
const (
	ChaosThrottle    ChaosKind = "throttle"
	ChaosLostBefore  ChaosKind = "lost-before"
	ChaosLostAfter   ChaosKind = "lost-after"
	ChaosUnprocessed ChaosKind = "unprocessed"
	ChaosConflict    ChaosKind = "conflict"
	ChaosClockJump   ChaosKind = "clock-jump"
)

// ChaosFault is one fault Chaos injected.
type ChaosFault struct {
	// Call numbers the call through the Chaotic, from 1.
	Call int
	// Key is what the fault was drawn for ("PutItem jobs #3").
	Key string
	// Op and Table are the call's operation and first table.
	Op, Table string
	Kind      ChaosKind
	// Detail says which part: "+350ms", "2 of 5 items", "action 2 of 3".
	Detail string
}

func (f ChaosFault) String() string {
	s := fmt.Sprintf("call %d %s: %s", f.Call, f.Key, f.Kind)
	if f.Detail != "" {
		s += " " + f.Detail
	}
	return s
}

// ErrResponseLost is the error of a call whose response Chaos lost, before
// or after the call applied: a caller sees it as a dropped connection, and
// must find out (or make sure, by retrying an idempotent write) what
// happened.
var ErrResponseLost = errors.New("dynamotest: chaos: the response was lost")

// ChaosSeedEnv names the variable ChaosSeed reads a seed from.
const ChaosSeedEnv = "TABLEKIT_CHAOS_SEED"

// ChaosSeed returns the seed for a chaos test: TABLEKIT_CHAOS_SEED when it
// is set (a test fails at once if it is not an integer), a new one
// otherwise. It logs the seed and how to replay it, which go test prints
// when the test fails (and with -v):
//
//	TABLEKIT_CHAOS_SEED=42 go test -run '^TestChaos$' ./jobs/
func ChaosSeed(t testing.TB) int64 {
	seed := time.Now().UnixNano()
	if t == nil {
		return seed
	}
	t.Helper()
	if v := os.Getenv(ChaosSeedEnv); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q is not an integer seed: %v", ChaosSeedEnv, v, err)
			return seed
		}
		seed = s
	}
	t.Logf("chaos seed %d; replay: %s=%d go test -run '^%s$'", seed, ChaosSeedEnv, seed, t.Name())
	return seed
}

// Chaotic is the table.API Chaos returns. It is safe for concurrent use.
type Chaotic struct {
	seed int64
	api  table.API // where calls go: the fake, or ChaosOptions.API
	db   *DB       // the fake, nil when api is another store
	o    ChaosOptions
	lag  time.Duration

	mu       sync.Mutex
	calls    int
	counters map[string]int
	faults   []ChaosFault
}

var errNoChaos = errors.New("dynamotest: a Chaotic must be made by Chaos")

// Seed returns the seed the faults are drawn from.
func (c *Chaotic) Seed() int64 {
	if c == nil {
		return 0
	}
	return c.seed
}

// DB returns the fake behind c: its clock (Now, Advance), its streams, and
// reads that must see no faults (a test's own checks). It is nil when c
// injects faults in front of another store (ChaosOptions.API).
func (c *Chaotic) DB() *DB {
	if c == nil {
		return nil
	}
	return c.db
}

// Now is the time of the store behind c (table.ClockOf): the fake's, so a
// store built on c stamps, expires and leases by the fake's clock as it
// would on the fake itself; the wall clock in front of another store. A
// nil c says time.Now.
func (c *Chaotic) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	return table.ClockOf(c.api)()
}

// Lag returns the eventual consistency lag the fake runs with (0: none).
func (c *Chaotic) Lag() time.Duration {
	if c == nil {
		return 0
	}
	return c.lag
}

// Faults returns the faults injected so far, in the order of the calls.
// They are logged as they happen (a lost response once the call has
// run), so racing calls log out of their order: the log is put back in
// call order here.
func (c *Chaotic) Faults() []ChaosFault {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	out := append([]ChaosFault(nil), c.faults...)
	c.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Call < out[j].Call })
	return out
}

// Calls returns how many item calls went through c.
func (c *Chaotic) Calls() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// source is a random source for key under c's seed.
func (c *Chaotic) source(key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(uint64(c.seed), h.Sum64()))
}

// plan is what Chaos decided for one call.
type plan struct {
	n          int
	key, table string
	r          *rand.Rand
	kind       ChaosKind // "" for none
}

// decide numbers a call, keys it, and draws its clock jump (applied here,
// before the call) and its fault.
func (c *Chaotic) decide(op string, in any, batch int) plan {
	tables := requestTables(in)
	p := plan{}
	if len(tables) > 0 {
		p.table = tables[0]
	}
	rates := c.o.Rates
	if c.o.RatesFor != nil {
		rates = c.o.RatesFor(op, p.table, in)
	}
	c.mu.Lock()
	c.calls++
	p.n = c.calls
	base := op + " " + p.table
	if c.o.ByRequest {
		base = op + " " + requestHash(in)
	}
	c.counters[base]++
	p.key = base + " #" + strconv.Itoa(c.counters[base])
	c.mu.Unlock()

	p.r = c.source(p.key)
	if p.r.Float64() < rates.ClockJump && c.db != nil {
		d := time.Duration(1+p.r.Int64N(int64(c.o.MaxJump/time.Millisecond))) * time.Millisecond
		c.db.Advance(d)
		c.log(p, op, ChaosClockJump, "+"+d.String())
	}
	u := p.r.Float64()
	for _, k := range []struct {
		kind ChaosKind
		rate float64
		ok   bool
	}{
		{ChaosThrottle, rates.Throttle, true},
		{ChaosLostBefore, rates.LostBefore, true},
		{ChaosLostAfter, rates.LostAfter, true},
		{ChaosUnprocessed, rates.Unprocessed, batch > 1},
		{ChaosConflict, rates.Conflict, conflicts(op)},
	} {
		if u < k.rate {
			if k.ok {
				p.kind = k.kind
			}
			break
		}
		u -= k.rate
	}
	return p
}

// conflicts reports whether op can fail with a transaction conflict.
func conflicts(op string) bool {
	switch op {
	case "TransactWriteItems", "TransactGetItems", "PutItem", "UpdateItem", "DeleteItem":
		return true
	}
	return false
}

// requestHash identifies a request by its content: its DynamoDB JSON
// (values with their types: {"S":"1"} is not {"N":"1"}), read back and
// written again by encoding/json, which writes map keys in order, so equal
// requests hash alike and different ones apart.
func requestHash(in any) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(wire.Marshal(in)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "unhashable"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "unhashable"
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

func (c *Chaotic) log(p plan, op string, kind ChaosKind, detail string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = append(c.faults, ChaosFault{Call: p.n, Key: p.key, Op: op, Table: p.table, Kind: kind, Detail: detail})
}

// tag is what an injected error adds to its message: where to replay it.
func (c *Chaotic) tag(p plan) string {
	return fmt.Sprintf(" (dynamotest chaos seed %d, call %d %s)", c.seed, p.n, p.key)
}

// lost is the error of a lost response.
func (c *Chaotic) lost(p plan) error {
	return fmt.Errorf("%w%s", ErrResponseLost, c.tag(p))
}

// inject runs one call under its plan: the faults every operation shares
// (throttle, lost responses, a single write's conflict); unprocessed items
// and a transaction's conflict are the batch's and the transaction's own
// calls (chaosBatchWrite, chaosBatchGet, chaosTransact).
func inject[I, O any](c *Chaotic, ctx context.Context, op string, in *I, batch int,
	call func(context.Context, *I, ...func(*dynamodb.Options)) (*O, error), opts []func(*dynamodb.Options),
	own func(plan) (*O, error, bool)) (*O, error) {
	if c == nil || c.api == nil {
		return nil, errNoChaos
	}
	p := c.decide(op, orEmpty(in), batch)
	switch p.kind {
	case "":
		return call(ctx, in, opts...)
	case ChaosThrottle:
		c.log(p, op, p.kind, "")
		return nil, &types.ProvisionedThroughputExceededException{Message: aws.String(
			"The level of configured provisioned throughput for the table was exceeded." + c.tag(p))}
	case ChaosLostBefore:
		c.log(p, op, p.kind, "")
		return nil, c.lost(p)
	case ChaosLostAfter:
		_, err := call(ctx, in, opts...)
		detail := "applied"
		if err != nil {
			detail = "refused: " + errorText(err)
		}
		c.log(p, op, p.kind, detail)
		return nil, c.lost(p)
	}
	if own != nil {
		if out, err, done := own(p); done {
			return out, err
		}
	}
	// A conflict of a single-item write.
	c.log(p, op, ChaosConflict, "")
	return nil, &types.TransactionConflictException{Message: aws.String("Transaction is ongoing for the item" + c.tag(p))}
}

// chaosTransact cancels a transaction of n actions with a conflict on one.
func chaosTransact[O any](c *Chaotic, p plan, op string, n int) (*O, error, bool) {
	if p.kind != ChaosConflict || n == 0 {
		return nil, nil, false
	}
	at := p.r.IntN(n)
	reasons := make([]types.CancellationReason, n)
	codes := make([]string, n)
	for i := range reasons {
		codes[i] = "None"
		reasons[i] = types.CancellationReason{Code: aws.String("None")}
	}
	codes[at] = "TransactionConflict"
	reasons[at] = types.CancellationReason{Code: aws.String("TransactionConflict"),
		Message: aws.String("Transaction is ongoing for the item")}
	c.log(p, op, ChaosConflict, fmt.Sprintf("action %d of %d", at+1, n))
	return nil, &types.TransactionCanceledException{CancellationReasons: reasons, Message: aws.String(
		"Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]" + c.tag(p))}, true
}

// unprocessedKey carries, in a call's context, the fraction of a batch
// Chaos leaves unprocessed: the fake's batch operations validate the whole
// request first and then leave that fraction of each table's items, as an
// UnprocessedFraction fault does, for this call alone.
type unprocessedKey struct{}

func unprocessedFrom(ctx context.Context) *faultState {
	if ctx == nil {
		return nil
	}
	f, _ := ctx.Value(unprocessedKey{}).(*faultState)
	return f
}

// chaosBatch runs a batch of n items with a drawn part of it left
// unprocessed (between 1 and n-1 of n, as a fraction of each table's
// items), and logs how many were. The fake checks the whole request and
// then leaves that part (unprocessedKey); another store is sent the part
// it processes (split), and the rest is added to its answer.
func chaosBatch[I, O any](c *Chaotic, ctx context.Context, p plan, op string, in *I, n int,
	call func(context.Context, *I, ...func(*dynamodb.Options)) (*O, error), opts []func(*dynamodb.Options),
	split func(in *I, fraction float64) (*I, func(*O)), left func(*O) int) (*O, error, bool) {
	if p.kind != ChaosUnprocessed {
		return nil, nil, false
	}
	k := 1 + p.r.IntN(n-1)
	fraction := float64(k) / float64(n)
	var out *O
	var err error
	if _, isFake := c.api.(*DB); isFake {
		out, err = call(context.WithValue(ctx, unprocessedKey{}, &faultState{Fault: Fault{Unprocessed: fraction}}), in, opts...)
	} else {
		part, addRest := split(in, fraction)
		if out, err = call(ctx, part, opts...); err == nil {
			addRest(out)
		}
	}
	if err == nil {
		if got := left(out); got > 0 {
			c.log(p, op, ChaosUnprocessed, fmt.Sprintf("%d of %d items", got, n))
		}
	}
	return out, err, true
}

// splitWrites is the part of a batch write a store processes at fraction,
// and a function adding the rest to its answer: the fake's rule
// (faultState.owe, tables in name order) decides how many of each table's
// last items are left, so a seed leaves the same items in front of any
// store. A table left whole is not sent: DynamoDB refuses an empty list.
func splitWrites(in *dynamodb.BatchWriteItemInput, fraction float64) (*dynamodb.BatchWriteItemInput, func(*dynamodb.BatchWriteItemOutput)) {
	part := *in
	part.RequestItems = map[string][]types.WriteRequest{}
	rest := map[string][]types.WriteRequest{}
	f := &faultState{Fault: Fault{Unprocessed: fraction}}
	for _, name := range sortedNames(in.RequestItems) {
		ws := in.RequestItems[name]
		keep := len(ws) - f.owe(len(ws))
		if keep > 0 {
			part.RequestItems[name] = ws[:keep]
		}
		if keep < len(ws) {
			rest[name] = ws[keep:]
		}
	}
	return &part, func(out *dynamodb.BatchWriteItemOutput) {
		if out.UnprocessedItems == nil {
			out.UnprocessedItems = map[string][]types.WriteRequest{}
		}
		for name, ws := range rest {
			out.UnprocessedItems[name] = append(out.UnprocessedItems[name], ws...)
		}
	}
}

// splitGets is splitWrites for a batch read.
func splitGets(in *dynamodb.BatchGetItemInput, fraction float64) (*dynamodb.BatchGetItemInput, func(*dynamodb.BatchGetItemOutput)) {
	part := *in
	part.RequestItems = map[string]types.KeysAndAttributes{}
	rest := map[string]types.KeysAndAttributes{}
	f := &faultState{Fault: Fault{Unprocessed: fraction}}
	for _, name := range sortedNames(in.RequestItems) {
		ka := in.RequestItems[name]
		keep := len(ka.Keys) - f.owe(len(ka.Keys))
		if keep > 0 {
			sent := ka
			sent.Keys = ka.Keys[:keep]
			part.RequestItems[name] = sent
		}
		if keep < len(ka.Keys) {
			left := ka
			left.Keys = ka.Keys[keep:]
			rest[name] = left
		}
	}
	return &part, func(out *dynamodb.BatchGetItemOutput) {
		if out.UnprocessedKeys == nil {
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{}
		}
		for name, ka := range rest {
			if have, ok := out.UnprocessedKeys[name]; ok {
				ka.Keys = append(have.Keys, ka.Keys...)
			}
			out.UnprocessedKeys[name] = ka
		}
	}
}
