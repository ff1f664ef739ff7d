package dynamotest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// violations collects the member constraints a request breaks: a required
// member missing, a string outside its length or pattern, a value outside
// its enum or range. DynamoDB checks every member's constraints before
// anything else about the request and reports all it finds, up to ten, in
// one ValidationException ("3 validation errors detected: Value 'hi' at
// 'returnValues' failed to satisfy constraint: ...; Value null at 'key'
// failed to satisfy constraint: Member must not be null; ..."), as
// dynalite's tests written against DynamoDB pin down (e.g. updateItem's
// "should return ValidationException for incorrect attributes"). The order
// follows those tests, which list the members as DynamoDB named them.
//
// A Go string enum cannot tell an absent member from an empty one, so an
// empty enum value counts as absent: for a required one (a condition's
// ComparisonOperator) that is "Member must not be null", where DynamoDB
// says an explicit "" is not in the enum. Either way the request fails with
// the same number of violations.
type violations []string

// maxViolations is how many violations DynamoDB lists; it counts only those.
const maxViolations = 10

// add records that value (already rendered: 'x' or null) at field breaks
// rule.
func (v *violations) add(value, field, rule string) {
	if len(*v) < maxViolations {
		*v = append(*v, "Value "+value+" at '"+field+"' failed to satisfy constraint: "+rule)
	}
}

// quoted renders a present value as DynamoDB does in these messages.
func quoted(s string) string { return "'" + s + "'" }

func (v *violations) null(field string) { v.add("null", field, "Member must not be null") }

// err is the ValidationException for what was collected, nil for nothing.
func (v violations) err() error {
	switch len(v) {
	case 0:
		return nil
	case 1:
		return validationf("1 validation error detected: %s", v[0])
	}
	return validationf("%d validation errors detected: %s", len(v), strings.Join(v, "; "))
}

// validName reports whether a table or index name keeps DynamoDB's
// pattern and length.
func validName(name string) bool { return len(name) >= 3 && len(name) <= 255 && namePattern(name) }

