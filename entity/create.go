package entity

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Create writes v as a new item and returns it as written: Created (when
// v leaves it zero) and Updated set to the registry's clock, Version 1,
// the TTL TTLAfter from now. It is one PutItem conditional on no item
// having the key (attribute_not_exists), so of any number of concurrent
// creates of one key exactly one succeeds and the others get
// table.ErrAlreadyExists, a *table.Error whose Item is the item that has
// the key (as DynamoDB returned it with the refusal, at no extra cost:
// Decode reads it); an item whose TTL has passed counts as absent,
// as it does for every read. Conditions given with If must hold too
// (table.ErrConditionFailed). Bad input (a key field left empty, a value
// holding a template's delimiter, a broken rule, an item over 400 KB that
// nothing can be offloaded from) is a *table.InputError, and nothing is
// written.
func (e *Entity[T]) Create(ctx context.Context, v T, opts ...func(*WriteOptions)) (_ T, err error) {
	return e.putItem(ctx, opCreate, v, opts, func(m *model, rv reflect.Value, now time.Time, o WriteOptions) (putPlan, error) {
		if o.Version != nil {
			return putPlan{}, inputError(m.name+" options", "IfVersion", "a create has no stored version to compare", nil)
		}
		m.stampNew(rv, now)
		return putPlan{cond: m.expr.create, fresh: true, failure: m.createFailure(len(o.Conditions) > 0, now)}, nil
	})
}

// putPlan is what a PutItem of Create or Put sends beyond the item: its
// prepared condition and the sentinel of its refusal.
type putPlan struct {
	cond    cond
	version int64
	// fresh: the write may create its item, and over an expired one
	// starts afresh (model.afresh): the caller's conditions meet no item.
	fresh   bool
	failure func(current table.Item) error
}

// putItem is Create and Put: stamp v (plan), encode it, send one PutItem.
func (e *Entity[T]) putItem(ctx context.Context, o op, v T, opts []func(*WriteOptions),
	plan func(m *model, rv reflect.Value, now time.Time, o WriteOptions) (putPlan, error)) (_ T, err error) {
	var zero T
	if err := e.ready(ctx); err != nil {
		return zero, err
	}
	m := e.m
	ctx, span := m.start(ctx, o)
	defer span.End(&err)
	wo := writeOptions(opts)
	now := m.reg.now()
	rv := reflect.ValueOf(&v).Elem()
	p, err := plan(m, rv, now, wo)
	if err != nil {
		return zero, err
	}
	item, size, err := m.encode(ctx, rv, &v)
	if err != nil {
		return zero, err
	}
	if p.fresh && len(wo.Conditions) > 0 && m.ttl != nil {
		// The caller's conditions meet no item where an expired one is
		// stored, as once DynamoDB has deleted it: the write is refused
		// over it, clears it and tries again (afresh).
		if p.cond.text == nil {
			p.cond = m.expr.fresh // a replace: no item, or a live one
		} else {
			p.cond = m.expr.absent // a create
		}
	}
	c, err := m.condition(p.cond, now, p.version, wo.Conditions)
	if err != nil {
		return zero, err
	}
	in := &dynamodb.PutItemInput{TableName: m.tableName(), Item: item,
		ConditionExpression: c.text, ExpressionAttributeNames: c.names, ExpressionAttributeValues: c.values}
	if c.text != nil {
		// The current item tells a version conflict, or a taken key,
		// from the caller's condition; a refused Create gives it back
		// (table.Error.Item), so a caller whose key names one piece of
		// work (an idempotency record) has it without a read.
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	_, err = m.reg.t.DB().PutItem(ctx, in)
	if p.fresh && in.ReturnValuesOnConditionCheckFailure != "" {
		err = m.afresh(ctx, m.keyOf(item), now, err, func() error {
			_, err := m.reg.t.DB().PutItem(ctx, in)
			return err
		})
	}
	m.ops[o].use.call(err, size, 1)
	if err != nil {
		return zero, m.writeError(strings.ToLower(opNames[o]), m.keyOf(item), err, p.failure)
	}
	return v, nil
}

// createFailure is the sentinel of a refused create.
func (m *model) createFailure(conditions bool, now time.Time) func(table.Item) error {
	return func(current table.Item) error {
		if !conditions || len(current) > 0 && !m.expiredAt(current, now) {
			return table.ErrAlreadyExists
		}
		return table.ErrConditionFailed
	}
}

// stampNew sets what a new item gets: Created unless given, Updated,
// Version 1, the TTL.
func (m *model) stampNew(v reflect.Value, now time.Time) {
	if m.created != nil && m.created.isZero(v) {
		m.created.set(v, now)
	}
	if m.updated != nil {
		m.updated.set(v, now)
	}
	if m.version != nil {
		m.setVersion(v, 1)
	}
	m.setTTL(v, now)
}
