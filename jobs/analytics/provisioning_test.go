package analytics_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/provisiontest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/table"
)

// The view table EnsureTable makes has point-in-time recovery and KMS
// encryption, as the jobs table has (the view outlives the jobs it
// counts), unless the view turns them off.
func TestViewTableHasRecoveryAndKMSByDefault(t *testing.T) {
	db := dynamotest.New()
	view, err := analytics.NewView(db)
	require.NoError(t, err)
	require.NoError(t, view.EnsureTable(t.Context()))
	provisiontest.RequireDescribed(t, db, view.Schema())
	require.NoError(t, view.EnsureTable(t.Context()), "an existing table with both is no drift")
}

func TestProvisioningOptionTurnsTheViewTablesRecoveryAndKMSOff(t *testing.T) {
	db := dynamotest.New()
	dev, err := analytics.NewView(db, analytics.Provisioning(table.Provisioning{}))
	require.NoError(t, err)
	require.NoError(t, dev.EnsureTable(t.Context()))
	provisiontest.RequireOff(t, db, analytics.Schema(analytics.DefaultTableName))
}

func TestViewTableDefaultsIntegration(t *testing.T) {
	rec := &provisiontest.Recorder{API: testenv.DynamoDB(t)}
	name := testenv.TableName(t, "analytics-prov")
	t.Cleanup(func() {
		_, _ = rec.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	view, err := analytics.NewView(rec, analytics.TableName(name))
	require.NoError(t, err)
	require.NoError(t, view.EnsureTable(t.Context()))
	require.NoError(t, view.EnsureTable(t.Context()), "the defaults run unchanged on DynamoDB Local")
	provisiontest.RequireRequested(t, rec, view.Schema())
}
