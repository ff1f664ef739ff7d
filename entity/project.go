package entity

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetAs is Get reading only the attributes P names: P is a struct of
// some of T's attributes (fields of the same dynamodbav names and Go
// types), and DynamoDB returns those alone (a ProjectionExpression), with
// what Get needs to mean what it means (the keys, the type attribute, the
// TTL): a missing or expired item is table.ErrNotFound, another entity's
// item ErrUnknownItem, offloaded attributes among P's are restored and
// KeyOnly ones parsed back from the keys.
//
//	type AlbumTitle struct {
//		ID    string `dynamodbav:"albumId"`
//		Title string `dynamodbav:"title"`
//	}
//	t, err := entity.GetAs[AlbumTitle](ctx, albums, Album{ID: "a1"})
//
// A projection is a type of its own, not a T with fields left zero: a T
// half-filled would pass for the whole item (to a Put that then erases
// what was not read, to a rule that reads an empty field), where a P can
// only be used for what it holds. A P naming an attribute T does not have,
// or with another Go type, or T's Extra, is a *table.InputError, and
// nothing is sent. Read units are those of the whole item: DynamoDB
// projects after reading.
func GetAs[P, T any](ctx context.Context, e *Entity[T], key T, opts ...func(*ReadOptions)) (_ P, err error) {
	var zero P
	if err := e.ready(ctx); err != nil {
		return zero, err
	}
	m := e.m
	pr, err := m.projection(reflect.TypeFor[P]())
	if err != nil {
		return zero, err
	}
	ctx, span := m.start(ctx, opGet)
	defer span.End(&err)
	o := readOptions(opts)
	if err := o.itemRead(m.name, "GetAs"); err != nil {
		return zero, err
	}
	k, err := e.tableKey(key)
	if err != nil {
		return zero, err
	}
	in := &dynamodb.GetItemInput{TableName: m.tableName(), Key: k, ConsistentRead: eventualRead,
		ProjectionExpression: &pr.expr, ExpressionAttributeNames: pr.names}
	if o.Consistent {
		in.ConsistentRead = consistentRead
	}
	out, err := m.reg.t.DB().GetItem(ctx, in)
	m.ops[opGet].use.callItem(err, nil) // a projected item's size is not the item's
	if err != nil {
		return zero, m.wrap("get", k, err)
	}
	if err := m.found("get", out.Item, k, m.expired); err != nil {
		return zero, err
	}
	return decodeAs[P, T](ctx, m, pr, out.Item)
}

// decodeAs decodes a projected item as T by the one decode (offload,
// KeyOnly), then copies P's fields: the T, filled only in part, never
// leaves.
func decodeAs[P, T any](ctx context.Context, m *model, pr *projection, item map[string]types.AttributeValue) (P, error) {
	var whole T
	var v P
	if err := m.decode(ctx, item, &whole); err != nil {
		return v, err
	}
	wv, pv := reflect.ValueOf(&whole).Elem(), reflect.ValueOf(&v).Elem()
	for _, c := range pr.fields {
		pv.FieldByIndex(c.p).Set(wv.FieldByIndex(c.t))
	}
	return v, nil
}

// projection is what a GetAs into one P type sends and copies, built once
// per P.
type projection struct {
	expr   string
	names  map[string]string
	list   expression.ProjectionBuilder // the same attributes, for table.Query
	fields []struct{ p, t []int }       // P's field, T's field of the same attribute
	err    error
}

// projection returns the projection of P (a struct type) from the
// entity's items, cached.
func (m *model) projection(p reflect.Type) (*projection, error) {
	if c, ok := m.projections.Load(p); ok {
		pr := c.(*projection)
		return pr, pr.err
	}
	pr := m.project(p)
	c, _ := m.projections.LoadOrStore(p, pr)
	pr = c.(*projection)
	return pr, pr.err
}

func (m *model) project(p reflect.Type) *projection {
	pr := &projection{names: map[string]string{}}
	bad := func(reason string) *projection {
		pr.err = inputError(m.name+" projection", p.String(), reason, nil)
		return pr
	}
	if p.Kind() != reflect.Struct {
		return bad("a projection is a struct of some of the entity's attributes")
	}
	_, order := structFields(p)
	if len(order) == 0 {
		return bad("the struct names no attribute")
	}
	attrs := []string{m.pk.attr.Name, m.sk.attr.Name, m.typeAttr}
	if m.ttl != nil {
		attrs = append(attrs, m.ttl.name)
	}
	for _, pf := range order {
		tf := m.fields[pf.name]
		switch {
		case tf == nil:
			return bad(fmt.Sprintf("%s has no attribute %q (field %s)", m.typ, pf.name, pf.goName))
		case tf.typ != pf.typ:
			return bad(fmt.Sprintf("attribute %q is %s in %s, %s in the projection", pf.name, tf.typ, m.typ, pf.typ))
		case m.extra != nil && slices.Equal(tf.index, m.extra):
			return bad(fmt.Sprintf("%q is the entity's Extra, the attributes it does not know: read the whole item", pf.name))
		}
		pr.fields = append(pr.fields, struct{ p, t []int }{pf.index, tf.index})
		attrs = append(attrs, pf.name)
		if to := m.renamed[tf]; to != "" {
			attrs = append(attrs, to) // read first (Rename)
		}
		if slices.Contains(m.keyOnly, tf) {
			attrs = append(attrs, m.keyPartOf(tf).attr.Name) // parsed back from that key
		}
	}
	var expr []string
	for _, a := range attrs {
		if a == "" || slices.Contains(expr, pr.nameOf(a)) {
			continue
		}
		expr = append(expr, pr.nameOf(a))
		pr.list = pr.list.AddNames(expression.Name(a))
	}
	pr.expr = strings.Join(expr, ", ")
	return pr
}

// nameOf is the placeholder of attribute a in the projection, added to
// its names when new.
func (pr *projection) nameOf(a string) string {
	for ph, n := range pr.names {
		if n == a {
			return ph
		}
	}
	ph := "#p" + strconv.Itoa(len(pr.names))
	pr.names[ph] = a
	return ph
}
