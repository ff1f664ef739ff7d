package entity

import (
	"fmt"
	"reflect"

	"github.com/tablekit/tablekit/blobstore"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// Options declare an entity: how its items are keyed in the table and its
// indexes, which attributes the package keeps (timestamps, version, TTL),
// the rules values must meet, and what may move to the blob store. Every
// name is an attribute name as the struct's dynamodbav tags spell it (the
// Go field name when untagged).
type Options struct {
	// PartitionKey and SortKey are the table key templates (package keys
	// notation: "ALBUM#{albumId}", "PHOTO#{takenAt:time}#{photoId}",
	// "META"), their placeholders naming attributes. A template that is
	// exactly "{name}" where name is the table's key attribute makes the
	// key the attribute itself, of whatever type the table declares (jobs'
	// jobId). SortKey is "" for a table without a sort key.
	PartitionKey, SortKey string
	// Indexes are the secondary indexes the entity's items are in, global
	// and local.
	Indexes []IndexOptions
	// Delimiter separates the templates' segments. Default "#".
	Delimiter string
	// Created and Updated name the timestamp attributes: Created is set
	// when an item is created and kept after, Updated on every write. A
	// time.Time field is set as is (attributevalue writes RFC 3339, or
	// epoch seconds with the unixtime tag option), a string field is
	// formatted with TimeLayout, an integer field holds Unix milliseconds.
	Created, Updated string
	// TimeLayout formats string timestamps. Default time.RFC3339Nano.
	TimeLayout string
	// Version names an integer attribute used for optimistic locking: it
	// is 1 on Create, and Put and updates with IfVersion write only when
	// the stored version is the one given, storing the next.
	Version string
	// TTL names the table's TTL attribute (epoch seconds: an integer field,
	// or a time.Time with the unixtime tag option; 0 never expires).
	// Expired items are gone for every read and write of this package even
	// before DynamoDB deletes them: Create, Update and Upsert write afresh
	// over one (see Expiry in the package documentation). TTLAfter, when
	// set, is how long after creation an item expires.
	TTL      string
	TTLAfter time.Duration
	// KeyOnly names attributes kept only inside keys: left out of the
	// item, parsed back from the keys when it is read (seed layouts that
	// store an id in pk only).
	KeyOnly []string
	// Offload names attributes that move to the registry's blob store
	// when the item is over its OffloadThreshold (largest first); the item
	// keeps a pointer, and reads restore them.
	Offload []string
	// Rules are the checks values meet before anything is written.
	Rules []Rule
	// Extra names a field of type map[string]types.AttributeValue (tagged
	// dynamodbav:"-") that receives, on reads, the item's attributes the
	// struct has no field for (written by newer code, or kept during a
	// rename), and whose entries are written back with the item. Keys and
	// the type attribute are not extras.
	Extra string
	// Renames are attributes written under a second name too, and read
	// from it first (see Rename).
	Renames []Rename
	// Offloader, when set, is the blob store the entity's Offload
	// attributes go to and are restored from, instead of the registry's
	// (a store that keeps its own object layout).
	Offloader *blobstore.Offloader
}

// IndexOptions place an entity's items in one secondary index.
type IndexOptions struct {
	// Name is the index's name in the table's schema.
	Name string
	// PartitionKey and SortKey are templates as for the table. "" leaves
	// an index key attribute to whatever writes it already: a table key
	// (an index sorted by the table's pk) or an attribute of the entity.
	PartitionKey, SortKey string
	// Local declares a local secondary index (the schema's Index.Local):
	// it shares the table's partition key, so PartitionKey stays "" and
	// only the sort key is the entity's. New refuses Local on a global
	// index of the schema and a global declaration of a local one, so
	// that the declaration says which reads may be strongly consistent.
	Local bool
	// Sparse leaves an item out of the index (no index key attributes)
	// when a field its templates name is zero, instead of refusing it; on
	// every write: an update setting such a field to zero, or an Upsert of
	// a value with it zero, takes the item out, and one setting it puts
	// the item in (constant key parts included).
	Sparse bool
}

// Key sets the table key templates.
func Key(partition, sort string) func(*Options) {
	return func(o *Options) { o.PartitionKey, o.SortKey = partition, sort }
}

// Index adds a global secondary index with its key templates.
func Index(name, partition, sort string) func(*Options) {
	return func(o *Options) {
		o.Indexes = append(o.Indexes, IndexOptions{Name: name, PartitionKey: partition, SortKey: sort})
	}
}

// SparseIndex adds an index the entity's items enter only when every field
// its templates name is set.
func SparseIndex(name, partition, sort string) func(*Options) {
	return func(o *Options) {
		o.Indexes = append(o.Indexes, IndexOptions{Name: name, PartitionKey: partition, SortKey: sort, Sparse: true})
	}
}

// LocalIndex adds a local secondary index with its sort key template: its
// partition key is the table's, built by Key. Reads of it may be strongly
// consistent (Consistent); a table with one caps each partition key value
// at 10 GB (see table.Index.Local).
func LocalIndex(name, sort string) func(*Options) {
	return func(o *Options) {
		o.Indexes = append(o.Indexes, IndexOptions{Name: name, SortKey: sort, Local: true})
	}
}

// SparseLocalIndex adds a local secondary index the entity's items enter
// only when every field its sort key template names is set.
func SparseLocalIndex(name, sort string) func(*Options) {
	return func(o *Options) {
		o.Indexes = append(o.Indexes, IndexOptions{Name: name, SortKey: sort, Local: true, Sparse: true})
	}
}

// Delimiter sets Options.Delimiter.
func Delimiter(d string) func(*Options) { return func(o *Options) { o.Delimiter = d } }

// Timestamps sets Options.Created and Options.Updated.
func Timestamps(created, updated string) func(*Options) {
	return func(o *Options) { o.Created, o.Updated = created, updated }
}

// TimeLayout sets Options.TimeLayout.
func TimeLayout(layout string) func(*Options) { return func(o *Options) { o.TimeLayout = layout } }

// Version sets Options.Version.
func Version(name string) func(*Options) { return func(o *Options) { o.Version = name } }

// TTL sets Options.TTL and Options.TTLAfter (0: the caller sets the field).
func TTL(name string, after time.Duration) func(*Options) {
	return func(o *Options) { o.TTL, o.TTLAfter = name, after }
}

// KeyOnly sets Options.KeyOnly.
func KeyOnly(names ...string) func(*Options) {
	return func(o *Options) { o.KeyOnly = append(o.KeyOnly, names...) }
}

// Extra sets Options.Extra.
func Extra(field string) func(*Options) { return func(o *Options) { o.Extra = field } }

// OffloadWith sets Options.Offloader.
func OffloadWith(off *blobstore.Offloader) func(*Options) {
	return func(o *Options) { o.Offloader = off }
}

// Offload adds attributes to Options.Offload.
func Offload(names ...string) func(*Options) {
	return func(o *Options) { o.Offload = append(o.Offload, names...) }
}

// Rule is one check of an attribute's value, made on every write before
// anything is sent (Required, Enum, Bounds) or of the whole value (Check).
// A broken rule is a *table.InputError wrapping ErrValidation.
type Rule struct {
	Attribute string
	// Required refuses the zero value.
	Required bool
	// Enum, when not empty, is the values a string attribute may hold
	// (the empty string too unless Required).
	Enum []string
	// Min and Max bound a number, or the length of a string, slice or map,
	// when HasBounds is set.
	Min, Max  float64
	HasBounds bool
	// Check is called with the whole value (of the entity's type) when set.
	Check func(v any) error

	checkType reflect.Type // the type Check was written for
}

// Required adds a rule that each named attribute is not its zero value.
func Required(names ...string) func(*Options) {
	return func(o *Options) {
		for _, n := range names {
			o.Rules = append(o.Rules, Rule{Attribute: n, Required: true})
		}
	}
}

// Enum adds a rule that a string attribute holds one of values.
func Enum[S ~string](name string, values ...S) func(*Options) {
	vs := make([]string, len(values))
	for i, v := range values {
		vs[i] = string(v)
	}
	return func(o *Options) { o.Rules = append(o.Rules, Rule{Attribute: name, Enum: vs}) }
}

// Bounds adds a rule that a number attribute is within [min, max], or a
// string, slice or map attribute's length is, both bounds included. A zero
// value is unset and passes (Required refuses it). An update's Add and
// Append are checked in the request's condition (see the package
// documentation). Numbers are compared exactly, as DynamoDB compares them
// (a 38-digit counter included): a float field's bound is the decimal its
// float64 prints as (1e37 is 10^37), an integer field's or a length's the
// whole numbers within [min, max] (1<<60 is 2^60).
func Bounds(name string, min, max float64) func(*Options) {
	return func(o *Options) {
		o.Rules = append(o.Rules, Rule{Attribute: name, Min: min, Max: max, HasBounds: true})
	}
}

// Check adds a rule over the whole value: fn's error refuses the write.
// fn takes the entity's type; New refuses a Check of another type.
func Check[T any](fn func(T) error) func(*Options) {
	return func(o *Options) {
		o.Rules = append(o.Rules, Rule{checkType: reflect.TypeFor[T](), Check: func(v any) error {
			t, ok := v.(T)
			if !ok {
				return fmt.Errorf("entity: Check takes %s, not %T", reflect.TypeFor[T](), v)
			}
			return fn(t)
		}})
	}
}

// WriteOptions configure Create, Put, Upsert and Delete.
type WriteOptions struct {
	// Conditions must all hold for the write to happen
	// (table.ErrConditionFailed otherwise).
	Conditions []expression.ConditionBuilder
	// Version, when set, makes the write conditional on the stored version
	// (entities declared with Version): ErrVersionConflict otherwise.
	Version *int
	// Unchecked drops Delete's condition that the item exists: deleting a
	// missing item is then no error, as a DeleteItem without a condition,
	// and Delete's result says whether there was one.
	Unchecked bool
}

// If adds a condition to a write.
func If(c expression.ConditionBuilder) func(*WriteOptions) {
	return func(o *WriteOptions) { o.Conditions = append(o.Conditions, c) }
}

// IfVersion makes Delete conditional on the stored version being v.
func IfVersion(v int) func(*WriteOptions) {
	return func(o *WriteOptions) { o.Version = &v }
}

// Unchecked makes Delete (and TxDelete) unconditional on the item
// existing.
func Unchecked() func(*WriteOptions) { return func(o *WriteOptions) { o.Unchecked = true } }

func writeOptions(opts []func(*WriteOptions)) WriteOptions {
	var o WriteOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}
