package jobs_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
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

// The seed's Terraform tags the table Name = photoeditor-{env}-jobs:
// EnsureTable creates it so; an existing table without the tag is drift
// (reported, never tagged: TagResource is the operator's), unless the
// store's Tags option says otherwise.
func TestStoreTableIsTaggedWithItsNameAndAnUntaggedOneIsDrift(t *testing.T) {
	ctx := t.Context()
	db := dynamotest.New()
	prod, err := jobs.NewStore(db, nil, jobs.TableName(jobs.TableNameForEnv("prod")))
	require.NoError(t, err)
	require.NoError(t, prod.EnsureTable(ctx))
	assert.Equal(t, map[string]string{"Name": "photoeditor-prod-jobs"}, prod.Schema().Tags)
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("photoeditor-prod-jobs")})
	require.NoError(t, err)
	tags, err := db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
	require.NoError(t, err)
	require.Len(t, tags.Tags, 1)
	assert.Equal(t, "Name", aws.ToString(tags.Tags[0].Key))
	assert.Equal(t, "photoeditor-prod-jobs", aws.ToString(tags.Tags[0].Value))
	require.NoError(t, prod.EnsureTable(ctx), "its own tag is no drift")

	// A staging table an older setup made without tags.
	untagged := jobs.Schema(jobs.TableNameForEnv("staging"))
	untagged.Tags = nil
	require.NoError(t, untagged.EnsureTable(ctx, db))
	staging, err := jobs.NewStore(db, nil, jobs.TableName(untagged.Name))
	require.NoError(t, err)
	err = staging.EnsureTable(ctx)
	var de *table.DriftError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []table.Drift{{Setting: "Tag Name", Want: "photoeditor-staging-jobs", Got: "absent"}}, de.Drifts)
	assert.Zero(t, db.Calls("TagResource"), "EnsureTable tags nothing")

	kept, err := jobs.NewStore(db, nil, jobs.TableName(untagged.Name), jobs.Tags(nil))
	require.NoError(t, err)
	assert.NoError(t, kept.EnsureTable(ctx), "jobs.Tags(nil) keeps the untagged table as it is")
	own, err := jobs.NewStore(db, nil, jobs.TableName("photoeditor-qa-jobs"), jobs.Tags(map[string]string{"Name": "qa", "team": "photo"}))
	require.NoError(t, err)
	require.NoError(t, own.EnsureTable(ctx))
	assert.Equal(t, map[string]string{"Name": "qa", "team": "photo"}, own.Schema().Tags)

	_, err = jobs.NewStore(db, nil, jobs.Tags(map[string]string{"aws:owner": "x"}))
	assert.ErrorIs(t, err, table.ErrInvalidInput, "a tag DynamoDB refuses fails NewStore")
}

// The seed's production plan as a preset: EnsureTable creates the table
// provisioned at 25 RCU and 10 WCU, both indexes too, with recovery and
// KMS; capacity the scaler moved within 25-100 / 10-50 is no drift, past
// it is.
func testProductionPreset(t *testing.T, db table.API, name string) {
	ctx := t.Context()
	store, err := jobs.NewStore(db, nil, jobs.TableName(name), jobs.Provisioning(jobs.ProductionProvisioning()))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, int64(25), aws.ToInt64(d.Table.ProvisionedThroughput.ReadCapacityUnits))
	assert.Equal(t, int64(10), aws.ToInt64(d.Table.ProvisionedThroughput.WriteCapacityUnits))
	require.Len(t, d.Table.GlobalSecondaryIndexes, 2)
	for _, ix := range d.Table.GlobalSecondaryIndexes {
		assert.Equal(t, int64(25), aws.ToInt64(ix.ProvisionedThroughput.ReadCapacityUnits), aws.ToString(ix.IndexName))
		assert.Equal(t, int64(10), aws.ToInt64(ix.ProvisionedThroughput.WriteCapacityUnits), aws.ToString(ix.IndexName))
	}
	require.NoError(t, store.EnsureTable(ctx), "the table it made is no drift")
	p := jobs.ProductionProvisioning()
	assert.True(t, p.PointInTimeRecovery)
	assert.True(t, p.Encryption.KMS)
	assert.Equal(t, &table.AutoScaling{MinRead: 25, MaxRead: 100, MinWrite: 10, MaxWrite: 50, TargetUtilization: 70}, p.Capacity.AutoScaling)

	// The scaler raised the table and one index.
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(80), WriteCapacityUnits: aws.Int64(40)},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
			IndexName:             aws.String(jobs.IndexStatusCreatedAt),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(30), WriteCapacityUnits: aws.Int64(50)}}}}})
	require.NoError(t, err)
	testenv.WaitActive(t, db, name)
	assert.NoError(t, store.EnsureTable(ctx), "within the auto-scaling range")
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
			IndexName:             aws.String(jobs.IndexUserCreatedAt),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(25), WriteCapacityUnits: aws.Int64(60)}}}}})
	require.NoError(t, err)
	testenv.WaitActive(t, db, name)
	var de *table.DriftError
	require.ErrorAs(t, store.EnsureTable(ctx), &de)
	assert.Equal(t, []table.Drift{{Setting: "index " + jobs.IndexUserCreatedAt + " WriteCapacity", Want: "10-50 (auto-scaling)", Got: "60"}}, de.Drifts)
}

func TestProductionProvisioningIsTheSeedsPlan(t *testing.T) {
	testProductionPreset(t, dynamotest.New(), jobs.TableNameForEnv("prod"))
}

func TestIntegrationProductionProvisioningIsTheSeedsPlan(t *testing.T) {
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, "jobs-prodplan")
	testProductionPreset(t, client, name)
}
