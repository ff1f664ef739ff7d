package conformance_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/dynamotest/conformance"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// overHTTP is an SDK client talking to a dynamotest.Server, plus the
// server's clock, so the TTL cases that need Advance run over HTTP too.
type overHTTP struct {
	*dynamodb.Client
	db *dynamotest.DB
}

func (h overHTTP) Advance(d time.Duration) { h.db.Advance(d) }

// TestConformance runs every case against each backend; the subtest names
// say which: TestConformance/inprocess/query/..., /http/..., /dynamodblocal/...
func TestConformance(t *testing.T) {
	t.Run(conformance.InProcess, func(t *testing.T) {
		conformance.Run(t, func(t *testing.T) table.API { return dynamotest.New() }, conformance.WithBackend(conformance.InProcess))
	})
	t.Run(conformance.HTTP, func(t *testing.T) {
		conformance.Run(t, func(t *testing.T) table.API {
			srv := dynamotest.NewServer()
			t.Cleanup(srv.Close)
			return overHTTP{Client: srv.Client(), db: srv.DB}
		}, conformance.WithBackend(conformance.HTTP))
	})
	t.Run(conformance.DynamoDBLocal, func(t *testing.T) {
		testenv.DynamoDBEndpoint(t)
		conformance.Run(t, func(t *testing.T) table.API { return testenv.DynamoDB(t) }, conformance.WithBackend(conformance.DynamoDBLocal))
	})
}
