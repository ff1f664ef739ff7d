package entity

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

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
	tieBreak string
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
// ties on an index broken by the first member's tie-break; items of other
// entities in the partition are left out. The cursor is table's.
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
	if err != nil {
		return table.Page[any]{}, err
	}
	out := table.Page[any]{Items: make([]any, 0, len(page.Items)), Next: page.Next}
	for _, item := range page.Items {
		m := c.memberOf(item)
		if m == nil {
			continue
		}
		v, err := m.decodeAny(ctx, item)
		if err != nil {
			return table.Page[any]{}, err
		}
		out.Items = append(out.Items, v)
	}
	if c.use.count() && len(page.Items) > 0 {
		c.use.sample(table.ItemSize(page.Items[0]), len(page.Items))
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
	q := table.Query{Index: c.index, Partition: pv, Descending: o.Descending, Limit: int32(o.Limit),
		Consistent: o.Consistent, TieBreak: c.tieBreak, Filter: c.filter(o.Filter)}
	if o.Limit < 0 || o.Limit > maxLimit {
		return table.Query{}, inputError(c.name+" Limit", fmt.Sprint(o.Limit), "must be between 0 and 1048576", nil)
	}
	return q, nil
}

// filter keeps the members' items when the registry has a type attribute,
// and leaves out expired ones of members with a TTL.
func (c *Collection) filter(user *expression.ConditionBuilder) *expression.ConditionBuilder {
	var cs []expression.ConditionBuilder
	if user != nil {
		cs = append(cs, *user)
	}
	if ta := c.members[0].typeAttr; ta != "" {
		names := make([]expression.OperandBuilder, 0, len(c.members))
		for _, m := range c.members[1:] {
			names = append(names, expression.Value(m.name))
		}
		if len(names) == 0 {
			cs = append(cs, expression.Name(ta).Equal(expression.Value(c.members[0].name)))
		} else {
			cs = append(cs, expression.Name(ta).In(expression.Value(c.members[0].name), names...))
		}
	}
	if len(cs) == 0 {
		return nil
	}
	f := cs[0]
	if len(cs) > 1 {
		f = expression.And(cs[0], cs[1], cs[2:]...)
	}
	return &f
}

// memberOf returns the member an item read belongs to; nil for an item of
// another entity, or an expired one.
func (c *Collection) memberOf(item table.Item) *model {
	m := c.members[0].reg.identify(item)
	for _, mb := range c.members {
		if mb == m {
			if m.expired(item) {
				return nil
			}
			return m
		}
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
