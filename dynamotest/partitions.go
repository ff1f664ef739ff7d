package dynamotest

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// DynamoDB's per-partition limits (developer guide, "Best practices for
// designing and using partition keys effectively"): one partition key
// value is served by one partition, which serves at most 3,000 read units
// and 1,000 write units a second, in both capacity modes; and DynamoDB
// "currently retains up to 5 minutes (300 seconds) of unused read and
// write capacity" as burst capacity ("Using burst capacity effectively").
const (
	DefaultPartitionReadLimit  = 3000
	DefaultPartitionWriteLimit = 1000
	DefaultPartitionBurst      = 300 * time.Second
)

// PartitionLimits configures LimitPartitions.
type PartitionLimits struct {
	// ReadPerSecond and WritePerSecond are one partition key value's
	// limits in read and write units; 0 means DynamoDB's 3,000 and 1,000.
	ReadPerSecond, WritePerSecond float64
	// Burst is how much unused capacity a partition keeps, as time at
	// its limit; 0 means DynamoDB's 300 seconds, negative none (AWS's
	// knowledge center warns burst capacity is best effort and cannot be
	// relied on for a hot partition: set -1 to model that).
	Burst time.Duration
}

// PartitionLimiter is a table.API over a DB that simulates DynamoDB's
// per-partition throughput limits on the DB's clock: each partition key
// value of a table, and each of its GSIs, has a read and a write token
// bucket that fills at the limit and holds up to Burst of unused capacity.
// A bucket starts with one second of capacity.
//
// As DynamoDB does, a request is admitted while every bucket it draws on
// has capacity left, and is charged what it consumed afterwards (a large
// request may leave a bucket in debt, which the next seconds repay). A
// request drawing on an exhausted bucket fails, changing nothing, with the
// error DynamoDB returns for the table's billing mode:
// *types.ProvisionedThroughputExceededException for PROVISIONED tables and
// *types.ThrottlingException for PAY_PER_REQUEST ones, each carrying a
// ThrottlingReason of the form Table|Index, Read|Write,
// KeyRangeThroughputExceeded with the table's or index's ARN. In a
// transaction the request is cancelled with ThrottlingError as the
// throttled actions' reason; in a batch the throttled items come back
// unprocessed, and a batch with nothing admitted fails as a single write
// does.
//
// What a request draws on: a write, its item's partition in the table and,
// per GSI, the partition its entry leaves and the one it enters (their
// values read from the item before and after, so an entry that moves
// charges both); a GetItem, the item's partition; a Query, the partition
// its key condition names, charged the capacity the fake reports. A Scan
// reads every partition in turn and is not limited. Requests through the
// limiter are serialized, so what a write charges is exactly what it did.
// The limiter changes nothing about the DB itself: other callers of the DB
// bypass it.
type PartitionLimiter struct {
	db     *DB
	limits PartitionLimits

	mu        sync.Mutex
	buckets   map[partitionID]*bucket
	throttles map[partitionID]*PartitionThrottle
}

// partitionID names one partition key value of a table or index, for
// reads or writes.
type partitionID struct {
	table, index, value string
	write               bool
}

type bucket struct {
	tokens float64
	at     time.Time
}

// PartitionThrottle counts the requests refused because one partition key
// value was over its limit.
type PartitionThrottle struct {
	Table string
	Index string // "" for the table itself
	// Partition is the partition key value, as a string (numbers in
	// DynamoDB's decimal form, binary base64).
	Partition     string
	Reads, Writes int
}

var _ table.API = (*PartitionLimiter)(nil)

// LimitPartitions returns a table.API over db that throttles each
// partition key value at DynamoDB's limits (see PartitionLimiter). A nil
// db is refused with a *table.InputError, as is a negative limit.
func LimitPartitions(db *DB, opts ...func(*PartitionLimits)) (*PartitionLimiter, error) {
	if db == nil {
		return nil, &table.InputError{Field: "db", Value: "nil", Reason: "a partition limiter needs a DB"}
	}
	var o PartitionLimits
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.ReadPerSecond < 0 || o.WritePerSecond < 0 {
		return nil, &table.InputError{Field: "PartitionLimits", Value: fmt.Sprintf("%+v", o), Reason: "limits must not be negative"}
	}
	if o.ReadPerSecond == 0 {
		o.ReadPerSecond = DefaultPartitionReadLimit
	}
	if o.WritePerSecond == 0 {
		o.WritePerSecond = DefaultPartitionWriteLimit
	}
	if o.Burst == 0 {
		o.Burst = DefaultPartitionBurst
	}
	return &PartitionLimiter{db: db, limits: o, buckets: map[partitionID]*bucket{}, throttles: map[partitionID]*PartitionThrottle{}}, nil
}

