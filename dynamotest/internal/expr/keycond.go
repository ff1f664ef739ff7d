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
	Hash  types.AttributeValue
	Range *RangeCondition
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
)

// KeyCondition parses a KeyConditionExpression for a table or index whose
// partition key is hashKey and sort key rangeKey ("" when it has none).
// It is parsed with the condition grammar, as DynamoDB does, and then held
// to what Query can serve.
func (e *Env) KeyCondition(s, hashKey, rangeKey string) (*KeyCondition, error) {
	if err := precheck(e, kindKey, s); err != nil {
		return nil, err
	}
	p := newParser(e, kindKey, s)
	var kc *KeyCondition
	err := p.run(func() {
		root := p.parseOr()
		p.expectEOF()
		p.flush()
		kc = p.keyCondition(root, hashKey, rangeKey)
	})
	if err != nil {
		return nil, err
	}
	return kc, nil
}

func (p *parser) keyCondition(root *cond, hashKey, rangeKey string) *KeyCondition {
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
	if len(parts) > 2 {
		p.failPlain(msgOneConditionPerKey)
	}

	kc := &KeyCondition{}
	var hashCond *cond
	var hashVal types.AttributeValue
	for _, n := range parts {
		name, op, vals := p.keyPart(n)
		switch {
		case name == hashKey:
			if hashCond != nil {
				p.failPlain(msgOneConditionPerKey)
			}
			hashCond = n
			if op != EQ {
				p.failPlain(msgKeyNotSupported)
			}
			hashVal = vals[0]
		case rangeKey != "" && name == rangeKey:
			if kc.Range != nil {
				p.failPlain(msgOneConditionPerKey)
			}
			kc.Range = &RangeCondition{Op: op, Values: vals}
		default:
			p.failPlain(msgMissedKey)
		}
	}
	if hashCond == nil {
		p.failPlain(msgMissedKey)
	}
	kc.Hash = hashVal
	return kc
}

var (
	rangeOps = map[tokKind]RangeOp{tEq: EQ, tLt: LT, tLe: LE, tGt: GT, tGe: GE}
	// reversedOps turns ":v < c" around: "c > :v".
	reversedOps = map[RangeOp]RangeOp{EQ: EQ, LT: GT, LE: GE, GT: LT, GE: LE}
)

// keyPart reduces one condition to key name, operator and values,
// turning ":v < c" into "c > :v".
func (p *parser) keyPart(n *cond) (string, RangeOp, []types.AttributeValue) {
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
			return keyPath(a), op, []types.AttributeValue{b.val}
		case a.kind == opValue && b.kind == opPath:
			return keyPath(b), reversedOps[op], []types.AttributeValue{a.val}
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
		return keyPath(x), Between, []types.AttributeValue{lo.val, hi.val}
	case cFunc: // begins_with
		x, prefix := n.args[0], n.args[1]
		if x.kind != opPath || prefix.kind != opValue {
			p.failPlain("Invalid condition in KeyConditionExpression: begins_with requires a key attribute and a value")
		}
		return keyPath(x), BeginsWith, []types.AttributeValue{prefix.val}
	}
	p.failPlain(msgKeyNotSupported)
	return "", 0, nil
}
