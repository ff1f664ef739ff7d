package table

import (
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetOptions configure Get, BatchGet and GetTx.
type GetOptions struct {
	// Consistent asks for a strongly consistent read (twice the read cost;
	// not available on global secondary indexes).
	Consistent bool
	// Projection limits the attributes read. The key attributes are always
	// read too, so results can be matched to keys.
	Projection *expression.ProjectionBuilder
}

// Consistent asks for a strongly consistent read.
func Consistent() func(*GetOptions) { return func(o *GetOptions) { o.Consistent = true } }

// Project reads only the named attributes (plus the key).
func Project(names ...string) func(*GetOptions) {
	return func(o *GetOptions) {
		if len(names) == 0 {
			return
		}
		nb := make([]expression.NameBuilder, len(names))
		for i, n := range names {
			nb[i] = expression.Name(n)
		}
		p := expression.NamesList(nb[0], nb[1:]...)
		o.Projection = &p
	}
}

// WriteOptions configure Put, Update, Delete and the actions of a WriteTx.
type WriteOptions struct {
	// Condition must hold for the write to happen (ErrConditionFailed).
	Condition *expression.ConditionBuilder
	// IfNotExists writes only if no item has the key (ErrAlreadyExists).
	IfNotExists bool
	// IfExists writes only if an item has the key (ErrNotFound). Update
	// otherwise creates the item (an upsert), which is rarely wanted.
	IfExists bool
	// ReturnOld receives the item as it was before the write (a non-nil
	// pointer to a struct or an Item); left untouched when there was none.
	ReturnOld any
	// ReturnNew receives the item as written (Put and Update only).
	ReturnNew any
	// ItemOnConditionFailure puts the current item into the *Error (or the
	// TxReason) when the condition fails, at no extra read cost.
	ItemOnConditionFailure bool

	// expiry, from IfNotExistsOrExpired, lets IfNotExists replace an
	// expired item.
	expiry *expiryCondition
}

// If adds a condition; several If options are joined with AND.
func If(c expression.ConditionBuilder) func(*WriteOptions) {
	return func(o *WriteOptions) {
		if o.Condition != nil {
			c = o.Condition.And(c)
		}
		o.Condition = &c
	}
}

// IfNotExists makes the write a create: it fails with ErrAlreadyExists when
// an item with the key exists.
func IfNotExists() func(*WriteOptions) { return func(o *WriteOptions) { o.IfNotExists = true } }

// IfExists makes the write fail with ErrNotFound when no item has the key.
func IfExists() func(*WriteOptions) { return func(o *WriteOptions) { o.IfExists = true } }

// ReturnOld stores the item as it was before the write in ptr.
func ReturnOld(ptr any) func(*WriteOptions) { return func(o *WriteOptions) { o.ReturnOld = ptr } }

// ReturnNew stores the item as written in ptr.
func ReturnNew(ptr any) func(*WriteOptions) { return func(o *WriteOptions) { o.ReturnNew = ptr } }

// ItemOnConditionFailure returns the current item with a failed condition.
func ItemOnConditionFailure() func(*WriteOptions) {
	return func(o *WriteOptions) { o.ItemOnConditionFailure = true }
}

func writeOptions(opts []func(*WriteOptions)) WriteOptions {
	var o WriteOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

func getOptions(opts []func(*GetOptions)) GetOptions {
	var o GetOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

// writeCondition is the condition a write sends, and the sentinel its
// failure maps to.
type writeCondition struct {
	cond *expression.ConditionBuilder
	// failure is ErrAlreadyExists for IfNotExists, ErrNotFound for IfExists,
	// ErrConditionFailed otherwise.
	failure error
	// mixed is set when an existence check is combined with a caller's
	// condition: then the current item (returned on failure) tells which
	// one failed.
	mixed bool
}

// condition combines o's condition with the existence checks. field names
// the option for errors.
func (t *Table) condition(o WriteOptions) (writeCondition, error) {
	if o.IfExists && o.IfNotExists {
		return writeCondition{}, inputErr("options", "IfExists and IfNotExists", "at most one of them")
	}
	wc := writeCondition{cond: o.Condition, failure: ErrConditionFailed}
	var exist *expression.ConditionBuilder
	switch {
	case o.IfNotExists:
		c := o.expiry.orExpired(t.absent())
		exist, wc.failure = &c, ErrAlreadyExists
	case o.IfExists:
		c := t.present()
		exist, wc.failure = &c, ErrNotFound
	}
	if exist != nil {
		if wc.cond != nil {
			c := exist.And(*wc.cond)
			wc.cond, wc.mixed = &c, true
		} else {
			wc.cond = exist
		}
	}
	return wc, nil
}

// absent and present are attribute_not_exists and attribute_exists of the
// partition key: the conditions of IfNotExists and IfExists, made once per
// table (builders are values that no method modifies).
func (t *Table) absent() expression.ConditionBuilder {
	t.existence.Do(t.makeExistence)
	return t.notExists
}

func (t *Table) present() expression.ConditionBuilder {
	t.existence.Do(t.makeExistence)
	return t.exists
}

func (t *Table) makeExistence() {
	pk := expression.Name(t.schema.PartitionKey.Name)
	t.exists, t.notExists = expression.AttributeExists(pk), expression.AttributeNotExists(pk)
}

// failureSentinel decides which sentinel a failed condition maps to, given
// the current item DynamoDB returned (nil when there is none).
func (wc writeCondition) failureSentinel(current Item) error {
	if !wc.mixed {
		return wc.failure
	}
	switch wc.failure {
	case ErrAlreadyExists:
		if len(current) > 0 {
			return ErrAlreadyExists
		}
	case ErrNotFound:
		if len(current) == 0 {
			return ErrNotFound
		}
	}
	return ErrConditionFailed
}

// wantCurrentItem reports whether to ask DynamoDB for the current item when
// the condition fails.
func (wc writeCondition) wantCurrentItem(o WriteOptions) bool {
	return o.ItemOnConditionFailure || wc.mixed
}

func returnValuesOnFailure(want bool) types.ReturnValuesOnConditionCheckFailure {
	if want {
		return types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return types.ReturnValuesOnConditionCheckFailureNone
}
