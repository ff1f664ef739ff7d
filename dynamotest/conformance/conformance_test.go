package conformance_test

import (
	"testing"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/dynamotest/conformance"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestConformance runs every case against each backend; the subtest names
// say which: TestConformance/inprocess/query/..., /dynamodblocal/...
func TestConformance(t *testing.T) {
	t.Run(conformance.InProcess, func(t *testing.T) {
		conformance.Run(t, func(t *testing.T) table.API { return dynamotest.New() }, conformance.WithBackend(conformance.InProcess))
	})
	t.Run(conformance.DynamoDBLocal, func(t *testing.T) {
		testenv.DynamoDBEndpoint(t)
		conformance.Run(t, func(t *testing.T) table.API { return testenv.DynamoDB(t) }, conformance.WithBackend(conformance.DynamoDBLocal))
	})
}
