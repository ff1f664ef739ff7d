package journey_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/provisiontest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/table"
)

// The seed: PITR "Enabled: Yes", encryption at rest "AWS KMS": the table
// EnsureTable makes has both unless the store turns them off.
func TestStoreTableHasRecoveryAndKMSByDefault(t *testing.T) {
	db := dynamotest.New()
	store, err := journey.NewStore(db, blobstore.NewMemory())
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(t.Context()))
	provisiontest.RequireDescribed(t, db, store.Schema())
	require.NoError(t, store.EnsureTable(t.Context()), "an existing table with both is no drift")
}

func TestProvisioningOptionTurnsRecoveryAndKMSOff(t *testing.T) {
	db := dynamotest.New()
	dev, err := journey.NewStore(db, blobstore.NewMemory(), journey.Provisioning(table.Provisioning{}))
	require.NoError(t, err)
	require.NoError(t, dev.EnsureTable(t.Context()))
	provisiontest.RequireOff(t, db, journey.Schema(journey.DefaultTableName))
}

func TestStoreTableDefaultsIntegration(t *testing.T) {
	rec := &provisiontest.Recorder{API: compared.DynamoDB(t)}
	name := testenv.TableName(t, "journey-prov")
	t.Cleanup(func() {
		_, _ = rec.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	store, err := journey.NewStore(rec, blobstore.NewMemory(), journey.TableName(name))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(t.Context()))
	require.NoError(t, store.EnsureTable(t.Context()), "the defaults run unchanged on DynamoDB Local")
	provisiontest.RequireRequested(t, rec, store.Schema())
}
