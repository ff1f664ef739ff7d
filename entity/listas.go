package entity

import (
	"context"
	"reflect"

	"github.com/tablekit/tablekit/table"
)

// ListAs is List reading only the attributes P names (see GetAs for what
// P may be): the same page of the same items in the same order, with the
// same cursor, as List(ctx, partition, cursor, opts...) — only the
// entity's items (by the type attribute, or the key's shape), none
// expired, ties on an index broken by the table key, table's signed
// cursors — each decoded into a P. DynamoDB is asked for P's attributes and
// for what those meanings need: the table and index keys (the cursor, the
// tie-break), the type attribute and the TTL. Where filters run on the
// whole item, before the projection. Read units are those of the whole
// items: DynamoDB projects after reading.
func ListAs[P, T any](ctx context.Context, e *Entity[T], partition T, cursor string, opts ...func(*ListOptions)) (_ table.Page[P], err error) {
	if err := e.ready(ctx); err != nil {
		return table.Page[P]{}, err
	}
	m := e.m
	pr, err := m.projection(reflect.TypeFor[P]())
	if err != nil {
		return table.Page[P]{}, err
	}
	ctx, span := m.start(ctx, opList)
	defer span.End(&err)
	o := listOptions(opts)
	q, err := m.query(reflect.ValueOf(&partition).Elem(), o)
	if err != nil {
		return table.Page[P]{}, err
	}
	list := pr.list
	q.Projection = &list
	page, err := table.QueryPage[table.Item](ctx, m.reg.t, q, cursor)
	m.listed(err, o, nil) // a projected item's size is not the item's
	if err != nil {
		return table.Page[P]{}, err
	}
	out := table.Page[P]{Items: make([]P, len(page.Items)), Next: page.Next}
	for i, item := range page.Items {
		if out.Items[i], err = decodeAs[P, T](ctx, m, pr, item); err != nil {
			return table.Page[P]{}, err
		}
	}
	return out, nil
}
