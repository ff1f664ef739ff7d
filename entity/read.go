package entity

import (
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// ReadOptions configure every read of an entity: Get, BatchGet, List,
// Items, a Collection's reads and a projection's. One option means one
// thing whichever read it is given to (Consistent is a strongly
// consistent read of a Get and of a List alike); a read refuses, with a
// *table.InputError and before any request, an option it cannot honour
// (ByIndex or Limit on a Get, Consistent on a global secondary index).
// A nil option is skipped.
type ReadOptions struct {
	// Index is the secondary index to read ("" for the table). Lists only.
	Index string
	// Limit is the most items a page holds (0: what one DynamoDB page
	// holds). Lists only.
	Limit int
	// Sort restricts the sort key; see SortBeginsWith and the others.
	// Lists only.
	Sort SortCondition
	// Descending reads from the largest sort key down. Lists only.
	Descending bool
	// Consistent asks for a strongly consistent read (twice the read
	// units): the table and its local secondary indexes have them, a
	// global secondary index does not (DynamoDB refuses).
	Consistent bool
	// Filter is applied after reading: it saves bandwidth, not capacity.
	// Lists only.
	Filter *expression.ConditionBuilder
	// AnyTieOrder drops the tie-break of an index read: items with equal
	// index sort keys come in DynamoDB's order, which it does not define,
	// and a cursor inside such a run may repeat or skip items. A read that
	// wants the first item after a key, not a listing, saves reading the
	// whole run of ties. Lists only.
	AnyTieOrder bool
}

// ListOptions is ReadOptions under the name the lists take: the lists
// and the single-item reads share one options type and its helpers.
type ListOptions = ReadOptions

// Consistent asks for a strongly consistent read, of a Get, a BatchGet or
// a List alike.
func Consistent() func(*ReadOptions) { return func(o *ReadOptions) { o.Consistent = true } }

// Limit sets ReadOptions.Limit.
func Limit(n int) func(*ReadOptions) { return func(o *ReadOptions) { o.Limit = n } }

// ByIndex reads the secondary index name instead of the table.
func ByIndex(name string) func(*ReadOptions) { return func(o *ReadOptions) { o.Index = name } }

// Descending reads from the largest sort key down.
func Descending() func(*ReadOptions) { return func(o *ReadOptions) { o.Descending = true } }

// AnyTieOrder sets ReadOptions.AnyTieOrder.
func AnyTieOrder() func(*ReadOptions) { return func(o *ReadOptions) { o.AnyTieOrder = true } }

// Where filters the items read.
func Where(c expression.ConditionBuilder) func(*ReadOptions) {
	return func(o *ReadOptions) {
		// Combined in a new value: the option may be applied again, to
		// other ReadOptions, and must still mean c alone.
		f := c
		if o.Filter != nil {
			f = o.Filter.And(c)
		}
		o.Filter = &f
	}
}

func readOptions(opts []func(*ReadOptions)) ReadOptions {
	var o ReadOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// listOptions is readOptions under the name the lists use.
func listOptions(opts []func(*ReadOptions)) ReadOptions { return readOptions(opts) }

// itemRead refuses the options only a list can honour, for a read of
// items by key (Get, BatchGet): call names the read in the error.
func (o *ReadOptions) itemRead(entity, call string) error {
	bad := ""
	switch {
	case o.Index != "":
		bad = "ByIndex"
	case o.Limit != 0:
		bad = "Limit"
	case o.Sort.op != sortNone:
		bad = "a sort condition"
	case o.Descending:
		bad = "Descending"
	case o.Filter != nil:
		bad = "Where"
	case o.AnyTieOrder:
		bad = "AnyTieOrder"
	default:
		return nil
	}
	return inputError(entity+" "+call+" options", bad, call+" reads items by key: only a list takes it", nil)
}
