package entity

import (
	"fmt"
	"math"
	"math/big"
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
	lo, hi   *big.Rat // min and max exactly (boundsOf); nil: unbounded
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
		lo, hi := boundsOf(f, r.Min, r.Max)
		out = append(out, rule{f: f, required: r.Required, enum: slices.Clone(r.Enum), bounds: r.HasBounds, min: r.Min, max: r.Max, lo: lo, hi: hi})
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
		k := fv.Kind()
		return r.within(entity, exact(fv), k == reflect.String || k == reflect.Slice || k == reflect.Map)
	}
	return nil
}

// within is the one test of a Bounds rule: n (a value, or a length) is
// within the exact bounds. Every path decides with it: a value written
// (validate, Set), and the result of an Add or Append DynamoDB computes
// (guardOf, violation), compared exactly as DynamoDB compares numbers.
func (r *rule) within(entity string, n *big.Rat, length bool) error {
	if r.lo != nil && n.Cmp(r.lo) < 0 || r.hi != nil && n.Cmp(r.hi) > 0 {
		what := "value"
		if length {
			what = "length"
		}
		return inputError(entity+"."+r.f.name, decimal(n), fmt.Sprintf("%s must be between %v and %v", what, r.min, r.max), ErrValidation)
	}
	return nil
}

// boundsOf are a Bounds rule's min and max as exact numbers (nil for an
// infinite one): for a float field, the decimal the float64 prints as
// (1e37 is 10^37, as a float64 field holding 1e37 is stored); for an
// integer field or a length, the whole numbers within [min, max] (a
// float64 holds 1<<60 exactly, and 2^60+1 is above it).
func boundsOf(f *field, min, max float64) (lo, hi *big.Rat) {
	whole := kindOf(f.typ) != kindFloat
	bound := func(x float64, up bool) *big.Rat {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		if !whole {
			r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
			return r
		}
		if up {
			x = math.Ceil(x)
		} else {
			x = math.Floor(x)
		}
		return new(big.Rat).SetFloat64(x)
	}
	return bound(min, true), bound(max, false)
}

// exact is a number or a length as an exact number: an integer's value, a
// float's shortest decimal (what attributevalue stores), a length.
func exact(v reflect.Value) *big.Rat {
	switch {
	case v.CanInt():
		return new(big.Rat).SetInt64(v.Int())
	case v.CanUint():
		return new(big.Rat).SetUint64(v.Uint())
	case v.CanFloat():
		bits := 64
		if v.Kind() == reflect.Float32 {
			bits = 32
		}
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(v.Float(), 'g', -1, bits))
		if !ok {
			return new(big.Rat) // NaN or an infinity: attributevalue refuses to store them
		}
		return r
	}
	return new(big.Rat).SetInt64(int64(v.Len()))
}

// decimal writes an exact number as a DynamoDB number: every number here
// is a finite decimal (integers, floats' decimals, their sums).
func decimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	places := 0
	for d := new(big.Rat).Set(r); !d.IsInt() && places < 1100; places++ {
		d.Mul(d, big.NewRat(10, 1))
	}
	return r.FloatString(places)
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
	size    bool     // Append: on the list's size
	n       *big.Rat // what the operation adds: n, or k elements
	absent  bool     // an absent attribute passes
	bounded bool     // a stored value passes only within [lo, hi]
	lo, hi  *big.Rat // nil: unbounded on that side
	zero    bool     // a stored -n passes although outside [lo, hi] (a zero result is unset)
	notZero bool     // a stored -n fails although within [lo, hi] (Required refuses a zero result)
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
		g.n = exact(op.value)
	case updAppend:
		g.size, g.n = true, big.NewRat(int64(op.value.Len()), 1)
	default:
		return nil, nil
	}
	lo, hi := bounds.limits(op.f)
	passes := func(r *big.Rat) bool { return m.resultPasses(g, rules, r) == nil }
	zero := new(big.Rat)
	g.absent = passes(g.n)
	zeroPasses := passes(zero)
	inRange := (lo == nil || zero.Cmp(lo) >= 0) && (hi == nil || zero.Cmp(hi) <= 0)
	if lo != nil || hi != nil {
		g.bounded = true
		if lo != nil {
			g.lo = new(big.Rat).Sub(lo, g.n)
		}
		if hi != nil {
			g.hi = new(big.Rat).Sub(hi, g.n)
		}
	}
	g.zero = zeroPasses && !inRange
	g.notZero = !zeroPasses && inRange
	switch {
	case g.absent && !g.bounded && !g.notZero:
		return nil, nil // anything stored passes
	case g.size && hi != nil && g.n.Cmp(hi) > 0:
		// No list is short enough: refused before sending, as Set would be.
		return nil, m.resultPasses(g, rules, g.n)
	}
	return g, nil
}

