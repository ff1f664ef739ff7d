package dynamotest

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/table"
)

// The parameters DynamoDB had before expressions (Expected,
// AttributeUpdates, QueryFilter, ScanFilter, ConditionalOperator) are
// translated here into the expressions they mean, with placeholders of
// their own, so that one engine evaluates both. A request may use either
// kind, never both, as in DynamoDB.

// legacy collects the placeholders of the expressions built from a
// request's legacy parameters.
type legacy struct {
	names  map[string]string
	values map[string]types.AttributeValue
}

func (l *legacy) name(attr string) string {
	if l.names == nil {
		l.names = map[string]string{}
	}
	p := fmt.Sprintf("#legacy%d", len(l.names))
	l.names[p] = attr
	return p
}

func (l *legacy) value(v types.AttributeValue) string {
	if l.values == nil {
		l.values = map[string]types.AttributeValue{}
	}
	p := fmt.Sprintf(":legacy%d", len(l.values))
	l.values[p] = v
	return p
}

// mixed is DynamoDB's refusal of a request that uses both kinds.
func mixed(legacyParams, exprParams []string) error {
	return validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
		strings.Join(legacyParams, ", "), strings.Join(exprParams, ", "))
}

// present lists the names of the parameters that are set.
func present(params ...any) []string {
	var out []string
	for i := 0; i+1 < len(params); i += 2 {
		set := false
		switch v := params[i+1].(type) {
		case *string:
			set = v != nil
		case bool:
			set = v
		}
		if set {
			out = append(out, params[i].(string))
		}
	}
	return out
}

// sortedNames returns a map's keys in order, so translations are
// deterministic.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// outOfOrder reports whether a BETWEEN's lower bound is above its upper.
func outOfOrder(lo, hi types.AttributeValue) bool {
	c, ok := attr.Compare(lo, hi)
	return ok && c > 0
}

// join combines condition texts with a ConditionalOperator (AND by
// default).
func join(parts []string, op types.ConditionalOperator) (string, error) {
	switch op {
	case "", types.ConditionalOperatorAnd:
		op = types.ConditionalOperatorAnd
	case types.ConditionalOperatorOr:
	default:
		return "", constraint(string(op), "conditionalOperator", "Member must satisfy enum value set: [OR, AND]")
	}
	for i, p := range parts {
		parts[i] = "(" + p + ")"
	}
	return strings.Join(parts, " "+string(op)+" "), nil
}

