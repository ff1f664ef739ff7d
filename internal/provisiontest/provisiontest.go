// Package provisiontest checks a store's table against the production
// settings the journey and jobs designs (docs/systems/journey.md, docs/systems/jobs.md) ask for (table.RecoveryAndKMS: point-in-time
// recovery and AWS managed KMS encryption), on the fake and on DynamoDB
// Local, so each store's tests of its defaults are a few lines.
package provisiontest

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// Recorder is a table.API that remembers the CreateTable requests it
// forwards and counts UpdateContinuousBackups, for a backend (DynamoDB
// Local) that does not describe what it was asked.
type Recorder struct {
	table.API

	mu      sync.Mutex
	creates []*dynamodb.CreateTableInput
	backups int
}

// CreateTable records in and forwards it.
func (r *Recorder) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	r.mu.Lock()
	r.creates = append(r.creates, in)
	r.mu.Unlock()
	return r.API.CreateTable(ctx, in, o...)
}

// UpdateContinuousBackups counts the call and forwards it.
func (r *Recorder) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	r.mu.Lock()
	r.backups++
	r.mu.Unlock()
	return r.API.UpdateContinuousBackups(ctx, in, o...)
}

// RequireDescribed asserts that the table name has point-in-time recovery
// on and is encrypted with a KMS key, as DynamoDB (and the fake) describe
// them, and that its schema s sees no drift.
func RequireDescribed(t *testing.T, db table.API, s table.Schema) {
	t.Helper()
	ctx := t.Context()
	b, err := db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(s.Name)})
	require.NoError(t, err)
	assert.Equal(t, types.PointInTimeRecoveryStatusEnabled, b.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, "point-in-time recovery")
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.Name)})
	require.NoError(t, err)
	require.NotNil(t, d.Table.SSEDescription, "encryption with a KMS key is described")
	assert.Equal(t, types.SSETypeKms, d.Table.SSEDescription.SSEType)
	assert.Contains(t, aws.ToString(d.Table.SSEDescription.KMSMasterKeyArn), "alias/aws/dynamodb", "the AWS managed key")
	assert.NoError(t, s.Check(ctx, db), "tables check sees no drift")
}

// RequireOff asserts that the table name has neither recovery nor a KMS
// key, and that the schema with the seeds' defaults (want) reports both
// as drift: what tables check shows for a table made with them off.
func RequireOff(t *testing.T, db table.API, want table.Schema) {
	t.Helper()
	ctx := t.Context()
	b, err := db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(want.Name)})
	require.NoError(t, err)
	assert.Equal(t, types.PointInTimeRecoveryStatusDisabled, b.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(want.Name)})
	require.NoError(t, err)
	assert.Nil(t, d.Table.SSEDescription, "the AWS owned key")
	var de *table.DriftError
	require.ErrorAs(t, want.Check(ctx, db), &de)
	var settings []string
	for _, dr := range de.Drifts {
		settings = append(settings, dr.Setting)
	}
	assert.ElementsMatch(t, []string{"Encryption", "PointInTimeRecovery"}, settings)
}

// RequireRequested asserts what r sent for a table made on DynamoDB Local,
// which describes neither setting: the CreateTable request asked for KMS
// encryption and the schema's tags (which Local accepts and cannot list), no UpdateContinuousBackups was sent (Local answers
// UnknownOperationException to it), and the schema s sees no drift there.
func RequireRequested(t *testing.T, r *Recorder, s table.Schema) {
	t.Helper()
	r.mu.Lock()
	creates, backups := r.creates, r.backups
	r.mu.Unlock()
	require.Len(t, creates, 1)
	sse := creates[0].SSESpecification
	require.NotNil(t, sse, "CreateTable asked for encryption")
	assert.True(t, aws.ToBool(sse.Enabled))
	assert.Equal(t, types.SSETypeKms, sse.SSEType)
	assert.Nil(t, sse.KMSMasterKeyId, "the AWS managed key")
	assert.Zero(t, backups, "DynamoDB Local has no continuous-backups API")
	assert.Len(t, creates[0].Tags, len(s.Tags), "CreateTable asked for the schema's tags")
	assert.NoError(t, s.Check(t.Context(), r), "tables check on Local")
}
