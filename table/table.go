package table

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.opentelemetry.io/otel/trace"
)

// Item is one DynamoDB item as the SDK represents it.
type Item = map[string]types.AttributeValue

// Key is the primary key of one item: the partition key attribute and, when
// the table has one, the sort key attribute.
type Key map[string]types.AttributeValue

// String renders the key as "name=value" pairs in name order, for messages.
func (k Key) String() string { return formatKey(Item(k)) }

// Options configure a Table.
type Options struct {
	// Backoff paces retries of throttled requests, unprocessed batch items
	// and transaction conflicts.
	Backoff Backoff
	// MaxItemSize is the largest item Put, BatchWrite and WriteTx accept, in
	// bytes as ItemSize counts them. Zero or anything above MaxItemSize
	// means MaxItemSize (DynamoDB's 400 KB).
	MaxItemSize int
	// CursorKey authenticates cursors (HMAC-SHA256). When empty it is
	// derived from the table name, which stops accidental misuse (a cursor
	// from another query) but not forgery by someone who knows the name:
	// set it to a secret when cursors cross a trust boundary.
	CursorKey []byte
	// BatchWriteConcurrency is how many BatchWriteItem requests one
	// BatchWrite keeps in flight: its items are cut into that many runs,
	// each sent one request after another with its own retries of
	// unprocessed items. 0 or 1 sends one request at a time.
	BatchWriteConcurrency int
	// TxAttempts bounds how often WriteTx.Run and GetTx.Run send a
	// transaction that was canceled by conflicts or throttling. Zero means 10.
	TxAttempts int
	// Logger receives one record per retry: a batch round that left items
	// unprocessed (Info), a throttled batch request or a transaction
	// canceled by a conflict or throttling (Warn). Each has the fields
	// table, operation, attempt (the attempt about to be made: 2 for the
	// first retry), delay (the backoff before it) and unprocessed or error.
	// Nil (the default) logs nothing and costs nothing.
	Logger *slog.Logger
	// TracerProvider, when set, gives every store call a span (see Start).
	TracerProvider trace.TracerProvider
}

// Backoff is exponential backoff with full jitter: before retry n (from 0)
// the caller sleeps a random duration in [0, min(Max, Initial*2^n)).
type Backoff struct {
	Initial, Max time.Duration
}

// Table is one DynamoDB table described by a Schema. It is safe for
// concurrent use.
type Table struct {
	db     API
	schema Schema
	opts   Options
	// tracer starts the store calls' spans; nil when tracing is off.
	tracer trace.Tracer
	// observed: db labels requests with the store call (OperationObserver).
	observed bool
	// keys are the schema's key attributes (partition, then sort), which
	// every call checks.
	keys []Attribute
	// macs are HMACs keyed with the cursor key, reused across pages.
	macs sync.Pool
	// existence holds the conditions of IfExists and IfNotExists.
	existence         sync.Once
	exists, notExists expression.ConditionBuilder
}

// New returns the Table for s on db. It does not call DynamoDB; use
// s.EnsureTable to create the table.
func New(db API, s Schema, opts ...func(*Options)) *Table {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.Backoff.Initial <= 0 {
		o.Backoff.Initial = 20 * time.Millisecond
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = 2 * time.Second
	}
	if o.Backoff.Max < o.Backoff.Initial {
		o.Backoff.Max = o.Backoff.Initial
	}
	if o.MaxItemSize <= 0 || o.MaxItemSize > MaxItemSize {
		o.MaxItemSize = MaxItemSize
	}
	if len(o.CursorKey) == 0 {
		sum := sha256.Sum256([]byte("tablekit cursor key\x00" + s.Name))
		o.CursorKey = sum[:]
	} else {
		o.CursorKey = bytes.Clone(o.CursorKey)
	}
	if o.TxAttempts <= 0 {
		o.TxAttempts = 10
	}
	t := &Table{db: db, schema: s.WithName(s.Name), opts: o}
	t.keys = t.schema.keyAttrs()
	if o.TracerProvider != nil {
		t.tracer = o.TracerProvider.Tracer(tracerName)
	}
	_, t.observed = db.(OperationObserver)
	return t
}

