package table_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// provisioningAPI is what the provisioning tests need of a backend.
type provisioningAPI interface {
	table.API
	table.BackupsAPI
}

// provisioningBackend is where a provisioning test runs. DynamoDB Local
// answers UnknownOperationException to UpdateContinuousBackups and
// DescribeContinuousBackups, and accepts an SSESpecification but describes
// no SSEDescription, where the API reference documents both; table does
// not compare those two settings on it (its ARNs name the region
// "ddblocal"), so on it (pitr false) the tests check that the schema with
// both runs unchanged and that the rest is applied, and the fake covers
// recovery and KMS.
type provisioningBackend struct {
	db   provisioningAPI
	pitr bool
}

// productionJobs is the jobs design's production plan: PITR, AWS managed KMS,
// deletion protection, provisioned 25 RCU / 10 WCU auto-scaling within
// 25-100 / 10-50 at 70%.
func productionJobs(name string) table.Schema {
	s := jobsSchema(name)
	s.Provisioning = table.Provisioning{
		PointInTimeRecovery: true,
		Encryption:          table.Encryption{KMS: true},
		DeletionProtection:  true,
		Capacity: &table.Capacity{
			Read: 25, Write: 10,
			Indexes: map[string]table.Throughput{"GSI1": {Read: 5, Write: 10}},
			AutoScaling: &table.AutoScaling{
				MinRead: 25, MaxRead: 100, MinWrite: 10, MaxWrite: 50, TargetUtilization: 70,
			},
		},
	}
	return s
}

func describe(t *testing.T, be provisioningBackend, name string) (*types.TableDescription, *types.PointInTimeRecoveryDescription) {
	t.Helper()
	out, err := be.db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	if !be.pitr {
		return out.Table, &types.PointInTimeRecoveryDescription{}
	}
	b, err := be.db.DescribeContinuousBackups(t.Context(), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	require.NoError(t, err)
	return out.Table, b.ContinuousBackupsDescription.PointInTimeRecoveryDescription
}

// unprotect turns deletion protection off so the test can clean up.
func unprotect(t *testing.T, db *dynamodb.Client, name string) {
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		_, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
}

func testEnsureTableAppliesProvisioning(t *testing.T, be provisioningBackend, name string) {
	db := be.db
	s := productionJobs(name)
	require.NoError(t, s.EnsureTable(t.Context(), db))
	d, pitr := describe(t, be, name)
	if d.BillingModeSummary != nil { // DynamoDB Local leaves it out: PROVISIONED
		assert.Equal(t, types.BillingModeProvisioned, d.BillingModeSummary.BillingMode)
	}
	assert.Equal(t, int64(25), aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits))
	assert.Equal(t, int64(10), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits))
	require.Len(t, d.GlobalSecondaryIndexes, 1)
	assert.Equal(t, int64(5), aws.ToInt64(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits))
	assert.True(t, aws.ToBool(d.DeletionProtectionEnabled))
	if be.pitr {
		require.NotNil(t, d.SSEDescription, "KMS encryption is described")
		assert.Equal(t, types.SSETypeKms, d.SSEDescription.SSEType)
		assert.Equal(t, types.PointInTimeRecoveryStatusEnabled, pitr.PointInTimeRecoveryStatus)
	}

	_, err := db.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	assert.Error(t, err, "a protected table cannot be deleted")

	assert.NoError(t, s.EnsureTable(t.Context(), db), "the table EnsureTable made has no drift")
}

