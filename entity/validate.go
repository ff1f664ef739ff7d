package entity

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// rule is a declared Rule, resolved to its field.
type rule struct {
	f        *field // nil for a Check
	required bool
	enum     []string
	bounds   bool
	min, max float64
	check    func(any) error
}

func (m *model) declareRules(rs []Rule) ([]rule, error) {
	m.check = slices.ContainsFunc(rs, func(r Rule) bool { return r.Check != nil })
	out := make([]rule, 0, len(rs))
	for _, r := range rs {
		if r.Check != nil {
			if r.checkType != nil && r.checkType != m.typ {
				return nil, declError(m.name, "Check", fmt.Sprintf("the check takes %s, the entity is %s", r.checkType, m.typ))
			}
			out = append(out, rule{check: r.Check})
			continue
		}
		f, err := m.field("Rules", r.Attribute)
		if err != nil {
			return nil, err
		}
		k := kindOf(f.typ)
		if len(r.Enum) > 0 && k != kindString {
			return nil, declError(m.name, "Enum", fmt.Sprintf("field %s is %s, not a string", f.goName, f.typ))
		}
		if r.HasBounds {
			switch {
			case k == kindInt || k == kindUint || k == kindFloat:
			case f.typ.Kind() == reflect.String || f.typ.Kind() == reflect.Slice || f.typ.Kind() == reflect.Map:
			default:
				return nil, declError(m.name, "Bounds", fmt.Sprintf("field %s is %s: bounds apply to numbers and to lengths of strings, slices and maps", f.goName, f.typ))
			}
			if r.Min > r.Max {
				return nil, declError(m.name, "Bounds", fmt.Sprintf("min %v is above max %v", r.Min, r.Max))
			}
		}
		out = append(out, rule{f: f, required: r.Required, enum: slices.Clone(r.Enum), bounds: r.HasBounds, min: r.Min, max: r.Max})
	}
	return out, nil
}

// validate checks every rule on v (the struct value).
func (m *model) validate(v reflect.Value) error {
	for i := range m.rules {
		r := &m.rules[i]
		if r.check != nil {
			if err := r.check(v.Interface()); err != nil {
				return inputError(m.name, "", err.Error(), ErrValidation)
			}
			continue
		}
		if err := r.value(m.name, r.f.value(v)); err != nil {
			return err
		}
	}
	return nil
}

// value checks one attribute's value (also a value an update sets).
func (r *rule) value(entity string, fv reflect.Value) error {
	field := entity + "." + r.f.name
	if !fv.IsValid() || fv.IsZero() {
		if r.required {
			return inputError(field, "", "is required", ErrValidation)
		}
		return nil
	}
	if len(r.enum) > 0 && !slices.Contains(r.enum, fv.String()) {
		return inputError(field, strconv.Quote(fv.String()), fmt.Sprintf("must be one of %q", r.enum), ErrValidation)
	}
	if r.bounds {
		var n float64
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n = float64(fv.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n = float64(fv.Uint())
		case reflect.Float32, reflect.Float64:
			n = fv.Float()
		default:
			n = float64(fv.Len())
		}
		if n < r.min || n > r.max {
			what := "value"
			if k := fv.Kind(); k == reflect.String || k == reflect.Slice || k == reflect.Map {
				what = "length"
			}
			return inputError(field, strconv.FormatFloat(n, 'g', -1, 64), fmt.Sprintf("%s must be between %v and %v", what, r.min, r.max), ErrValidation)
		}
	}
	return nil
}

// ruleFor returns the field rules of f.
func (m *model) rulesFor(f *field) []*rule {
	var out []*rule
	for i := range m.rules {
		if m.rules[i].f == f {
			out = append(out, &m.rules[i])
		}
	}
	return out
}

