package entity

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
)

var (
	consistentRead = new(bool)
	eventualRead   = new(bool)
)

func init() { *consistentRead = true }

// Get reads the item whose key the key fields of key give (other fields
// are ignored): albums.Get(ctx, Album{ID: "a1"}). A missing item, and one
// whose TTL has passed, is table.ErrNotFound. Consistent() asks for a
// strongly consistent read; the options only a list takes (ByIndex,
// Limit, ...) are refused with a *table.InputError.
func (e *Entity[T]) Get(ctx context.Context, key T, opts ...func(*ReadOptions)) (_ T, err error) {
	var zero T
	if err := e.ready(ctx); err != nil {
		return zero, err
	}
	m := e.m
	ctx, span := m.start(ctx, opGet)
	defer span.End(&err)
	var o ReadOptions
	if len(opts) > 0 {
		o = readOptions(opts)
		if err := o.itemRead(m.name, "Get"); err != nil {
			return zero, err
		}
	}
	k, err := e.tableKey(key)
	if err != nil {
		return zero, err
	}
	in := &dynamodb.GetItemInput{TableName: m.tableName(), Key: k, ConsistentRead: eventualRead}
	if o.Consistent {
		in.ConsistentRead = consistentRead
	}
	out, err := m.reg.t.DB().GetItem(ctx, in)
	if err != nil {
		m.ops[opGet].use.callItem(err, nil)
		return zero, m.wrap("get", k, err)
	}
	m.ops[opGet].use.callItem(nil, out.Item)
	if err := m.found("get", out.Item, k, m.expired); err != nil {
		return zero, err
	}
	var v T
	if err := m.decode(ctx, out.Item, &v); err != nil {
		return zero, err
	}
	return v, nil
}

// found refuses, for a read by key (op), a missing item, an expired one
// (by expired: Get reads the clock only for an entity with a TTL, TxGet
// compares with its transaction's time), and one of another entity: the
// one meaning of found that Get and TxGet share.
func (m *model) found(op string, item table.Item, k table.Key, expired func(table.Item) bool) error {
	if len(item) == 0 || expired(item) {
		return &table.Error{Op: op, Table: m.reg.t.Name(), Key: k.String(), Err: table.ErrNotFound}
	}
	if !m.owns(item) {
		return fmt.Errorf("entity: %s: item %s is not one: %w", m.name, k, ErrUnknownItem)
	}
	return nil
}

// Decode decodes an item of the entity read by other means (a raw Query,
// an UpdateItem's ALL_NEW, a change record) as Get would return it:
// offloaded attributes restored, KeyOnly and Extra filled. An item that is
// not the entity's — another entity's by the type attribute, or, without
// one, by the shape of its keys; an empty item — wraps ErrUnknownItem: a
// decoder never returns a zero value for what it could not read. An
// expired item is decoded (it is the entity's; reads leave it out).
func (e *Entity[T]) Decode(ctx context.Context, item table.Item) (T, error) {
	var v T
	if err := e.ready(ctx); err != nil {
		return v, err
	}
	if !e.m.owns(item) {
		return v, fmt.Errorf("entity: %s: item %s is not one: %w", e.m.name, e.m.keyOf(item), ErrUnknownItem)
	}
	err := e.m.decode(ctx, item, &v)
	return v, err
}
