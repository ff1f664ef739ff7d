package dynamotest

import (
	"bytes"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/store"
	"github.com/tablekit/tablekit/table"
)

type rangeOp int

const (
	rangeNone rangeOp = iota
	rangeEQ
	rangeLT
	rangeLE
	rangeGT
	rangeGE
	rangeBetween
	rangeBeginsWith
)

// keyCond is a Query's key condition: one partition, and optionally a
// contiguous range of sort key values in it.
type keyCond struct {
	hashName, rangeName string
	hash                types.AttributeValue
	op                  rangeOp
	values              []types.AttributeValue
	legacy              bool // from KeyConditions, which words some faults its own way
}

// ownValues copies ExpressionAttributeValues with numbers in canonical
// form, so that an update storing one stores the fake's own copy. The
// values are validated where they are parsed (internal/expr).
func ownValues(values map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if values == nil {
		return nil, nil
	}
	own := attr.CopyItem(values)
	normalizeItem(own)
	return own, nil
}

// unusedWithoutExpressions is DynamoDB's refusal of placeholders in a
// request that has no expression to use them.
func unusedWithoutExpressions(names map[string]string, values map[string]types.AttributeValue) error {
	if len(names) > 0 {
		return validationf("ExpressionAttributeNames can only be specified when using expressions")
	}
	if len(values) > 0 {
		return validationf("ExpressionAttributeValues can only be specified when using expressions")
	}
	return nil
}

// legacyKeyConditions converts the pre-expression KeyConditions parameter
// into a keyCond.
func legacyKeyConditions(conds map[string]types.Condition, hashKey, rangeKey string) (*keyCond, error) {
	kc := &keyCond{hashName: hashKey, rangeName: rangeKey, legacy: true}
	for name, c := range conds {
		for _, v := range c.AttributeValueList[min(1, len(c.AttributeValueList)):] {
			if table.TypeOf(v) != table.TypeOf(c.AttributeValueList[0]) {
				return nil, invalidParam("AttributeValues inside AttributeValueList must be of same type")
			}
		}
		switch name {
		case hashKey:
			if c.ComparisonOperator != types.ComparisonOperatorEq || len(c.AttributeValueList) != 1 {
				return nil, validationf("Query key condition not supported")
			}
			kc.hash = c.AttributeValueList[0]
		case rangeKey:
			want := 1
			switch c.ComparisonOperator {
			case types.ComparisonOperatorEq:
				kc.op = rangeEQ
			case types.ComparisonOperatorLt:
				kc.op = rangeLT
			case types.ComparisonOperatorLe:
				kc.op = rangeLE
			case types.ComparisonOperatorGt:
				kc.op = rangeGT
			case types.ComparisonOperatorGe:
				kc.op = rangeGE
			case types.ComparisonOperatorBeginsWith:
				kc.op = rangeBeginsWith
			case types.ComparisonOperatorBetween:
				kc.op, want = rangeBetween, 2
			default:
				return nil, validationf("Attempted conditional constraint is not an indexable operation")
			}
			if len(c.AttributeValueList) != want {
				return nil, validationf("One or more parameter values were invalid: Invalid number of argument(s) for the %s ComparisonOperator", c.ComparisonOperator)
			}
			kc.values = c.AttributeValueList
		default:
			return nil, validationf("Query condition missed key schema element: %s", hashKey)
		}
	}
	if kc.hash == nil {
		return nil, validationf("Query condition missed key schema element: %s", hashKey)
	}
	return kc, nil
}

// check validates the condition's values against the key types: the
// partition value must have the key's type and not be empty, range values
// too, and begins_with applies to strings and binaries only.
func (kc *keyCond) check(hash, rng keyAttr) error {
	if !hasType(kc.hash, hash.typ) {
		return invalidParam("Condition parameter type does not match schema type")
	}
	if err := checkKeyValue(hash.name, kc.hash, hash.typ, false); err != nil {
		return err
	}
	for _, v := range kc.values {
		if !hasType(v, rng.typ) {
			return invalidParam("Condition parameter type does not match schema type")
		}
	}
	if kc.op == rangeBeginsWith && rng.typ == types.ScalarAttributeTypeN {
		return invalidParam("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
	}
	if kc.op == rangeBetween && compareKeys(kc.values[0], kc.values[1]) > 0 && kc.legacy {
		// KeyConditions' own words (DynamoDB Local; dynalite's AWS-written
		// query "... if BETWEEN arguments are in the incorrect order").
		return validationf("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
	}
	if kc.op == rangeBetween && compareKeys(kc.values[0], kc.values[1]) > 0 {
		return validationf("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", showValue(kc.values[0]), showValue(kc.values[1]))
	}
	return nil
}

func showValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + v.Value
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return "B:" + string(v.Value)
	}
	return attr.TypeOf(v)
}

// matches reports whether a sort key value satisfies the range condition.
func (kc *keyCond) matches(v types.AttributeValue) bool {
	if kc.op == rangeNone {
		return true
	}
	if v == nil {
		return false
	}
	switch kc.op {
	case rangeEQ:
		return compareKeys(v, kc.values[0]) == 0
	case rangeLT:
		return compareKeys(v, kc.values[0]) < 0
	case rangeLE:
		return compareKeys(v, kc.values[0]) <= 0
	case rangeGT:
		return compareKeys(v, kc.values[0]) > 0
	case rangeGE:
		return compareKeys(v, kc.values[0]) >= 0
	case rangeBetween:
		return compareKeys(v, kc.values[0]) >= 0 && compareKeys(v, kc.values[1]) <= 0
	case rangeBeginsWith:
		switch p := kc.values[0].(type) {
		case *types.AttributeValueMemberS:
			s, ok := v.(*types.AttributeValueMemberS)
			return ok && strings.HasPrefix(s.Value, p.Value)
		case *types.AttributeValueMemberB:
			b, ok := v.(*types.AttributeValueMemberB)
			return ok && bytes.HasPrefix(b.Value, p.Value)
		}
	}
	return false
}

// start is where a walk over the range begins: the position to Ascend or
// Descend from, "" for the partition's first (last) entry.
func (kc *keyCond) start(forward bool) string {
	if kc.op == rangeNone {
		return ""
	}
	v := kc.values[0]
	if forward {
		switch kc.op {
		case rangeEQ, rangeGE, rangeBetween, rangeBeginsWith:
			return store.Before(v)
		case rangeGT:
			return store.After(v)
		}
		return "" // LT, LE: from the first entry
	}
	switch kc.op {
	case rangeEQ, rangeLE:
		return store.After(v)
	case rangeLT:
		return store.Before(v)
	case rangeBetween:
		return store.After(kc.values[1])
	case rangeBeginsWith:
		if next := prefixEnd(v); next != nil {
			return store.Before(next)
		}
	}
	return "" // GT, GE, or a prefix of only 0xff bytes: from the last entry
}

// prefixEnd is the smallest value greater than every value beginning with
// prefix, or nil when there is none.
func prefixEnd(prefix types.AttributeValue) types.AttributeValue {
	var b []byte
	switch p := prefix.(type) {
	case *types.AttributeValueMemberS:
		b = []byte(p.Value)
	case *types.AttributeValueMemberB:
		b = bytes.Clone(p.Value)
	default:
		return nil
	}
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil
	}
	b[len(b)-1]++
	if _, isS := prefix.(*types.AttributeValueMemberS); isS {
		return &types.AttributeValueMemberS{Value: string(b)}
	}
	return &types.AttributeValueMemberB{Value: b}
}