func testEnsureTableReportsDrift(t *testing.T, be provisioningBackend, name string) {
	db := be.db
	plain := jobsSchema(name) // on-demand, AWS owned key, nothing else
	require.NoError(t, plain.EnsureTable(t.Context(), db))
	before, beforePITR := describe(t, be, name)

	err := productionJobs(name).EnsureTable(t.Context(), db)
	require.ErrorIs(t, err, table.ErrDrift)
	var de *table.DriftError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, name, de.Table)
	settings := map[string]table.Drift{}
	for _, d := range de.Drifts {
		settings[d.Setting] = d
	}
	want := []string{"BillingMode", "DeletionProtection"}
	if be.pitr {
		want = append(want, "Encryption", "PointInTimeRecovery")
		assert.Contains(t, err.Error(), "PointInTimeRecovery is disabled, want enabled")
	}
	assert.ElementsMatch(t, want, keysOf(settings))
	assert.Equal(t, table.Drift{Setting: "BillingMode", Want: "PROVISIONED", Got: "PAY_PER_REQUEST"}, settings["BillingMode"])

	after, afterPITR := describe(t, be, name)
	assert.Equal(t, before.BillingModeSummary.BillingMode, after.BillingModeSummary.BillingMode, "EnsureTable changed nothing")
	assert.Equal(t, aws.ToBool(before.DeletionProtectionEnabled), aws.ToBool(after.DeletionProtectionEnabled), "EnsureTable changed nothing")
	assert.Equal(t, beforePITR.PointInTimeRecoveryStatus, afterPITR.PointInTimeRecoveryStatus, "EnsureTable changed nothing")
	assert.NoError(t, plain.EnsureTable(t.Context(), db), "the schema the table was made from sees no drift")
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestEnsureTableAppliesProvisioningOnTheFake(t *testing.T) {
	testEnsureTableAppliesProvisioning(t, provisioningBackend{dynamotest.New(), true}, "jobs-prod")
}

func TestEnsureTableReportsDriftOnTheFake(t *testing.T) {
	testEnsureTableReportsDrift(t, provisioningBackend{dynamotest.New(), true}, "jobs-prod")
}

func TestEnsureTableProvisioningIntegration(t *testing.T) {
	client := testenv.DynamoDB(t)
	t.Run("Applies", func(t *testing.T) {
		name := testenv.TableName(t, "prov")
		unprotect(t, client, name)
		testEnsureTableAppliesProvisioning(t, provisioningBackend{client, false}, name)
	})
	t.Run("ReportsDrift", func(t *testing.T) {
		name := testenv.TableName(t, "drift")
		unprotect(t, client, name)
		testEnsureTableReportsDrift(t, provisioningBackend{client, false}, name)
	})
}

// An auto-scaled table's capacity moves within its range: that is not
// drift, outside the range is.
func TestAutoScaledCapacityWithinItsRangeIsNotDrift(t *testing.T) {
	ctx := t.Context()
	db := dynamotest.New()
	s := productionJobs("jobs-prod")
	s.Provisioning = table.Provisioning{Capacity: s.Provisioning.Capacity}
	scaled := s
	scaled.Provisioning.Capacity = &table.Capacity{Read: 80, Write: 45, Indexes: s.Provisioning.Capacity.Indexes}
	require.NoError(t, scaled.EnsureTable(ctx, db), "as the scaler left it")
	assert.NoError(t, s.EnsureTable(ctx, db), "80 RCU and 45 WCU lie within 25-100 and 10-50")

	over := s
	over.Name = "jobs-over"
	big := over
	big.Provisioning.Capacity = &table.Capacity{Read: 200, Write: 45, Indexes: s.Provisioning.Capacity.Indexes}
	require.NoError(t, big.EnsureTable(ctx, db))
	var de *table.DriftError
	require.ErrorAs(t, over.EnsureTable(ctx, db), &de)
	assert.Equal(t, []table.Drift{{Setting: "ReadCapacity", Want: "25-100 (auto-scaling)", Got: "200"}}, de.Drifts)

	fixed := s
	fixed.Name = "jobs-fixed"
	fixed.Provisioning.Capacity = &table.Capacity{Read: 25, Write: 10}
	require.NoError(t, fixed.EnsureTable(ctx, db))
	fixed.Provisioning.Capacity = &table.Capacity{Read: 30, Write: 10}
	require.ErrorAs(t, fixed.EnsureTable(ctx, db), &de)
	assert.ElementsMatch(t, []table.Drift{
		{Setting: "ReadCapacity", Want: "30", Got: "25"},
		{Setting: "index GSI1 ReadCapacity", Want: "30", Got: "25"},
	}, de.Drifts)
}

