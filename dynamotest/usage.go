package dynamotest

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Usage is what a run of DynamoDB requests cost: what a store call sends
// and what it is billed on AWS.
type Usage struct {
	// Requests is how many requests were sent, retries included.
	Requests int
	// RoundTrips is how many requests were sent one after another: the
	// longest chain of requests each sent after the one before had
	// answered. Requests that overlap in time count once, so two pages
	// read concurrently are one round trip, and ten batches sent four at a
	// time are three.
	RoundTrips int
	// ReadUnits and WriteUnits are the capacity consumed by DynamoDB's
	// billing rules, failed conditional writes included.
	ReadUnits, WriteUnits float64
	// Calls counts the requests per operation ("PutItem", "Query").
	Calls map[string]int
}

// Add returns u and o together: the usage of two runs one after the
// other.
func (u Usage) Add(o Usage) Usage {
	sum := Usage{
		Requests: u.Requests + o.Requests, RoundTrips: u.RoundTrips + o.RoundTrips,
		ReadUnits: u.ReadUnits + o.ReadUnits, WriteUnits: u.WriteUnits + o.WriteUnits,
	}
	if len(u.Calls)+len(o.Calls) > 0 {
		sum.Calls = maps.Clone(u.Calls)
		if sum.Calls == nil {
			sum.Calls = map[string]int{}
		}
		for op, n := range o.Calls {
			sum.Calls[op] += n
		}
	}
	return sum
}

// Within reports whether u sends no more requests and round trips, and
// is billed no more read and write units, than max (Calls aside).
func (u Usage) Within(max Usage) bool {
	return u.Requests <= max.Requests && u.RoundTrips <= max.RoundTrips &&
		u.ReadUnits <= max.ReadUnits && u.WriteUnits <= max.WriteUnits
}

// Report reports u per operation of b (u divided by b.N), as the
// benchmark's requests/op, round-trips/op, RCU/op and WCU/op, which
// benchstat compares like ns/op. Call it after the benchmark's loop.
func (u Usage) Report(b *testing.B) {
	if b == nil || b.N == 0 {
		return
	}
	n := float64(b.N)
	b.ReportMetric(float64(u.Requests)/n, "requests/op")
	b.ReportMetric(float64(u.RoundTrips)/n, "round-trips/op")
	b.ReportMetric(u.ReadUnits/n, "RCU/op")
	b.ReportMetric(u.WriteUnits/n, "WCU/op")
}

// ErrNoAPI is returned by every call of a Meter that has no API to call
// (one not made by NewMeter, or made from a nil API).
var ErrNoAPI = errors.New("dynamotest: Meter has no API to send requests to (use NewMeter)")

// MeterOptions configure a Meter.
type MeterOptions struct {
	// Latency is added to every request, after the API has answered, as
	// the network adds it. In process the fake answers in microseconds, so
	// requests a caller sends concurrently may not overlap in time and
	// would count as separate round trips; with a latency they overlap as
	// against DynamoDB. Inside a testing/synctest bubble the wait takes no
	// real time and round trips are exact. 0 adds nothing.
	Latency time.Duration
}

// Meter is a table.API that passes every request to another API and
// measures what they cost (Usage). Build a store on a Meter to see what
// its calls send and what they would be billed on AWS:
//
//	m := dynamotest.NewMeter(db)
//	store, _ := jobs.NewStore(m, blobs)
//	u := m.Measure(func() { store.Create(ctx, in) })
//
// On the fake (a *DB, or any wrapper that passes the call's context on)
// the capacity is the fake's own accounting of each request, failed
// conditional writes included. On another API (DynamoDB, DynamoDB Local,
// an HTTP client) the Meter asks each request for its consumed capacity
// (ReturnConsumedCapacity TOTAL) and reads it from the answer, hiding it
// again from a caller who did not ask; a request that fails reports none
// there. A Meter is safe for concurrent use.
type Meter struct {
	api     table.API
	latency time.Duration
	// askCapacity: the API is not the fake itself, so the capacity comes
	// from the answers.
	askCapacity bool

	mu       sync.Mutex
	epoch    int // Reset's count: a request sent before a Reset is not counted after it
	requests int
	calls    map[string]int
	read     float64
	write    float64
	deepest  int // the longest chain of requests that have answered
}

