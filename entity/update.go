package entity

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Update is a typed UpdateItem of one item, built with Set, Add, Remove,
// Append and SetIfNotExists and sent by Run (or added to a transaction by
// Action). Attribute names are the struct's; each value must have its
// field's type (an untyped number may be any number field) and meet the
// declared rules, or Run returns a *table.InputError without sending
// anything. The first mistake is the one reported.
//
// What the entity keeps is kept: Updated is set to now, a Version is
// incremented, and each index key built from an attribute the update
// sets (Updated and, with IfVersion, Version included) is rebuilt; one it
// cannot rebuild, because it does not know every attribute of its
// template, is refused naming them (see the package documentation). Key
// attributes of the table cannot change (put a new item and delete the
// old), nor can Created, Updated and Version be set by hand.
type Update[T any] struct {
	m     *model
	key   T
	patch bool
	ops   []updateOp
	conds []expression.ConditionBuilder
	ver   *int
	leave []int // indexes the item leaves
	err   error
}

type updateKind uint8

const (
	updSet updateKind = iota
	updSetIfNotExists
	updAdd
	updRemove
	updAppend
	updSetPlus // a renamed number's second name: its first's value plus n, as Add makes it
)

type updateOp struct {
	kind  updateKind
	f     *field
	value reflect.Value // converted to the field's type (updAppend: a slice of it)
	zero  bool          // a Set of the zero value, which takes the item out of a sparse index
}

// Update starts an update of the item whose key the key fields of key
// give. Like UpdateItem it creates the item when it is missing (an upsert
// of the attributes set, with Created set then), and over an expired one
// it starts afresh, as Create would (the expired item's attributes are not
// kept); use Patch to update only an existing item.
func (e *Entity[T]) Update(key T) *Update[T] {
	u := &Update[T]{key: key}
	if e == nil || e.m == nil {
		u.err = noEntity()
		return u
	}
	u.m = e.m
	return u
}

// Patch starts an update that happens only if the item exists (and has
// not expired): a missing one is table.ErrNotFound.
func (e *Entity[T]) Patch(key T) *Update[T] {
	u := e.Update(key)
	u.patch = true
	return u
}

func (u *Update[T]) fail(err error) *Update[T] {
	if u.err == nil {
		u.err = err
	}
	return u
}

// target resolves an attribute the update may write.
func (u *Update[T]) target(name, what string) *field {
	if u == nil || u.err != nil {
		return nil
	}
	if u.m == nil {
		u.fail(noEntity())
		return nil
	}
	m := u.m
	f := m.fields[name]
	if f == nil {
		u.fail(inputError(m.name+"."+name, "", fmt.Sprintf("%s has no such attribute", m.typ), nil))
		return nil
	}
	switch {
	case m.inTableKey(f):
		u.fail(inputError(m.name+"."+name, "", "is part of the table key, which an update cannot change; put a new item and delete the old one", nil))
	case f == m.version || m.created != nil && f == m.created.f || m.updated != nil && f == m.updated.f:
		u.fail(inputError(m.name+"."+name, "", "is kept by the entity (Created, Updated, Version)", nil))
	case containsField(m.keyOnly, f):
		u.fail(inputError(m.name+"."+name, "", "is stored in keys only (KeyOnly)", nil))
	default:
		return f
	}
	return nil
}

// convert turns v into a value of type t: assignable, or a number into a
// number field.
func convert(v any, t reflect.Type) (reflect.Value, bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return rv, false
	}
	if rv.Type().AssignableTo(t) {
		out := reflect.New(t).Elem()
		out.Set(rv)
		return out, true
	}
	if isNumber(rv.Kind()) && isNumber(t.Kind()) {
		out := rv.Convert(t)
		// A value the field cannot hold (300 in an int8, -1 in a uint,
		// 1.5 in an int) is refused, not wrapped or truncated.
		return out, out.Convert(rv.Type()).Equal(rv) && (out.CanUint() == false || !rv.CanInt() || rv.Int() >= 0)
	}
	return rv, false
}