// name checks a table or index name: DynamoDB's pattern, then its length.
func (v *violations) name(field, name string) {
	if !namePattern(name) {
		v.add(quoted(name), field, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if len(name) < 3 {
		v.add(quoted(name), field, "Member must have length greater than or equal to 3")
	}
	if len(name) > 255 {
		v.add(quoted(name), field, "Member must have length less than or equal to 255")
	}
}

// tableName checks a request's TableName. A table that exists passed the
// same checks when it was created, so only a name no table has is checked.
func (v *violations) tableName(name *string, exists bool) {
	switch {
	case name == nil:
		v.null("tableName")
	case !exists:
		v.name("tableName", *name)
	}
}

// indexName checks a read's IndexName when it has one.
func (v *violations) indexName(name *string) {
	if name != nil {
		v.name("indexName", *name)
	}
}

// enum records a value outside its set (set as DynamoDB lists it).
func (v *violations) enum(field, value string, valid bool, set string) {
	if value != "" && !valid {
		v.add(quoted(value), field, "Member must satisfy enum value set: ["+set+"]")
	}
}

// The enums' checks, absent ("") counting as valid, small enough to
// inline: a request whose members all pass them returns before collecting
// anything (see each operation's violations).

func validConsumed(mode types.ReturnConsumedCapacity) bool {
	return mode == "" || mode == types.ReturnConsumedCapacityIndexes || mode == types.ReturnConsumedCapacityTotal || mode == types.ReturnConsumedCapacityNone
}

func validMetrics(mode types.ReturnItemCollectionMetrics) bool {
	return mode == "" || mode == types.ReturnItemCollectionMetricsSize || mode == types.ReturnItemCollectionMetricsNone
}

func validReturnValue(rv types.ReturnValue) bool {
	return rv == "" || rv == types.ReturnValueNone || rv == types.ReturnValueAllOld || rv == types.ReturnValueUpdatedOld ||
		rv == types.ReturnValueAllNew || rv == types.ReturnValueUpdatedNew
}

func validOnFailure(mode types.ReturnValuesOnConditionCheckFailure) bool {
	return mode == "" || mode == types.ReturnValuesOnConditionCheckFailureAllOld || mode == types.ReturnValuesOnConditionCheckFailureNone
}

func validOperator(op types.ConditionalOperator) bool {
	return op == "" || op == types.ConditionalOperatorAnd || op == types.ConditionalOperatorOr
}

func validSelect(sel types.Select) bool {
	return sel == "" || sel == types.SelectSpecificAttributes || sel == types.SelectCount || sel == types.SelectAllAttributes ||
		sel == types.SelectAllProjectedAttributes
}

func (v *violations) consumedMode(mode types.ReturnConsumedCapacity) {
	v.enum("returnConsumedCapacity", string(mode), validConsumed(mode), "INDEXES, TOTAL, NONE")
}

func (v *violations) collectionMetrics(mode types.ReturnItemCollectionMetrics) {
	v.enum("returnItemCollectionMetrics", string(mode), validMetrics(mode), "SIZE, NONE")
}

// returnValues checks ReturnValues against the member's whole enum; which
// of them an operation accepts is checked after (PutItem and DeleteItem
// take only ALL_OLD and NONE).
func (v *violations) returnValues(rv types.ReturnValue) {
	v.enum("returnValues", string(rv), validReturnValue(rv), "ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW")
}

func (v *violations) onFailureMode(mode types.ReturnValuesOnConditionCheckFailure) {
	v.enum("returnValuesOnConditionCheckFailure", string(mode), validOnFailure(mode), "ALL_OLD, NONE")
}

func (v *violations) conditionalOperator(op types.ConditionalOperator) {
	v.enum("conditionalOperator", string(op), validOperator(op), "OR, AND")
}

// comparisonOperators is the ComparisonOperator enum as DynamoDB lists it.
const comparisonOperators = "IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS"

func validComparison(op types.ComparisonOperator) bool {
	switch op {
	case types.ComparisonOperatorIn, types.ComparisonOperatorNull, types.ComparisonOperatorBetween, types.ComparisonOperatorLt,
		types.ComparisonOperatorNotContains, types.ComparisonOperatorEq, types.ComparisonOperatorGt, types.ComparisonOperatorNotNull,
		types.ComparisonOperatorNe, types.ComparisonOperatorLe, types.ComparisonOperatorBeginsWith, types.ComparisonOperatorGe,
		types.ComparisonOperatorContains:
		return true
	}
	return false
}

// conditions checks the ComparisonOperator of each legacy condition
// (KeyConditions, QueryFilter, ScanFilter), which they must have.
func (v *violations) conditions(field string, conds map[string]types.Condition) {
	for _, k := range sortedNames(conds) {
		f := field + "." + k + ".member.comparisonOperator"
		op := conds[k].ComparisonOperator
		if op == "" {
			v.null(f)
			continue
		}
		v.enum(f, string(op), validComparison(op), comparisonOperators)
	}
}

// expected checks the ComparisonOperator of each legacy Expected entry,
// which it may leave out (Exists and Value say what to check instead).
func (v *violations) expected(exp map[string]types.ExpectedAttributeValue) {
	for _, k := range sortedNames(exp) {
		op := exp[k].ComparisonOperator
		v.enum("expected."+k+".member.comparisonOperator", string(op), validComparison(op), comparisonOperators)
	}
}

// attributesToGet checks the legacy AttributesToGet's length, when given.
func (v *violations) attributesToGet(field string, names []string) {
	switch {
	case names == nil:
	case len(names) < 1:
		v.add(quoted(renderList(names)), field, "Member must have length greater than or equal to 1")
	case len(names) > 255:
		v.add(quoted(renderList(names)), field, "Member must have length less than or equal to 255")
	}
}

// atLeast checks a number member's lower bound, when given.
func (v *violations) atLeast(field string, n *int32, least int32) {
	if n != nil && *n < least {
		v.add(quoted(strconv.Itoa(int(*n))), field, fmt.Sprintf("Member must have value greater than or equal to %d", least))
	}
}

// atMost checks a number member's upper bound, when given.
func (v *violations) atMost(field string, n *int32, most int32) {
	if n != nil && *n > most {
		v.add(quoted(strconv.Itoa(int(*n))), field, fmt.Sprintf("Member must have value less than or equal to %d", most))
	}
}

// renderList renders a list member's value as DynamoDB does: [a, b].
func renderList(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

// renderMap renders a map member's value the way DynamoDB's messages show
// one (Java's {key=value, ...}), with each value as given.
func renderMap[V any](m map[string]V, value func(V) string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range sortedNames(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(value(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// The constraints of each item operation's members, in the order
// DynamoDB lists them (see violations). exists: the request's table
// exists, so its name passed these checks when it was created.

func getItemViolations(in *dynamodb.GetItemInput, exists bool) error {
	if exists && in.TableName != nil && in.Key != nil && in.AttributesToGet == nil && validConsumed(in.ReturnConsumedCapacity) {
		return nil
	}
	var v violations
	v.consumedMode(in.ReturnConsumedCapacity)
	v.attributesToGet("attributesToGet", in.AttributesToGet)
	v.tableName(in.TableName, exists)
	if in.Key == nil {
		v.null("key")
	}
	return v.err()
}

// writeMembers are the members PutItem, UpdateItem and DeleteItem share.
type writeMembers struct {
	table        *string
	exists       bool
	consumed     types.ReturnConsumedCapacity
	returnValues types.ReturnValue
	metrics      types.ReturnItemCollectionMetrics
	// required names the item or key member, missing when it is absent.
	required  string
	missing   bool
	op        types.ConditionalOperator
	expected  map[string]types.ExpectedAttributeValue
	onFailure types.ReturnValuesOnConditionCheckFailure
}

func (m *writeMembers) violations() error {
	if m.exists && m.table != nil && !m.missing && m.expected == nil && validConsumed(m.consumed) && validMetrics(m.metrics) &&
		validReturnValue(m.returnValues) && validOperator(m.op) && validOnFailure(m.onFailure) {
		return nil
	}
	var v violations
	v.consumedMode(m.consumed)
	v.tableName(m.table, m.exists)
	v.collectionMetrics(m.metrics)
	v.returnValues(m.returnValues)
	if m.missing {
		v.null(m.required)
	}
	v.conditionalOperator(m.op)
	v.expected(m.expected)
	v.onFailureMode(m.onFailure)
	return v.err()
}

func putItemViolations(in *dynamodb.PutItemInput, exists bool) error {
	return (&writeMembers{table: in.TableName, exists: exists, consumed: in.ReturnConsumedCapacity, returnValues: in.ReturnValues,
		metrics: in.ReturnItemCollectionMetrics, required: "item", missing: in.Item == nil, op: in.ConditionalOperator,
		expected: in.Expected, onFailure: in.ReturnValuesOnConditionCheckFailure}).violations()
}

func deleteItemViolations(in *dynamodb.DeleteItemInput, exists bool) error {
	return (&writeMembers{table: in.TableName, exists: exists, consumed: in.ReturnConsumedCapacity, returnValues: in.ReturnValues,
		metrics: in.ReturnItemCollectionMetrics, required: "key", missing: in.Key == nil, op: in.ConditionalOperator,
		expected: in.Expected, onFailure: in.ReturnValuesOnConditionCheckFailure}).violations()
}

func updateItemViolations(in *dynamodb.UpdateItemInput, exists bool) error {
	return (&writeMembers{table: in.TableName, exists: exists, consumed: in.ReturnConsumedCapacity, returnValues: in.ReturnValues,
		metrics: in.ReturnItemCollectionMetrics, required: "key", missing: in.Key == nil, op: in.ConditionalOperator,
		expected: in.Expected, onFailure: in.ReturnValuesOnConditionCheckFailure}).violations()
}

func queryViolations(in *dynamodb.QueryInput, exists bool) error {
	if exists && in.TableName != nil && (in.IndexName == nil || validName(*in.IndexName)) && in.QueryFilter == nil && in.KeyConditions == nil &&
		in.AttributesToGet == nil && (in.Limit == nil || *in.Limit >= 1) && validSelect(in.Select) && validConsumed(in.ReturnConsumedCapacity) &&
		validOperator(in.ConditionalOperator) {
		return nil
	}
	var v violations
	v.selectMode(in.Select)
	v.indexName(in.IndexName)
	v.consumedMode(in.ReturnConsumedCapacity)
	v.conditions("queryFilter", in.QueryFilter)
	v.tableName(in.TableName, exists)
	v.conditionalOperator(in.ConditionalOperator)
	v.attributesToGet("attributesToGet", in.AttributesToGet)
	v.atLeast("limit", in.Limit, 1)
	v.conditions("keyConditions", in.KeyConditions)
	return v.err()
}

func scanViolations(in *dynamodb.ScanInput, exists bool) error {
	if exists && in.TableName != nil && (in.IndexName == nil || validName(*in.IndexName)) && in.ScanFilter == nil && in.AttributesToGet == nil &&
		in.Segment == nil && in.TotalSegments == nil && (in.Limit == nil || *in.Limit >= 1) && validSelect(in.Select) &&
		validConsumed(in.ReturnConsumedCapacity) && validOperator(in.ConditionalOperator) {
		return nil
	}
	var v violations
	v.selectMode(in.Select)
	v.indexName(in.IndexName)
	v.atLeast("totalSegments", in.TotalSegments, 1)
	v.atMost("totalSegments", in.TotalSegments, maxTotalSegments)
	v.consumedMode(in.ReturnConsumedCapacity)
	v.tableName(in.TableName, exists)
	v.conditionalOperator(in.ConditionalOperator)
	v.conditions("scanFilter", in.ScanFilter)
	v.atLeast("segment", in.Segment, 0)
	v.atMost("segment", in.Segment, maxTotalSegments-1)
	v.atLeast("limit", in.Limit, 1)
	v.attributesToGet("attributesToGet", in.AttributesToGet)
	return v.err()
}

func (v *violations) selectMode(sel types.Select) {
	v.enum("select", string(sel), validSelect(sel), "SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES")
}

// requestItems checks a batch's RequestItems map: present, not empty, and
// every key a table name; DynamoDB reports the keys' constraints once for
// the whole map.
func requestItems[V any](v *violations, m map[string]V, render func(V) string) {
	switch {
	case m == nil:
		v.null("requestItems")
		return
	case len(m) == 0:
		v.add(quoted("{}"), "requestItems", "Member must have length greater than or equal to 1")
		return
	}
	for k := range m {
		if len(k) < 3 || len(k) > 255 || !namePattern(k) {
			v.add(quoted(renderMap(m, render)), "requestItems", "Map keys must satisfy constraint: "+
				"[Member must have length less than or equal to 255, Member must have length greater than or equal to 3, "+
				"Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]")
			return
		}
	}
}

func batchGetItemViolations(in *dynamodb.BatchGetItemInput) error {
	var v violations
	v.consumedMode(in.ReturnConsumedCapacity)
	renderKeys := func(ka types.KeysAndAttributes) string { return fmt.Sprintf("{Keys: [%d keys]}", len(ka.Keys)) }
	requestItems(&v, in.RequestItems, renderKeys)
	for _, name := range sortedNames(in.RequestItems) {
		ka := in.RequestItems[name]
		field := "requestItems." + name + ".member.keys"
		switch {
		case ka.Keys == nil:
			v.null(field)
		case len(ka.Keys) < 1:
			v.add(quoted("[]"), field, "Member must have length greater than or equal to 1")
		case len(ka.Keys) > maxBatchGetKeys:
			v.add(quoted(fmt.Sprintf("[%d keys]", len(ka.Keys))), field, "Member must have length less than or equal to 100")
		}
		v.attributesToGet("requestItems."+name+".member.attributesToGet", ka.AttributesToGet)
	}
	return v.err()
}

func batchWriteItemViolations(in *dynamodb.BatchWriteItemInput) error {
	var v violations
	v.consumedMode(in.ReturnConsumedCapacity)
	v.collectionMetrics(in.ReturnItemCollectionMetrics)
	// DynamoDB prints each request as Java's default toString, with the
	// object's identity hash; the fake numbers them.
	renderRequests := func(ws []types.WriteRequest) string {
		parts := make([]string, len(ws))
		for i := range ws {
			parts[i] = fmt.Sprintf("com.amazonaws.dynamodb.v20120810.WriteRequest@%08x", i+1)
		}
		return renderList(parts)
	}
	requestItems(&v, in.RequestItems, renderRequests)
	for _, name := range sortedNames(in.RequestItems) {
		if n := len(in.RequestItems[name]); n < 1 || n > maxBatchWrites {
			v.add(quoted(renderMap(in.RequestItems, renderRequests)), "requestItems",
				"Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
			break
		}
	}
	for _, name := range sortedNames(in.RequestItems) {
		for i, w := range in.RequestItems[name] {
			field := fmt.Sprintf("requestItems.%s.member.%d.member.", name, i+1)
			if w.DeleteRequest != nil && w.DeleteRequest.Key == nil {
				v.null(field + "deleteRequest.key")
			}
			if w.PutRequest != nil && w.PutRequest.Item == nil {
				v.null(field + "putRequest.item")
			}
		}
	}
	return v.err()
}
