package expr

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

type condKind uint8

const (
	cAnd condKind = iota
	cOr
	cNot
	cCompare // args[0] op args[1]
	cBetween // args[0] BETWEEN args[1] AND args[2]
	cIn      // args[0] IN (args[1:]...)
	cFunc    // fn(args...): a boolean function
)

// cond is a node of a parsed condition.
type cond struct {
	kind        condKind
	op          tokKind // cCompare
	fn          string  // cFunc
	left, right *cond   // cAnd, cOr; cNot uses left
	args        []*operand
	paren       bool // written in parentheses
}

// Condition is a parsed ConditionExpression or FilterExpression.
type Condition struct {
	root *cond
}

// Condition parses a ConditionExpression.
func (e *Env) Condition(s string) (*Condition, error) {
	return e.parseCondition(kindCondition, s)
}

// Filter parses a FilterExpression: the same language as Condition, with
// "Invalid FilterExpression" in its messages.
func (e *Env) Filter(s string) (*Condition, error) {
	return e.parseCondition(kindFilter, s)
}

func (e *Env) parseCondition(kind, s string) (*Condition, error) {
	if err := precheck(e, kind, s); err != nil {
		return nil, err
	}
	p := newParser(e, kind, s)
	var root *cond
	if err := p.run(func() {
		root = p.parseOr()
		p.expectEOF()
		p.flush()
	}); err != nil {
		return nil, err
	}
	return &Condition{root: root}, nil
}

// Eval reports whether item satisfies the condition. A nil item is an
// item that does not exist: every attribute is missing. Eval reads the
// item without copying it and does not allocate for the common forms.
// Everything DynamoDB rejects is found when the expression is parsed, so
// the error is always nil; it is there for the engine's contract.
func (c *Condition) Eval(item map[string]types.AttributeValue) (bool, error) {
	return c.root.eval(item), nil
}

// TopLevelNames lists the top-level attribute names the condition reads,
// for the engine's check that a FilterExpression does not name key
// attributes.
func (c *Condition) TopLevelNames() []string {
	return c.names(false)
}

// NestedNames lists the top-level attributes the condition reads into
// (a.b, a[0]) rather than whole, for the engine's check that key
// attributes, which are scalars, are read whole.
func (c *Condition) NestedNames() []string {
	return c.names(true)
}

// names lists the top-level attributes of the condition's paths, in first
// mention order; nested: only those of paths longer than the name.
func (c *Condition) names(nested bool) []string {
	var names []string
	seen := map[string]bool{}
	var walkOperand func(o *operand)
	walkOperand = func(o *operand) {
		if o.kind == opPath && (!nested || len(o.path) > 1) && !seen[o.path[0].name] {
			seen[o.path[0].name] = true
			names = append(names, o.path[0].name)
		}
		for _, a := range o.args {
			walkOperand(a)
		}
	}
	var walk func(n *cond)
	walk = func(n *cond) {
		if n == nil {
			return
		}
		walk(n.left)
		walk(n.right)
		for _, a := range n.args {
			walkOperand(a)
		}
	}
	walk(c.root)
	return names
}

// Precedence, lowest first: OR, AND, NOT, then comparisons, IN, BETWEEN
// and functions, which bind tightest
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html).
func (p *parser) parseOr() *cond {
	left := p.parseAnd()
	for p.peekKeyword("OR") {
		p.countOp()
		p.next()
		right := p.parseAnd()
		left = &cond{kind: cOr, left: left, right: right}
	}
	return left
}

func (p *parser) parseAnd() *cond {
	left := p.parseNot()
	for p.peekKeyword("AND") {
		p.countOp()
		p.next()
		right := p.parseNot()
		left = &cond{kind: cAnd, left: left, right: right}
	}
	return left
}

