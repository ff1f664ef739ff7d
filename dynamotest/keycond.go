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
	// hashOp is rangeEQ, or the operator a condition on the partition key
	// used instead, refused once hash's type has passed the schema.
	hashOp rangeOp
	op     rangeOp
	values []types.AttributeValue
	legacy bool // from KeyConditions, which words some faults its own way
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
// into a keyCond, with the faults of its conditions in DynamoDB's order
// and words (dynalite's AWS-written query tests): two conditions where the
// schema has one key; the missing element, named; an operator a key cannot
// serve ("not an indexable operation"); the number of values.
func legacyKeyConditions(conds map[string]types.Condition, hashKey, rangeKey string) (*keyCond, error) {
	kc := &keyCond{hashName: hashKey, rangeName: rangeKey, legacy: true}
	names := sortedNames(conds)
	for _, name := range names {
		c := conds[name]
		for _, v := range c.AttributeValueList[min(1, len(c.AttributeValueList)):] {
			if table.TypeOf(v) != table.TypeOf(c.AttributeValueList[0]) {
				return nil, invalidParam("AttributeValues inside AttributeValueList must be of same type")
			}
		}
	}
	if rangeKey == "" && len(conds) == 2 {
		return nil, validationf("%s", msgKeyNotSupported)
	}
	if _, ok := conds[hashKey]; !ok {
		return nil, missedKey(hashKey)
	}
	for _, name := range names {
		if name != hashKey && name != rangeKey {
			return nil, missedKey(rangeKey)
		}
	}
	for _, name := range names {
		c := conds[name]
		op, want := legacyKeyOp(c.ComparisonOperator)
		if op == rangeNone {
			return nil, validationf("Attempted conditional constraint is not an indexable operation")
		}
		if len(c.AttributeValueList) != want {
			return nil, invalidParam("Invalid number of argument(s) for the %s ComparisonOperator", c.ComparisonOperator)
		}
		if name == hashKey {
			kc.hash, kc.hashOp = c.AttributeValueList[0], op
			continue
		}
		kc.op, kc.values = op, c.AttributeValueList
	}
	return kc, nil
}

// legacyKeyOp is the key condition a KeyConditions operator stands for,
// with the number of values it takes; rangeNone for one a key cannot
// serve (NULL, NOT_NULL, NE, CONTAINS, NOT_CONTAINS, IN).
func legacyKeyOp(op types.ComparisonOperator) (rangeOp, int) {
	switch op {
	case types.ComparisonOperatorEq:
		return rangeEQ, 1
	case types.ComparisonOperatorLt:
		return rangeLT, 1
	case types.ComparisonOperatorLe:
		return rangeLE, 1
	case types.ComparisonOperatorGt:
		return rangeGT, 1
	case types.ComparisonOperatorGe:
		return rangeGE, 1
	case types.ComparisonOperatorBeginsWith:
		return rangeBeginsWith, 1
	case types.ComparisonOperatorBetween:
		return rangeBetween, 2
	}
	return rangeNone, 0
}

// Key-condition faults, in DynamoDB's words.
const (
	msgKeyNotSupported = "Query key condition not supported"
	msgMissedKey       = "Query condition missed key schema element"
)

// missedKey is the refusal of a key condition without the key element
// name: DynamoDB names it (dynalite's AWS-written query tests; DynamoDB
// Local leaves the name out).
func missedKey(name string) error {
	return validationf("%s: %s", msgMissedKey, name)
}

// check validates the condition's values against the key types: the
// partition value must have the key's type and not be empty, range values
// too, and begins_with applies to strings and binaries only.
func (kc *keyCond) check(hash, rng keyAttr) error {
	if !hasType(kc.hash, hash.typ) {
		return invalidParam("Condition parameter type does not match schema type")
	}
	// A partition-key condition other than "=" is refused after its
	// value's type (dynalite's AWS-written "should return
	// ValidationException for mismatching param type": ":a > a", :a a
	// number on a string key, is a type mismatch).
	if kc.hashOp != rangeEQ {
		return validationf("%s", msgKeyNotSupported)
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

// checkStart refuses an ExclusiveStartKey the query could not have
// returned, in DynamoDB's order and words (dynalite's AWS-written query
// tests): with a sort-key condition, a start key outside it, then one of
// another partition ("at most one row and cannot be restarted", as
// DynamoDB words it); without one, a start key of another partition.
// DynamoDB Local says "does not match the range key predicate" for all.
func (kc *keyCond) checkStart(start *startKey) error {
	if start == nil {
		return nil
	}
	samePartition := compareKeys(start.pk, kc.hash) == 0
	switch {
	case kc.op != rangeNone && !kc.matches(start.sort):
		return validationf("The provided starting key does not match the range key predicate")
	case kc.op != rangeNone && !samePartition:
		return validationf("The query can return at most one row and cannot be restarted")
	case !samePartition:
		return validationf("The provided starting key is outside query boundaries based on provided conditions")
	}
	return nil
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
