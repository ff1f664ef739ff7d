package dynamotest

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The PartiQL statements DynamoDB supports (SELECT, INSERT, UPDATE,
// DELETE) are translated here into the expression API's requests, with
// placeholders of their own, so they share its evaluation, conditions and
// errors. This file is the lexer and the translation of expressions and
// values; executestatement.go runs the statements.

type pqKind int

const (
	pqEOF pqKind = iota
	pqIdent
	pqQuoted // "identifier"
	pqString // 'literal'
	pqNumber
	pqParam // ?
	pqPunct
)

type pqToken struct {
	kind pqKind
	text string
}

// pqLex splits a statement into tokens.
func pqLex(s string) ([]pqToken, error) {
	var out []pqToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, pqSyntax("unterminated quoted text")
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled quote
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			kind := pqQuoted
			if c == '\'' {
				kind = pqString
			}
			out = append(out, pqToken{kind, b.String()})
			i = j + 1
		case c >= '0' && c <= '9' || (c == '-' || c == '.') && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && pqNumberMayStart(out):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			out = append(out, pqToken{pqNumber, s[i:j]})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '$' || unicode.IsLetter(rune(s[j])) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, pqToken{pqIdent, s[i:j]})
			i = j
		case c == '?':
			out = append(out, pqToken{pqParam, "?"})
			i++
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "<=", ">=", "<>", "!=", "<<", ">>":
				out = append(out, pqToken{pqPunct, two})
				i += 2
				continue
			}
			if strings.IndexByte("=<>(),.[]{}:*+-", c) < 0 {
				return nil, pqSyntax("unexpected character '" + string(c) + "'")
			}
			out = append(out, pqToken{pqPunct, string(c)})
			i++
		}
	}
	return append(out, pqToken{kind: pqEOF}), nil
}

// pqNumberMayStart reports whether a '-' or '.' here begins a number: after
// an operator, a comma, an opening bracket or at the start, not after a
// value.
func pqNumberMayStart(prev []pqToken) bool {
	if len(prev) == 0 {
		return true
	}
	t := prev[len(prev)-1]
	return t.kind == pqPunct && t.text != ")" && t.text != "]" && t.text != "}" || t.kind == pqIdent && isPQKeyword(t.text)
}

func isPQKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "AND", "OR", "NOT", "BETWEEN", "IN", "WHERE", "SET", "VALUE", "IS":
		return true
	}
	return false
}

func pqSyntax(why string) error {
	return validationf("Statement wasn't well formed, can't be processed: %s", why)
}

// pqParser walks a statement's tokens, translating expressions into the
// expression language with placeholders it collects.
type pqParser struct {
	toks   []pqToken
	pos    int
	params []types.AttributeValue
	next   int // the next parameter
	names  map[string]string
	values map[string]types.AttributeValue
	// placeholders maps an attribute name to its placeholder in names, so
	// that naming an attribute costs one lookup however many there are.
	placeholders map[string]string
	// eqs are the WHERE clause's comparisons "attribute = value" of
	// top-level attributes that the whole clause requires, by attribute:
	// those of its top-level AND, not those under an OR or a NOT, which
	// fix nothing. They are the statement's key (UPDATE, DELETE) and its
	// partition (a SELECT's Query). conj collects them as the clause is
	// read; an OR or a NOT drops what its terms added.
	eqs  map[string]types.AttributeValue
	conj []pqEq
	// ins are the top-level attributes the WHERE clause compares with IN.
	ins map[string]bool
	// terms counts the WHERE clause's comparisons and function calls.
	terms int
}

