package entity

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"

	"github.com/tablekit/tablekit/table"
)

// Member is an entity a Collection reads: any *Entity[T].
type Member interface {
	model() *model
}

func (e *Entity[T]) model() *model {
	if e == nil {
		return nil
	}
	return e.m
}

// Collection is several entities of one registry whose items share a
// partition, on the table or on one index (an album, its photos and its
// shares under ALBUM#<id>), read together by one Query per page and
// returned as values of their own types.
type Collection struct {
	name     string
	index    string
	members  []*model
	tieBreak []string
	use      usage
}

// NewCollection declares the collection name of members on index ("" for
// the table). Every member must be of reg, in the index, with the same
// partition key template, so that one value of any member's type names
// the partition of all of them; otherwise it is a *DeclarationError.
func NewCollection(reg *Registry, name, index string, members ...Member) (*Collection, error) {
	if err := reg.usable(); err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, declError(name, "NewCollection", "a collection needs members")
	}
	c := &Collection{name: name, index: index}
	var pattern string
	for i, mb := range members {
		if mb == nil || mb.model() == nil {
			return nil, declError(name, "NewCollection", fmt.Sprintf("member %d is nil", i))
		}
		m := mb.model()
		if m.reg != reg {
			return nil, declError(name, "NewCollection", fmt.Sprintf("entity %q is of another registry", m.name))
		}
		pk, _, tie, err := m.readKeys(index)
		if err != nil {
			return nil, declError(name, "NewCollection", fmt.Sprintf("entity %q is not in index %q", m.name, index))
		}
		p := pk.pattern()
		if pk.tmpl != nil {
			p += " " + pk.tmpl.Delimiter()
		}
		if i == 0 {
			pattern, c.tieBreak = p, tie
		} else if p != pattern {
			return nil, declError(name, "NewCollection", fmt.Sprintf("entity %q's partition key is %s, not %s like %q's", m.name, p, pattern, c.members[0].name))
		}
		c.members = append(c.members, m)
	}
	reg.mu.Lock()
	reg.collections = append(reg.collections, c)
	reg.mu.Unlock()
	return c, nil
}

// List reads one page of the collection's partition, named by partition:
// a value of any member's type whose partition fields are set. Items are
// values of their entities' types (Album, not *Album), in sort key order,
// ties on an index broken by the table key; items of other entities in the
// partition, and expired ones, are left out (each entity's own test, as
// List applies it, and a page is never cut short into a cursor that leads
// to nothing). The cursor is table's.
// ListOptions' Sort is refused (the members' sort keys differ); Index is
// the collection's.
func (c *Collection) List(ctx context.Context, partition any, cursor string, opts ...func(*ListOptions)) (_ table.Page[any], err error) {
	if c == nil || len(c.members) == 0 {
		return table.Page[any]{}, noEntity()
	}
	if ctx == nil {
		return table.Page[any]{}, inputError("ctx", "nil", "a request needs a context", nil)
	}
	t := c.members[0].reg.t
	ctx, span := c.members[0].reg.start(ctx, c.name+".List")
	defer span.End(&err)
	q, err := c.query(partition, listOptions(opts))
	if err != nil {
		return table.Page[any]{}, err
	}
	page, err := table.QueryPage[table.Item](ctx, t, q, cursor)
	if c.use.counts(err) && len(page.Items) > 0 {
		c.use.sample(table.ItemSize(page.Items[0]), len(page.Items))
	}
	if err != nil {
		return table.Page[any]{}, err
	}
	out := table.Page[any]{Items: make([]any, len(page.Items)), Next: page.Next}
	for i, item := range page.Items {
		if out.Items[i], err = c.member(item).decodeAny(ctx, item); err != nil {
			return table.Page[any]{}, err
		}
	}
	return out, nil
}

// Items iterates over the whole partition, page by page.
func (c *Collection) Items(ctx context.Context, partition any, opts ...func(*ListOptions)) iter.Seq2[any, error] {
	return table.Walk(func(cursor string) (table.Page[any], error) { return c.List(ctx, partition, cursor, opts...) })
}

func (c *Collection) query(partition any, o ListOptions) (table.Query, error) {
	if o.Sort.op != sortNone {
		return table.Query{}, inputError(c.name+" sort condition", "", "a collection reads whole partitions: its members' sort keys differ", nil)
	}
	if o.Index != "" && o.Index != c.index {
		return table.Query{}, inputError(c.name+" ByIndex", o.Index, "the collection is on index "+strconv.Quote(c.index), nil)
	}
	rv := reflect.ValueOf(partition)
	var owner *model
	for _, m := range c.members {
		if rv.IsValid() && rv.Type() == m.typ {
			owner = m
		}
	}
	if owner == nil {
		return table.Query{}, inputError(c.name+" partition", fmt.Sprintf("%T", partition), "is a value of none of the members' types", nil)
	}
	p := reflect.New(owner.typ).Elem()
	p.Set(rv)
	pk, _, _, _ := owner.readKeys(c.index)
	pv, err := pk.build(owner.name, p)
	if err != nil {
		return table.Query{}, err
	}
	now := owner.reg.now()
	q := table.Query{Index: c.index, Partition: pv, Descending: o.Descending, Limit: int32(o.Limit),
		Consistent: o.Consistent, TieBreak: c.tieBreak, Filter: o.Filter,
		Keep: func(item table.Item) bool {
			m := c.member(item)
			return m != nil && !m.expiredAt(item, now)
		}}
	if o.AnyTieOrder {
		q.TieBreak = nil
	}
	if o.Limit < 0 || o.Limit > maxLimit {
		return table.Query{}, inputError(c.name+" Limit", fmt.Sprint(o.Limit), "must be between 0 and 1048576", nil)
	}
	return q, nil
}

// member returns the member an item read belongs to (Registry.identify:
// the entity that owns it); nil for an item of another entity.
func (c *Collection) member(item table.Item) *model {
	if m := c.members[0].reg.identify(item); slices.Contains(c.members, m) {
		return m
	}
	return nil
}

// Of returns the values of type T among items, in their order: the photos
// of a collection's page.
func Of[T any](items []any) []T {
	var out []T
	for _, it := range items {
		if v, ok := it.(T); ok {
			out = append(out, v)
		}
	}
	return out
}
