package dynamotest

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// requestExprs are the expression parameters of one request, checked on
// their own when its table does not exist: DynamoDB validates a request
// before it looks for the table, so an invalid request on a missing table
// is a ValidationException, not a ResourceNotFoundException.
type requestExprs struct {
	// item is a PutItem's item, whose size is checked before the table.
	item map[string]types.AttributeValue
	// attributesToGet is a read's legacy AttributesToGet.
	attributesToGet []string
	names           map[string]string
	values          map[string]types.AttributeValue
	// The expressions the request carries, nil when absent.
	condition, update, projection, filter, keyCondition *string
	// The legacy conditions a read carries: a Query's QueryFilter and
	// KeyConditions, a Scan's ScanFilter.
	queryFilter, keyConditions, scanFilter map[string]types.Condition
}

// missingTable is the error for a request whose table does not exist, once
// its members' constraints passed (violations): the first thing wrong with
// its expressions (syntax, placeholders undefined or
// unused), or ResourceNotFoundException when they are sound. The checks
// that need the table's key schema cannot run and are not made.
func missingTable(r requestExprs) error {
	// So does an item over 400 KB (dynalite's "should return
	// ValidationException if item is too big", on a table that does not
	// exist).
	if r.item != nil && table.ItemSize(r.item) > table.MaxItemSize {
		return itemTooLarge()
	}
	if dup := duplicateName(r.attributesToGet); dup != "" {
		return invalidParam("Duplicate value in attribute name: %s", dup)
	}
	x, err := newExprs(r.names, r.values)
	if err != nil {
		return err
	}
	// The placeholder maps first, whatever else the request holds
	// (dynalite's AWS-written query "should return ValidationException
	// for empty ExpressionAttributeNames", beside an empty key condition).
	if err := x.inputs(); err != nil {
		return err
	}
	// A read's expressions are each refused empty before any is parsed, in
	// this order (dynalite's AWS-written query tests: an empty
	// ProjectionExpression is reported before the KeyConditionExpression
	// "attribute_type(a, :a)" is refused).
	for _, e := range []struct {
		kind string
		s    *string
	}{{"KeyConditionExpression", r.keyCondition}, {"FilterExpression", r.filter}, {"ProjectionExpression", r.projection}} {
		if e.s != nil && *e.s == "" {
			return validationf("Invalid %s: The expression can not be empty;", e.kind)
		}
	}
	// Legacy conditions, as far as they go without a key schema: each
	// one's operator, values and their types, then how many key
	// conditions there are (dynalite's AWS-written query and scan tests on
	// a table that does not exist).
	if err := legacyShapes(r.queryFilter); err != nil {
		return err
	}
	if r.keyConditions != nil {
		if err := legacyShapes(r.keyConditions); err != nil {
			return err
		}
		if n := len(r.keyConditions); n < 1 || n > 2 {
			return validationf("Conditions can be of length 1 or 2 only")
		}
	}
	if err := legacyShapes(r.scanFilter); err != nil {
		return err
	}
	if _, err := x.update(r.update); err != nil {
		return err
	}
	if _, err := x.condition(r.condition); err != nil {
		return err
	}
	if err := x.keyConditionShape(r.keyCondition); err != nil {
		return err
	}
	if _, err := x.filter(r.filter); err != nil {
		return err
	}
	if _, err := x.projection(r.projection); err != nil {
		return err
	}
	if err := x.done(); err != nil {
		return err
	}
	return resourceNotFound()
}

// legacyShapes checks legacy conditions in name order as the legacy
// translation does, without a table: their operators, the number and
// types of their values, a BETWEEN's order.
func legacyShapes(conds map[string]types.Condition) error {
	var l legacy
	for _, name := range sortedNames(conds) {
		c := conds[name]
		if _, err := l.comparison(name, c.ComparisonOperator, c.AttributeValueList); err != nil {
			return err
		}
	}
	return nil
}

// duplicateName is the first name that names appears twice, "" when none.
func duplicateName(names []string) string {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}
