package expr

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// pathElem is one step of a document path: a map key or a list index.
type pathElem struct {
	name    string
	index   int
	isIndex bool
}

// path is a resolved document path; its first element is always a name.
type path []pathElem

func (p path) equal(q path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// get walks the item without copying or allocating.
func (p path) get(item map[string]types.AttributeValue) (types.AttributeValue, bool) {
	v, ok := item[p[0].name]
	if !ok {
		return nil, false
	}
	for _, e := range p[1:] {
		if e.isIndex {
			l, isL := v.(*types.AttributeValueMemberL)
			if !isL || e.index >= len(l.Value) {
				return nil, false
			}
			v = l.Value[e.index]
		} else {
			m, isM := v.(*types.AttributeValueMemberM)
			if !isM {
				return nil, false
			}
			if v, ok = m.Value[e.name]; !ok {
				return nil, false
			}
		}
	}
	return v, true
}

type operandKind uint8

const (
	opPath  operandKind = iota
	opValue             // an ExpressionAttributeValues placeholder
	opCall              // a function call, checked by the caller for where it may appear
)

// operand is a path, a value or a function call.
type operand struct {
	kind operandKind
	path path
	val  types.AttributeValue
	ph   string // the :placeholder a value came from
	fn   string
	args []*operand
	at   int // a call's name's token index, where its faults are reported
}

// parser is a recursive-descent parser over the token slice. Errors
// unwind with panic(bailout) to the entry point, which turns them into
// *Error; nothing else panics.
type parser struct {
	src  string
	toks []token
	pos  int
	env  *Env
	kind string
	ops  int // operators and functions seen, against DynamoDB's limit of 300
	slab []operand
	// names and values list the placeholders the expression resolved, in
	// order, repeats included: what a cached key condition marks used.
	names, values []string
	// parens describes each "(" by token index, computed on first need.
	parens map[int]parenInfo
	// pending holds the first semantic error of each phase. DynamoDB
	// (Local, probed pairwise) reports syntax errors first; then, in
	// expression order, reserved words, unknown functions, functions in
	// the wrong place and list indexes out of range; then a repeated
	// update clause; then overlapping paths; then undefined placeholders,
	// which in conditions share the last phase; then everything else. The
	// parser records errors as it goes and flush reports them in that
	// order once the whole expression has parsed.
	pending [5]*Error
	// namesAt is the token index of pending[phaseNames]'s fault: in that
	// phase the fault nearest the start wins, a call's (unknown name,
	// wrong place) standing at its name, before the words in its
	// arguments (dynalite's AWS-written scan tests: "attRIbute_exIsts((views),
	// #a)" is an invalid function name, not the reserved word views).
	namesAt int
}

// Phases of semantic errors, in the order DynamoDB reports them.
const (
	phaseNames        = iota // reserved words, function names and placement, list index range
	phaseClauses             // a repeated SET, REMOVE, ADD or DELETE
	phasePaths               // overlapping or conflicting document paths
	phasePlaceholders        // undefined placeholders (in updates and projections)
	phaseChecks              // arity, operand types, distinct operands, limits
)

// later records a semantic error to report once parsing is done, found at
// the current token.
func (p *parser) later(phase int, msg string) { p.laterAt(phase, p.pos, msg) }

// laterAt records a semantic error found at token index at: the first of
// each phase is reported, in the names phase the one nearest the start.
func (p *parser) laterAt(phase, at int, msg string) {
	if phase == phasePlaceholders && (p.kind == kindCondition || p.kind == kindFilter || p.kind == kindKey) {
		phase = phaseChecks
	}
	if p.pending[phase] == nil || phase == phaseNames && at < p.namesAt {
		p.pending[phase] = &Error{Message: "Invalid " + p.kind + ": " + msg}
		if phase == phaseNames {
			p.namesAt = at
		}
	}
}

// flush reports the first recorded semantic error, by phase. A
// projection's undefined name comes before its overlapping paths
// (dynalite's AWS-written getItem "should return ValidationException for
// missing names in ProjectionExpression": "a,b,a,#a" with no names is
// refused for #a, not for the two a).
func (p *parser) flush() {
	order := [...]int{phaseNames, phaseClauses, phasePaths, phasePlaceholders, phaseChecks}
	if p.kind == kindProjection {
		order[2], order[3] = phasePlaceholders, phasePaths
	}
	for _, phase := range order {
		if e := p.pending[phase]; e != nil {
			panic(bailout{e})
		}
	}
}

// newOperand hands out operands from a small slab: one allocation for
// several, since a typical expression has a handful.
func (p *parser) newOperand(o operand) *operand {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]operand, 0, 8)
	}
	p.slab = append(p.slab, o)
	return &p.slab[len(p.slab)-1]
}