func (p *parser) parseNot() *cond {
	if p.peekKeyword("NOT") {
		p.countOp()
		p.next()
		return &cond{kind: cNot, left: p.parseNot()}
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() *cond {
	if p.peekKind() == tLParen && !p.parenthesizedOperand() {
		p.next()
		inner := p.parseOr()
		p.expect(tRParen)
		if inner.paren {
			p.fail(redundantParens)
		}
		inner.paren = true
		return inner
	}
	return p.parseComparison()
}

// parenthesizedOperand reports whether the "(" at the current position
// encloses an operand ("(x) = :v", valid in DynamoDB) rather than a
// condition: it does when a comparator follows the matching ")", or when
// the parentheses hold neither a comparison, nor a logical operator, nor
// a call of a boolean function.
func (p *parser) parenthesizedOperand() bool {
	if p.parens == nil {
		p.scanParens()
	}
	info := p.parens[p.pos]
	if info.close < 0 {
		return false
	}
	return p.startsComparison(info.close+1) || !info.condition
}

// parenInfo describes a "(" token: where its ")" is (-1 if nowhere) and
// whether what it directly encloses reads as a condition.
type parenInfo struct {
	close     int
	condition bool
}

// scanParens matches every parenthesis in one pass, so that deciding what
// each "(" encloses stays linear however deeply they nest.
func (p *parser) scanParens() {
	p.parens = make(map[int]parenInfo)
	var open []int
	for i, t := range p.toks {
		switch t.kind {
		case tLParen:
			p.parens[i] = parenInfo{close: -1}
			open = append(open, i)
			continue
		case tRParen:
			if len(open) > 0 {
				o := open[len(open)-1]
				open = open[:len(open)-1]
				info := p.parens[o]
				info.close = i
				p.parens[o] = info
			}
			continue
		}
		if len(open) == 0 {
			continue
		}
		cond := false
		switch t.kind {
		case tEq, tNe, tLt, tLe, tGt, tGe:
			cond = true
		case tIdent:
			s := p.text(t)
			if keyword(s, "AND") || keyword(s, "OR") || keyword(s, "NOT") || keyword(s, "BETWEEN") || keyword(s, "IN") {
				cond = true
			} else if p.toks[i+1].kind == tLParen && s != fnSize {
				cond = true
			}
		}
		if cond {
			o := open[len(open)-1]
			info := p.parens[o]
			info.condition = true
			p.parens[o] = info
		}
	}
}

// startsComparison reports whether the token at i continues an operand
// into a comparison.
func (p *parser) startsComparison(i int) bool {
	t := p.toks[i]
	switch t.kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		return true
	case tIdent:
		s := p.text(t)
		return keyword(s, "BETWEEN") || keyword(s, "IN")
	}
	return false
}

// parseCondOperand parses an operand of a comparison, which may be
// parenthesized.
func (p *parser) parseCondOperand() *operand {
	if p.peekKind() == tLParen {
		p.next()
		if p.peekKind() == tLParen {
			p.fail(redundantParens)
		}
		o := p.parseCondOperand()
		p.expect(tRParen)
		return o
	}
	o := p.parseOperand()
	p.checkCallOperand(o)
	return o
}

// checkCallOperand validates a function call used as a value: only size()
// may be one.
func (p *parser) checkCallOperand(o *operand) {
	if o.kind != opCall {
		return
	}
	if !knownFunction(o.fn) {
		p.laterAt(phaseNames, o.at, "Invalid function name; function: "+o.fn)
		return
	}
	switch o.fn {
	case fnIfNotExists, fnListAppend:
		p.laterAt(phaseNames, o.at, "The function is not allowed in a condition expression; function: "+o.fn)
	case fnSize:
		if !p.checkArity(o, 1) {
			return
		}
		a := o.args[0]
		p.checkCallOperand(a)
		if t := literalType(a); t != "" && !sizeable(t) {
			p.later(phaseChecks, "Incorrect operand type for operator or function; operator or function: size, operand type: "+t)
		}
	default:
		p.laterAt(phaseNames, o.at, "The function is not allowed to be used this way in an expression; function: "+o.fn)
	}
}

// literalType is the type of an operand known at parse time: a value's
// type, N for size(); "" for paths.
func literalType(o *operand) string {
	switch o.kind {
	case opValue:
		return shortType(o.val)
	case opCall:
		if o.fn == fnSize {
			return "N"
		}
	}
	return ""
}

func sizeable(t string) bool {
	switch t {
	case "S", "B", "SS", "NS", "BS", "L", "M":
		return true
	}
	return false
}

func scalarType(t string) bool { return t == "S" || t == "N" || t == "B" }

var opNames = map[tokKind]string{tEq: "=", tNe: "<>", tLt: "<", tLe: "<=", tGt: ">", tGe: ">="}

func (p *parser) parseComparison() *cond {
	// A boolean function call stands alone.
	if t := p.peek(); t.kind == tIdent && p.toks[p.pos+1].kind == tLParen && !isKeyword(p.text(t)) {
		o := p.parseOperand()
		if !p.atComparator() {
			return p.boolFunction(o)
		}
		p.checkCallOperand(o)
		return p.finishComparison(o)
	}
	left := p.parseCondOperand()
	return p.finishComparison(left)
}

func (p *parser) atComparator() bool {
	switch p.peekKind() {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		return true
	}
	return p.peekKeyword("BETWEEN") || p.peekKeyword("IN")
}

func (p *parser) finishComparison(left *operand) *cond {
	t := p.peek()
	switch t.kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		p.countOp()
		p.next()
		right := p.parseCondOperand()
		c := &cond{kind: cCompare, op: t.kind, args: []*operand{left, right}}
		name := opNames[t.kind]
		if t.kind != tEq && t.kind != tNe {
			for _, a := range c.args {
				if lt := literalType(a); lt != "" && !scalarType(lt) {
					p.operandTypeError(name, a.val)
				}
			}
		}
		p.checkDistinct(name, c.args)
		return c
	}
	if p.peekKeyword("BETWEEN") {
		p.countOp()
		p.next()
		lo := p.parseCondOperand()
		if !p.peekKeyword("AND") {
			p.syntaxError(p.pos)
		}
		p.next()
		hi := p.parseCondOperand()
		c := &cond{kind: cBetween, args: []*operand{left, lo, hi}}
		for _, a := range c.args {
			if lt := literalType(a); lt != "" && !scalarType(lt) {
				p.operandTypeError("BETWEEN", a.val)
			}
		}
		if lo.kind == opValue && hi.kind == opValue {
			if shortType(lo.val) != shortType(hi.val) {
				p.later(phaseChecks, "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: "+avString(lo.val)+", upper bound operand: "+avString(hi.val))
			} else if cmp, ok := attr.Compare(lo.val, hi.val); ok && cmp > 0 {
				p.later(phaseChecks, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: "+avString(lo.val)+", upper bound operand: "+avString(hi.val))
			}
		}
		p.checkDistinct("BETWEEN", c.args)
		return c
	}
	if p.peekKeyword("IN") {
		p.countOp()
		p.next()
		p.expect(tLParen)
		args := []*operand{left}
		for {
			args = append(args, p.parseCondOperand())
			if p.peekKind() != tComma {
				break
			}
			p.next()
		}
		p.expect(tRParen)
		if n := len(args) - 1; n > maxInOperands && !p.env.translated {
			p.later(phaseChecks, "The IN operator is provided with too many operands; number of operands: "+strconv.Itoa(n))
		}
		p.checkDistinct("IN", args)
		return &cond{kind: cIn, args: args}
	}
	p.syntaxError(p.pos)
	return nil
}

// boolFunction validates a function call standing as a condition.
func (p *parser) boolFunction(o *operand) *cond {
	c := &cond{kind: cFunc, fn: o.fn, args: o.args}
	if !knownFunction(o.fn) {
		p.laterAt(phaseNames, o.at, "Invalid function name; function: "+o.fn)
		return c
	}
	switch o.fn {
	case fnIfNotExists, fnListAppend:
		p.laterAt(phaseNames, o.at, "The function is not allowed in a condition expression; function: "+o.fn)
	case fnSize:
		p.laterAt(phaseNames, o.at, "The function is not allowed to be used this way in an expression; function: "+o.fn)
	case fnAttributeExists, fnAttributeNotExists:
		for _, a := range o.args {
			p.checkCallOperand(a)
		}
		if !p.checkArity(o, 1) {
			break
		}
		if o.args[0].kind != opPath {
			p.later(phaseChecks, "Operator or function requires a document path; operator or function: "+o.fn)
		}
	case fnAttributeType:
		for _, a := range o.args {
			p.checkCallOperand(a)
		}
		if !p.checkArity(o, 2) {
			break
		}
		p.checkDistinct(o.fn, o.args)
		switch t := o.args[1]; t.kind {
		case opPath:
			p.later(phaseChecks, "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {B,NULL,INT,DOUBLE,FS,DOUBLESET,S,INTSET,L,DICT,N,HDS,FLOAT,DECIMAL,SS,BOOL,BS,HD,NS,M,DECIMALSET}")
		case opValue:
			if s, ok := t.val.(*types.AttributeValueMemberS); !ok {
				p.operandTypeError(o.fn, t.val)
			} else if attrTypeName(s.Value) == "" {
				p.later(phaseChecks, "Invalid attribute type name found; type: "+s.Value+", valid types: "+validTypeNames)
			}
		default:
			p.later(phaseChecks, "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N")
		}
	case fnBeginsWith, fnContains:
		for _, a := range o.args {
			p.checkCallOperand(a)
		}
		if !p.checkArity(o, 2) {
			break
		}
		for _, a := range o.args {
			if o.fn == fnBeginsWith && a.kind == opValue {
				if lt := shortType(a.val); lt != "S" && lt != "B" {
					p.operandTypeError(o.fn, a.val)
				}
			}
		}
		p.checkDistinct(o.fn, o.args)
	}
	return c
}

func attrTypeName(s string) string {
	switch s {
	case "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS":
		return s
	}
	return ""
}

// result is an evaluated operand: a value from the item or the request,
// or a size() result kept as an int so that evaluation need not allocate.
type result struct {
	v      types.AttributeValue
	n      int
	isSize bool
	ok     bool // false: the path is missing, or size() of an unsized type
}

func (o *operand) eval(item map[string]types.AttributeValue) result {
	switch o.kind {
	case opPath:
		v, ok := o.path.get(item)
		return result{v: v, ok: ok}
	case opValue:
		return result{v: o.val, ok: true}
	}
	// size(), the only call allowed as a condition operand.
	r := o.args[0].eval(item)
	if !r.ok {
		return result{}
	}
	if r.isSize {
		// size(size(x)) is rejected at parse time; a number has no size.
		return result{}
	}
	n, ok := sizeOf(r.v)
	return result{n: n, isSize: true, ok: ok}
}

// sizeOf follows DynamoDB's size(): characters of a string (as Java
// counts them, in UTF-16 units), bytes of a binary, members of a set,
// list or map; other types have no size.
func sizeOf(v types.AttributeValue) (int, bool) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		n := 0
		for _, r := range v.Value {
			n++
			if r > 0xFFFF {
				n++
			}
		}
		if !utf8.ValidString(v.Value) {
			return len(v.Value), true
		}
		return n, true
	case *types.AttributeValueMemberB:
		return len(v.Value), true
	case *types.AttributeValueMemberSS:
		return len(v.Value), true
	case *types.AttributeValueMemberNS:
		return len(v.Value), true
	case *types.AttributeValueMemberBS:
		return len(v.Value), true
	case *types.AttributeValueMemberL:
		return len(v.Value), true
	case *types.AttributeValueMemberM:
		return len(v.Value), true
	}
	return 0, false
}

