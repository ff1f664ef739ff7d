package jobs_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/provisiontest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// The seed: "PITR: Enabled", "Encryption: AWS-managed KMS": the table
// EnsureTable makes has both unless the store turns them off.
func TestStoreTableHasRecoveryAndKMSByDefault(t *testing.T) {
	db := dynamotest.New()
	store, err := jobs.NewStore(db, nil)
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(t.Context()))
	provisiontest.RequireDescribed(t, db, store.Schema())
	require.NoError(t, store.EnsureTable(t.Context()), "an existing table with both is no drift")
}

func TestProvisioningOptionTurnsRecoveryAndKMSOff(t *testing.T) {
	db := dynamotest.New()
	dev, err := jobs.NewStore(db, nil, jobs.Provisioning(table.Provisioning{}))
	require.NoError(t, err)
	require.NoError(t, dev.EnsureTable(t.Context()))
	provisiontest.RequireOff(t, db, jobs.Schema(jobs.DefaultTableName))
}

func TestStoreTableDefaultsIntegration(t *testing.T) {
	rec := &provisiontest.Recorder{API: compared.DynamoDB(t)}
	name := testenv.TableName(t, "jobs-prov")
	t.Cleanup(func() {
		_, _ = rec.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	store, err := jobs.NewStore(rec, nil, jobs.TableName(name))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(t.Context()))
	require.NoError(t, store.EnsureTable(t.Context()), "the defaults run unchanged on DynamoDB Local")
	provisiontest.RequireRequested(t, rec, store.Schema())
}
