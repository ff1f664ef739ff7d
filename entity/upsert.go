package entity

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Upsert writes the attributes of v whether or not the item exists, and
// returns the item as it is after: one UpdateItem that sets every
// attribute v has, keeps Created when the item had one (if_not_exists),
// sets Updated and increments Version. Attributes the stored item has and
// v leaves out (omitempty) stay; use Put to replace an item whole. Over an
// expired item it starts afresh, as Create would: none of its attributes
// stay.
// IfVersion is refused: an upsert does not compare (use Put, or an Update
// with IfVersion).
func (e *Entity[T]) Upsert(ctx context.Context, v T, opts ...func(*WriteOptions)) (_ T, err error) {
	var zero T
	if err := e.ready(ctx); err != nil {
		return zero, err
	}
	m := e.m
	ctx, span := m.start(ctx, opUpsert)
	defer span.End(&err)
	o := writeOptions(opts)
	if o.Version != nil {
		return zero, inputError(m.name+" options", "IfVersion", "an upsert does not compare versions", nil)
	}
	now := m.reg.now()
	rv := reflect.ValueOf(&v).Elem()
	if m.updated != nil {
		m.updated.set(rv, now)
	}
	if m.created != nil && m.created.isZero(rv) {
		m.created.set(rv, now)
	}
	m.setTTL(rv, now)
	item, size, err := m.encode(ctx, rv, &v)
	if err != nil {
		return zero, err
	}
	keptKeys, err := m.upsertKeys()
	if err != nil {
		return zero, err
	}
	key := m.keyOf(item)
	names := make([]string, 0, len(item))
	for name := range item {
		if _, isKey := key[name]; !isKey {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var sets []string
	exprNames := make(map[string]string, len(names)+1)
	values := make(map[string]types.AttributeValue, len(names)+1)
	for i, name := range names {
		n, val := "#a"+strconv.Itoa(i), ":a"+strconv.Itoa(i)
		exprNames[n] = name
		values[val] = item[name]
		switch {
		case m.created != nil && name == m.created.f.name || keptKeys[name]:
			// Created, and index keys built from it, stay as they are.
			sets = append(sets, n+" = if_not_exists("+n+", "+val+")")
		case m.version != nil && name == m.version.name:
			// ADD below.
			delete(exprNames, n)
			delete(values, val)
		default:
			sets = append(sets, n+" = "+val)
		}
	}
	update := "SET " + strings.Join(sets, ", ")
	if out := m.absentIndexKeys(rv); len(out) > 0 {
		// v is out of a sparse index (indexPart.absent): the keys the
		// stored item may have there go, as a Put of v leaves them out.
		removes := make([]string, len(out))
		for i, name := range out {
			removes[i] = "#r" + strconv.Itoa(i)
			exprNames[removes[i]] = name
		}
		update += " REMOVE " + strings.Join(removes, ", ")
	}
	if m.version != nil {
		exprNames["#ver"] = m.version.name
		values[":one"] = one
		update += " ADD #ver :one"
	}
	base := m.expr.fresh // no item or a live one; an expired one is cleared first
	maps.Copy(exprNames, base.names)
	base.names = exprNames
	// The index keys are a Put's of v: right when the item has, of what
	// v leaves out, nothing either (indexkeys.go's rule, for an upsert).
	unset := m.leftOut(item)
	if len(unset) > 0 {
		var terms []string
		if base.text != nil {
			terms = append(terms, "("+*base.text+")")
		}
		for i, f := range unset {
			n, val := "#o"+strconv.Itoa(i), ":o"+strconv.Itoa(i)
			exprNames[n] = f.name
			values[val] = zeroValue(f)
			terms = append(terms, "(attribute_not_exists("+n+") OR "+n+" = "+val+")")
		}
		base.text = ptr(strings.Join(terms, " AND "))
	}
	c, err := m.condition(base, now, 0, o.Conditions)
	if err != nil {
		return zero, err
	}
	for k, val := range c.values {
		values[k] = val
	}
	in := &dynamodb.UpdateItemInput{TableName: m.tableName(), Key: key, UpdateExpression: &update,
		ConditionExpression: c.text, ExpressionAttributeNames: c.names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllNew}
	if c.text != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	out, err := m.reg.t.DB().UpdateItem(ctx, in)
	// Over an expired item the upsert starts afresh, as Create does:
	// none of the expired item's attributes stay.
	err = m.afresh(ctx, key, now, err, func() (err error) {
		out, err = m.reg.t.DB().UpdateItem(ctx, in)
		return err
	})
	m.ops[opUpsert].use.call(err, size, 1)
	if err != nil {
		return zero, m.writeError("upsert", key, err, func(current table.Item) error {
			if set := setIn(current, unset); len(set) > 0 && !m.expiredAt(current, now) {
				return inputError(m.name+" upsert", strings.Join(set, ", "),
					"the stored item has them and the value leaves them out (omitempty), so they would stay, and index keys are built from them: set them in the value, or use Put", ErrIndexKey)
			}
			return table.ErrConditionFailed
		})
	}
	var stored T
	if err := m.decode(ctx, out.Attributes, &stored); err != nil {
		return zero, err
	}
	return stored, nil
}

// upsertKeys names the index key attributes an Upsert writes only when it
// creates the item (if_not_exists): those built from Created, which it
// keeps, and from the table key. A key built from the Version (which it
// adds to without knowing it) or from Created and attributes it changes
// cannot follow the item, and is refused.
func (m *model) upsertKeys() (map[string]bool, error) {
	var kept map[string]bool
	for i := range m.indexes {
		ix := &m.indexes[i]
		for _, kp := range [2]*keyPart{&ix.pk, &ix.sk} {
			if !kp.present() || kp.own != nil {
				continue
			}
			created, changed := false, []string(nil)
			for _, f := range kp.fields {
				switch {
				case f == m.version:
					return nil, inputError(m.name+" upsert", f.name, fmt.Sprintf(
						"index %s's %s (%s) is built from the version, which an upsert adds to without knowing it: use Put or an update with IfVersion",
						ix.name, kp.attr.Name, kp.pattern()), nil)
				case m.created != nil && f == m.created.f:
					created = true
				case !m.inTableKey(f):
					changed = append(changed, f.name)
				}
			}
			switch {
			case created && len(changed) > 0:
				return nil, inputError(m.name+" upsert", m.created.f.name, fmt.Sprintf(
					"index %s's %s (%s) is built from it, which an upsert keeps, and from %s, which it writes: use Put",
					ix.name, kp.attr.Name, kp.pattern(), strings.Join(changed, ", ")), nil)
			case created:
				if kept == nil {
					kept = map[string]bool{}
				}
				kept[kp.attr.Name] = true
			}
		}
	}
	return kept, nil
}

// absentIndexKeys names the index key attributes the entity builds for
// the sparse indexes v is out of.
func (m *model) absentIndexKeys(v reflect.Value) []string {
	var out []string
	for i := range m.indexes {
		ix := &m.indexes[i]
		if !ix.sparse || !ix.absent(v) {
			continue
		}
		for _, kp := range [2]*keyPart{&ix.pk, &ix.sk} {
			if kp.present() && kp.own == nil {
				out = append(out, kp.attr.Name)
			}
		}
	}
	return out
}

// leftOut are the attributes index keys are built from that item (an
// encoded value) leaves out: an upsert keeps the stored ones, which its
// keys, built from the value, would not follow.
func (m *model) leftOut(item table.Item) []*field {
	var out []*field
	for i := range m.indexes {
		ix := &m.indexes[i]
		for _, kp := range [2]*keyPart{&ix.pk, &ix.sk} {
			for _, f := range kp.fields {
				if _, ok := item[f.name]; !ok && !containsField(m.keyOnly, f) && !containsField(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// setIn names the fields item has set (not their zero value).
func setIn(item table.Item, fields []*field) []string {
	var out []string
	for _, f := range fields {
		if !anyZero(item, []*field{f}) {
			out = append(out, f.name)
		}
	}
	return out
}

// zeroValue is f's zero value as an update stores it.
func zeroValue(f *field) types.AttributeValue {
	av, err := attributevalue.Marshal(reflect.Zero(f.typ).Interface())
	if err != nil {
		return &types.AttributeValueMemberNULL{Value: true}
	}
	return av
}