var _ table.API = (*Meter)(nil)

// NewMeter returns a Meter sending requests to api.
func NewMeter(api table.API, opts ...func(*MeterOptions)) *Meter {
	var o MeterOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	_, fake := api.(*DB)
	return &Meter{api: api, latency: max(o.Latency, 0), askCapacity: !fake}
}

// Now is the time of the API behind m (table.ClockOf): a store on a Meter
// over the fake keeps the fake's clock. A nil m says time.Now.
func (m *Meter) Now() time.Time {
	if m == nil {
		return time.Now()
	}
	return table.ClockOf(m.api)()
}

// Usage returns what the requests answered since NewMeter or Reset cost.
// A request still waiting for its answer counts in Requests only.
func (m *Meter) Usage() Usage {
	if m == nil {
		return Usage{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return Usage{
		Requests: m.requests, RoundTrips: m.deepest,
		ReadUnits: m.read, WriteUnits: m.write,
		Calls: maps.Clone(m.calls),
	}
}

// Reset sets the Meter's usage to zero.
func (m *Meter) Reset() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.epoch++
	m.requests, m.calls, m.read, m.write, m.deepest = 0, nil, 0, 0, 0
}

// Measure resets the Meter, runs fn and returns what the requests it sent
// cost: the usage of one store call. Requests other goroutines send
// through the Meter meanwhile count too.
func (m *Meter) Measure(fn func()) Usage {
	m.Reset()
	if fn != nil {
		fn()
	}
	return m.Usage()
}

// meteredCall collects the capacity the fake records for one request. It
// travels in the request's context, so the fake (record) can find it; a
// Meter wrapping another Meter chains its call to the outer one's.
type meteredCall struct {
	parent      *meteredCall
	mu          sync.Mutex
	read, write float64
	recorded    bool
}

type meteredCallKey struct{}

// meteredCallOf is the call ctx carries, or nil.
func meteredCallOf(ctx context.Context) *meteredCall {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(meteredCallKey{}).(*meteredCall)
	return c
}

// add records capacity consumed by the call and every call it is part of.
func (c *meteredCall) add(t Capacity) {
	for ; c != nil; c = c.parent {
		c.mu.Lock()
		c.read += t.ReadUnits
		c.write += t.WriteUnits
		c.recorded = true
		c.mu.Unlock()
	}
}

// request is one request in flight through a Meter.
type request struct {
	ctx   context.Context
	call  *meteredCall
	depth int
	epoch int
}

// begin counts a request of op and returns it, with the context to send
// it with.
func (m *Meter) begin(ctx context.Context, op string) *request {
	if ctx == nil {
		ctx = context.Background()
	}
	call := &meteredCall{parent: meteredCallOf(ctx)}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	if m.calls == nil {
		m.calls = map[string]int{}
	}
	m.calls[op]++
	return &request{
		ctx:   context.WithValue(ctx, meteredCallKey{}, call),
		call:  call,
		depth: m.deepest + 1, // after every request that has answered
		epoch: m.epoch,
	}
}

// end waits the Meter's latency and counts what r consumed: what the fake
// recorded for it or, from another API, what reported says it consumed, as
// read or write units as op reads or writes.
func (m *Meter) end(r *request, writes bool, reported ...*types.ConsumedCapacity) {
	if m.latency > 0 {
		t := time.NewTimer(m.latency)
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
		}
	}
	read, write := r.call.consumed()
	if !r.call.recorded {
		for _, c := range reported {
			if c == nil || c.CapacityUnits == nil {
				continue
			}
			if writes {
				write += *c.CapacityUnits
			} else {
				read += *c.CapacityUnits
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.epoch != m.epoch {
		return
	}
	m.deepest = max(m.deepest, r.depth)
	m.read += read
	m.write += write
}

func (c *meteredCall) consumed() (read, write float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read, c.write
}

// send sends one request through m to its API: op is the operation's
// name, call the table.API method (a method expression such as
// table.API.PutItem).
func send[I, O any](m *Meter, ctx context.Context, op string, call func(table.API, context.Context, *I, ...func(*dynamodb.Options)) (*O, error), in *I, optFns []func(*dynamodb.Options)) (*O, error) {
	if m == nil || m.api == nil {
		return nil, ErrNoAPI
	}
	r := m.begin(ctx, op)
	asked := m.askCapacity && in != nil && askCapacity(&in)
	out, err := call(m.api, r.ctx, in, optFns...)
	m.end(r, writeOps[op], answered(out, asked)...)
	return out, err
}

// writeOps are the operations that consume write units.
var writeOps = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true}

// askCapacity points *in at a copy of the input asking for its consumed
// capacity (ReturnConsumedCapacity TOTAL), when the input can ask and its
// caller did not; it reports whether it did. The caller's input is left
// as it was.
func askCapacity[I any](in **I) bool {
	v := reflect.ValueOf(*in).Elem()
	f := v.FieldByName("ReturnConsumedCapacity")
	if !f.IsValid() {
		return false
	}
	if mode := types.ReturnConsumedCapacity(f.String()); mode != "" && mode != types.ReturnConsumedCapacityNone {
		return false
	}
	cp := new(I)
	reflect.ValueOf(cp).Elem().Set(v)
	reflect.ValueOf(cp).Elem().FieldByName("ReturnConsumedCapacity").SetString(string(types.ReturnConsumedCapacityTotal))
	*in = cp
	return true
}

// answered is the consumed capacity an output reports (one for a single
// request, one per table for a batch or transaction); hide removes it
// from the output, for a caller who did not ask for it.
func answered[O any](out *O, hide bool) []*types.ConsumedCapacity {
	if out == nil {
		return nil
	}
	f := reflect.ValueOf(out).Elem().FieldByName("ConsumedCapacity")
	if !f.IsValid() {
		return nil
	}
	var cs []*types.ConsumedCapacity
	switch c := f.Interface().(type) {
	case *types.ConsumedCapacity:
		cs = []*types.ConsumedCapacity{c}
	case []types.ConsumedCapacity:
		for i := range c {
			cs = append(cs, &c[i])
		}
	}
	if hide {
		f.SetZero()
	}
	return cs
}

// The table.API methods: each sends its request to the Meter's API and
// counts it.

func (m *Meter) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return send(m, ctx, "CreateTable", table.API.CreateTable, in, optFns)
}

func (m *Meter) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return send(m, ctx, "DeleteTable", table.API.DeleteTable, in, optFns)
}

