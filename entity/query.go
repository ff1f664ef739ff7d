package entity

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

type sortOp uint8

const (
	sortNone sortOp = iota
	sortBeginsWith
	sortBetween
	sortLess
	sortLessOrEqual
	sortGreater
	sortGreaterOrEqual
)

// SortCondition restricts a read to part of the sort key's range, in the
// terms of the entity's sort key template: values are given for its
// placeholders in order, as keys.Template.Prefix takes them, and may stop
// early. With none, a read covers the entity's own range: the sort key's
// leading literals ("PHOTO#"), so a partition shared by several entities
// yields this entity's items only.
type SortCondition struct {
	op     sortOp
	lo, hi []any
}

func sortOption(c SortCondition) func(*ListOptions) {
	return func(o *ListOptions) { o.Sort = c }
}

// SortBeginsWith keeps the items whose first sort key parts are values
// (all of them: the one item with that sort key).
func SortBeginsWith(values ...any) func(*ListOptions) {
	return sortOption(SortCondition{op: sortBeginsWith, lo: values})
}

// SortBetween keeps the items from the first whose leading parts are lo
// through the last whose leading parts are hi, both included.
func SortBetween(lo, hi []any) func(*ListOptions) {
	return sortOption(SortCondition{op: sortBetween, lo: lo, hi: hi})
}

// SortLess keeps the items that sort before every item beginning with values.
func SortLess(values ...any) func(*ListOptions) {
	return sortOption(SortCondition{op: sortLess, lo: values})
}

// SortLessOrEqual keeps the items up to the last beginning with values.
func SortLessOrEqual(values ...any) func(*ListOptions) {
	return sortOption(SortCondition{op: sortLessOrEqual, lo: values})
}

// SortGreater keeps the items that sort after every item beginning with values.
func SortGreater(values ...any) func(*ListOptions) {
	return sortOption(SortCondition{op: sortGreater, lo: values})
}

// SortGreaterOrEqual keeps the items from the first beginning with values.
func SortGreaterOrEqual(values ...any) func(*ListOptions) {
	return sortOption(SortCondition{op: sortGreaterOrEqual, lo: values})
}

// maxLimit bounds ListOptions.Limit (DynamoDB's Limit is an int32; a page
// is at most 1 MB anyway).
const maxLimit = 1 << 20

// List returns one page of the entity's items in the partition the
// partition fields of partition give (other fields are ignored), on the
// table or on ByIndex's index, in sort key order, and the cursor of the
// next page ("" when nothing follows): table's signed cursors, which fail
// with table.ErrInvalidCursor on another query. On an index, items with
// equal sort keys are ordered by the table key (partition key, then sort
// key; the exact reverse when Descending), so the order is total and a
// cursor resumes exactly. Only the entity's items are returned — another
// entity's item in the range (a photo's tags under PHOTO#p1#TAG#) is left
// out by its type attribute or, without one, by the shape of its keys —
// and expired items are left out; a page shortened so still ends with a
// cursor only when an item follows.
func (e *Entity[T]) List(ctx context.Context, partition T, cursor string, opts ...func(*ListOptions)) (_ table.Page[T], err error) {
	if err := e.ready(ctx); err != nil {
		return table.Page[T]{}, err
	}
	m := e.m
	ctx, span := m.start(ctx, opList)
	defer span.End(&err)
	o := listOptions(opts)
	q, err := m.query(reflect.ValueOf(&partition).Elem(), o)
	if err != nil {
		return table.Page[T]{}, err
	}
	page, err := table.QueryPage[table.Item](ctx, m.reg.t, q, cursor)
	m.listed(err, o, page.Items)
	if err != nil {
		return table.Page[T]{}, err
	}
	out := table.Page[T]{Items: make([]T, len(page.Items)), Next: page.Next}
	for i, item := range page.Items {
		if err := m.decode(ctx, item, &out.Items[i]); err != nil {
			return table.Page[T]{}, err
		}
	}
	return out, nil
}

// listed counts a list's query whose error was err (see sent), by its
// index and sort (every sort used, sampled or not), sampling the items of
// its page (Items samples none: it reads pages it does not show).
func (m *model) listed(err error, o ListOptions, page []table.Item) {
	if !sent(err) {
		return
	}
	m.ops[opList].use.calls.Add(1)
	u := m.listUsage(o.Index)
	u.sorts.Or(1 << o.Sort.op)
	if u.counts(nil) && len(page) > 0 {
		u.sample(table.ItemSize(page[0]), len(page))
	}
}