// guard is what an Add or an Append needs of the stored attribute for the
// field's rules to hold after it. Only DynamoDB knows the stored value, so
// the guard goes into the update's condition; a refusal is told apart from
// the caller's conditions by checking the rules again, with the same rule
// functions, on the item DynamoDB returns with the refusal (violation).
//
// An Add of n leaves old+n, an absent attribute counting as 0; an Append
// of k elements leaves a list of size(old)+k. The stored value passes when
// the result passes every rule of the field (rule.value: a zero result is
// "unset", which only Required refuses).
type guard struct {
	op      int // the operation's index in the update
	f       *field
	size    bool    // Append: on the list's size
	n       float64 // what the operation adds: n, or k elements
	absent  bool    // an absent attribute passes
	bounded bool    // a stored value passes only within [lo, hi]
	lo, hi  float64
	zero    bool // a stored -n passes although outside [lo, hi] (a zero result is unset)
	notZero bool // a stored -n fails although within [lo, hi] (Required refuses a zero result)
}

// guardOf returns the guard of operation i of an update (nil when the
// field's rules hold whatever is stored), or a validation error when no
// stored value could pass.
func (m *model) guardOf(i int, op updateOp) (*guard, error) {
	rules := m.rulesFor(op.f)
	var bounds *rule
	for _, r := range rules {
		if r.bounds {
			bounds = r
		}
	}
	g := &guard{op: i, f: op.f}
	switch op.kind {
	case updAdd:
		g.n = numberOf(op.value)
	case updAppend:
		g.size, g.n = true, float64(op.value.Len())
	default:
		return nil, nil
	}
	lo, hi, ok := bounds.limits(op.f)
	passes := func(r float64) bool { return m.resultPasses(g, rules, r) == nil }
	g.absent = passes(g.n)
	zeroPasses := passes(0)
	inRange := !ok || 0 >= lo && 0 <= hi
	if ok {
		g.bounded, g.lo, g.hi = true, lo-g.n, hi-g.n
	}
	g.zero = zeroPasses && !inRange
	g.notZero = !zeroPasses && inRange
	switch {
	case g.absent && !g.bounded && !g.notZero:
		return nil, nil // anything stored passes
	case g.size && g.n > hi:
		// No list is short enough: refused before sending, as Set would be.
		return nil, m.resultPasses(g, rules, g.n)
	}
	return g, nil
}

// limits returns a Bounds rule's range for field f, narrowed to the values
// an unsigned field can hold; ok is false for no bounds on a signed field.
func (r *rule) limits(f *field) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if r != nil {
		lo, hi, ok = r.min, r.max, true
	}
	if kindOf(f.typ) == kindUint {
		lo, ok = max(lo, 0), true
	}
	return lo, hi, ok
}

// resultPasses checks the field's rules on the result r of g's operation,
// as any write checks them (rule.value), and an unsigned field's range.
func (m *model) resultPasses(g *guard, rules []*rule, r float64) error {
	var fv reflect.Value
	switch {
	case g.size:
		fv = reflect.MakeSlice(g.f.typ, int(max(r, 0)), int(max(r, 0)))
	case kindOf(g.f.typ) == kindUint && r < 0:
		return inputError(m.name+"."+g.f.name, strconv.FormatFloat(r, 'g', -1, 64), "is unsigned: it holds no negative number", ErrValidation)
	default:
		fv = reflect.New(g.f.typ).Elem()
		switch kindOf(g.f.typ) {
		case kindInt:
			fv.SetInt(int64(r))
		case kindUint:
			fv.SetUint(uint64(r))
		default:
			fv.SetFloat(r)
		}
	}
	for _, rl := range rules {
		if err := rl.value(m.name, fv); err != nil {
			return err
		}
	}
	return nil
}

// numberOf reads a number operand as a float64.
func numberOf(v reflect.Value) float64 {
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanUint():
		return float64(v.Uint())
	}
	return v.Float()
}

// variant is the guard's shape, for the update shape's cache key.
func (g *guard) variant() byte {
	return boolByte(g.absent) | boolByte(g.bounded)<<1 | boolByte(g.zero)<<2 | boolByte(g.notZero)<<3 | boolByte(g.size)<<4
}