// limits returns a Bounds rule's exact range for field f, narrowed to the
// values an unsigned field can hold; nil for no bound on that side.
func (r *rule) limits(f *field) (lo, hi *big.Rat) {
	if r != nil {
		lo, hi = r.lo, r.hi
	}
	if kindOf(f.typ) == kindUint && (lo == nil || lo.Sign() < 0) {
		lo = new(big.Rat)
	}
	return lo, hi
}

// resultPasses checks the field's rules on the result r of g's operation,
// as any write checks them (rule.value: a zero number is unset, which only
// Required refuses; Bounds by rule.within), and an unsigned field's range.
func (m *model) resultPasses(g *guard, rules []*rule, r *big.Rat) error {
	if !g.size && kindOf(g.f.typ) == kindUint && r.Sign() < 0 {
		return inputError(m.name+"."+g.f.name, decimal(r), "is unsigned: it holds no negative number", ErrValidation)
	}
	for _, rl := range rules {
		if !g.size && r.Sign() == 0 {
			if rl.required {
				return inputError(m.name+"."+g.f.name, "", "is required", ErrValidation)
			}
			continue
		}
		if rl.bounds {
			if err := rl.within(m.name, r, g.size); err != nil {
				return err
			}
		}
	}
	return nil
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
	case g.lo != nil && g.hi == nil:
		present = val + " >= " + v + "lo" // unbounded above (an unsigned field)
	case g.lo == nil && g.hi != nil:
		present = val + " <= " + v + "hi"
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
	num := func(r *big.Rat) expression.OperandBuilder { return expression.Value(number(r)) }
	var present *expression.ConditionBuilder
	switch {
	case g.lo != nil && g.hi == nil:
		c := expression.GreaterThanEqual(val, num(g.lo))
		present = &c
	case g.lo == nil && g.hi != nil:
		c := expression.LessThanEqual(val, num(g.hi))
		present = &c
	case g.bounded:
		c := expression.Between(val, num(g.lo), num(g.hi))
		present = &c
	}
	minusN := new(big.Rat).Neg(g.n)
	if g.notZero {
		c := expression.NotEqual(val, num(minusN))
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
		terms = append(terms, expression.Equal(val, num(minusN)))
	}
	if len(terms) == 1 {
		return terms[0]
	}
	return expression.Or(terms[0], terms[1], terms[2:]...)
}

// values are the guard's values, for its text.
func (g *guard) values(into map[string]types.AttributeValue) {
	v := ":g" + strconv.Itoa(g.op)
	if g.lo != nil {
		into[v+"lo"] = number(g.lo)
	}
	if g.hi != nil {
		into[v+"hi"] = number(g.hi)
	}
	if g.zero || g.notZero {
		into[v+"n"] = number(new(big.Rat).Neg(g.n))
	}
}

// violation checks the guard against the item a refused update found
// (absent: counted as 0 or an empty list): the rule error when the
// operation would have broken the field's rules, else nil.
func (m *model) violation(g *guard, current table.Item) error {
	old := new(big.Rat)
	switch av := current[g.f.name].(type) {
	case *types.AttributeValueMemberN:
		if _, ok := old.SetString(av.Value); !ok {
			return fmt.Errorf("entity: %s.%s: stored %q is not a number: %w", m.name, g.f.name, av.Value, table.ErrConditionFailed)
		}
	case *types.AttributeValueMemberL:
		old.SetInt64(int64(len(av.Value)))
	}
	return m.resultPasses(g, m.rulesFor(g.f), old.Add(old, g.n))
}

// number is an exact number as a DynamoDB Number.
func number(r *big.Rat) types.AttributeValue { return &types.AttributeValueMemberN{Value: decimal(r)} }

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