// comparison translates one ComparisonOperator with its values into
// condition text on the attribute.
func (l *legacy) comparison(attr string, op types.ComparisonOperator, vals []types.AttributeValue) (string, error) {
	want := 1
	switch op {
	case types.ComparisonOperatorNull, types.ComparisonOperatorNotNull:
		want = 0
	case types.ComparisonOperatorBetween:
		want = 2
	case types.ComparisonOperatorIn:
		want = -1
	case types.ComparisonOperatorEq, types.ComparisonOperatorNe, types.ComparisonOperatorLe, types.ComparisonOperatorLt,
		types.ComparisonOperatorGe, types.ComparisonOperatorGt, types.ComparisonOperatorContains,
		types.ComparisonOperatorNotContains, types.ComparisonOperatorBeginsWith:
	default:
		return "", constraint(string(op), "comparisonOperator",
			"Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]")
	}
	if (want >= 0 && len(vals) != want) || (want < 0 && len(vals) == 0) {
		return "", invalidParam("Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	// The values are of one type, and a BETWEEN's in order, in the
	// legacy conditions' own words (DynamoDB Local; dynalite's AWS-written
	// deleteItem and query tests), rather than the expression's.
	for _, v := range vals[min(1, len(vals)):] {
		if table.TypeOf(v) != table.TypeOf(vals[0]) {
			return "", invalidParam("AttributeValues inside AttributeValueList must be of same type")
		}
	}
	for _, v := range vals {
		scalar := false
		switch v.(type) {
		case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
			scalar = true
		}
		// EQ and NE compare values of any type; the others order or
		// search scalars only, and BEGINS_WITH strings and binaries
		// (DynamoDB Local; dynalite's AWS-written validateConditions).
		_, number := v.(*types.AttributeValueMemberN)
		if op != types.ComparisonOperatorEq && op != types.ComparisonOperatorNe && !scalar ||
			op == types.ComparisonOperatorBeginsWith && number {
			return "", invalidParam("ComparisonOperator %s is not valid for %s AttributeValue type", op, table.TypeOf(v))
		}
	}
	if op == types.ComparisonOperatorBetween {
		if outOfOrder(vals[0], vals[1]) {
			return "", validationf("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	a := l.name(attr)
	switch op {
	case types.ComparisonOperatorNull:
		return "attribute_not_exists(" + a + ")", nil
	case types.ComparisonOperatorNotNull:
		return "attribute_exists(" + a + ")", nil
	case types.ComparisonOperatorBetween:
		return a + " BETWEEN " + l.value(vals[0]) + " AND " + l.value(vals[1]), nil
	case types.ComparisonOperatorIn:
		ps := make([]string, len(vals))
		for i, v := range vals {
			ps[i] = l.value(v)
		}
		return a + " IN (" + strings.Join(ps, ", ") + ")", nil
	case types.ComparisonOperatorContains:
		return "contains(" + a + ", " + l.value(vals[0]) + ")", nil
	case types.ComparisonOperatorNotContains:
		return "NOT contains(" + a + ", " + l.value(vals[0]) + ")", nil
	case types.ComparisonOperatorBeginsWith:
		return "begins_with(" + a + ", " + l.value(vals[0]) + ")", nil
	}
	sym := map[types.ComparisonOperator]string{
		types.ComparisonOperatorEq: "=", types.ComparisonOperatorNe: "<>",
		types.ComparisonOperatorLe: "<=", types.ComparisonOperatorLt: "<",
		types.ComparisonOperatorGe: ">=", types.ComparisonOperatorGt: ">",
	}[op]
	return a + " " + sym + " " + l.value(vals[0]), nil
}

// expected translates an Expected map into condition text.
func (l *legacy) expected(exp map[string]types.ExpectedAttributeValue, op types.ConditionalOperator) (string, error) {
	var parts []string
	for _, attr := range sortedNames(exp) {
		e := exp[attr]
		var part string
		var err error
		switch {
		case e.Value != nil && e.AttributeValueList != nil:
			return "", invalidParam("Value and AttributeValueList cannot be used together for Attribute: %s", attr)
		case e.ComparisonOperator != "":
			if e.Exists != nil {
				return "", invalidParam("Exists and ComparisonOperator cannot be used together for Attribute: %s", attr)
			}
			// Value stands for a one-value AttributeValueList beside a
			// ComparisonOperator: the API reference's ExpectedAttributeValue
			// describes Value as the value compared, and DynamoDB (as
			// dynalite's tests written against it and DynamoDB Local show)
			// evaluates {Value, ComparisonOperator: EQ} rather than
			// refusing it.
			vals := e.AttributeValueList
			if e.Value != nil {
				vals = []types.AttributeValue{e.Value}
			}
			if vals == nil && e.ComparisonOperator != types.ComparisonOperatorNull && e.ComparisonOperator != types.ComparisonOperatorNotNull &&
				slices.Contains(e.ComparisonOperator.Values(), e.ComparisonOperator) {
				return "", invalidParam("Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", e.ComparisonOperator, attr)
			}
			part, err = l.comparison(attr, e.ComparisonOperator, vals)
		case len(e.AttributeValueList) > 0:
			return "", invalidParam("AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", attr)
		case e.Exists != nil && !*e.Exists:
			if e.Value != nil {
				return "", invalidParam("Value cannot be used when Exists is false for Attribute: %s", attr)
			}
			part = "attribute_not_exists(" + l.name(attr) + ")"
		case e.Value == nil:
			if e.Exists != nil {
				return "", invalidParam("Value must be provided when Exists is true for Attribute: %s", attr)
			}
			return "", invalidParam("Value must be provided when Exists is null for Attribute: %s", attr)
		default:
			part = l.name(attr) + " = " + l.value(e.Value)
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
	}
	return join(parts, op)
}

// filter translates a QueryFilter or ScanFilter into condition text.
// keys are the attributes a Query's filter may not name.
func (l *legacy) filter(param string, conds map[string]types.Condition, op types.ConditionalOperator, keys ...string) (string, error) {
	var parts []string
	for _, attr := range sortedNames(conds) {
		for _, k := range keys {
			if k != "" && k == attr {
				return "", validationf("%s can only contain non-primary key attributes: Primary key attribute: %s", param, k)
			}
		}
		c := conds[attr]
		part, err := l.comparison(attr, c.ComparisonOperator, c.AttributeValueList)
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
	}
	return join(parts, op)
}

// attributeUpdates translates AttributeUpdates into update expression
// text: PUT sets, DELETE without a value removes and with a set value
// deletes its members, ADD adds a number or set members (or appends to a
// list, which only the legacy parameter can).
func (l *legacy) attributeUpdates(upd map[string]types.AttributeValueUpdate) (string, error) {
	var set, remove, add, del []string
	for _, attr := range sortedNames(upd) {
		u := upd[attr]
		a := l.name(attr)
		switch u.Action {
		case "", types.AttributeActionPut:
			if u.Value == nil {
				return "", invalidParam("Only DELETE action is allowed when no attribute value is specified")
			}
			set = append(set, a+" = "+l.value(u.Value))
		case types.AttributeActionDelete:
			if u.Value == nil {
				remove = append(remove, a)
			} else {
				del = append(del, a+" "+l.value(u.Value))
			}
		case types.AttributeActionAdd:
			if u.Value == nil {
				return "", invalidParam("Only DELETE action is allowed when no attribute value is specified")
			}
			if _, isList := u.Value.(*types.AttributeValueMemberL); isList {
				empty := l.value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}})
				set = append(set, a+" = list_append(if_not_exists("+a+", "+empty+"), "+l.value(u.Value)+")")
				continue
			}
			add = append(add, a+" "+l.value(u.Value))
		default:
			return "", constraint(string(u.Action), "attributeUpdates.member.action", "Member must satisfy enum value set: [ADD, PUT, DELETE]")
		}
	}
	var clauses []string
	for _, c := range []struct {
		kw    string
		parts []string
	}{{"SET", set}, {"REMOVE", remove}, {"ADD", add}, {"DELETE", del}} {
		if len(c.parts) > 0 {
			clauses = append(clauses, c.kw+" "+strings.Join(c.parts, ", "))
		}
	}
	return strings.Join(clauses, " "), nil
}

// legacyFilter checks a Query's or Scan's mix of parameters and
// translates its QueryFilter or ScanFilter (param) and ConditionalOperator
// into filter text with its placeholders; without them the request's own
// FilterExpression (filter) and placeholders come back. exprParams are
// the request's expression parameters that are set.
func legacyFilter(param string, conds map[string]types.Condition, op types.ConditionalOperator, exprParams []string, filter *string,
	names map[string]string, values map[string]types.AttributeValue, keys ...string) (*string, map[string]string, map[string]types.AttributeValue, error) {
	if conds == nil {
		if op != "" {
			return nil, nil, nil, validationf("ConditionalOperator can only be used when Expected or a filter is specified")
		}
		return filter, names, values, nil
	}
	if len(exprParams) > 0 {
		return nil, nil, nil, mixed([]string{param}, exprParams)
	}
	if err := unusedWithoutExpressions(names, values); err != nil {
		return nil, nil, nil, err
	}
	var l legacy
	s, err := l.filter(param, conds, op, keys...)
	if err != nil || s == "" {
		return nil, nil, nil, err
	}
	return &s, l.names, l.values, nil
}

// writeExprs is the expressions of a write request after its legacy
// parameters are translated: what the engine compiles.
type writeExprs struct {
	condition, update *string
	names             map[string]string
	values            map[string]types.AttributeValue
}

// legacyWrite checks a write's mix of parameters and translates Expected,
// ConditionalOperator and (for UpdateItem) AttributeUpdates. Without
// legacy parameters the request's own expressions come back unchanged.
func legacyWrite(in writeExprs, expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator,
	updates map[string]types.AttributeValueUpdate) (writeExprs, error) {
	if expected == nil && updates == nil && op == "" {
		return in, nil // the common case: expressions only
	}
	legacyParams := present("Expected", expected != nil, "AttributeUpdates", updates != nil)
	if len(legacyParams) == 0 {
		if op != "" {
			return in, validationf("ConditionalOperator can only be used when Expected or a filter is specified")
		}
		return in, nil
	}
	exprParams := present("ConditionExpression", in.condition, "UpdateExpression", in.update)
	if len(exprParams) > 0 {
		return in, mixed(legacyParams, exprParams)
	}
	if err := unusedWithoutExpressions(in.names, in.values); err != nil {
		return in, err
	}
	if op != "" && expected == nil {
		return in, validationf("ConditionalOperator can only be used when Expected or a filter is specified")
	}
	var l legacy
	var out writeExprs
	if len(updates) > 0 {
		s, err := l.attributeUpdates(updates)
		if err != nil {
			return in, err
		}
		out.update = &s
	}
	if len(expected) > 0 {
		s, err := l.expected(expected, op)
		if err != nil {
			return in, err
		}
		out.condition = &s
	}
	out.names, out.values = l.names, l.values
	return out, nil
}