// materialize turns a size result into a number value, for the rare
// places (contains, begins_with) that need one.
func (r result) materialize() types.AttributeValue {
	if r.isSize {
		return &types.AttributeValueMemberN{Value: strconv.Itoa(r.n)}
	}
	return r.v
}

// compareResults orders two present results of one scalar type.
func compareResults(a, b result) (int, bool) {
	switch {
	case a.isSize && b.isSize:
		switch {
		case a.n < b.n:
			return -1, true
		case a.n > b.n:
			return 1, true
		}
		return 0, true
	case a.isSize:
		if n, ok := b.v.(*types.AttributeValueMemberN); ok {
			return attr.CompareIntNumber(a.n, n.Value), true
		}
		return 0, false
	case b.isSize:
		if n, ok := a.v.(*types.AttributeValueMemberN); ok {
			return -attr.CompareIntNumber(b.n, n.Value), true
		}
		return 0, false
	}
	return attr.Compare(a.v, b.v)
}

func equalResults(a, b result) bool {
	if a.isSize || b.isSize {
		c, ok := compareResults(a, b)
		return ok && c == 0
	}
	return attr.Equal(a.v, b.v)
}

func (c *cond) eval(item map[string]types.AttributeValue) bool {
	switch c.kind {
	case cAnd:
		return c.left.eval(item) && c.right.eval(item)
	case cOr:
		return c.left.eval(item) || c.right.eval(item)
	case cNot:
		return !c.left.eval(item)
	case cCompare:
		a, b := c.args[0].eval(item), c.args[1].eval(item)
		if c.op == tNe {
			// DynamoDB: a missing attribute is "not equal" to anything.
			return !(a.ok && b.ok && equalResults(a, b))
		}
		if !a.ok || !b.ok {
			return false
		}
		if c.op == tEq {
			return equalResults(a, b)
		}
		cmp, ok := compareResults(a, b)
		if !ok {
			return false
		}
		switch c.op {
		case tLt:
			return cmp < 0
		case tLe:
			return cmp <= 0
		case tGt:
			return cmp > 0
		}
		return cmp >= 0
	case cBetween:
		x, lo, hi := c.args[0].eval(item), c.args[1].eval(item), c.args[2].eval(item)
		if !x.ok || !lo.ok || !hi.ok {
			return false
		}
		c1, ok1 := compareResults(lo, x)
		c2, ok2 := compareResults(x, hi)
		return ok1 && ok2 && c1 <= 0 && c2 <= 0
	case cIn:
		x := c.args[0].eval(item)
		if !x.ok {
			return false
		}
		for _, o := range c.args[1:] {
			if y := o.eval(item); y.ok && equalResults(x, y) {
				return true
			}
		}
		return false
	}
	return c.evalFunc(item)
}