// Name is the table's name ("" for a nil Table).
func (t *Table) Name() string {
	if t == nil {
		return ""
	}
	return t.schema.Name
}

// Schema is the table's schema (the zero Schema for a nil Table).
func (t *Table) Schema() Schema {
	if t == nil {
		return Schema{}
	}
	return t.schema.WithName(t.schema.Name)
}

// DB is the API the table calls (nil for a nil Table).
func (t *Table) DB() API {
	if t == nil {
		return nil
	}
	return t.db
}

// EnsureTable creates the table (Schema.EnsureTable with the table's API)
// unless it exists with the table's schema. A nil Table, one not made by
// New with an API, and a nil context are refused before any request, as
// every call of a Table refuses them; each store's EnsureTable is this.
func (t *Table) EnsureTable(ctx context.Context) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	return t.schema.EnsureTable(ctx, t.db)
}

// usable refuses a nil Table and one not made by New with an API.
func (t *Table) usable() error {
	if t == nil || t.db == nil {
		return &InputError{Field: "table", Value: "nil", Reason: "Table not made by New with a DynamoDB API", Err: ErrNoTable}
	}
	return nil
}

// ready refuses, before any request, a Table that cannot send one (nil, or
// not made by New with an API) and a nil context, which the SDK would
// dereference: every call that sends a request starts with it, so a
// miswired caller gets an error, never a panic.
func (t *Table) ready(ctx context.Context) error {
	if err := t.usable(); err != nil {
		return err
	}
	if ctx == nil {
		return inputErr("ctx", "nil", "a request needs a context")
	}
	return nil
}

// Key builds the key of one item from the partition key value and, for a
// table with a sort key, the sort key value, under the schema's attribute
// names. Values are marshaled like item attributes (a string becomes S, an
// int N, a []byte B). A value that does not fit the schema is reported by
// the call the key is passed to, as an *InputError.
func (t *Table) Key(values ...any) Key {
	if t == nil {
		return nil
	}
	k := make(Key, len(values))
	attrs := t.keyAttrs()
	for i, v := range values {
		if i >= len(attrs) {
			// More values than key attributes: keep them under a name no
			// schema uses so checkKey reports the arity mistake.
			k[fmt.Sprintf("<extra value %d>", i)] = &types.AttributeValueMemberNULL{Value: true}
			continue
		}
		av, err := marshalAttr(v)
		if err != nil {
			k[attrs[i].Name] = &invalidValue{err: err}
			continue
		}
		k[attrs[i].Name] = av
	}
	return k
}

// invalidValue stands for a key value that could not be marshaled, so that
// the error surfaces as an *InputError from the call that uses the key.
type invalidValue struct {
	types.AttributeValueMemberNULL
	err error
}

// keyAttrs are the table's key attributes (partition, then sort); the
// caller must not modify them.
func (t *Table) keyAttrs() []Attribute {
	if t.keys != nil {
		return t.keys
	}
	return t.schema.keyAttrs()
}

// keyAttrs are the schema's key attributes (partition, then sort).
func (s Schema) keyAttrs() []Attribute {
	if s.SortKey.Name == "" {
		return []Attribute{s.PartitionKey}
	}
	return []Attribute{s.PartitionKey, s.SortKey}
}

// checkKey reports why key is not a valid primary key for the table: nil or
// empty, a missing, extra, empty or mistyped attribute.
func (t *Table) checkKey(field string, key Key) error {
	if len(key) == 0 {
		return inputErr(field, "", "key is nil or empty")
	}
	attrs := t.keyAttrs()
	for _, a := range attrs {
		if err := checkKeyValue(field, a.Name, a, key[a.Name]); err != nil {
			return err
		}
	}
	if len(key) != len(attrs) {
		for name := range key {
			if name != attrs[0].Name && (len(attrs) < 2 || name != attrs[1].Name) {
				return inputErr(field, name, fmt.Sprintf("not a key attribute of %s (keys: %s)", t.schema.Name, attrNames(attrs)))
			}
		}
	}
	return nil
}

