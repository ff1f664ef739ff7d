package access_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tablekit/tablekit/access"
)

func TestIsRequestAcceptsEveryRequestOperationAndNothingElse(t *testing.T) {
	for _, op := range []access.Op{access.GetItem, access.PutItem, access.UpdateItem, access.DeleteItem,
		access.Query, access.Scan, access.BatchGetItem, access.BatchWriteItem,
		access.TransactGetItems, access.TransactWriteItems} {
		assert.True(t, op.IsRequest(), op)
	}
	// A condition check is an action inside TransactWriteItems, never a
	// request; "" and unknown names are not operations.
	for _, op := range []access.Op{access.ConditionCheck, "", "Select", "getitem"} {
		assert.False(t, op.IsRequest(), op)
	}
}