// returning parses what follows RETURNING: ALL or MODIFIED, OLD or NEW,
// then *. DELETE returns only ALL OLD *.
func (p *pqParser) returning(verb string) (types.ReturnValue, error) {
	var rv types.ReturnValue
	switch {
	case p.keyword("ALL") && p.keyword("OLD"):
		rv = types.ReturnValueAllOld
	case p.pos > 0 && strings.EqualFold(p.toks[p.pos-1].text, "ALL") && p.keyword("NEW"):
		rv = types.ReturnValueAllNew
	case p.keyword("MODIFIED") && p.keyword("OLD"):
		rv = types.ReturnValueUpdatedOld
	case p.pos > 0 && strings.EqualFold(p.toks[p.pos-1].text, "MODIFIED") && p.keyword("NEW"):
		rv = types.ReturnValueUpdatedNew
	default:
		return "", pqSyntax("RETURNING takes ALL OLD *, MODIFIED OLD *, ALL NEW * or MODIFIED NEW *")
	}
	if !p.punct("*") {
		return "", pqSyntax("expected * after RETURNING " + string(rv))
	}
	switch verb {
	case "UPDATE":
	case "DELETE":
		if rv != types.ReturnValueAllOld {
			return "", validationf("DELETE supports only RETURNING ALL OLD *")
		}
	default:
		return "", validationf("RETURNING is supported only on UPDATE and DELETE")
	}
	return rv, nil
}

// setFunction reports whether an UPDATE's SET value is a call of
// list_append, set_add or set_delete, and which.
func (p *pqParser) setFunction() (string, bool) {
	t := p.peek()
	if t.kind != pqIdent || p.toks[p.pos+1].kind != pqPunct || p.toks[p.pos+1].text != "(" {
		return "", false
	}
	switch fn := strings.ToLower(t.text); fn {
	case "list_append", "set_add", "set_delete":
		return fn, true
	}
	return "", false
}

// setFunctionCall parses the call setFunction found, for the SET of
// target: list_append(a, b) as the expression's list_append; set_add(target,
// set) and set_delete(target, set) as the clauses "target :set" of ADD and
// DELETE, which is what they do.
func (p *pqParser) setFunctionCall(fn, target string) (string, error) {
	p.pos += 2 // name and (
	first, err := p.operand()
	if err != nil {
		return "", err
	}
	if err := p.expect(","); err != nil {
		return "", err
	}
	second, err := p.operand()
	if err != nil {
		return "", err
	}
	if err := p.expect(")"); err != nil {
		return "", err
	}
	if fn == "list_append" {
		return "list_append(" + first + ", " + second + ")", nil
	}
	if first != target {
		return "", validationf("%s must update the attribute it reads: SET a = %s(a, <<...>>)", fn, fn)
	}
	return target + " " + second, nil
}

func (p *pqParser) peek() pqToken { return p.toks[p.pos] }

func (p *pqParser) take() pqToken {
	t := p.toks[p.pos]
	if t.kind != pqEOF {
		p.pos++
	}
	return t
}

// keyword consumes the keyword kw (any case) if it comes next.
func (p *pqParser) keyword(kw string) bool {
	t := p.peek()
	if t.kind == pqIdent && strings.EqualFold(t.text, kw) {
		p.pos++
		return true
	}
	return false
}

func (p *pqParser) punct(s string) bool {
	t := p.peek()
	if t.kind == pqPunct && t.text == s {
		p.pos++
		return true
	}
	return false
}

func (p *pqParser) expect(s string) error {
	if p.punct(s) || p.keyword(s) {
		return nil
	}
	return pqSyntax("expected " + s + " near '" + p.peek().text + "'")
}

func (p *pqParser) name(attr string) string {
	if ph, ok := p.placeholders[attr]; ok {
		return ph
	}
	if p.names == nil {
		p.names = map[string]string{}
		p.placeholders = map[string]string{}
	}
	ph := "#pq" + strconv.Itoa(len(p.names))
	p.names[ph] = attr
	p.placeholders[attr] = ph
	return ph
}

func (p *pqParser) value(v types.AttributeValue) string {
	if p.values == nil {
		p.values = map[string]types.AttributeValue{}
	}
	ph := ":pq" + strconv.Itoa(len(p.values))
	p.values[ph] = v
	return ph
}

// tableName parses "Table" or "Table"."Index" (quotes optional).
func (p *pqParser) tableName() (table, index string, err error) {
	t := p.take()
	if t.kind != pqQuoted && t.kind != pqIdent {
		return "", "", pqSyntax("expected a table name near '" + t.text + "'")
	}
	table = t.text
	if p.punct(".") {
		t = p.take()
		if t.kind != pqQuoted && t.kind != pqIdent {
			return "", "", pqSyntax("expected an index name near '" + t.text + "'")
		}
		index = t.text
	}
	return table, index, nil
}

