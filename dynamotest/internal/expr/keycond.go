package expr

import (
	"bytes"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// RangeOp is the operator of a sort-key condition.
type RangeOp int

// The sort-key conditions a Query allows.
const (
	EQ RangeOp = iota + 1
	LT
	LE
	GT
	GE
	Between
	BeginsWith
)

func (op RangeOp) String() string {
	switch op {
	case EQ:
		return "="
	case LT:
		return "<"
	case LE:
		return "<="
	case GT:
		return ">"
	case GE:
		return ">="
	case Between:
		return "BETWEEN"
	case BeginsWith:
		return "begins_with"
	}
	return "RangeOp(?)"
}

// KeyCondition is a parsed KeyConditionExpression: equality on the
// partition key and at most one condition on the sort key. The engine
// checks the values' types against the key schema ("Condition parameter
// type does not match schema type").
type KeyCondition struct {
	Hash types.AttributeValue
	// HashOp is EQ, or the operator a condition on the partition key used
	// instead ("a > :v", Hash its first value): DynamoDB refuses it ("Query
	// key condition not supported"), but only once the value's type has
	// passed the schema, which the engine checks.
	HashOp RangeOp
	Range  *RangeCondition
}

// RangeCondition is the sort-key part of a key condition. Values holds one
// value, or two for Between (low, high).
type RangeCondition struct {
	Op     RangeOp
	Values []types.AttributeValue
}

// Match reports whether a sort-key value satisfies the condition: numbers
// compare numerically, strings and binaries by bytes, begins_with applies
// to strings and binaries only.
func (r *RangeCondition) Match(v types.AttributeValue) bool {
	if r.Op == BeginsWith {
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			p, ok := r.Values[0].(*types.AttributeValueMemberS)
			return ok && strings.HasPrefix(x.Value, p.Value)
		case *types.AttributeValueMemberB:
			p, ok := r.Values[0].(*types.AttributeValueMemberB)
			return ok && bytes.HasPrefix(x.Value, p.Value)
		}
		return false
	}
	c, ok := attr.Compare(v, r.Values[0])
	if !ok {
		return false
	}
	switch r.Op {
	case EQ:
		return c == 0
	case LT:
		return c < 0
	case LE:
		return c <= 0
	case GT:
		return c > 0
	case GE:
		return c >= 0
	case Between:
		hi, ok := attr.Compare(v, r.Values[1])
		return ok && c >= 0 && hi <= 0
	}
	return false
}

// Messages DynamoDB (Local) gives for key conditions it cannot serve.
const (
	msgOneConditionPerKey = "KeyConditionExpressions must only contain one condition per key"
	msgMissedKey          = "Query condition missed key schema element"
	msgKeyNotSupported    = "Query key condition not supported"
	msgNestedOperations   = "KeyConditionExpressions cannot contain nested operations"
	msgConditionCount     = "Conditions can be of length 1 or 2 only"
)

// KeyConditionShape checks a KeyConditionExpression as far as it can be
// checked without a key schema, as DynamoDB does before it looks for the
// table: syntax, placeholders, the operators and operands a key condition
// takes, at most two conditions, none on one attribute twice. The
// placeholders it resolves count as used.
func (e *Env) KeyConditionShape(s string) error {
	if err := precheck(e, kindKey, s); err != nil {
		return err
	}
	p := newParser(e, kindKey, s)
	return p.run(func() {
		root := p.parseOr()
		p.expectEOF()
		p.flush()
		p.keyCondition(root, "", "", false)
	})
}

// KeyCondition parses a KeyConditionExpression for a table or index whose
// partition key is hashKey and sort key rangeKey ("" when it has none).
// It is parsed with the condition grammar, as DynamoDB does, and then held
// to what Query can serve.
//
// A Query sends the same few key conditions over and over with other
// values, so a successful parse is kept as a template (see keyConds) and
// the next request with the same expression, names and value types only
// binds its values.
func (e *Env) KeyCondition(s, hashKey, rangeKey string) (*KeyCondition, error) {
	if err := precheck(e, kindKey, s); err != nil {
		return nil, err
	}
	// A request with many placeholders is parsed afresh: its cache key
	// would hold every one of them (2 MB of names, kept by the cache).
	cacheable := len(e.names)+len(e.values) <= maxCachedPlaceholders
	var cacheKey string
	if cacheable {
		cacheKey = keyConds.key(e, s, hashKey, rangeKey)
		if t := keyConds.get(cacheKey); t != nil {
			return t.bind(e), nil
		}
	}
	p := newParser(e, kindKey, s)
	var kc *KeyCondition
	var t *keyTemplate
	err := p.run(func() {
		root := p.parseOr()
		p.expectEOF()
		p.flush()
		kc, t = p.keyCondition(root, hashKey, rangeKey, true)
	})
	if err != nil {
		return nil, err
	}
	if cacheable {
		keyConds.put(cacheKey, t)
	}
	return kc, nil
}

