package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

// noItem stands for a missing item when a condition is evaluated: every
// attribute is absent. Never modified.
var noItem = map[string]types.AttributeValue{}

type writeKind int

const (
	writePut writeKind = iota
	writeUpdate
	writeDelete
	writeCheck
)

// writeOp is one single-item write, validated and compiled before any lock
// is taken: PutItem, UpdateItem, DeleteItem, or one action of a
// transaction (a ConditionCheck writes nothing).
type writeOp struct {
	t    *dbTable
	kind writeKind
	key  map[string]types.AttributeValue // the fake's own copy
	item map[string]types.AttributeValue // put: the fake's own copy
	size int                             // put: the item's size
	cond *condition
	upd  *update
	// invalid, in a transaction, is a validation error DynamoDB reports as
	// this action's cancellation reason.
	invalid error
}

// current returns the stored entry the write applies to, or nil.
func (w *writeOp) current() *store.Entry {
	return w.t.lookup(w.key)
}

// outcome is what applying the write would do. failed means the condition
// did not hold; err is a ValidationException that depends on the stored
// item (an update that cannot apply to it, or makes it too large).
type outcome struct {
	old     *store.Entry
	oldItem map[string]types.AttributeValue // old, decoded when the write needed it
	newItem map[string]types.AttributeValue // nil: the item is deleted (or untouched, for a check)
	newSize int
	failed  bool
	// collection is the size of the item's collection after the write, in
	// a table with local secondary indexes.
	collection int64
}

// evaluate decides the write against the stored item without changing
// anything. The caller holds the table's write lock.
func (w *writeOp) evaluate() (outcome, error) {
	if w.invalid != nil {
		return outcome{}, w.invalid
	}
	o := outcome{old: w.current()}
	cur := noItem
	if o.old != nil && (w.cond != nil || w.kind == writeUpdate || w.t.needsOld()) {
		o.oldItem = o.old.Item()
		cur = o.oldItem
	}
	ok, err := w.cond.eval(cur)
	if err != nil {
		return o, err
	}
	if !ok {
		o.failed = true
		return o, nil
	}
	switch w.kind {
	case writePut:
		o.newItem, o.newSize = w.item, w.size
	case writeUpdate:
		if w.upd == nil {
			// UpdateItem without an UpdateExpression leaves an existing
			// item alone and creates a missing one from its key.
			if o.old != nil {
				o.newItem, o.newSize = o.oldItem, o.old.Size
			} else {
				o.newItem, o.newSize = w.key, table.ItemSize(w.key)
			}
			break
		}
		// A new item starts as its key, which its update expression can
		// read (SET b = pk, if_not_exists(b, pk)) as in DynamoDB; apply
		// returns a fresh map either way.
		base := o.oldItem
		if o.old == nil {
			base = w.key
		}
		next, err := w.upd.apply(base)
		if err != nil {
			return o, err
		}
		if err := w.t.checkIndexKeys(next); err != nil {
			return o, err
		}
		o.newSize = table.ItemSize(next)
		if o.newSize > table.MaxItemSize {
			return o, validationf("Item size to update has exceeded the maximum allowed size")
		}
		o.newItem = next
	}
	if w.t.collections != nil && w.kind != writeCheck {
		size, err := w.collectionAfter(o)
		if err != nil {
			return o, err
		}
		o.collection = size
	}
	return o, nil
}

// apply carries out an evaluated write and adds its cost to u: the larger
// of the item's old and new sizes in 1 KB units, plus its index writes.
func (w *writeOp) apply(o outcome, u *usage) {
	u.write += w.units(o)
	switch w.kind {
	case writePut, writeUpdate:
		w.t.put(o.newItem, o.newSize, o.oldItem, u)
	case writeDelete:
		if o.old != nil {
			w.t.remove(w.key, u)
		}
	case writeCheck:
		return
	}
	w.t.recordChange(o.old, w.key, false)
}

// units is what an evaluated write costs on its table, its indexes aside:
// the larger of the item's old and new sizes in 1 KB units.
func (w *writeOp) units(o outcome) float64 {
	oldSize := 0
	if o.old != nil {
		oldSize = o.old.Size
	}
	if w.kind == writePut || w.kind == writeUpdate {
		return writeUnits(max(oldSize, o.newSize))
	}
	return writeUnits(oldSize)
}

// failedCost is what a write whose condition failed still costs: the
// stored item's size in write units, or one.
func failedCost(o outcome) float64 {
	if o.old == nil {
		return writeUnits(0)
	}
	return writeUnits(o.old.Size)
}

// returnOld renders ALL_OLD for a failed condition or a write's output.
func returnedOnFailure(mode types.ReturnValuesOnConditionCheckFailure, o outcome) map[string]types.AttributeValue {
	if mode != types.ReturnValuesOnConditionCheckFailureAllOld || o.old == nil {
		return nil
	}
	return o.old.Item()
}

func checkOnFailureMode(mode types.ReturnValuesOnConditionCheckFailure) error {
	switch mode {
	case "", types.ReturnValuesOnConditionCheckFailureNone, types.ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}
	return constraint(string(mode), "returnValuesOnConditionCheckFailure", "Member must satisfy enum value set: [ALL_OLD, NONE]")
}

// returnValues renders a write's ReturnValues; upd is an UpdateItem's
// update expression (nil otherwise).
func returnValues(mode types.ReturnValue, o outcome, upd *update) map[string]types.AttributeValue {
	var oldItem map[string]types.AttributeValue
	if o.old != nil && (mode == types.ReturnValueAllOld || mode == types.ReturnValueUpdatedOld) {
		oldItem = o.old.Item() // a fresh copy
	}
	switch mode {
	case types.ReturnValueAllOld:
		return oldItem
	case types.ReturnValueAllNew:
		return copyItem(o.newItem)
	case types.ReturnValueUpdatedOld:
		return upd.pick(oldItem, true)
	case types.ReturnValueUpdatedNew:
		return upd.pick(o.newItem, false)
	}
	return nil
}

// commit applies one PutItem, UpdateItem or DeleteItem atomically on its
// table and records what it cost. A failed condition changes nothing but
// still costs its write units, and is a ConditionalCheckFailedException
// carrying the item when onFailure asks for it.
func (db *DB) commit(ctx context.Context, w *writeOp, onFailure types.ReturnValuesOnConditionCheckFailure) (outcome, *usage, error) {
	t := w.t
	u := &usage{table: t.name}
	t.mu.Lock()
	if t.deleted {
		t.mu.Unlock()
		return outcome{}, nil, resourceNotFound()
	}
	o, err := w.evaluate()
	if err == nil && !o.failed {
		w.apply(o, u)
	}
	t.mu.Unlock()
	if err != nil {
		return outcome{}, nil, err
	}
	if o.failed {
		u.write = failedCost(o)
		db.record(ctx, u)
		return outcome{}, nil, conditionFailed(returnedOnFailure(onFailure, o))
	}
	db.record(ctx, u)
	return o, u, nil
}
