package entity

import (
	"context"
	"reflect"
	"strconv"

	"github.com/tablekit/tablekit/table"
)

// BatchGet reads the items whose keys the key fields of keys give, in
// requests of 100 (table.BatchGet: unprocessed keys are retried with
// backoff until done or ctx ends, never dropped). Results are in the order
// of keys; missing and expired items are left out. A key given twice is a
// *table.InputError, and so are the options only a list takes; Consistent
// reads strongly consistent.
func (e *Entity[T]) BatchGet(ctx context.Context, keys []T, opts ...func(*ReadOptions)) (_ []T, err error) {
	if err := e.ready(ctx); err != nil {
		return nil, err
	}
	m := e.m
	ctx, span := m.start(ctx, opBatchGet)
	defer span.End(&err)
	o := readOptions(opts)
	if err := o.itemRead(m.name, "BatchGet"); err != nil {
		return nil, err
	}
	ks := make([]table.Key, len(keys))
	for i, k := range keys {
		if ks[i], err = e.tableKey(k); err != nil {
			return nil, refield(err, "keys["+strconv.Itoa(i)+"]")
		}
	}
	var gopts []func(*table.GetOptions)
	if o.Consistent {
		gopts = append(gopts, table.Consistent())
	}
	items, err := table.BatchGet[table.Item](ctx, m.reg.t, ks, gopts...)
	if u := &m.ops[opBatchGet].use; u.counts(err) && len(items) > 0 {
		u.sample(table.ItemSize(items[0]), len(keys))
	}
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	now := m.reg.now()
	for _, item := range items {
		if !m.live(item, now) {
			continue
		}
		var v T
		if err := m.decode(ctx, item, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// BatchPut writes vs whole, in requests of 25 (table.BatchWrite: retried
// until every item is written or ctx ends; the error then lists the keys
// not written). A batch write takes no condition: items are replaced
// unconditionally, a versioned entity's version is incremented without
// being compared. Use it to load data; Put and Transact are the checked
// writes. Every item is checked (keys, rules, size, offloading) before
// anything is sent. It returns the items as written.
func (e *Entity[T]) BatchPut(ctx context.Context, vs []T) (_ []T, err error) {
	if err := e.ready(ctx); err != nil {
		return nil, err
	}
	m := e.m
	ctx, span := m.start(ctx, opBatchPut)
	defer span.End(&err)
	now := m.reg.now()
	items := make([]any, len(vs))
	out := make([]T, len(vs))
	size := 0
	for i := range vs {
		out[i] = vs[i]
		rv := reflect.ValueOf(&out[i]).Elem()
		if m.version != nil {
			m.setVersion(rv, m.versionOf(rv)+1)
		}
		m.stampReplace(rv, now)
		item, n, err := m.encode(ctx, rv, &out[i])
		if err != nil {
			return nil, refield(err, "vs["+strconv.Itoa(i)+"]")
		}
		items[i], size = item, max(size, n)
	}
	err = m.reg.t.BatchWrite(ctx, items, nil)
	m.ops[opBatchPut].use.call(err, size, len(vs))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDelete deletes the items whose keys the key fields of keys give, in
// requests of 25, unconditionally (a missing item is no error), retried
// until done or ctx ends.
func (e *Entity[T]) BatchDelete(ctx context.Context, keys []T) (err error) {
	if err := e.ready(ctx); err != nil {
		return err
	}
	m := e.m
	ctx, span := m.start(ctx, opBatchDelete)
	defer span.End(&err)
	ks := make([]table.Key, len(keys))
	for i, k := range keys {
		if ks[i], err = e.tableKey(k); err != nil {
			return refield(err, "keys["+strconv.Itoa(i)+"]")
		}
	}
	err = m.reg.t.BatchWrite(ctx, nil, ks)
	m.ops[opBatchDelete].use.call(err, 0, len(keys))
	return err
}

// refield prefixes the field of a *table.InputError with where in a batch
// the bad value was.
func refield(err error, where string) error {
	if ie, ok := err.(*table.InputError); ok {
		c := *ie
		c.Field = where + ": " + c.Field
		return &c
	}
	return err
}