// keyCondition holds a parsed key condition to what Query can serve; with
// schema false only to what needs no key schema (a table that does not
// exist), returning nothing.
func (p *parser) keyCondition(root *cond, hashKey, rangeKey string, schema bool) (*KeyCondition, *keyTemplate) {
	var parts []*cond
	var collect func(n *cond)
	collect = func(n *cond) {
		switch n.kind {
		case cAnd:
			collect(n.left)
			collect(n.right)
			return
		case cOr:
			p.failPlain("Invalid operator used in KeyConditionExpression: OR")
		case cNot:
			p.failPlain("Invalid operator used in KeyConditionExpression: NOT")
		case cIn:
			p.failPlain("Invalid operator used in KeyConditionExpression: IN")
		case cCompare:
			if n.op == tNe {
				p.failPlain("Invalid operator used in KeyConditionExpression: <>")
			}
		case cFunc:
			if n.fn != fnBeginsWith {
				p.failPlain("Invalid operator used in KeyConditionExpression: " + n.fn)
			}
		}
		parts = append(parts, n)
	}
	collect(root)

	type keyPart struct {
		name string
		op   RangeOp
		vals []*operand
	}
	keyParts := make([]keyPart, len(parts))
	named := map[string]bool{}
	twice := false
	for i, n := range parts {
		keyParts[i].name, keyParts[i].op, keyParts[i].vals = p.keyPart(n)
		twice = twice || named[keyParts[i].name]
		named[keyParts[i].name] = true
	}
	// DynamoDB's order (dynalite's AWS-written query tests): an attribute
	// named twice; more than two conditions ("Conditions can be of length
	// 1 or 2 only", checked on a table that does not exist too); two
	// conditions where the schema has one key ("Query key condition not
	// supported", whatever they name); then the missing element, named:
	// the partition key, or the sort key beside a condition on another
	// attribute.
	if twice {
		p.failPlain(msgOneConditionPerKey)
	}
	if len(keyParts) > 2 {
		p.failPlain(msgConditionCount)
	}
	if !schema {
		return nil, nil
	}
	if rangeKey == "" && len(keyParts) == 2 {
		p.failPlain(msgKeyNotSupported)
	}
	hashAt := -1
	for i, kp := range keyParts {
		if kp.name == hashKey {
			hashAt = i
		}
	}
	if hashAt < 0 {
		p.failPlain(msgMissedKey + ": " + hashKey)
	}
	kc := &KeyCondition{}
	t := &keyTemplate{names: p.names, values: p.values}
	hash := keyParts[hashAt]
	kc.Hash, kc.HashOp, t.hash, t.hashOp = hash.vals[0].val, hash.op, hash.vals[0].ph, hash.op
	if len(keyParts) == 2 {
		rng := keyParts[1-hashAt]
		if rng.name != rangeKey {
			p.failPlain(msgMissedKey + ": " + rangeKey)
		}
		kc.Range = &RangeCondition{Op: rng.op}
		t.op = rng.op
		for _, v := range rng.vals {
			kc.Range.Values = append(kc.Range.Values, v.val)
			t.rangeValues = append(t.rangeValues, v.ph)
		}
	}
	if t.op == Between {
		// Whether the bounds are in order depends on the values, not only
		// on their types: such a condition is parsed afresh every time.
		t = nil
	}
	return kc, t
}

var (
	rangeOps = map[tokKind]RangeOp{tEq: EQ, tLt: LT, tLe: LE, tGt: GT, tGe: GE}
	// reversedOps turns ":v < c" around: "c > :v".
	reversedOps = map[RangeOp]RangeOp{EQ: EQ, LT: GT, LE: GE, GT: LT, GE: LE}
)

// keyPart reduces one condition to key name, operator and value operands,
// turning ":v < c" into "c > :v".
func (p *parser) keyPart(n *cond) (string, RangeOp, []*operand) {
	for _, a := range n.args {
		if a.kind == opCall {
			p.failPlain(msgNestedOperations)
		}
	}
	keyPath := func(o *operand) string {
		if len(o.path) > 1 {
			p.failPlain("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: " + o.path[0].name)
		}
		return o.path[0].name
	}
	switch n.kind {
	case cCompare:
		a, b := n.args[0], n.args[1]
		op := rangeOps[n.op]
		switch {
		case a.kind == opPath && b.kind == opValue:
			return keyPath(a), op, []*operand{b}
		case a.kind == opValue && b.kind == opPath:
			return keyPath(b), reversedOps[op], []*operand{a}
		case a.kind == opPath:
			p.failPlain("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
		default:
			p.failPlain("Invalid condition in KeyConditionExpression: No key attribute specified")
		}
	case cBetween:
		x, lo, hi := n.args[0], n.args[1], n.args[2]
		if x.kind != opPath || lo.kind != opValue || hi.kind != opValue {
			p.failPlain("Invalid condition in KeyConditionExpression: BETWEEN requires a key attribute and two values")
		}
		return keyPath(x), Between, []*operand{lo, hi}
	case cFunc: // begins_with
		x, prefix := n.args[0], n.args[1]
		if x.kind != opPath || prefix.kind != opValue {
			p.failPlain("Invalid condition in KeyConditionExpression: begins_with requires a key attribute and a value")
		}
		return keyPath(x), BeginsWith, []*operand{prefix}
	}
	p.failPlain(msgKeyNotSupported)
	return "", 0, nil
}