// Throttles lists the partitions that refused requests since
// LimitPartitions or ResetThrottles, ordered by table, index and value.
func (l *PartitionLimiter) Throttles() []PartitionThrottle {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]PartitionThrottle, 0, len(l.throttles))
	for _, t := range l.throttles {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		return a.Partition < b.Partition
	})
	return out
}

// ResetThrottles forgets the throttles counted so far (the buckets keep
// their state).
func (l *PartitionLimiter) ResetThrottles() {
	l.mu.Lock()
	l.throttles = map[partitionID]*PartitionThrottle{}
	l.mu.Unlock()
}

// Credit reports the capacity units partition value of index ("" for the
// table) in tableName has left for reads or writes at the DB's current
// time: what a request could draw now. A partition never used has one
// second's worth.
func (l *PartitionLimiter) Credit(tableName, index, value string, write bool) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bucketFor(partitionID{tableName, index, value, write}).tokens
}

// bucketFor returns p's bucket refilled to the DB's current time. The
// caller holds l.mu.
func (l *PartitionLimiter) bucketFor(p partitionID) *bucket {
	now := l.db.Now()
	rate := l.limits.ReadPerSecond
	if p.write {
		rate = l.limits.WritePerSecond
	}
	b := l.buckets[p]
	if b == nil {
		b = &bucket{tokens: rate, at: now}
		l.buckets[p] = b
		return b
	}
	if now.After(b.at) {
		b.tokens += rate * now.Sub(b.at).Seconds()
		b.at = now
	}
	limit := rate // at least one second's capacity, even with no burst
	if l.limits.Burst > 0 {
		limit = rate * l.limits.Burst.Seconds()
	}
	if b.tokens > limit {
		b.tokens = limit
	}
	return b
}

// charge is what one request draws on one partition.
type charge struct {
	p     partitionID
	units float64
}

// admit reports the charges whose buckets are exhausted, counting them as
// throttles. The caller holds l.mu.
func (l *PartitionLimiter) admit(cs []charge) []charge {
	var refused []charge
	for _, c := range cs {
		if l.bucketFor(c.p).tokens <= 0 {
			refused = append(refused, c)
		}
	}
	for _, c := range refused {
		t := l.throttles[partitionID{c.p.table, c.p.index, c.p.value, false}]
		if t == nil {
			t = &PartitionThrottle{Table: c.p.table, Index: c.p.index, Partition: c.p.value}
			l.throttles[partitionID{c.p.table, c.p.index, c.p.value, false}] = t
		}
		if c.p.write {
			t.Writes++
		} else {
			t.Reads++
		}
	}
	return refused
}

// debit charges what requests consumed. The caller holds l.mu.
func (l *PartitionLimiter) debit(cs []charge) {
	for _, c := range cs {
		l.bucketFor(c.p).tokens -= c.units
	}
}

// throttleError is the error DynamoDB returns for a request refused at
// the refused partitions, by the table's billing mode.
func (l *PartitionLimiter) throttleError(t *dbTable, refused []charge) error {
	reasons := make([]types.ThrottlingReason, 0, len(refused))
	index := false
	for _, c := range refused {
		kind, arn := "Table", t.arn
		if c.p.index != "" {
			kind, index = "Index", true
			if ix := t.index(c.p.index); ix != nil {
				arn = ix.arn
			}
		}
		op := "Read"
		if c.p.write {
			op = "Write"
		}
		reasons = append(reasons, types.ThrottlingReason{Reason: aws.String(kind + op + "KeyRangeThroughputExceeded"), Resource: aws.String(arn)})
	}
	if t.billingMode() == types.BillingModePayPerRequest {
		return &types.ThrottlingException{Message: aws.String(onDemandThrottleMessage(index)), ThrottlingReasons: reasons}
	}
	return &types.ProvisionedThroughputExceededException{Message: aws.String(provisionedThrottleMessage(index)), ThrottlingReasons: reasons}
}

