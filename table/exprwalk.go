package table

import (
	"encoding/binary"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// The expression package keeps its builders' parts unexported, and Build
// must read them to tell a builder's shape from its values. It reads them
// through copies of their layouts, which init compares field by field
// with the package's (name, offset, kind): if a release of the package
// changes one, readable is false and Build builds every time.

type nameParts struct{ names []string }

type valueParts struct {
	value   any
	options expression.ValueBuilderOptions
}

type sizeParts struct{ nameBuilder expression.NameBuilder }

type keyParts struct{ key string }

type setValueParts struct {
	leftOperand, rightOperand expression.OperandBuilder
	mode                      int
}

type conditionParts struct {
	operandList   []expression.OperandBuilder
	conditionList []expression.ConditionBuilder
	mode          int
}

type keyConditionParts struct {
	operandList      []expression.OperandBuilder
	keyConditionList []expression.KeyConditionBuilder
	mode             int
}

type projectionParts struct{ names []expression.NameBuilder }

type updateParts struct{ operationList map[string][]operationParts }

type operationParts struct {
	name  expression.NameBuilder
	value expression.OperandBuilder
	mode  string
}

// layouts pairs each copy with the package's type.
var layouts = []struct{ ours, theirs reflect.Type }{
	{reflect.TypeFor[nameParts](), reflect.TypeFor[expression.NameBuilder]()},
	{reflect.TypeFor[valueParts](), reflect.TypeFor[expression.ValueBuilder]()},
	{reflect.TypeFor[sizeParts](), reflect.TypeFor[expression.SizeBuilder]()},
	{reflect.TypeFor[keyParts](), reflect.TypeFor[expression.KeyBuilder]()},
	{reflect.TypeFor[setValueParts](), reflect.TypeFor[expression.SetValueBuilder]()},
	{reflect.TypeFor[conditionParts](), reflect.TypeFor[expression.ConditionBuilder]()},
	{reflect.TypeFor[keyConditionParts](), reflect.TypeFor[expression.KeyConditionBuilder]()},
	{reflect.TypeFor[projectionParts](), reflect.TypeFor[expression.ProjectionBuilder]()},
	{reflect.TypeFor[updateParts](), reflect.TypeFor[expression.UpdateBuilder]()},
}

// readable reports whether every copy matches its type.
var readable = func() bool {
	for _, l := range layouts {
		if !sameLayout(l.ours, l.theirs) {
			return false
		}
	}
	return true
}()

// sameLayout reports whether values of a and b are laid out alike: the
// same type, or the same kind and size with fields (names and offsets),
// elements and keys laid out alike.
func sameLayout(a, b reflect.Type) bool {
	if a == b {
		return true
	}
	if a.Kind() != b.Kind() || a.Size() != b.Size() {
		return false
	}
	switch a.Kind() {
	case reflect.Struct:
		if a.NumField() != b.NumField() {
			return false
		}
		for i := range a.NumField() {
			fa, fb := a.Field(i), b.Field(i)
			if fa.Name != fb.Name || fa.Offset != fb.Offset || !sameLayout(fa.Type, fb.Type) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return sameLayout(a.Elem(), b.Elem())
	case reflect.Map:
		return sameLayout(a.Key(), b.Key()) && sameLayout(a.Elem(), b.Elem())
	case reflect.String, reflect.Int, reflect.Int64, reflect.Bool:
		return true
	}
	return false
}

// walker reads a request's builders: key, their shape (operators, names,
// how many values), and values, their values in the order the expression
// package renders them, and so names them :0, :1, ... (it substitutes
// each node's children in order, the expressions by kind, the update's
// actions by name).
type walker struct {
	key    []byte
	values []any
	ok     bool
}

var walkers = sync.Pool{New: func() any { return new(walker) }}

func (w *walker) release() {
	clear(w.values)
	w.key, w.values = w.key[:0], w.values[:0]
	walkers.Put(w)
}

// parts reads p and reports whether it could.
func (w *walker) parts(p builders) bool {
	w.ok = readable
	if !w.ok {
		return false
	}
	w.tag('c', p.condition != nil)
	if p.condition != nil {
		w.condition(p.condition)
	}
	w.tag('f', p.filter != nil)
	if p.filter != nil {
		w.condition(p.filter)
	}
	w.tag('k', p.keyCondition != nil)
	if p.keyCondition != nil {
		w.keyCondition(p.keyCondition)
	}
	w.tag('p', p.projection != nil)
	if p.projection != nil {
		m := (*projectionParts)(unsafe.Pointer(p.projection))
		w.count(len(m.names))
		for i := range m.names {
			w.name(&m.names[i])
		}
	}
	w.tag('u', p.update != nil)
	if p.update != nil {
		w.update(p.update)
	}
	return w.ok
}

func (w *walker) tag(t byte, set bool) {
	if set {
		w.key = append(w.key, t)
	}
}

func (w *walker) count(n int) { w.key = binary.AppendUvarint(w.key, uint64(n)) }

func (w *walker) str(s string) {
	w.count(len(s))
	w.key = append(w.key, s...)
}

func (w *walker) name(n *expression.NameBuilder) {
	m := (*nameParts)(unsafe.Pointer(n))
	w.key = append(w.key, 'n')
	w.count(len(m.names))
	for _, s := range m.names {
		w.str(s)
	}
}

func (w *walker) condition(c *expression.ConditionBuilder) {
	m := (*conditionParts)(unsafe.Pointer(c))
	walkTree(w, 'C', m.mode, m.conditionList, m.operandList, (*walker).condition)
}

func (w *walker) keyCondition(c *expression.KeyConditionBuilder) {
	m := (*keyConditionParts)(unsafe.Pointer(c))
	walkTree(w, 'K', m.mode, m.keyConditionList, m.operandList, (*walker).keyCondition)
}

// walkTree reads a condition or key condition: its mode, its
// sub-conditions (with sub), then its operands, the order in which the
// expression package renders them.
func walkTree[T any](w *walker, tag byte, mode int, subs []T, operands []expression.OperandBuilder, sub func(*walker, *T)) {
	w.key = append(w.key, tag)
	w.count(mode)
	w.count(len(subs))
	for i := range subs {
		sub(w, &subs[i])
	}
	w.count(len(operands))
	for _, o := range operands {
		w.operand(o)
	}
}

// update reads the actions in the order the expression package renders
// them: by action (ADD, DELETE, REMOVE, SET), then as added.
func (w *walker) update(u *expression.UpdateBuilder) {
	m := (*updateParts)(unsafe.Pointer(u))
	var buf [4]string
	modes := buf[:0]
	for mode := range m.operationList {
		modes = append(modes, mode)
	}
	slices.Sort(modes)
	w.key = append(w.key, 'U')
	w.count(len(modes))
	for _, mode := range modes {
		ops := m.operationList[mode]
		w.str(mode)
		w.count(len(ops))
		for i := range ops {
			w.name(&ops[i].name)
			w.str(ops[i].mode)
			w.operand(ops[i].value)
		}
	}
}

func (w *walker) operand(o expression.OperandBuilder) {
	switch o := o.(type) {
	case expression.NameBuilder:
		w.name(&o)
	case expression.ValueBuilder:
		m := (*valueParts)(unsafe.Pointer(&o))
		if m.options.EncoderOptions != nil {
			w.ok = false // options are funcs: not a shape
			return
		}
		w.key = append(w.key, '$')
		w.values = append(w.values, m.value)
	case expression.SizeBuilder:
		w.key = append(w.key, 'z')
		w.name(&(*sizeParts)(unsafe.Pointer(&o)).nameBuilder)
	case expression.KeyBuilder:
		w.key = append(w.key, 'k')
		w.str((*keyParts)(unsafe.Pointer(&o)).key)
	case expression.SetValueBuilder:
		m := (*setValueParts)(unsafe.Pointer(&o))
		w.key = append(w.key, 'v')
		w.count(m.mode)
		w.operand(m.leftOperand)
		w.operand(m.rightOperand)
	case nil:
		w.key = append(w.key, 0) // a REMOVE action has no value
	default:
		w.ok = false // an operand type of the caller's own
	}
}

// partsOf takes a Builder apart: Build's callers hand a whole Builder,
// whose expressions sit in an unexported map.
func partsOf(b expression.Builder) (builders, bool) {
	var p builders
	if !readable {
		return p, false
	}
	f := reflect.ValueOf(&b).Elem().Field(0)
	if f.Kind() != reflect.Map {
		return p, false
	}
	m := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	if m.IsNil() {
		return p, false // Build reports the unset Builder
	}
	it := m.MapRange()
	for it.Next() {
		switch e := it.Value().Interface().(type) {
		case expression.ConditionBuilder:
			switch it.Key().String() {
			case "condition":
				p.condition = &e
			case "filter":
				p.filter = &e
			default:
				return p, false
			}
		case expression.KeyConditionBuilder:
			p.keyCondition = &e
		case expression.ProjectionBuilder:
			p.projection = &e
		case expression.UpdateBuilder:
			p.update = &e
		default:
			return p, false
		}
	}
	return p, true
}
