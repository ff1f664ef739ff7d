package entity

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
)

// Count counts the items List would return from the partition the
// partition fields of partition give (the same options: ByIndex, a sort
// condition, Where; Limit, Descending and AnyTieOrder change no count),
// with Select COUNT (table.QueryCount): DynamoDB sends no item back, and
// reads every page of the key condition.
//
// List's meanings are DynamoDB's filter here, since no item comes back
// for entity to judge: the entity's own items, by the type attribute (an
// item that lacks it is not counted; List would judge it by its key
// shape), and the items that have not expired. Without a type attribute,
// an item's key shape is no filter DynamoDB can apply, so Count is for an
// entity alone in its registry there (every item is its own), and refuses
// (a *table.InputError, nothing sent) in a registry of several.
//
// What it costs: the read units of every item the key condition reaches,
// as a Query returning them would (items of 4 KB per unit, halved when
// eventually consistent; a 1 MB page a request). The filters above, and
// Where's, change nothing of that: DynamoDB bills what it reads before it
// filters. Only the bytes sent back shrink, to a number.
func (e *Entity[T]) Count(ctx context.Context, partition T, opts ...func(*ListOptions)) (_ int64, err error) {
	if err := e.ready(ctx); err != nil {
		return 0, err
	}
	m := e.m
	ctx, span := m.start(ctx, opList)
	defer span.End(&err)
	o := listOptions(opts)
	own, err := m.ownFilter()
	if err != nil {
		return 0, err
	}
	q, err := m.query(reflect.ValueOf(&partition).Elem(), o)
	if err != nil {
		return 0, err
	}
	// The filter is the caller's, the entity's own items and, with a TTL,
	// the live ones: what q's Keep tests in Go for a List.
	var conds []expression.ConditionBuilder
	if o.Filter != nil {
		conds = append(conds, *o.Filter)
	}
	if own != nil {
		conds = append(conds, *own)
	}
	if m.ttl != nil {
		conds = append(conds, m.alive(m.reg.now()))
	}
	q.Keep = nil
	q.Filter = nil
	switch len(conds) {
	case 0:
	case 1:
		q.Filter = &conds[0]
	default:
		f := expression.And(conds[0], conds[1], conds[2:]...)
		q.Filter = &f
	}
	n, err := table.QueryCount(ctx, m.reg.t, q)
	m.listed(err, o, nil)
	return n, err
}

// ownFilter is the condition that an item is the entity's, for a read
// whose items DynamoDB alone sees (nil: every item the key condition
// reaches is the entity's).
func (m *model) ownFilter() (*expression.ConditionBuilder, error) {
	if m.typeAttr != "" {
		c := expression.Name(m.typeAttr).Equal(expression.Value(m.name))
		return &c, nil
	}
	m.reg.mu.RLock()
	alone := len(m.reg.models) == 1
	m.reg.mu.RUnlock()
	if !alone {
		return nil, inputError(m.name+" Count", "", "the registry has no type attribute and several entities: a key's shape, which tells their items apart, is no filter DynamoDB can count by", nil)
	}
	return nil, nil
}