func (m *Meter) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return send(m, ctx, "DescribeTable", table.API.DescribeTable, in, optFns)
}

func (m *Meter) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return send(m, ctx, "ListTables", table.API.ListTables, in, optFns)
}

func (m *Meter) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return send(m, ctx, "UpdateTimeToLive", table.API.UpdateTimeToLive, in, optFns)
}

func (m *Meter) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return send(m, ctx, "DescribeTimeToLive", table.API.DescribeTimeToLive, in, optFns)
}

func (m *Meter) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return send(m, ctx, "UpdateTable", table.API.UpdateTable, in, optFns)
}

func (m *Meter) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return send(m, ctx, "UpdateContinuousBackups", table.API.UpdateContinuousBackups, in, optFns)
}

func (m *Meter) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return send(m, ctx, "DescribeContinuousBackups", table.API.DescribeContinuousBackups, in, optFns)
}

func (m *Meter) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	return send(m, ctx, "ListTagsOfResource", table.API.ListTagsOfResource, in, optFns)
}

func (m *Meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return send(m, ctx, "GetItem", table.API.GetItem, in, optFns)
}

func (m *Meter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return send(m, ctx, "PutItem", table.API.PutItem, in, optFns)
}

func (m *Meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return send(m, ctx, "UpdateItem", table.API.UpdateItem, in, optFns)
}

func (m *Meter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return send(m, ctx, "DeleteItem", table.API.DeleteItem, in, optFns)
}

func (m *Meter) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return send(m, ctx, "Query", table.API.Query, in, optFns)
}

func (m *Meter) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return send(m, ctx, "Scan", table.API.Scan, in, optFns)
}

func (m *Meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return send(m, ctx, "BatchGetItem", table.API.BatchGetItem, in, optFns)
}

func (m *Meter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return send(m, ctx, "BatchWriteItem", table.API.BatchWriteItem, in, optFns)
}

func (m *Meter) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return send(m, ctx, "TransactGetItems", table.API.TransactGetItems, in, optFns)
}

func (m *Meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return send(m, ctx, "TransactWriteItems", table.API.TransactWriteItems, in, optFns)
}