// addend converts Add's operand: a whole number for an integer field (of
// either sign: a decrement of an unsigned field is an Add of a negative
// number), any number for a float field.
func addend(v any, t reflect.Type) (reflect.Value, bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !isNumber(rv.Kind()) {
		return rv, false
	}
	switch kindOf(t) {
	case kindInt, kindUint:
		if rv.CanFloat() && rv.Float() != float64(int64(rv.Float())) {
			return rv, false
		}
		if rv.CanUint() && rv.Uint() > math.MaxInt64 {
			return rv, false
		}
		return rv.Convert(reflect.TypeFor[int64]()), true
	}
	return rv.Convert(reflect.TypeFor[float64]()), true
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64 && k != reflect.Uintptr
}

// Set sets attribute name to value.
func (u *Update[T]) Set(name string, value any) *Update[T] { return u.set(updSet, name, value) }

// SetIfNotExists sets attribute name to value unless the item has it.
func (u *Update[T]) SetIfNotExists(name string, value any) *Update[T] {
	return u.set(updSetIfNotExists, name, value)
}

func (u *Update[T]) set(kind updateKind, name string, value any) *Update[T] {
	f := u.target(name, "Set")
	if f == nil {
		return u
	}
	rv, ok := convert(value, f.typ)
	if !ok {
		return u.fail(inputError(u.m.name+"."+name, fmt.Sprintf("%T", value), "is "+f.typ.String(), nil))
	}
	for _, r := range u.m.rulesFor(f) {
		if err := r.value(u.m.name, rv); err != nil {
			return u.fail(err)
		}
	}
	u.ops = append(u.ops, updateOp{kind: kind, f: f, value: rv, zero: kind == updSet && rv.IsZero()})
	return u
}

// Add adds n to a number attribute (ADD: atomic, and 0 + n when the item
// has none).
func (u *Update[T]) Add(name string, n any) *Update[T] {
	f := u.target(name, "Add")
	if f == nil {
		return u
	}
	if !isNumber(f.typ.Kind()) {
		return u.fail(inputError(u.m.name+"."+name, "", "Add needs a number attribute, not "+f.typ.String(), nil))
	}
	rv, ok := addend(n, f.typ)
	if !ok {
		return u.fail(inputError(u.m.name+"."+name, fmt.Sprintf("%v", n), "Add takes a number the attribute can add ("+f.typ.String()+")", nil))
	}
	u.ops = append(u.ops, updateOp{kind: updAdd, f: f, value: rv})
	return u
}

// Remove removes attributes from the item.
func (u *Update[T]) Remove(names ...string) *Update[T] {
	for _, name := range names {
		f := u.target(name, "Remove")
		if f == nil {
			return u
		}
		for _, r := range u.m.rulesFor(f) {
			if r.required {
				return u.fail(inputError(u.m.name+"."+name, "", "is required", ErrValidation))
			}
		}
		u.ops = append(u.ops, updateOp{kind: updRemove, f: f})
	}
	return u
}

// Append appends values to a list attribute (a slice field), creating
// the list when the item has none.
func (u *Update[T]) Append(name string, values ...any) *Update[T] {
	f := u.target(name, "Append")
	if f == nil {
		return u
	}
	if f.typ.Kind() != reflect.Slice || kindOf(f.typ) == kindBytes {
		return u.fail(inputError(u.m.name+"."+name, "", "Append needs a list attribute (a slice), not "+f.typ.String(), nil))
	}
	list := reflect.MakeSlice(f.typ, 0, len(values))
	for _, v := range values {
		ev, ok := convert(v, f.typ.Elem())
		if !ok {
			return u.fail(inputError(u.m.name+"."+name, fmt.Sprintf("%T", v), "elements are "+f.typ.Elem().String(), nil))
		}
		list = reflect.Append(list, ev)
	}
	if list.Len() == 0 {
		return u.fail(inputError(u.m.name+"."+name, "[]", "Append needs at least one value", nil))
	}
	u.ops = append(u.ops, updateOp{kind: updAppend, f: f, value: list})
	return u
}

// LeaveIndex takes the item out of index: its key attributes there are
// removed (those the entity writes; an index key that is a field or a
// table key stays). A later Put or Create puts it back.
func (u *Update[T]) LeaveIndex(index string) *Update[T] {
	if u == nil || u.err != nil {
		return u
	}
	if u.m == nil {
		return u.fail(noEntity())
	}
	for i := range u.m.indexes {
		if u.m.indexes[i].name == index {
			u.leave = append(u.leave, i)
			return u
		}
	}
	return u.fail(inputError(u.m.name+" LeaveIndex", index, "the entity is not declared in that index", nil))
}