type bailout struct{ err *Error }

func newParser(env *Env, kind, src string) *parser {
	return &parser{src: src, toks: lex(src), env: env, kind: kind}
}

// run parses with fn, converting a bailout into an error.
func (p *parser) run(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	fn()
	return nil
}

// precheck applies the checks DynamoDB makes before parsing: valid
// placeholder maps, a non-empty expression, the 4 KB size limit.
func precheck(env *Env, kind, src string) error {
	if err := env.CheckInputs(); err != nil {
		return err
	}
	if src == "" {
		return &Error{Message: "Invalid " + kind + ": The expression can not be empty;"}
	}
	if len(src) > maxExprSize && !env.translated {
		return &Error{Message: "Invalid " + kind + ": Expression size has exceeded the maximum allowed size; expression size: " + strconv.Itoa(len(src))}
	}
	return nil
}

// countOp counts one operator or function call: DynamoDB allows 300 in
// an expression and stops at the first one over.
func (p *parser) countOp() {
	p.ops++
	if p.ops == maxOperators+1 && !p.env.translated {
		p.later(phaseChecks, "The expression contains too many operators; operator count: "+strconv.Itoa(p.ops))
	}
}

// fail stops parsing with "Invalid <kind>: msg".
func (p *parser) fail(msg string) {
	panic(bailout{&Error{Message: "Invalid " + p.kind + ": " + msg}})
}

// failPlain stops parsing with msg as it stands (key-condition messages
// carry no prefix).
func (p *parser) failPlain(msg string) {
	panic(bailout{&Error{Message: msg}})
}

// syntaxError reports the token at i the way DynamoDB does: the token and
// the text from the token before it to the token after it.
func (p *parser) syntaxError(i int) {
	t := p.toks[i]
	text := "<EOF>"
	if t.kind != tEOF {
		text = p.src[t.start:t.end]
	}
	start, end := t.start, t.end
	if i > 0 {
		start = p.toks[i-1].start
	} else if t.kind == tEOF {
		start = 0 // only blanks: DynamoDB quotes them
	}
	if i+1 < len(p.toks) && p.toks[i+1].kind != tEOF {
		end = p.toks[i+1].end
	}
	p.fail(`Syntax error; token: "` + text + `", near: "` + p.src[start:end] + `"`)
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekKind() tokKind { return p.toks[p.pos].kind }

func (p *parser) text(t token) string { return p.src[t.start:t.end] }

// peekKeyword reports whether the next token is the keyword kw.
func (p *parser) peekKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tIdent && keyword(p.text(t), kw)
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) expect(k tokKind) token {
	if p.peekKind() != k {
		p.syntaxError(p.pos)
	}
	return p.next()
}

func (p *parser) expectEOF() {
	if p.peekKind() != tEOF {
		p.syntaxError(p.pos)
	}
}

// parsePath parses a document path: a name or #placeholder, then any
// number of ".name", ".#placeholder" and "[index]".
func (p *parser) parsePath() path {
	pa := make(path, 1, 2)
	pa[0] = pathElem{name: p.parseName()}
	for {
		switch p.peekKind() {
		case tDot:
			p.next()
			pa = append(pa, pathElem{name: p.parseName()})
		case tLBrack:
			p.next()
			t := p.peek()
			if t.kind != tNumber {
				p.syntaxError(p.pos)
			}
			p.next()
			digits := p.text(t)
			n, err := strconv.Atoi(digits)
			if err != nil || n > maxListIndex {
				p.later(phaseNames, "List index is not within the allowable range; index: ["+digits+"]")
				n = 0
			}
			p.expect(tRBrack)
			pa = append(pa, pathElem{index: n, isIndex: true})
		default:
			if len(pa) > maxPathDepth {
				p.later(phaseChecks, "The document path has too many nesting levels; nesting levels: "+strconv.Itoa(len(pa)))
			}
			return pa
		}
	}
}