// path parses an attribute path (a, "a", a.b, a[0]) and returns it in the
// expression language, with its top-level attribute name.
func (p *pqParser) path() (expr, top string, err error) {
	t := p.take()
	if t.kind != pqIdent && t.kind != pqQuoted {
		return "", "", pqSyntax("expected an attribute name near '" + t.text + "'")
	}
	top = t.text
	var b strings.Builder
	b.WriteString(p.name(t.text))
	for {
		switch {
		case p.punct("."):
			t = p.take()
			if t.kind != pqIdent && t.kind != pqQuoted {
				return "", "", pqSyntax("expected an attribute name after '.'")
			}
			b.WriteString("." + p.name(t.text))
		case p.punct("["):
			t = p.take()
			if t.kind != pqNumber {
				return "", "", pqSyntax("expected a list index")
			}
			b.WriteString("[" + t.text + "]")
			if err := p.expect("]"); err != nil {
				return "", "", err
			}
		default:
			return b.String(), top, nil
		}
	}
}

// literal parses a value: 'string', a number, ?, TRUE/FALSE/NULL, a list
// [..], a map {'k': v, ..} or a set <<..>>.
func (p *pqParser) literal() (types.AttributeValue, error) {
	t := p.take()
	switch t.kind {
	case pqString:
		return &types.AttributeValueMemberS{Value: t.text}, nil
	case pqNumber:
		return &types.AttributeValueMemberN{Value: t.text}, nil
	case pqParam:
		if p.next >= len(p.params) {
			return nil, validationf("Number of parameters in request and statement don't match.")
		}
		v := p.params[p.next]
		p.next++
		return v, nil
	case pqIdent:
		switch strings.ToUpper(t.text) {
		case "TRUE":
			return &types.AttributeValueMemberBOOL{Value: true}, nil
		case "FALSE":
			return &types.AttributeValueMemberBOOL{Value: false}, nil
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}, nil
		}
	case pqPunct:
		switch t.text {
		case "[":
			list := []types.AttributeValue{}
			if p.punct("]") {
				return &types.AttributeValueMemberL{Value: list}, nil
			}
			for {
				v, err := p.literal()
				if err != nil {
					return nil, err
				}
				list = append(list, v)
				if p.punct("]") {
					return &types.AttributeValueMemberL{Value: list}, nil
				}
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
		case "{":
			m := map[string]types.AttributeValue{}
			if p.punct("}") {
				return &types.AttributeValueMemberM{Value: m}, nil
			}
			for {
				// A tuple's keys are 'strings': "name" is an identifier,
				// and one key twice is refused, as DynamoDB Local does.
				k := p.take()
				if k.kind == pqQuoted {
					return nil, validationf("Tuple keys must be of type String. Actual type: VariableReference")
				}
				if k.kind != pqString {
					return nil, pqSyntax("expected a quoted attribute name in a tuple near '" + k.text + "'")
				}
				if _, dup := m[k.text]; dup {
					return nil, validationf("Duplicate keys in tuple. Key: %s", k.text)
				}
				if err := p.expect(":"); err != nil {
					return nil, err
				}
				v, err := p.literal()
				if err != nil {
					return nil, err
				}
				m[k.text] = v
				if p.punct("}") {
					return &types.AttributeValueMemberM{Value: m}, nil
				}
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
		case "<<":
			var elems []types.AttributeValue
			for {
				v, err := p.literal()
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
				if p.punct(">>") {
					return pqSet(elems)
				}
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
		}
	}
	return nil, pqSyntax("unexpected term '" + t.text + "'")
}

// pqSet builds a set from its elements, which must all be strings, all
// numbers or all binaries.
func pqSet(elems []types.AttributeValue) (types.AttributeValue, error) {
	switch elems[0].(type) {
	case *types.AttributeValueMemberS:
		ss := &types.AttributeValueMemberSS{}
		for _, e := range elems {
			s, ok := e.(*types.AttributeValueMemberS)
			if !ok {
				return nil, validationf("Unsupported operation: set elements must all have the same type")
			}
			ss.Value = append(ss.Value, s.Value)
		}
		return ss, nil
	case *types.AttributeValueMemberN:
		ns := &types.AttributeValueMemberNS{}
		for _, e := range elems {
			n, ok := e.(*types.AttributeValueMemberN)
			if !ok {
				return nil, validationf("Unsupported operation: set elements must all have the same type")
			}
			ns.Value = append(ns.Value, n.Value)
		}
		return ns, nil
	case *types.AttributeValueMemberB:
		bs := &types.AttributeValueMemberBS{}
		for _, e := range elems {
			b, ok := e.(*types.AttributeValueMemberB)
			if !ok {
				return nil, validationf("Unsupported operation: set elements must all have the same type")
			}
			bs.Value = append(bs.Value, b.Value)
		}
		return bs, nil
	}
	return nil, validationf("Unsupported operation: sets hold strings, numbers or binaries")
}

// operand parses a path, a literal or a function call, in the expression
// language.
func (p *pqParser) operand() (string, error) {
	var b strings.Builder
	err := p.operandTo(&b)
	return b.String(), err
}

// operandTo writes the operand into b: a call's arguments go into the
// same builder, so nested calls cost their length, not its square.
func (p *pqParser) operandTo(b *strings.Builder) error {
	t := p.peek()
	if t.kind == pqIdent && p.toks[p.pos+1].kind == pqPunct && p.toks[p.pos+1].text == "(" && !isPQKeyword(t.text) {
		fn := strings.ToLower(t.text)
		switch fn {
		case "begins_with", "contains", "attribute_exists", "attribute_not_exists", "attribute_type", "size":
		default:
			return validationf("Unsupported function: %s", t.text)
		}
		p.pos += 2
		b.WriteString(fn)
		b.WriteByte('(')
		for first := true; !p.punct(")"); first = false {
			if !first {
				if err := p.expect(","); err != nil {
					return err
				}
				b.WriteString(", ")
			}
			if err := p.operandTo(b); err != nil {
				return err
			}
		}
		b.WriteByte(')')
		return nil
	}
	if t.kind == pqIdent && strings.EqualFold(t.text, "MISSING") {
		return validationf("MISSING must be compared using IS operator")
	}
	if (t.kind == pqIdent && !isLiteralWord(t.text)) || t.kind == pqQuoted {
		e, _, err := p.path()
		b.WriteString(e)
		return err
	}
	v, err := p.literal()
	if err != nil {
		return err
	}
	b.WriteString(p.value(v))
	return nil
}

func isLiteralWord(s string) bool {
	switch strings.ToUpper(s) {
	case "TRUE", "FALSE", "NULL":
		return true
	}
	return false
}

// pqEq is a comparison "attribute = value" of a top-level attribute.
type pqEq struct {
	name string
	v    types.AttributeValue
}

// pqCond is a parsed WHERE condition: a tree of OR, AND and NOT over
// comparisons and calls already in the expression language. The tree is
// written out once, when it is whole (text), so a chain of n ORs costs n,
// where rebuilding the text at each OR cost n squared.
type pqCond struct {
	op    string    // "OR", "AND", "NOT"; "" for a comparison or a call
	terms []*pqCond // OR, AND: two or more; NOT: one
	text  string    // a comparison or a call
}

// String renders the condition in the expression language, each operand
// of OR, AND and NOT in parentheses of its own.
func (c *pqCond) String() string {
	var b strings.Builder
	c.write(&b)
	return b.String()
}

func (c *pqCond) write(b *strings.Builder) {
	switch c.op {
	case "":
		b.WriteString(c.text)
	case "NOT":
		b.WriteString("NOT (")
		c.terms[0].write(b)
		b.WriteByte(')')
	default:
		for i, t := range c.terms {
			if i > 0 {
				b.WriteString(" " + c.op + " ")
			}
			b.WriteByte('(')
			t.write(b)
			b.WriteByte(')')
		}
	}
}

// where parses a WHERE condition into a condition expression.
func (p *pqParser) where() (string, error) {
	c, err := p.condition()
	if err != nil {
		return "", err
	}
	for _, e := range p.conj {
		if p.eqs == nil {
			p.eqs = map[string]types.AttributeValue{}
		}
		p.eqs[e.name] = e.v
	}
	return c.String(), nil
}

func (p *pqParser) condition() (*pqCond, error) {
	return p.chain("OR", p.conjunction)
}

func (p *pqParser) conjunction() (*pqCond, error) {
	return p.chain("AND", p.negation)
}

// chain parses terms joined by the keyword op (OR, AND) into one node.
func (p *pqParser) chain(op string, term func() (*pqCond, error)) (*pqCond, error) {
	mark := len(p.conj)
	first, err := term()
	if err != nil {
		return nil, err
	}
	if !p.keyword(op) {
		return first, nil
	}
	c := &pqCond{op: op, terms: []*pqCond{first}}
	for {
		next, err := term()
		if err != nil {
			return nil, err
		}
		c.terms = append(c.terms, next)
		if !p.keyword(op) {
			if op == "OR" {
				p.conj = p.conj[:mark] // one of the terms holds, none is required
			}
			return c, nil
		}
	}
}

func (p *pqParser) negation() (*pqCond, error) {
	if p.keyword("NOT") {
		mark := len(p.conj)
		c, err := p.negation()
		if err != nil {
			return nil, err
		}
		p.conj = p.conj[:mark] // what NOT negates is not required
		return &pqCond{op: "NOT", terms: []*pqCond{c}}, nil
	}
	if p.punct("(") {
		c, err := p.condition()
		if err != nil {
			return nil, err
		}
		return c, p.expect(")")
	}
	text, err := p.comparison()
	if err != nil {
		return nil, err
	}
	return &pqCond{text: text}, nil
}

func (p *pqParser) comparison() (string, error) {
	p.terms++
	start := p.pos
	values := len(p.values)
	left, err := p.operand()
	if err != nil {
		return "", err
	}
	// A function call stands alone as a condition.
	if strings.HasSuffix(left, ")") && p.toks[start].kind == pqIdent && p.peek().kind != pqPunct {
		return left, nil
	}
	t := p.peek()
	switch {
	case t.kind == pqPunct && (t.text == "=" || t.text == "<>" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">="):
		p.pos++
		right, err := p.operand()
		if err != nil {
			return "", err
		}
		op := t.text
		if op == "!=" {
			op = "<>"
		}
		// attr = value, with attr a top-level name and value one literal.
		if op == "=" && p.pos-start == 3 && (p.toks[start].kind == pqIdent || p.toks[start].kind == pqQuoted) && len(p.values) == values+1 {
			p.conj = append(p.conj, pqEq{name: p.toks[start].text, v: p.values[right]})
		}
		return left + " " + op + " " + right, nil
	case p.keyword("BETWEEN"):
		lo, err := p.operand()
		if err != nil {
			return "", err
		}
		if err := p.expect("AND"); err != nil {
			return "", err
		}
		hi, err := p.operand()
		if err != nil {
			return "", err
		}
		return left + " BETWEEN " + lo + " AND " + hi, nil
	case p.keyword("IN"):
		if err := p.expect("["); err != nil {
			return "", err
		}
		var vals []string
		for !p.punct("]") {
			if len(vals) > 0 {
				if err := p.expect(","); err != nil {
					return "", err
				}
			}
			v, err := p.operand()
			if err != nil {
				return "", err
			}
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			return "", pqSyntax("IN needs at least one value")
		}
		if p.pos > start && (p.toks[start].kind == pqIdent || p.toks[start].kind == pqQuoted) && !strings.ContainsAny(left, ".[") {
			if p.ins == nil {
				p.ins = map[string]bool{}
			}
			p.ins[p.toks[start].text] = true
		}
		return left + " IN (" + strings.Join(vals, ", ") + ")", nil
	case p.keyword("IS"):
		not := p.keyword("NOT")
		switch {
		case p.keyword("MISSING"):
			if not {
				return "attribute_exists(" + left + ")", nil
			}
			return "attribute_not_exists(" + left + ")", nil
		case p.keyword("NULL"):
			// The operators reference: IS tests for a PartiQL type,
			// NULL among them. A missing attribute is not NULL (it IS
			// MISSING), as DynamoDB Local answers.
			isNull := "attribute_type(" + left + ", " + p.value(&types.AttributeValueMemberS{Value: "NULL"}) + ")"
			if not {
				return "NOT " + isNull, nil
			}
			return isNull, nil
		}
		return "", pqSyntax("expected MISSING or NULL after IS")
	case strings.HasSuffix(left, ")"):
		return left, nil
	}
	return "", pqSyntax("expected a comparison near '" + t.text + "'")
}