// If adds a condition that must hold (table.ErrConditionFailed).
func (u *Update[T]) If(c expression.ConditionBuilder) *Update[T] {
	if u != nil && u.err == nil {
		u.conds = append(u.conds, c)
	}
	return u
}

// IfVersion makes the update happen only if the stored version is v
// (ErrVersionConflict otherwise, table.ErrNotFound when the item is gone).
func (u *Update[T]) IfVersion(v int) *Update[T] {
	if u == nil || u.err != nil {
		return u
	}
	if u.m == nil {
		return u.fail(noEntity())
	}
	if u.m.version == nil {
		return u.fail(inputError(u.m.name+" IfVersion", strconv.Itoa(v), "the entity has no Version attribute", nil))
	}
	u.ver = &v
	return u
}

// keyFields are the fields the table key templates are built from, less
// KeyOnly ones, which are stored in the keys alone. (A key that is its own
// attribute is written by the key itself; DynamoDB refuses to SET it.)
func (m *model) keyFields() []*field {
	var out []*field
	for _, k := range [2]*keyPart{&m.pk, &m.sk} {
		for _, f := range k.fields {
			if !containsField(m.keyOnly, f) && !containsField(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// inTableKey reports whether f makes up a table key.
func (m *model) inTableKey(f *field) bool {
	for _, k := range [2]*keyPart{&m.pk, &m.sk} {
		if k.own == f || containsField(k.fields, f) {
			return true
		}
	}
	return false
}

// Run sends the update and returns the item as it is after it.
func (u *Update[T]) Run(ctx context.Context) (_ T, err error) {
	var zero T
	if u == nil {
		return zero, noEntity()
	}
	if u.m == nil {
		return zero, u.errOr(noEntity())
	}
	if ctx == nil {
		return zero, inputError("ctx", "nil", "a request needs a context", nil)
	}
	m := u.m
	o := opUpdate
	if u.patch {
		o = opPatch
	}
	ctx, span := m.start(ctx, o)
	defer span.End(&err)
	if u.err != nil {
		return zero, u.err
	}
	now := m.reg.now()
	var out *dynamodb.UpdateItemOutput
	var p *updatePlan
	var modes indexModes
	for try := 0; ; try++ {
		p, err = u.plan(ctx, now, modes)
		if err != nil {
			return zero, err
		}
		in := &dynamodb.UpdateItemInput{TableName: m.tableName(), Key: p.key,
			UpdateExpression: p.shape.update, ConditionExpression: p.shape.cond,
			ExpressionAttributeNames: p.shape.names, ExpressionAttributeValues: p.values,
			ReturnValues: types.ReturnValueAllNew}
		if p.shape.cond != nil {
			in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		}
		out, err = m.reg.t.DB().UpdateItem(ctx, in)
		if u.creates() {
			// An expired item is gone: the update starts afresh, as a
			// Create over it does, instead of keeping its attributes.
			err = m.afresh(ctx, p.key, now, err, func() (err error) {
				out, err = m.reg.t.DB().UpdateItem(ctx, in)
				return err
			})
		}
		if err == nil || len(p.shape.indexConds) == 0 || try == maxHalfKeyTries {
			break
		}
		// The update guessed which item it writes over for an index whose
		// key it cannot build (indexkeys.go): the refused item tells.
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			break
		}
		next, refusal := u.modesFor(ccf.Item, now, u.halfKeys())
		if refusal != nil {
			m.ops[o].use.callItem(err, nil)
			return zero, refusal
		}
		if next == modes {
			break
		}
		modes = next
	}
	if err != nil {
		m.ops[o].use.callItem(err, nil)
		return zero, m.writeError("update", p.key, err, u.failure(now, p.guards, modes))
	}
	m.ops[o].use.callItem(nil, out.Attributes)
	var v T
	if err := m.decode(ctx, out.Attributes, &v); err != nil {
		return zero, err
	}
	return v, nil
}

func (u *Update[T]) errOr(err error) error {
	if u.err != nil {
		return u.err
	}
	return err
}

// failure is the sentinel of a refused update: the item missing (or
// expired) for a Patch, or for an Update that could not create it without
// breaking a rule (ErrValidation naming the attributes it must set); a
// version conflict; a rule an Add or Append would break (ErrValidation);
// else the caller's condition.
func (u *Update[T]) failure(now time.Time, guards []*guard, modes indexModes) func(table.Item) error {
	m := u.m
	return func(current table.Item) error {
		gone := len(current) == 0 || m.expiredAt(current, now)
		switch {
		case gone && !u.patch && u.ver == nil && !u.creates():
			return inputError(m.name+" update", strings.Join(u.unsetRequired(), ", "),
				"the item does not exist, and an update that creates it must set these Required attributes", ErrValidation)
		case gone && (u.patch || u.ver != nil):
			return table.ErrNotFound
		case u.ver != nil && versionIn(current, m.version.name) != int64(*u.ver):
			return ErrVersionConflict
		}
		if hs := u.halfKeys(); len(hs) > 0 {
			// An index whose key the update cannot build, over an item
			// other than the one it expected: a transaction's update,
			// which cannot resend, or one the item changed under.
			next, err := u.modesFor(current, now, hs)
			if err != nil {
				return err
			}
			for _, h := range hs {
				if next.of(h.ix) != modes.of(h.ix) {
					ix := &m.indexes[h.ix]
					return halfKeyError(m, ix, [2]*keyPart{&ix.pk, &ix.sk}[h.other], h.missing,
						"the item is not the one the update expected (in the index): in a transaction, which cannot resend it")
				}
			}
		}
		if gone {
			current = nil // an expired item is no item: its attributes break no rule
		}
		for _, g := range guards {
			if err := m.violation(g, current); err != nil {
				return err
			}
		}
		return table.ErrConditionFailed
	}
}

// updatePlan is an update ready to send.
type updatePlan struct {
	key    table.Key
	shape  *updateShape
	values map[string]types.AttributeValue
	guards []*guard // the rules in its condition
}

// updateShape is the rendered text of one shape of update (which
// operations on which attributes, which conditions): rendered once per
// entity and shape, then shared.
type updateShape struct {
	update, cond *string
	names        map[string]string
	clauses      []clause
	keyFields    []*field // the table key's fields, set by an update that may create
	parts        [][2]int // index key attributes it rebuilds: index, 0 (pk) or 1 (sk)
	removeIndex  []int    // sparse indexes it takes the item out of
	// indexConds are the condition's terms on which item the update
	// expects for its halfKey indexes (in the text too), for a
	// transaction.
	indexConds []expression.ConditionBuilder
	// constants are values the text names that never change (:empty);
	// userValues those of the caller's conditions, for this call only.
	constants, userValues map[string]types.AttributeValue
}

// shapes caches updateShapes per entity.
type shapeCache struct {
	mu sync.RWMutex
	m  map[string]*updateShape
}

// plan checks the update and fills its values into its shape's text.
func (u *Update[T]) plan(ctx context.Context, now time.Time, modes indexModes) (*updatePlan, error) {
	m := u.m
	kv := reflect.ValueOf(&u.key).Elem()
	k, err := m.key(kv)
	if err != nil {
		return nil, err
	}
	// The values the update knows: the key fields, then what it sets.
	known := reflect.New(m.typ).Elem()
	known.Set(kv)
	for _, op := range u.ops {
		if op.kind == updSet {
			op.f.settable(known).Set(op.value)
		}
	}
	for i, op := range u.ops {
		for _, prev := range u.ops[:i] {
			if prev.f == op.f {
				return nil, inputError(m.name+"."+op.f.name, "", "is written twice by one update", nil)
			}
		}
	}
	if len(u.ops) == 0 && len(u.leave) == 0 {
		return nil, inputError(m.name+" update", "", "sets nothing", nil)
	}
	if m.check {
		return nil, inputError(m.name+" update", "", "the entity declares a Check of the whole value, which an update does not see: Get, change and Put it", ErrValidation)
	}
	guards, err := u.guards()
	if err != nil {
		return nil, err
	}
	var sb [64]byte
	sk := append(sb[:0], boolByte(u.patch), boolByte(u.ver != nil))
	for _, i := range u.leave {
		sk = append(sk, 0xff, byte(i))
	}
	for _, op := range u.ops {
		sk = append(sk, byte(op.kind), boolByte(op.zero), byte(m.fieldIndex(op.f)), byte(m.fieldIndex(op.f)>>8))
	}
	for _, g := range guards {
		sk = append(sk, 0xfe, byte(g.op), g.variant())
	}
	if modes != 0 {
		sk = append(sk, 0xfd)
		sk = strconv.AppendUint(sk, uint64(modes), 16)
	}
	shape, err := m.shape(sk, func() (*updateShape, error) { return u.render(guards, modes) })
	if err != nil {
		return nil, err
	}
	if len(u.conds) > 0 {
		shape, err = u.withConditions(shape)
		if err != nil {
			return nil, err
		}
	}
	values := make(map[string]types.AttributeValue, len(u.ops)+4)
	for i, op := range u.ops {
		if op.kind == updRemove {
			continue
		}
		av, err := m.updateValue(ctx, k, op)
		if err != nil {
			return nil, err
		}
		values[":v"+strconv.Itoa(i)] = av
	}
	if m.updated != nil {
		values[":upd"] = m.updated.value(now)
	}
	if m.version != nil {
		values[":one"] = one
		if u.ver != nil {
			values[":ver"] = &types.AttributeValueMemberN{Value: strconv.Itoa(*u.ver)}
		}
	}
	for _, f := range shape.keyFields {
		av, err := attributevalue.Marshal(f.value(kv).Interface())
		if err != nil {
			return nil, inputError(m.name+"."+f.name, "", "cannot marshal: "+err.Error(), nil)
		}
		values[":k"+strconv.Itoa(f.pos)] = av
	}
	if !u.patch {
		if m.created != nil {
			values[":crt"] = m.created.value(now)
		}
		if m.typeAttr != "" {
			values[":typ"] = m.typeValue
		}
		if m.ttl != nil && m.ttlAfter > 0 {
			values[":ttl"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(table.TTL(now.Add(m.ttlAfter)), 10)}
		}
	}
	if m.ttl != nil {
		values[":now"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)}
		values[":one"] = one
	}
	if len(shape.parts) > 0 {
		// The values the rebuilt keys are built from: what the update
		// sets, and what the entity keeps as it will be after it.
		if m.updated != nil {
			m.updated.set(known, now)
		}
		if m.created != nil {
			m.created.set(known, now) // read only by keys written if_not_exists
		}
		if m.version != nil && u.ver != nil {
			m.setVersion(known, int64(*u.ver)+1)
		}
	}
	for _, p := range shape.parts {
		ix := &m.indexes[p[0]]
		kp := [2]*keyPart{&ix.pk, &ix.sk}[p[1]]
		av, err := kp.build(m.name, known)
		if err != nil {
			return nil, err
		}
		values[":x"+strconv.Itoa(p[0])+"pk"[p[1]:p[1]+1]] = av
	}
	for _, g := range guards {
		g.values(values)
	}
	for name, av := range shape.constants {
		values[name] = av
	}
	for name, av := range shape.userValues {
		values[name] = av
	}
	return &updatePlan{key: k, shape: shape, values: values, guards: guards}, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// fieldIndex is f's position in the struct's attributes.
func (m *model) fieldIndex(f *field) int { return f.pos }

// shape returns the cached shape for key sk, rendering it the first time.
func (m *model) shape(sk []byte, render func() (*updateShape, error)) (*updateShape, error) {
	m.shapes.mu.RLock()
	s := m.shapes.m[string(sk)]
	m.shapes.mu.RUnlock()
	if s != nil {
		return s, nil
	}
	s, err := render()
	if err != nil {
		return nil, err
	}
	m.shapes.mu.Lock()
	defer m.shapes.mu.Unlock()
	if m.shapes.m == nil {
		m.shapes.m = map[string]*updateShape{}
	}
	if len(m.shapes.m) < maxShapes {
		m.shapes.m[string(sk)] = s
	}
	return s, nil
}

// maxShapes bounds an entity's shape cache: a program has few update
// shapes, and one that makes them from data should not grow memory.
const maxShapes = 1024

// clause is one action of an update: the text renders it, and a
// transaction rebuilds it with the expression package.
type clause struct {
	kind updateKind
	name string // the attribute's placeholder (#f3, #upd)
	val  string // the value's placeholder (:v0, :upd), "" for a remove
	// src is the placeholder of the attribute a renamed one's second name
	// is computed from (#f3 for #r3), "" for the attribute's own clause.
	src string
}

// render writes the update and condition text of u's shape.
func (u *Update[T]) render(guards []*guard, modes indexModes) (*updateShape, error) {
	m := u.m
	s := &updateShape{names: map[string]string{}}
	var halfConds []string
	add := func(kind updateKind, name, attr, val string) {
		s.names[name] = attr
		s.clauses = append(s.clauses, clause{kind: kind, name: name, val: val})
	}
	fieldName := func(f *field) string { return "#f" + strconv.Itoa(m.fieldIndex(f)) }
	for i, op := range u.ops {
		v := ":v" + strconv.Itoa(i)
		if op.kind == updRemove {
			v = ""
		}
		add(op.kind, fieldName(op.f), op.f.name, v)
		if to := m.renamed[op.f]; to != "" {
			// The second name gets what the first will hold: both are
			// computed from the first's value before the update.
			kind := op.kind
			if kind == updAdd {
				kind, s.constants = updSetPlus, zeroConstant(s.constants)
			}
			r := "#r" + strconv.Itoa(m.fieldIndex(op.f))
			s.names[r] = to
			s.clauses = append(s.clauses, clause{kind: kind, name: r, val: v, src: fieldName(op.f)})
		}
	}
	// Index keys: each key attribute built from a template follows the
	// attributes it is built from (ElectroDB's watch), the kept ones too
	// (Updated, Version): rebuilt when the update sets any of them and
	// knows them all, refused when it does not, removed from a Sparse
	// index with a removed attribute; the keys of one index are written
	// together or not at all (indexWrite). Own-field keys are the
	// attributes themselves and follow by being set.
	for i := range m.indexes {
		ix := &m.indexes[i]
		parts := [2]*keyPart{&ix.pk, &ix.sk}
		if slices.Contains(u.leave, i) || u.removes(ix) {
			if !slices.Contains(u.leave, i) && !ix.sparse {
				return nil, inputError(m.name+" update", ix.name, "removes an attribute of index "+ix.name+"'s keys; the index is not Sparse", nil)
			}
			for j, kp := range parts {
				if kp.present() && kp.own == nil {
					add(updRemove, "#x"+strconv.Itoa(i)+"pk"[j:j+1], kp.attr.Name, "")
				}
			}
			if !slices.Contains(u.leave, i) {
				s.removeIndex = append(s.removeIndex, i)
			}
			continue
		}
		// The rule: indexWrite (indexkeys.go).
		w, h, err := u.indexWrite(i)
		if err != nil {
			return nil, err
		}
		if h != nil {
			mode := modes.of(i)
			halfConds = append(halfConds, s.halfKeyCond(m, i, h.other, parts[h.other], mode, ix.sparse))
			switch mode {
			case modeOut:
				// Neither key; the one the update would have written
				// goes, should a stray one be there.
				w = [2]partWrite{}
				add(updRemove, "#x"+strconv.Itoa(i)+"pk"[1-h.other:2-h.other], parts[1-h.other].attr.Name, "")
			case modeNew:
				w[h.other] = pwSet
			}
		}
		for j, pw := range w {
			if pw == pwNone {
				continue
			}
			n := strconv.Itoa(i) + "pk"[j:j+1]
			kind := updSet
			if pw == pwIfNew {
				kind = updSetIfNotExists
			}
			add(kind, "#x"+n, parts[j].attr.Name, ":x"+n)
			s.parts = append(s.parts, [2]int{i, j})
		}
	}
	if m.updated != nil {
		add(updSet, "#upd", m.updated.f.name, ":upd")
	}
	if !u.patch {
		// An update may create the item: it then needs the fields its
		// keys are built from, as a created item has them.
		for _, f := range m.keyFields() {
			add(updSet, fieldName(f), f.name, ":k"+strconv.Itoa(f.pos))
			s.keyFields = append(s.keyFields, f)
		}
		if m.created != nil {
			add(updSetIfNotExists, "#crt", m.created.f.name, ":crt")
		}
		if m.typeAttr != "" {
			add(updSet, "#typ", m.typeAttr, ":typ")
		}
		if m.ttl != nil && m.ttlAfter > 0 {
			add(updSetIfNotExists, "#ttl", m.ttl.name, ":ttl")
		}
	}
	if m.version != nil {
		add(updAdd, "#ver", m.version.name, ":one")
	}
	var sets, removes, adds []string
	for _, c := range s.clauses {
		src := c.name
		if c.src != "" {
			src = c.src
		}
		switch c.kind {
		case updSet:
			sets = append(sets, c.name+" = "+c.val)
		case updSetIfNotExists:
			sets = append(sets, c.name+" = if_not_exists("+src+", "+c.val+")")
		case updSetPlus:
			sets = append(sets, c.name+" = if_not_exists("+src+", :zero) + "+c.val)
		case updAppend:
			sets = append(sets, c.name+" = list_append(if_not_exists("+src+", :empty), "+c.val+")")
			s.constants = withConstants(s.constants, emptyList)
		case updAdd:
			adds = append(adds, c.name+" "+c.val)
		case updRemove:
			removes = append(removes, c.name)
		}
	}
	var b strings.Builder
	for _, clause := range []struct {
		word  string
		parts []string
	}{{"SET ", sets}, {"REMOVE ", removes}, {"ADD ", adds}} {
		if len(clause.parts) > 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(clause.word)
			b.WriteString(strings.Join(clause.parts, ", "))
		}
	}
	s.update = ptr(b.String())
	// The prepared conditions (expr.go): a Patch needs a live item; an
	// Update may create one or change a live one, and clears an expired
	// one first (Run), as Create writes over it.
	var cond []string
	base := m.expr.fresh
	if !u.creates() {
		base = m.expr.exists
	}
	if base.text != nil {
		maps.Copy(s.names, base.names)
		cond = append(cond, *base.text)
	}
	if u.ver != nil {
		s.names["#ver"] = m.version.name
		cond = append(cond, "#ver = :ver")
	}
	for _, g := range guards {
		cond = append(cond, g.text(fieldName(g.f)))
	}
	cond = append(cond, halfConds...)
	if len(cond) > 0 {
		s.cond = ptr(andTerms(cond))
	}
	return s, nil
}

// guards are the rules on what only DynamoDB knows (the value an Add adds
// to, the list an Append extends), which go into the condition.
func (u *Update[T]) guards() ([]*guard, error) {
	var guards []*guard
	for i, op := range u.ops {
		g, err := u.m.guardOf(i, op)
		if err != nil {
			return nil, err
		}
		if g != nil {
			guards = append(guards, g)
		}
	}
	return guards, nil
}

// What an update knows of an attribute after it, for the index keys built
// from it.
type knowledge uint8

const (
	untouched      knowledge = iota // not written: as it is, unknown
	knownSame                       // a table key field: as it is, known
	knownChanged                    // written with a value the update knows
	changedUnknown                  // written with a value only DynamoDB knows (Add, Append, SetIfNotExists, a Version without IfVersion)
	sameIfExists                    // Created: as it is if the item exists, now if the update creates it
)

// knows says what the update knows of f after it.
func (u *Update[T]) knows(f *field) knowledge {
	m := u.m
	switch {
	case m.inTableKey(f):
		return knownSame
	case m.updated != nil && f == m.updated.f:
		return knownChanged
	case f == m.version && u.ver != nil:
		return knownChanged
	case f == m.version:
		return changedUnknown
	case m.created != nil && f == m.created.f:
		return sameIfExists
	}
	for _, op := range u.ops {
		if op.f != f {
			continue
		}
		switch op.kind {
		case updSet:
			return knownChanged
		case updRemove:
			return untouched // handled by removes
		}
		return changedUnknown
	}
	return untouched
}

// touches reports whether the update rebuilds key part kp: it sets an
// attribute kp is built from.
func (u *Update[T]) touches(kp *keyPart) bool {
	if !kp.present() {
		return false
	}
	if kp.own != nil {
		return slices.ContainsFunc(u.ops, func(op updateOp) bool { return op.f == kp.own && op.kind != updRemove })
	}
	for _, f := range kp.fields {
		if k := u.knows(f); k == knownChanged || k == changedUnknown {
			return true
		}
	}
	return false
}

// builds reports whether an update that creates its item writes key part
// kp of a new item: kp is absent or a constant, or the update knows every
// attribute it is built from (render's rule for a part built from fields).
func (u *Update[T]) builds(kp *keyPart) bool {
	switch {
	case !kp.present() || kp.constant != nil:
		return true
	case kp.own != nil:
		return u.touches(kp)
	}
	for _, f := range kp.fields {
		if k := u.knows(f); k != knownSame && k != knownChanged && k != sameIfExists {
			return false
		}
	}
	return true
}

// removes reports whether the update removes an attribute of ix's keys,
// or, for a sparse index, sets one to its zero value: either way the item
// leaves the index, as a Put of a value with that attribute zero leaves
// it (indexPart.absent).
func (u *Update[T]) removes(ix *indexPart) bool {
	for _, kp := range [2]*keyPart{&ix.pk, &ix.sk} {
		for _, op := range u.ops {
			if (op.kind == updRemove || ix.sparse && op.zero) && (op.f == kp.own || slices.Contains(kp.fields, op.f)) {
				return true
			}
		}
	}
	return false
}

// creates reports whether the update may create its item: an Update (not
// a Patch) that sets every Required attribute, so that the item it
// creates meets the rules as a created one does.
func (u *Update[T]) creates() bool { return !u.patch && len(u.unsetRequired()) == 0 }

// unsetRequired names the Required attributes an item the update created
// would lack.
func (u *Update[T]) unsetRequired() []string {
	m := u.m
	var out []string
	for _, r := range m.rules {
		if !r.required || m.inTableKey(r.f) || m.kept(r.f) {
			continue
		}
		if !slices.ContainsFunc(u.ops, func(op updateOp) bool { return op.f == r.f && op.kind != updRemove }) {
			out = append(out, r.f.name)
		}
	}
	return out
}

// kept reports whether the entity writes f itself on every create.
func (m *model) kept(f *field) bool {
	return f == m.version || m.created != nil && f == m.created.f || m.updated != nil && f == m.updated.f ||
		f == m.ttl && m.ttlAfter > 0
}

var emptyList = map[string]types.AttributeValue{":empty": &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}

// zero is the number a renamed attribute's second name counts an Add
// from when the item has neither name.
var zero = map[string]types.AttributeValue{":zero": &types.AttributeValueMemberN{Value: "0"}}

// withConstants is a shape's constants with more: a new map, since the
// constants' maps are shared.
func withConstants(c, more map[string]types.AttributeValue) map[string]types.AttributeValue {
	if c == nil {
		return more
	}
	out := maps.Clone(c)
	maps.Copy(out, more)
	return out
}

func zeroConstant(c map[string]types.AttributeValue) map[string]types.AttributeValue {
	return withConstants(c, zero)
}

// withConditions joins the caller's conditions to a shape, per call.
func (u *Update[T]) withConditions(s *updateShape) (*updateShape, error) {
	c, err := u.m.condition(cond{text: s.cond, names: s.names}, time.Time{}, 0, u.conds)
	if err != nil {
		return nil, err
	}
	out := *s
	out.cond, out.names = c.text, c.names
	out.userValues = c.values
	return &out, nil
}

// updateValue marshals one operation's value as its field is stored, and
// offloads a large value of an offloadable attribute.
func (m *model) updateValue(ctx context.Context, k table.Key, op updateOp) (types.AttributeValue, error) {
	var av types.AttributeValue
	var err error
	switch {
	case op.f.unixTime && op.value.Type() == timeType:
		av, err = attributevalue.Marshal(attributevalue.UnixTime(op.value.Interface().(time.Time)))
	default:
		av, err = attributevalue.Marshal(op.value.Interface())
	}
	if err != nil {
		return nil, inputError(m.name+"."+op.f.name, "", "cannot marshal: "+err.Error(), nil)
	}
	if op.kind == updAppend || !m.offload[op.f.name] || m.attrOff == nil {
		return av, nil
	}
	item := table.Item{op.f.name: av}
	out, err := m.attrOff.Offload(ctx, m.objectKey(table.Item(k)), item)
	if err != nil {
		return nil, fmt.Errorf("entity: %s: offload %s: %w", m.name, op.f.name, err)
	}
	return out[op.f.name], nil
}