// parseName parses one name in a path: a bare name (not a keyword, not a
// reserved word) or a #placeholder that must be defined.
func (p *parser) parseName() string {
	t := p.peek()
	switch t.kind {
	case tIdent:
		s := p.text(t)
		if isKeyword(s) {
			p.syntaxError(p.pos)
		}
		if _, bad := reserved[strings.ToLower(s)]; bad {
			p.later(phaseNames, "Attribute name is a reserved keyword; reserved keyword: "+s)
		}
		p.next()
		return s
	case tName:
		s := p.text(t)
		name, ok := p.env.name(s)
		p.names = append(p.names, s)
		if !ok {
			p.later(phasePlaceholders, "An expression attribute name used in the document path is not defined; attribute name: "+s)
			name = s
		}
		p.next()
		return name
	}
	p.syntaxError(p.pos)
	return ""
}

// parseOperand parses a path, a :value, or a function call with operand
// arguments (calls nest; where each function may appear is checked by
// the caller).
func (p *parser) parseOperand() *operand {
	t := p.peek()
	switch t.kind {
	case tValue:
		s := p.text(t)
		v, ok := p.env.value(s)
		p.values = append(p.values, s)
		if !ok {
			p.later(phasePlaceholders, "An expression attribute value used in expression is not defined; attribute value: "+s)
		}
		p.next()
		return p.newOperand(operand{kind: opValue, val: v, ph: s})
	case tIdent:
		if p.toks[p.pos+1].kind == tLParen && !isKeyword(p.text(t)) {
			name, at := p.text(t), p.pos
			p.countOp()
			p.next()
			p.next()
			// A call has at least one argument: "f()" is a syntax error.
			var args []*operand
			for {
				args = append(args, p.parseArgument())
				if p.peekKind() != tComma {
					break
				}
				p.next()
			}
			p.expect(tRParen)
			return p.newOperand(operand{kind: opCall, fn: name, args: args, at: at})
		}
		return p.newOperand(operand{kind: opPath, path: p.parsePath()})
	case tName:
		return p.newOperand(operand{kind: opPath, path: p.parsePath()})
	}
	p.syntaxError(p.pos)
	return nil
}

// parseArgument parses a function argument, which may be in parentheses
// ("attribute_exists((x))", "if_not_exists((a), :v)").
func (p *parser) parseArgument() *operand {
	if p.peekKind() != tLParen {
		return p.parseOperand()
	}
	p.next()
	if p.peekKind() == tLParen {
		p.fail(redundantParens)
	}
	o := p.parseOperand()
	p.expect(tRParen)
	return o
}

// Function names; they are case-sensitive, unlike keywords.
const (
	fnAttributeExists    = "attribute_exists"
	fnAttributeNotExists = "attribute_not_exists"
	fnAttributeType      = "attribute_type"
	fnBeginsWith         = "begins_with"
	fnContains           = "contains"
	fnSize               = "size"
	fnIfNotExists        = "if_not_exists"
	fnListAppend         = "list_append"
)

func knownFunction(name string) bool {
	switch name {
	case fnAttributeExists, fnAttributeNotExists, fnAttributeType, fnBeginsWith,
		fnContains, fnSize, fnIfNotExists, fnListAppend:
		return true
	}
	return false
}

// checkArity records DynamoDB's message for a call with the wrong number
// of operands and reports whether the count was right.
func (p *parser) checkArity(o *operand, want int) bool {
	if len(o.args) != want {
		p.later(phaseChecks, "Incorrect number of operands for operator or function; operator or function: "+o.fn+", number of operands: "+strconv.Itoa(len(o.args)))
		return false
	}
	return true
}

func (p *parser) operandTypeError(op string, v types.AttributeValue) {
	p.later(phaseChecks, "Incorrect operand type for operator or function; operator or function: "+op+", operand type: "+shortType(v))
}

// checkDistinct rejects "x = x" and the like: DynamoDB requires the first
// operand of a comparison or function to differ from the others when both
// are paths.
func (p *parser) checkDistinct(op string, args []*operand) {
	if len(args) == 0 || args[0].kind != opPath {
		return
	}
	for _, a := range args[1:] {
		if a.kind == opPath && a.path.equal(args[0].path) {
			p.later(phaseChecks, "The first operand must be distinct from the remaining operands for this operator or function; operator: "+op+", first operand: "+pathString(args[0].path))
			return
		}
	}
}