func (c *cond) evalFunc(item map[string]types.AttributeValue) bool {
	switch c.fn {
	case fnAttributeExists:
		_, ok := c.args[0].path.get(item)
		return ok
	case fnAttributeNotExists:
		_, ok := c.args[0].path.get(item)
		return !ok
	case fnAttributeType:
		r := c.args[0].eval(item)
		if !r.ok {
			return false
		}
		t, isS := c.args[1].val.(*types.AttributeValueMemberS)
		return isS && attr.TypeOf(r.materialize()) == t.Value
	case fnBeginsWith:
		a, b := c.args[0].eval(item), c.args[1].eval(item)
		if !a.ok || !b.ok {
			return false
		}
		switch x := a.materialize().(type) {
		case *types.AttributeValueMemberS:
			y, ok := b.materialize().(*types.AttributeValueMemberS)
			return ok && strings.HasPrefix(x.Value, y.Value)
		case *types.AttributeValueMemberB:
			y, ok := b.materialize().(*types.AttributeValueMemberB)
			return ok && bytes.HasPrefix(x.Value, y.Value)
		}
		return false
	case fnContains:
		a, b := c.args[0].eval(item), c.args[1].eval(item)
		if !a.ok || !b.ok {
			return false
		}
		return contains(a.materialize(), b.materialize())
	}
	return false
}