// Items iterates over every item List would return, in the same order,
// reading page after page as DynamoDB returns them (ListOptions.Limit
// items per request when set) without List's look-ahead: the fewest
// requests for a whole partition. It stops at the first error.
func (e *Entity[T]) Items(ctx context.Context, partition T, opts ...func(*ListOptions)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if err := e.ready(ctx); err != nil {
			yield(zero, err)
			return
		}
		m := e.m
		o := listOptions(opts)
		q, err := m.query(reflect.ValueOf(&partition).Elem(), o)
		if err != nil {
			yield(zero, err)
			return
		}
		listed := false
		defer func() {
			if !listed { // an empty partition: one request, nothing read
				m.listed(nil, o, nil)
			}
		}()
		for item, err := range table.QueryAll[table.Item](ctx, m.reg.t, q) {
			if !listed {
				listed = true
				m.listed(err, o, nil)
			}
			if err != nil {
				yield(zero, err)
				return
			}
			var v T
			if err := m.decode(ctx, item, &v); err != nil {
				yield(zero, err)
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

// readKeys returns the key parts a read of index ("" for the table) uses,
// and the attributes that break ties on its sort key.
func (m *model) readKeys(index string) (pk, sk *keyPart, tieBreak []string, err error) {
	if index == "" {
		return &m.pk, &m.sk, nil, nil
	}
	for i := range m.indexes {
		if ix := &m.indexes[i]; ix.name == index {
			return &ix.pk, &ix.sk, ix.tieBreak, nil
		}
	}
	return nil, nil, nil, inputError(m.name+" ByIndex", index, "the entity is not declared in that index", nil)
}

// query builds the table query of a read of the entity. Its key condition
// may reach other entities' items (a photo's "PHOTO#" prefix reaches its
// tags' "PHOTO#p1#TAG#"), so every read keeps the items owns accepts and
// that have not expired: one test, applied by table below its paging, so
// a page is never cut short into a cursor that leads to nothing.
func (m *model) query(partition reflect.Value, o ListOptions) (table.Query, error) {
	if o.Limit < 0 || o.Limit > maxLimit {
		return table.Query{}, inputError(m.name+" Limit", strconv.Itoa(o.Limit), "must be between 0 and 1048576", nil)
	}
	pk, sk, tie, err := m.readKeys(o.Index)
	if err != nil {
		return table.Query{}, err
	}
	if o.AnyTieOrder {
		tie = nil
	}
	pv, err := pk.build(m.name, partition)
	if err != nil {
		return table.Query{}, err
	}
	now := m.reg.now()
	q := table.Query{Index: o.Index, Partition: pv, Descending: o.Descending, Limit: int32(o.Limit),
		Consistent: o.Consistent, TieBreak: tie, Filter: o.Filter,
		Keep: func(item table.Item) bool { return m.live(item, now) }}
	if q.Sort, err = m.sortCondition(sk, o.Sort); err != nil {
		return table.Query{}, err
	}
	return q, nil
}

// alive is the condition that an item has not expired (table.Alive).
func (m *model) alive(now time.Time) expression.ConditionBuilder {
	return table.Alive(m.ttl.name, now)
}

// sortCondition turns a SortCondition into the key condition on sk's
// attribute.
func (m *model) sortCondition(sk *keyPart, c SortCondition) (table.SortCondition, error) {
	if sk.own != nil && c.op != sortNone {
		return m.ownSortCondition(sk, c)
	}
	if sk.attr.Name == "" || sk.tmpl == nil {
		if c.op != sortNone {
			return table.SortCondition{}, inputError(m.name+" sort condition", "", "the sort key is no template of the entity", nil)
		}
		return table.SortCondition{}, nil
	}
	if sk.constant != nil {
		if c.op != sortNone {
			return table.SortCondition{}, inputError(m.name+" sort condition", "", "the entity's sort key is a constant", nil)
		}
		return table.SortEquals(sk.constant), nil
	}
	lower := func(vals []any) (string, bool, error) {
		if len(vals) == len(sk.fields) {
			s, err := sk.tmpl.Build(vals...)
			return s, true, err
		}
		s, err := sk.tmpl.Prefix(vals...)
		return s, false, err
	}
	upper := func(vals []any) (string, bool, error) {
		s, whole, err := lower(vals)
		if err != nil || whole || s == "" {
			return s, whole, err
		}
		return after(s), false, nil
	}
	bad := func(err error) (table.SortCondition, error) {
		return table.SortCondition{}, keyInputError(m.name, sk.attr.Name+" sort condition", err)
	}
	switch c.op {
	case sortNone:
		if sk.prefix == "" {
			return table.SortCondition{}, nil
		}
		return table.SortBeginsWith(sk.prefix), nil
	case sortBeginsWith:
		s, whole, err := lower(c.lo)
		switch {
		case err != nil:
			return bad(err)
		case whole:
			return table.SortEquals(s), nil
		case s == "":
			return table.SortCondition{}, nil
		}
		return table.SortBeginsWith(s), nil
	case sortBetween:
		lo, _, err := lower(c.lo)
		if err != nil {
			return bad(err)
		}
		hi, _, err := upper(c.hi)
		if err != nil {
			return bad(err)
		}
		if hi == "" {
			return table.SortGreaterOrEqual(lo), nil
		}
		if lo == "" {
			return table.SortLessOrEqual(hi), nil
		}
		return table.SortBetween(lo, hi), nil
	case sortLess, sortGreaterOrEqual:
		lo, _, err := lower(c.lo)
		if err != nil {
			return bad(err)
		}
		if c.op == sortLess {
			return table.SortLess(lo), nil
		}
		if p := sk.prefix; p != "" {
			return table.SortBetween(lo, after(p)), nil
		}
		return table.SortGreaterOrEqual(lo), nil
	case sortLessOrEqual, sortGreater:
		hi, whole, err := upper(c.lo)
		if err != nil {
			return bad(err)
		}
		switch {
		case c.op == sortLessOrEqual && whole:
			return table.SortLessOrEqual(hi), nil
		case c.op == sortLessOrEqual:
			return table.SortLess(hi), nil
		case whole:
			return table.SortGreater(hi), nil
		}
		if p := sk.prefix; p != "" {
			return table.SortBetween(hi, after(p)), nil
		}
		return table.SortGreaterOrEqual(hi), nil
	}
	return table.SortCondition{}, fmt.Errorf("entity: unknown sort condition %d", c.op)
}

// after is a bound above every key that starts with prefix, which ends
// with a template's delimiter: the prefix with its last byte moved up one
// ("PHOTO#" to "PHOTO$"), so BETWEEN stays inside the prefix's range.
func after(prefix string) string {
	b := []byte(prefix)
	b[len(b)-1]++
	return string(b)
}

var _ types.AttributeValue

// ownSortCondition is a sort condition on a sort key that is an
// attribute of the entity (a number, say): one value per bound, compared
// as DynamoDB compares the attribute's type.
func (m *model) ownSortCondition(sk *keyPart, c SortCondition) (table.SortCondition, error) {
	one := func(vals []any) (any, error) {
		if len(vals) != 1 {
			return nil, inputError(m.name+" sort condition", fmt.Sprint(len(vals)), "the sort key "+sk.attr.Name+" is one attribute: give one value", nil)
		}
		return vals[0], nil
	}
	lo, err := one(c.lo)
	if err != nil {
		return table.SortCondition{}, err
	}
	switch c.op {
	case sortBeginsWith:
		s, ok := lo.(string)
		if !ok {
			return table.SortCondition{}, inputError(m.name+" sort condition", fmt.Sprint(lo), "begins_with needs a string", nil)
		}
		return table.SortBeginsWith(s), nil
	case sortBetween:
		hi, err := one(c.hi)
		if err != nil {
			return table.SortCondition{}, err
		}
		return table.SortBetween(lo, hi), nil
	case sortLess:
		return table.SortLess(lo), nil
	case sortLessOrEqual:
		return table.SortLessOrEqual(lo), nil
	case sortGreater:
		return table.SortGreater(lo), nil
	}
	return table.SortGreaterOrEqual(lo), nil
}
