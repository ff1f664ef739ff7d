package table_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

func TestTableEnsureTableCreatesItsSchemaAndAcceptsItAfterwards(t *testing.T) {
	s := table.Schema{
		Name:         "ensured",
		PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS},
		TTLAttribute: "ttl",
	}
	db := dynamotest.New()
	tbl := table.New(db, s)
	require.NoError(t, tbl.EnsureTable(context.Background()))
	require.NoError(t, tbl.EnsureTable(context.Background()), "an existing table of the schema is accepted")
	assert.NoError(t, s.Check(context.Background(), db), "the table has the schema's keys and its TTL")
}
