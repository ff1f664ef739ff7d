package tasks_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// The task queue design's provisioned plan as a preset: EnsureTable
// creates the table and GSI1 at 2,000 WCU (and the read floor), the store
// then works on it, capacity the scaler moved within the range is no
// drift and capacity past it is.
func testProductionPreset(t *testing.T, db table.API, name string) {
	ctx := t.Context()
	store, err := tasks.NewStore(db, nil, tasks.TableName(name), tasks.Provisioning(tasks.ProductionProvisioning()))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, int64(2000), aws.ToInt64(d.Table.ProvisionedThroughput.WriteCapacityUnits), "the design's 2,000 WCU/s")
	assert.Equal(t, int64(tasks.ProductionReadCapacity), aws.ToInt64(d.Table.ProvisionedThroughput.ReadCapacityUnits))
	require.Len(t, d.Table.GlobalSecondaryIndexes, 1)
	gsi := d.Table.GlobalSecondaryIndexes[0]
	assert.Equal(t, int64(2000), aws.ToInt64(gsi.ProvisionedThroughput.WriteCapacityUnits), "GSI1 takes every META write: scaled with the table")
	assert.Equal(t, int64(tasks.ProductionReadCapacity), aws.ToInt64(gsi.ProvisionedThroughput.ReadCapacityUnits))
	require.NoError(t, store.EnsureTable(ctx), "the table it made is no drift")

	// The store works on it: a task's life.
	_, _, err = store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "client-1", Payload: []byte(`{"n":1}`)})
	require.NoError(t, err)
	c, err := store.Claim(ctx, "w-1")
	require.NoError(t, err)
	require.NoError(t, store.Complete(ctx, c.Lease, nil))

	// The scaler raised the table and GSI1 within the range: no drift.
	update := func(table *types.ProvisionedThroughput, index types.ProvisionedThroughput) {
		t.Helper()
		_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), ProvisionedThroughput: table,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
				IndexName: aws.String(tasks.IndexGSI1), ProvisionedThroughput: &index}}}})
		require.NoError(t, err)
		testenv.WaitActive(t, db, name)
	}
	update(&types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(600), WriteCapacityUnits: aws.Int64(6900)},
		types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3500), WriteCapacityUnits: aws.Int64(3100)})
	assert.NoError(t, store.EnsureTable(ctx), "within the auto-scaling range")
	// Only GSI1 changes (DynamoDB refuses an update to the table's current
	// throughput).
	update(nil, types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3500), WriteCapacityUnits: aws.Int64(7100)})
	var de *table.DriftError
	require.ErrorAs(t, store.EnsureTable(ctx), &de)
	assert.Equal(t, []table.Drift{{Setting: "index " + tasks.IndexGSI1 + " WriteCapacity", Want: "2000-7000 (auto-scaling)", Got: "7100"}}, de.Drifts)
}

func TestProductionProvisioningIsTheDesignsPlan(t *testing.T) {
	p := tasks.ProductionProvisioning()
	require.NotNil(t, p.Capacity)
	assert.Equal(t, &table.AutoScaling{MinRead: 500, MaxRead: 4000, MinWrite: 2000, MaxWrite: 7000, TargetUtilization: 70}, p.Capacity.AutoScaling)
	assert.Empty(t, p.Capacity.Indexes, "GSI1 follows the table's capacity and scaling")
	s, err := tasks.NewStore(dynamotest.New(), nil)
	require.NoError(t, err)
	assert.Nil(t, s.Schema().Provisioning.Capacity, "the default stays on demand, the design's billing during development")
	testProductionPreset(t, dynamotest.New(), "tasks")
}

func TestIntegrationProductionProvisioningIsTheDesignsPlan(t *testing.T) {
	client := testenv.DynamoDB(t)
	name := testenv.TableName(t, "tasks-prodplan")
	testProductionPreset(t, client, name)
}

// A plan DynamoDB would refuse is a typed error from NewStore, before
// anything is sent.
func TestProvisioningThatCannotBeCreatedIsRefusedByNewStore(t *testing.T) {
	db := dynamotest.New()
	_, err := tasks.NewStore(db, nil, tasks.Provisioning(table.Provisioning{Capacity: &table.Capacity{Read: 0, Write: 10}}))
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	out, err := db.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Empty(t, out.TableNames, "nothing created")
}

// The preset carries the declared peaks (the design's 500 tasks a second)
// at its 70% target: a ceiling below the table's peak would throttle it.
func TestProductionCapacityServesTheDeclaredPeaks(t *testing.T) {
	est, err := datamodel.EstimateSchema(tasks.Schema(tasks.DefaultTableName), tasks.Patterns(), datamodel.WithEntities(tasks.Entities()))
	require.NoError(t, err)
	plan, err := est.Provisioned(tasks.Schema(tasks.DefaultTableName), tasks.ProductionCapacity())
	require.NoError(t, err)
	assert.True(t, plan.Serves, "%+v", plan.Parts)
	require.Len(t, plan.Parts, 2, "the table and GSI1")
	assert.Less(t, plan.MonthlyCost, est.MonthlyCost, "at a constant 500 tasks/s provisioned costs less than on demand")

	low := tasks.ProductionCapacity()
	low.AutoScaling.MaxWrite = tasks.ProductionWriteCapacity * 3 // 6,000: the table's peak needs ~6,900 at 70%
	plan, err = est.Provisioned(tasks.Schema(tasks.DefaultTableName), low)
	require.NoError(t, err)
	assert.False(t, plan.Serves)
}