// The messages DynamoDB sends with a throttle (as services report them:
// the on-demand wording points at hot keys).
func onDemandThrottleMessage(index bool) string {
	if index {
		return "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
	}
	return "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
}

func provisionedThrottleMessage(index bool) string {
	if index {
		return "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API"
	}
	return "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
}

func (t *dbTable) billingMode() types.BillingMode {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.billing
}

// partitionValue renders a key value as PartitionThrottle.Partition does.
func partitionValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(v.Value)
	}
	return ""
}

// writeCharges dry-runs w against the stored item (changing nothing) and
// returns what it would draw on: the table partition and the GSI
// partitions its entries leave and enter. factor is 2 in a transaction.
func writeCharges(w *writeOp, factor float64) []charge {
	t := w.t
	t.mu.Lock()
	o, err := w.evaluate()
	t.mu.Unlock()
	var oldItem map[string]types.AttributeValue
	oldSize := 0
	if o.old != nil {
		oldItem, oldSize = o.old.Item(), o.old.Size
	}
	pk := partitionValue(w.key[t.pk.name])
	units := writeUnits(max(oldSize, o.newSize))
	if err != nil || o.failed {
		units = failedCost(o)
	}
	cs := []charge{{partitionID{t.name, "", pk, true}, factor * units}}
	if err != nil || o.failed || w.kind == writeCheck {
		return cs
	}
	for _, ix := range t.indexes {
		if ix.local {
			continue // a local index lives in the item's own partition
		}
		from, inOld := indexKeyOf(ix, oldItem)
		to, inNew := indexKeyOf(ix, o.newItem)
		switch {
		case inOld && inNew && from == to:
			cs = append(cs, charge{partitionID{t.name, ix.name, to[0], true}, factor * entryUnits(ix, o.newItem)})
		case inOld && inNew && from[0] == to[0]: // the sort key moved: a delete and a put
			cs = append(cs, charge{partitionID{t.name, ix.name, to[0], true}, factor * (entryUnits(ix, oldItem) + entryUnits(ix, o.newItem))})
		default:
			if inOld {
				cs = append(cs, charge{partitionID{t.name, ix.name, from[0], true}, factor * entryUnits(ix, oldItem)})
			}
			if inNew {
				cs = append(cs, charge{partitionID{t.name, ix.name, to[0], true}, factor * entryUnits(ix, o.newItem)})
			}
		}
	}
	return cs
}

// indexKeyOf returns the item's partition and sort key values in ix, and
// whether the item has an entry there.
func indexKeyOf(ix *dbIndex, item map[string]types.AttributeValue) ([2]string, bool) {
	if item == nil {
		return [2]string{}, false
	}
	pk, ok := item[ix.pk.name]
	if !ok {
		return [2]string{}, false
	}
	var sk string
	if ix.sk.name != "" {
		v, ok := item[ix.sk.name]
		if !ok {
			return [2]string{}, false
		}
		sk = partitionValue(v)
	}
	return [2]string{partitionValue(pk), sk}, true
}

// entryUnits is the write units of an item's entry in ix: the projected
// attributes in 1 KB units.
func entryUnits(ix *dbIndex, item map[string]types.AttributeValue) float64 {
	if ix.keep == nil {
		return writeUnits(table.ItemSize(item))
	}
	kept := make(map[string]types.AttributeValue, len(ix.keep))
	for n, v := range item {
		if ix.keep[n] {
			kept[n] = v
		}
	}
	return writeUnits(table.ItemSize(kept))
}