// text renders the guard as condition text on the attribute's placeholder
// name, with the values :g<i>lo, :g<i>hi and :g<i>n (-n).
func (g *guard) text(name string) string {
	v := ":g" + strconv.Itoa(g.op)
	val := name
	if g.size {
		val = "size(" + name + ")"
	}
	var terms []string
	if g.absent {
		terms = append(terms, "attribute_not_exists("+name+")")
	}
	present := ""
	switch {
	case g.bounded && math.IsInf(g.hi, 1):
		present = val + " >= " + v + "lo" // an unsigned field, unbounded above
	case g.bounded:
		present = val + " BETWEEN " + v + "lo AND " + v + "hi"
	}
	if g.notZero {
		if present == "" {
			present = "attribute_exists(" + name + ")"
		}
		present += " AND " + val + " <> " + v + "n"
	}
	if present != "" {
		terms = append(terms, present)
	}
	if g.zero {
		terms = append(terms, val+" = "+v+"n")
	}
	return orTerms(terms)
}

// condition renders the guard with the expression package, for a
// transaction's action: the same terms as text.
func (g *guard) condition() expression.ConditionBuilder {
	name := expression.Name(g.f.name)
	var val expression.OperandBuilder = name
	if g.size {
		val = name.Size()
	}
	var terms []expression.ConditionBuilder
	if g.absent {
		terms = append(terms, expression.AttributeNotExists(name))
	}
	var present *expression.ConditionBuilder
	switch {
	case g.bounded && math.IsInf(g.hi, 1):
		c := expression.GreaterThanEqual(val, expression.Value(g.lo))
		present = &c
	case g.bounded:
		c := expression.Between(val, expression.Value(g.lo), expression.Value(g.hi))
		present = &c
	}
	if g.notZero {
		c := expression.NotEqual(val, expression.Value(-g.n))
		if present == nil {
			c = expression.AttributeExists(name).And(c)
		} else {
			c = present.And(c)
		}
		present = &c
	}
	if present != nil {
		terms = append(terms, *present)
	}
	if g.zero {
		terms = append(terms, expression.Equal(val, expression.Value(-g.n)))
	}
	if len(terms) == 1 {
		return terms[0]
	}
	return expression.Or(terms[0], terms[1], terms[2:]...)
}

// values are the guard's values, for its text.
func (g *guard) values(into map[string]types.AttributeValue) {
	v := ":g" + strconv.Itoa(g.op)
	num := func(x float64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatFloat(x, 'f', -1, 64)}
	}
	if g.bounded {
		into[v+"lo"] = num(g.lo)
		if !math.IsInf(g.hi, 1) {
			into[v+"hi"] = num(g.hi)
		}
	}
	if g.zero || g.notZero {
		into[v+"n"] = num(-g.n)
	}
}

// violation checks the guard against the item a refused update found
// (absent: counted as 0 or an empty list): the rule error when the
// operation would have broken the field's rules, else nil.
func (m *model) violation(g *guard, current table.Item) error {
	var old float64
	switch av := current[g.f.name].(type) {
	case *types.AttributeValueMemberN:
		old, _ = strconv.ParseFloat(av.Value, 64)
	case *types.AttributeValueMemberL:
		old = float64(len(av.Value))
	}
	return m.resultPasses(g, m.rulesFor(g.f), old+g.n)
}

// orTerms joins condition terms with OR.
func orTerms(terms []string) string { return joinTerms(terms, " OR ", " AND ") }

// andTerms joins condition terms with AND.
func andTerms(terms []string) string { return joinTerms(terms, " AND ", " OR ") }

// joinTerms joins condition terms with op, each term that holds the other
// operator in parentheses; one term is returned as it is (DynamoDB refuses
// redundant parentheses).
func joinTerms(terms []string, op, other string) string {
	if len(terms) == 1 {
		return terms[0]
	}
	out := make([]string, len(terms))
	for i, t := range terms {
		if strings.Contains(t, other) {
			t = "(" + t + ")"
		}
		out[i] = t
	}
	return strings.Join(out, op)
}