// AutoScaled is a plan whose base is its floor: the table starts at the
// minimum the scaler keeps, for the table and every index.
func TestAutoScaledStartsAtItsFloor(t *testing.T) {
	c := table.AutoScaled(25, 100, 10, 50, 70)
	assert.Equal(t, table.Capacity{Read: 25, Write: 10, AutoScaling: &table.AutoScaling{
		MinRead: 25, MaxRead: 100, MinWrite: 10, MaxWrite: 50, TargetUtilization: 70}}, c)
	assert.Empty(t, c.Indexes, "every index follows the table")
}

func TestEncryptionWithAnotherKeyIsDrift(t *testing.T) {
	ctx := t.Context()
	db := dynamotest.New()
	s := jobsSchema("jobs-kms")
	s.Provisioning.Encryption = table.Encryption{KMS: true, KMSKeyID: "1234abcd-12ab-34cd-56ef-1234567890ab"}
	require.NoError(t, s.EnsureTable(ctx, db))
	assert.NoError(t, s.EnsureTable(ctx, db), "the same key")
	other := s
	other.Provisioning.Encryption.KMSKeyID = "ffffffff-12ab-34cd-56ef-1234567890ab"
	err := other.EnsureTable(ctx, db)
	require.ErrorIs(t, err, table.ErrDrift)
	assert.Contains(t, err.Error(), "ffffffff-12ab")
	managed := s
	managed.Provisioning.Encryption = table.Encryption{KMS: true}
	assert.NoError(t, managed.EnsureTable(ctx, db), "any KMS key satisfies a schema that names none")
}

func TestProvisioningRefusesBadValuesBeforeAnyCall(t *testing.T) {
	base := jobsSchema("jobs-bad")
	cases := map[string]table.Provisioning{
		"key without KMS":   {Encryption: table.Encryption{KMSKeyID: "alias/mine"}},
		"zero capacity":     {Capacity: &table.Capacity{Read: 0, Write: 5}},
		"unknown index":     {Capacity: &table.Capacity{Read: 5, Write: 5, Indexes: map[string]table.Throughput{"GSI9": {Read: 1, Write: 1}}}},
		"index capacity 0":  {Capacity: &table.Capacity{Read: 5, Write: 5, Indexes: map[string]table.Throughput{"GSI1": {Read: 0, Write: 1}}}},
		"min above max":     {Capacity: &table.Capacity{Read: 5, Write: 5, AutoScaling: &table.AutoScaling{MinRead: 10, MaxRead: 5, MinWrite: 1, MaxWrite: 5, TargetUtilization: 70}}},
		"initial outside":   {Capacity: &table.Capacity{Read: 500, Write: 5, AutoScaling: &table.AutoScaling{MinRead: 1, MaxRead: 100, MinWrite: 1, MaxWrite: 5, TargetUtilization: 70}}},
		"target above 90 %": {Capacity: &table.Capacity{Read: 5, Write: 5, AutoScaling: &table.AutoScaling{MinRead: 1, MaxRead: 100, MinWrite: 1, MaxWrite: 5, TargetUtilization: 95}}},
		"unknown class":     {TableClass: "GLACIER"},
	}
	for name, p := range cases {
		db := dynamotest.New()
		s := base
		s.Provisioning = p
		assert.ErrorIs(t, s.EnsureTable(t.Context(), db), table.ErrInvalidInput, name)
		assert.Zero(t, db.Calls("CreateTable")+db.Calls("DescribeTable"), "%s: a call was sent", name)
	}
}