// contains follows DynamoDB's contains(): a substring of a string or
// binary, a member of a set of the operand's type, an element of a list.
func contains(haystack, needle types.AttributeValue) bool {
	switch h := haystack.(type) {
	case *types.AttributeValueMemberS:
		n, ok := needle.(*types.AttributeValueMemberS)
		return ok && strings.Contains(h.Value, n.Value)
	case *types.AttributeValueMemberB:
		n, ok := needle.(*types.AttributeValueMemberB)
		return ok && bytes.Contains(h.Value, n.Value)
	case *types.AttributeValueMemberSS:
		n, ok := needle.(*types.AttributeValueMemberS)
		if !ok {
			return false
		}
		for _, m := range h.Value {
			if m == n.Value {
				return true
			}
		}
	case *types.AttributeValueMemberNS:
		n, ok := needle.(*types.AttributeValueMemberN)
		if !ok {
			return false
		}
		for _, m := range h.Value {
			if attr.CompareNumbers(m, n.Value) == 0 {
				return true
			}
		}
	case *types.AttributeValueMemberBS:
		n, ok := needle.(*types.AttributeValueMemberB)
		if !ok {
			return false
		}
		for _, m := range h.Value {
			if bytes.Equal(m, n.Value) {
				return true
			}
		}
	case *types.AttributeValueMemberL:
		for _, e := range h.Value {
			if attr.Equal(e, needle) {
				return true
			}
		}
	}
	return false
}
