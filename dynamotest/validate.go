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
	if _, err := x.update(r.update); err != nil {
		return err
	}
	if _, err := x.condition(r.condition); err != nil {
		return err
	}
	if r.keyCondition != nil {
		// A key condition is checked against the key schema, which a
		// missing table does not have; its placeholders count as used.
		return resourceNotFound()
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