// Standard-IA is asked for by the schema, sent with CreateTable, and
// compared by EnsureTable and Check: a table of another class is drift, and
// a schema that names no class accepts any.
func TestTableClassIsCreatedAndComparedOnTheFake(t *testing.T) {
	ctx := t.Context()
	db := dynamotest.New()
	cold := jobsSchema("journeys-cold")
	cold.Provisioning.TableClass = types.TableClassStandardInfrequentAccess
	require.NoError(t, cold.EnsureTable(ctx, db))
	d, _ := describe(t, provisioningBackend{db, true}, cold.Name)
	require.NotNil(t, d.TableClassSummary, "CreateTable carried the class")
	assert.Equal(t, types.TableClassStandardInfrequentAccess, d.TableClassSummary.TableClass)
	assert.NoError(t, cold.EnsureTable(ctx, db), "the table EnsureTable made has no drift")
	assert.NoError(t, cold.Check(ctx, db))
	assert.NoError(t, jobsSchema(cold.Name).EnsureTable(ctx, db), "a schema naming no class accepts any")

	plain := jobsSchema("journeys-plain") // described without a class: STANDARD
	require.NoError(t, plain.EnsureTable(ctx, db))
	plainIA := cold
	plainIA.Name = plain.Name
	want := []table.Drift{{Setting: "TableClass", Want: "STANDARD_INFREQUENT_ACCESS", Got: "STANDARD"}}
	var de *table.DriftError
	require.ErrorAs(t, plainIA.EnsureTable(ctx, db), &de)
	assert.Equal(t, want, de.Drifts)
	require.ErrorAs(t, plainIA.Check(ctx, db), &de)
	assert.Equal(t, want, de.Drifts)
	standard := plain
	standard.Provisioning.TableClass = types.TableClassStandard
	assert.NoError(t, standard.EnsureTable(ctx, db), "no summary is STANDARD")
}

// DynamoDB Local accepts any TableClass (even one the API reference's enum
// refuses) and describes none, so on it the schema's class is sent and not
// compared; the class is checked before any call (as the reference's enum
// would refuse it), and a schema with Standard-IA runs unchanged.
func TestTableClassIntegration(t *testing.T) {
	client := testenv.DynamoDB(t)
	s := jobsSchema(testenv.TableName(t, "cold"))
	s.Provisioning.TableClass = types.TableClassStandardInfrequentAccess
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(s.Name)})
	})
	require.NoError(t, s.EnsureTable(t.Context(), client))
	assert.NoError(t, s.EnsureTable(t.Context(), client))
	assert.NoError(t, s.Check(t.Context(), client))
	bad := s
	bad.Name = testenv.TableName(t, "bogus")
	bad.Provisioning.TableClass = "GLACIER"
	require.ErrorIs(t, bad.EnsureTable(t.Context(), client), table.ErrInvalidInput)
	_, err := client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(bad.Name)})
	var nf *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &nf, "nothing was created")
}

// An index without throughput of its own follows the table's, auto-scaling
// included: the scaler moves its capacity within the table's range too.
func TestAnIndexFollowingTheTableIsAutoScaledWithIt(t *testing.T) {
	ctx := t.Context()
	db := dynamotest.New()
	s := jobsSchema("jobs-scaled")
	scaling := &table.AutoScaling{MinRead: 25, MaxRead: 100, MinWrite: 10, MaxWrite: 50, TargetUtilization: 70}
	s.Provisioning = table.Provisioning{Capacity: &table.Capacity{Read: 25, Write: 10, AutoScaling: scaling}}
	scaled := s
	scaled.Provisioning.Capacity = &table.Capacity{Read: 30, Write: 12, Indexes: map[string]table.Throughput{"GSI1": {Read: 90, Write: 40}}}
	require.NoError(t, scaled.EnsureTable(ctx, db), "as the scaler left table and index")
	assert.NoError(t, s.EnsureTable(ctx, db), "the index's 90 RCU and 40 WCU lie within 25-100 and 10-50")

	over := s
	over.Name = "jobs-index-over"
	big := over
	big.Provisioning.Capacity = &table.Capacity{Read: 25, Write: 10, Indexes: map[string]table.Throughput{"GSI1": {Read: 25, Write: 60}}}
	require.NoError(t, big.EnsureTable(ctx, db))
	var de *table.DriftError
	require.ErrorAs(t, over.EnsureTable(ctx, db), &de)
	assert.Equal(t, []table.Drift{{Setting: "index GSI1 WriteCapacity", Want: "10-50 (auto-scaling)", Got: "60"}}, de.Drifts)
}