// limitWrite runs a single-item write through the limiter.
func limitWrite[Out any](l *PartitionLimiter, name string, compile func(*dbTable) (*writeOp, error), call func() (Out, error)) (Out, error) {
	var zero Out
	t := l.db.table(name)
	if t == nil {
		return call()
	}
	w, err := compile(t)
	if err != nil {
		return call() // the DB reports the request's own error
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cs := writeCharges(w, 1)
	if refused := l.admit(cs); len(refused) > 0 {
		return zero, l.throttleError(t, refused)
	}
	out, err := call()
	if err == nil || isConditionFailed(err) {
		l.debit(cs)
	}
	return out, err
}

func isConditionFailed(err error) bool {
	_, ok := err.(*types.ConditionalCheckFailedException)
	return ok
}

// PutItem is DB.PutItem within the partition limits.
func (l *PartitionLimiter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in = orEmpty(in)
	return limitWrite(l, aws.ToString(in.TableName), func(t *dbTable) (*writeOp, error) {
		return t.putOp(in.Item, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	}, func() (*dynamodb.PutItemOutput, error) { return l.db.PutItem(ctx, in, opts...) })
}

// UpdateItem is DB.UpdateItem within the partition limits.
func (l *PartitionLimiter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in = orEmpty(in)
	return limitWrite(l, aws.ToString(in.TableName), func(t *dbTable) (*writeOp, error) {
		return t.keyOp(writeUpdate, in.Key, in.ConditionExpression, in.UpdateExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	}, func() (*dynamodb.UpdateItemOutput, error) { return l.db.UpdateItem(ctx, in, opts...) })
}

// DeleteItem is DB.DeleteItem within the partition limits.
func (l *PartitionLimiter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	in = orEmpty(in)
	return limitWrite(l, aws.ToString(in.TableName), func(t *dbTable) (*writeOp, error) {
		return t.keyOp(writeDelete, in.Key, in.ConditionExpression, nil, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	}, func() (*dynamodb.DeleteItemOutput, error) { return l.db.DeleteItem(ctx, in, opts...) })
}

// GetItem is DB.GetItem within the partition limits.
func (l *PartitionLimiter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in = orEmpty(in)
	t := l.db.table(aws.ToString(in.TableName))
	if t == nil {
		return l.db.GetItem(ctx, in, opts...)
	}
	p := partitionID{t.name, "", partitionValue(in.Key[t.pk.name]), false}
	l.mu.Lock()
	defer l.mu.Unlock()
	if refused := l.admit([]charge{{p: p}}); len(refused) > 0 {
		return nil, l.throttleError(t, refused)
	}
	out, err := l.db.GetItem(ctx, in, opts...)
	if err == nil {
		l.debit([]charge{{p, readUnits(table.ItemSize(out.Item), aws.ToBool(in.ConsistentRead))}})
	}
	return out, err
}

// equality finds "name = :value" (either way round) in a key condition.
var equality = regexp.MustCompile(`([#:]?[A-Za-z0-9_.\-]+)\s*=\s*([#:]?[A-Za-z0-9_.\-]+)`)

// queryPartition is the partition key value a Query's key condition fixes.
func queryPartition(in *dynamodb.QueryInput, pkName string) (string, bool) {
	if c, ok := in.KeyConditions[pkName]; ok && len(c.AttributeValueList) == 1 {
		return partitionValue(c.AttributeValueList[0]), true
	}
	resolve := func(tok string) string {
		if strings.HasPrefix(tok, "#") {
			return in.ExpressionAttributeNames[tok]
		}
		return tok
	}
	for _, m := range equality.FindAllStringSubmatch(aws.ToString(in.KeyConditionExpression), -1) {
		name, val := m[1], m[2]
		if strings.HasPrefix(name, ":") {
			name, val = val, name
		}
		if resolve(name) == pkName && strings.HasPrefix(val, ":") {
			if v, ok := in.ExpressionAttributeValues[val]; ok {
				return partitionValue(v), true
			}
		}
	}
	return "", false
}

// Query is DB.Query within the partition limits: it draws on the
// partition its key condition names, charged the capacity it consumed.
func (l *PartitionLimiter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in = orEmpty(in)
	t := l.db.table(aws.ToString(in.TableName))
	if t == nil {
		return l.db.Query(ctx, in, opts...)
	}
	index, pkName := aws.ToString(in.IndexName), t.pk.name
	if index != "" {
		ix := t.index(index)
		if ix == nil {
			return l.db.Query(ctx, in, opts...)
		}
		pkName = ix.pk.name
		if ix.local {
			index = "" // a local index lives in the table's partition
		}
	}
	value, ok := queryPartition(in, pkName)
	if !ok {
		return l.db.Query(ctx, in, opts...)
	}
	p := partitionID{t.name, index, value, false}
	l.mu.Lock()
	defer l.mu.Unlock()
	if refused := l.admit([]charge{{p: p}}); len(refused) > 0 {
		return nil, l.throttleError(t, refused)
	}
	// Ask for the consumed capacity on a copy, and hand the caller only
	// what it asked for.
	own := *in
	asked := in.ReturnConsumedCapacity == types.ReturnConsumedCapacityTotal || in.ReturnConsumedCapacity == types.ReturnConsumedCapacityIndexes
	if !asked {
		own.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	out, err := l.db.Query(ctx, &own, opts...)
	if err != nil {
		return out, err
	}
	if out.ConsumedCapacity != nil {
		l.debit([]charge{{p, aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)}})
		if !asked {
			out.ConsumedCapacity = nil
		}
	}
	return out, nil
}

// TransactWriteItems is DB.TransactWriteItems within the partition
// limits: a throttled action cancels the transaction with ThrottlingError
// as its reason ("None" for the others), and nothing is written.
func (l *PartitionLimiter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	in = orEmpty(in)
	ws := make([]*writeOp, 0, len(in.TransactItems))
	for _, it := range in.TransactItems {
		w, err := l.compileTxWrite(it)
		if w == nil || err != nil {
			return l.db.TransactWriteItems(ctx, in, opts...) // the DB reports the request's own error
		}
		ws = append(ws, w)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var all []charge
	reasons := make([]types.CancellationReason, len(ws))
	throttled := false
	for i, w := range ws {
		cs := writeCharges(w, 2) // transactional writes cost double
		reasons[i] = types.CancellationReason{Code: aws.String("None")}
		if refused := l.admit(cs); len(refused) > 0 {
			throttled = true
			index := false
			for _, c := range refused {
				index = index || c.p.index != ""
			}
			msg := provisionedThrottleMessage(index)
			if w.t.billingMode() == types.BillingModePayPerRequest {
				msg = onDemandThrottleMessage(index)
			}
			reasons[i] = types.CancellationReason{Code: aws.String("ThrottlingError"), Message: aws.String(msg)}
		}
		all = append(all, cs...)
	}
	if throttled {
		return nil, txCanceled(reasons)
	}
	out, err := l.db.TransactWriteItems(ctx, in, opts...)
	if err == nil {
		l.debit(all)
	}
	return out, err
}

// compileTxWrite compiles one action of a transaction, or returns nil when
// its table is missing or the action is malformed.
func (l *PartitionLimiter) compileTxWrite(it types.TransactWriteItem) (*writeOp, error) {
	switch {
	case it.Put != nil:
		if t := l.db.table(aws.ToString(it.Put.TableName)); t != nil {
			return t.putOp(it.Put.Item, it.Put.ConditionExpression, it.Put.ExpressionAttributeNames, it.Put.ExpressionAttributeValues)
		}
	case it.Update != nil:
		if t := l.db.table(aws.ToString(it.Update.TableName)); t != nil {
			return t.keyOp(writeUpdate, it.Update.Key, it.Update.ConditionExpression, it.Update.UpdateExpression, it.Update.ExpressionAttributeNames, it.Update.ExpressionAttributeValues)
		}
	case it.Delete != nil:
		if t := l.db.table(aws.ToString(it.Delete.TableName)); t != nil {
			return t.keyOp(writeDelete, it.Delete.Key, it.Delete.ConditionExpression, nil, it.Delete.ExpressionAttributeNames, it.Delete.ExpressionAttributeValues)
		}
	case it.ConditionCheck != nil:
		if t := l.db.table(aws.ToString(it.ConditionCheck.TableName)); t != nil {
			return t.keyOp(writeCheck, it.ConditionCheck.Key, it.ConditionCheck.ConditionExpression, nil, it.ConditionCheck.ExpressionAttributeNames, it.ConditionCheck.ExpressionAttributeValues)
		}
	}
	return nil, nil
}

// BatchWriteItem is DB.BatchWriteItem within the partition limits: the
// requests whose partitions are exhausted come back in UnprocessedItems;
// when none is admitted the batch fails as a single write would.
func (l *PartitionLimiter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	in = orEmpty(in)
	type entry struct {
		w *writeOp
		r types.WriteRequest
	}
	entries := map[string][]entry{}
	for name, reqs := range in.RequestItems {
		t := l.db.table(name)
		if t == nil {
			return l.db.BatchWriteItem(ctx, in, opts...)
		}
		for _, r := range reqs {
			var (
				w   *writeOp
				err error
			)
			switch {
			case r.PutRequest != nil:
				w, err = t.putOp(r.PutRequest.Item, nil, nil, nil)
			case r.DeleteRequest != nil:
				w, err = t.keyOp(writeDelete, r.DeleteRequest.Key, nil, nil, nil, nil)
			}
			if w == nil || err != nil {
				return l.db.BatchWriteItem(ctx, in, opts...)
			}
			entries[name] = append(entries[name], entry{w, r})
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	admitted := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{},
		ReturnConsumedCapacity: in.ReturnConsumedCapacity, ReturnItemCollectionMetrics: in.ReturnItemCollectionMetrics}
	unprocessed := map[string][]types.WriteRequest{}
	var all, refusedAll []charge
	var first *dbTable
	for name, es := range entries {
		for _, e := range es {
			cs := writeCharges(e.w, 1)
			if refused := l.admit(cs); len(refused) > 0 {
				unprocessed[name] = append(unprocessed[name], e.r)
				refusedAll = append(refusedAll, refused...)
				first = e.w.t
				continue
			}
			admitted.RequestItems[name] = append(admitted.RequestItems[name], e.r)
			all = append(all, cs...)
		}
	}
	if len(unprocessed) == 0 {
		out, err := l.db.BatchWriteItem(ctx, in, opts...)
		if err == nil {
			l.debit(all)
		}
		return out, err
	}
	if len(admitted.RequestItems) == 0 {
		return nil, l.throttleError(first, refusedAll)
	}
	out, err := l.db.BatchWriteItem(ctx, admitted, opts...)
	if err != nil {
		return out, err
	}
	l.debit(all)
	if out.UnprocessedItems == nil {
		out.UnprocessedItems = map[string][]types.WriteRequest{}
	}
	for name, rs := range unprocessed {
		out.UnprocessedItems[name] = append(out.UnprocessedItems[name], rs...)
	}
	return out, nil
}

// BatchGetItem is DB.BatchGetItem within the partition limits: keys whose
// partitions are exhausted come back in UnprocessedKeys; when none is
// admitted the batch fails.
func (l *PartitionLimiter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	in = orEmpty(in)
	l.mu.Lock()
	defer l.mu.Unlock()
	admitted := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	unprocessed := map[string]types.KeysAndAttributes{}
	var refusedAll []charge
	var first *dbTable
	for name, ka := range in.RequestItems {
		t := l.db.table(name)
		if t == nil {
			return l.db.BatchGetItem(ctx, in, opts...)
		}
		keep, skip := ka, ka
		keep.Keys, skip.Keys = nil, nil
		for _, k := range ka.Keys {
			p := partitionID{t.name, "", partitionValue(k[t.pk.name]), false}
			if refused := l.admit([]charge{{p: p}}); len(refused) > 0 {
				skip.Keys = append(skip.Keys, k)
				refusedAll, first = append(refusedAll, refused...), t
				continue
			}
			keep.Keys = append(keep.Keys, k)
		}
		if len(keep.Keys) > 0 {
			admitted.RequestItems[name] = keep
		}
		if len(skip.Keys) > 0 {
			unprocessed[name] = skip
		}
	}
	if len(unprocessed) > 0 && len(admitted.RequestItems) == 0 {
		return nil, l.throttleError(first, refusedAll)
	}
	req := in
	if len(unprocessed) > 0 {
		req = admitted
	}
	out, err := l.db.BatchGetItem(ctx, req, opts...)
	if err != nil {
		return out, err
	}
	for name, items := range out.Responses {
		t := l.db.table(name)
		if t == nil {
			continue
		}
		consistent := aws.ToBool(req.RequestItems[name].ConsistentRead)
		for _, it := range items {
			l.debit([]charge{{partitionID{t.name, "", partitionValue(it[t.pk.name]), false}, readUnits(table.ItemSize(it), consistent)}})
		}
	}
	if len(unprocessed) > 0 {
		if out.UnprocessedKeys == nil {
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{}
		}
		for name, ka := range unprocessed {
			prev := out.UnprocessedKeys[name]
			ka.Keys = append(prev.Keys, ka.Keys...)
			out.UnprocessedKeys[name] = ka
		}
	}
	return out, nil
}

// TransactGetItems is DB.TransactGetItems within the partition limits:
// each item's partition is charged twice its strongly consistent read.
func (l *PartitionLimiter) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	in = orEmpty(in)
	l.mu.Lock()
	defer l.mu.Unlock()
	var ps []partitionID
	reasons := make([]types.CancellationReason, len(in.TransactItems))
	throttled := false
	for i, it := range in.TransactItems {
		reasons[i] = types.CancellationReason{Code: aws.String("None")}
		if it.Get == nil {
			ps = append(ps, partitionID{})
			continue
		}
		t := l.db.table(aws.ToString(it.Get.TableName))
		if t == nil {
			return l.db.TransactGetItems(ctx, in, opts...)
		}
		p := partitionID{t.name, "", partitionValue(it.Get.Key[t.pk.name]), false}
		ps = append(ps, p)
		if refused := l.admit([]charge{{p: p}}); len(refused) > 0 {
			throttled = true
			msg := provisionedThrottleMessage(false)
			if t.billingMode() == types.BillingModePayPerRequest {
				msg = onDemandThrottleMessage(false)
			}
			reasons[i] = types.CancellationReason{Code: aws.String("ThrottlingError"), Message: aws.String(msg)}
		}
	}
	if throttled {
		return nil, txCanceled(reasons)
	}
	out, err := l.db.TransactGetItems(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	for i, r := range out.Responses {
		if i < len(ps) && ps[i].table != "" {
			l.debit([]charge{{ps[i], 2 * readUnits(table.ItemSize(r.Item), true)}})
		}
	}
	return out, nil
}

// Scan is DB.Scan: a Scan reads every partition in turn and is not
// limited here.
func (l *PartitionLimiter) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return l.db.Scan(ctx, in, opts...)
}

// The control-plane operations pass through.

// CreateTable is DB.CreateTable.
func (l *PartitionLimiter) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return l.db.CreateTable(ctx, in, opts...)
}

// DeleteTable is DB.DeleteTable.
func (l *PartitionLimiter) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return l.db.DeleteTable(ctx, in, opts...)
}

// DescribeTable is DB.DescribeTable.
func (l *PartitionLimiter) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return l.db.DescribeTable(ctx, in, opts...)
}

// ListTables is DB.ListTables.
func (l *PartitionLimiter) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, opts ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return l.db.ListTables(ctx, in, opts...)
}

// UpdateTimeToLive is DB.UpdateTimeToLive.
func (l *PartitionLimiter) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return l.db.UpdateTimeToLive(ctx, in, opts...)
}

// DescribeTimeToLive is DB.DescribeTimeToLive.
func (l *PartitionLimiter) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return l.db.DescribeTimeToLive(ctx, in, opts...)
}

// UpdateTable is DB.UpdateTable.
func (l *PartitionLimiter) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return l.db.UpdateTable(ctx, in, opts...)
}

// UpdateContinuousBackups is DB.UpdateContinuousBackups.
func (l *PartitionLimiter) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return l.db.UpdateContinuousBackups(ctx, in, opts...)
}

// DescribeContinuousBackups is DB.DescribeContinuousBackups.
func (l *PartitionLimiter) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return l.db.DescribeContinuousBackups(ctx, in, opts...)
}

// ListTagsOfResource is DB.ListTagsOfResource.
func (l *PartitionLimiter) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, opts ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	return l.db.ListTagsOfResource(ctx, in, opts...)
}