// checkItemKey checks that an item to write carries the table's key
// attributes, and the index key attributes it has are of the index's type.
func (t *Table) checkItem(field string, item Item) error {
	if item == nil {
		return inputErr(field, "", "item is nil")
	}
	for _, a := range t.keyAttrs() {
		if err := checkKeyValue(field, a.Name, a, item[a.Name]); err != nil {
			return err
		}
	}
	// DynamoDB rejects an item whose index key attribute has the wrong type
	// or is empty; an absent one just keeps the item out of the sparse index.
	for _, ix := range t.schema.Indexes {
		for _, a := range []Attribute{ix.PartitionKey, ix.SortKey} {
			if a.Name == "" {
				continue
			}
			if v, ok := item[a.Name]; ok {
				if err := checkKeyValue(field, a.Name, a, v); err != nil {
					return err
				}
			}
		}
	}
	if size := ItemSize(item); size > t.opts.MaxItemSize {
		return &InputError{Field: field, Value: formatKey(t.keyOf(item)),
			Reason: fmt.Sprintf("item is %d bytes, over the %d byte limit", size, t.opts.MaxItemSize), Err: ErrItemTooLarge}
	}
	return nil
}

// checkKeyValue checks one key attribute's value against its declared type.
// DynamoDB rejects empty strings and binaries in key attributes.
func checkKeyValue(field, sub string, a Attribute, v types.AttributeValue) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		if a.Type == types.ScalarAttributeTypeS && v.Value != "" {
			return nil // the usual case, without building field's name
		}
	}
	if sub != "" {
		field += "." + sub
	}
	switch v := v.(type) {
	case nil:
		return inputErr(field, "", "missing key attribute")
	case *invalidValue:
		return inputErr(field, "", "cannot marshal key value: "+v.err.Error())
	case *types.AttributeValueMemberS:
		if a.Type != types.ScalarAttributeTypeS {
			return inputErr(field, fmt.Sprintf("%q", v.Value), "key attribute must be of type "+string(a.Type)+", got S")
		}
		if v.Value == "" {
			return inputErr(field, `""`, "key attribute value is empty")
		}
	case *types.AttributeValueMemberN:
		if a.Type != types.ScalarAttributeTypeN {
			return inputErr(field, v.Value, "key attribute must be of type "+string(a.Type)+", got N")
		}
	case *types.AttributeValueMemberB:
		if a.Type != types.ScalarAttributeTypeB {
			return inputErr(field, fmt.Sprintf("%x", v.Value), "key attribute must be of type "+string(a.Type)+", got B")
		}
		if len(v.Value) == 0 {
			return inputErr(field, "0x", "key attribute value is empty")
		}
	default:
		return inputErr(field, formatValue(v), "key attribute must be of type "+string(a.Type)+", got "+typeName(v))
	}
	return nil
}

// keyOf extracts the table key of an item.
func (t *Table) keyOf(item Item) Key {
	k := Key{}
	for _, a := range t.keyAttrs() {
		if v, ok := item[a.Name]; ok {
			k[a.Name] = v
		}
	}
	return k
}

// itemIdentity is a comparable identity of an item's table key, for
// duplicate detection (the same key twice in one batch or transaction).
// Numbers are compared by value, as DynamoDB does: "1" and "1.0" are one key.
func (t *Table) identity(k Key) string {
	var b strings.Builder
	for _, a := range t.keyAttrs() {
		v := k[a.Name]
		b.WriteString(typeName(v))
		b.WriteByte(':')
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			if r, ok := new(big.Rat).SetString(n.Value); ok {
				b.WriteString(r.RatString())
			} else {
				b.WriteString(n.Value)
			}
		} else {
			b.WriteString(formatValue(v))
		}
		b.WriteByte(0)
	}
	return b.String()
}

func attrNames(attrs []Attribute) string {
	names := make([]string, len(attrs))
	for i, a := range attrs {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// formatKey renders an item's or key's attributes as name=value pairs.
func formatKey(item Item) string {
	names := make([]string, 0, len(item))
	for n := range item {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(formatValue(item[n]))
	}
	return b.String()
}

func formatValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("0x%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case nil:
		return "<nil>"
	}
	return typeName(v)
}

func typeName(v types.AttributeValue) string {
	if t := TypeOf(v); t != "" {
		return t
	}
	return "unknown"
}
