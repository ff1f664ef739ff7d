package dynamotest_test

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

func TestHandlerOverANilAPIServesANewEmptyDBAndSaysSo(t *testing.T) {
	for name, api := range map[string]table.API{"nil": nil, "nil *DB": (*dynamotest.DB)(nil)} {
		t.Run(name, func(t *testing.T) {
			var logged bytes.Buffer
			h := dynamotest.NewHandler(api, dynamotest.Logger(slog.New(slog.NewTextHandler(&logged, nil))))
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			client := dynamotest.NewClient(ts.URL)
			_, err := client.CreateTable(ctx, hashOnly.input())
			require.NoError(t, err, "requests are served, not answered InternalServerError")
			out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
			require.NoError(t, err)
			assert.Equal(t, []string{"hashonly"}, out.TableNames)
			assert.Contains(t, logged.String(), "NewHandler was given no API")
		})
	}
}
