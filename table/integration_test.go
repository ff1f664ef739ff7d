package table_test

import (
	"testing"

	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestIntegrationDynamoDBLocal runs the behaviour suite against the
// DynamoDB at TABLEKIT_DYNAMODB_ENDPOINT (DynamoDB Local in CI); it skips
// when the variable is unset.
func TestIntegrationDynamoDBLocal(t *testing.T) {
	client := testenv.DynamoDB(t)
	runBehaviour(t, func(t *testing.T) (table.API, string) {
		return client, testenv.TableName(t, "table")
	})
}
