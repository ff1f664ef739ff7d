package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/internal/fakes3"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs/analytics"
)

func TestTablesEnsureCreatesTheChangeConsumersTables(t *testing.T) {
	srv := fakeServer(t)
	for store, name := range map[string]string{
		"analytics": analytics.TableNameForEnv("prod"),
		"leases":    changes.DefaultLeaseTable,
	} {
		r := runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-store", store, "-env", "prod", "-output", "json")
		require.Equal(t, exitOK, r.code, "%s: %s", store, r.stderr)
		assert.Contains(t, r.stdout, name)
		_, err := srv.DB.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		assert.NoError(t, err, "%s's table %s exists", store, name)
		check := runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", store, "-env", "prod")
		assert.Equal(t, exitOK, check.code, "%s: %s", store, check.stdout+check.stderr)
	}
}

func TestTablesEnsureTurnsTheStreamOnAndCheckSeesStreamDrift(t *testing.T) {
	srv := fakeServer(t)
	require.Equal(t, exitOK, runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-store", "jobs").code)

	// The jobs table has no stream: a check that asks for one reports it.
	drift := runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", "jobs", "-stream", "new-and-old-images", "-output", "json")
	assert.Equal(t, exitDrift, drift.code, drift.stderr)
	var out []checked
	require.NoError(t, json.Unmarshal([]byte(drift.stdout), &out))
	require.Len(t, out, 1)
	assert.Contains(t, out[0].Drift[0], "Stream")
	assertCamelCase(t, "tables check", drift.stdout)

	on := runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-store", "jobs", "-stream", "NEW_AND_OLD_IMAGES")
	require.Equal(t, exitOK, on.code, on.stderr)
	d, err := srv.DB.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("photoeditor-dev-jobs")})
	require.NoError(t, err)
	require.NotNil(t, d.Table.StreamSpecification)
	assert.Equal(t, types.StreamViewTypeNewAndOldImages, d.Table.StreamSpecification.StreamViewType)

	again := runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", "jobs", "-stream", "new-and-old-images")
	assert.Equal(t, exitOK, again.code, again.stdout+again.stderr)
	other := runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", "jobs", "-stream", "keys-only")
	assert.Equal(t, exitDrift, other.code, "another view is drift too")

	desc := runCLI(t, "tables", "describe", "-endpoint", srv.URL, "-store", "jobs", "-output", "json")
	require.Equal(t, exitOK, desc.code, desc.stderr)
	var infos []tableInfo
	require.NoError(t, json.Unmarshal([]byte(desc.stdout), &infos))
	assert.Equal(t, "NEW_AND_OLD_IMAGES", infos[0].Stream)

	assert.Equal(t, exitUsage, runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", "jobs", "-stream", "sideways").code)
	assert.Equal(t, exitUsage, runCLI(t, "tables", "check", "-endpoint", srv.URL, "-stream", "keys-only").code, "-stream needs -store")
}

func TestTablesIntegrationConsumersTablesAndStreamOnDynamoDBLocal(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	testenv.NoAWSConfig(t)
	jobsTable, viewTable, leaseTable := testenv.TableName(t, "clijobs"), testenv.TableName(t, "cliview"), testenv.TableName(t, "clilease")
	for _, args := range [][]string{
		{"-store", "jobs", "-table", jobsTable, "-stream", "new-and-old-images"},
		{"-store", "analytics", "-table", viewTable},
		{"-store", "leases", "-table", leaseTable},
	} {
		r := runCLI(t, append([]string{"tables", "ensure", "-endpoint", endpoint}, args...)...)
		require.Equal(t, exitOK, r.code, "%q: %s", args, r.stderr)
		check := runCLI(t, append([]string{"tables", "check", "-endpoint", endpoint}, args...)...)
		assert.Equal(t, exitOK, check.code, "%q: %s", args, check.stdout+check.stderr)
	}
}

// TestTablesEnsureAppliesTheJourneyLogsLifecycle: ensuring the journey
// table applies the logs bucket's Glacier rule (90 days, journeys/), as
// journey.Store.Setup does, and says when it did not.
func TestTablesEnsureAppliesTheJourneyLogsLifecycle(t *testing.T) {
	srv := fakeServer(t)
	s3srv := fakes3.New(t)

	r := runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-s3-endpoint", s3srv.URL, "-store", "journey", "-logs-bucket", "acme-logs", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var out []ensured
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.Equal(t, []ensured{{Table: "TransformationSystem", Done: "ready"},
		{Bucket: "acme-logs", Done: "lifecycle: journeys/ to GLACIER after 90 days"}}, out)
	require.Len(t, s3srv.Lifecycle(), 1)
	for _, want := range []string{"/acme-logs ", "<Prefix>journeys/</Prefix>", "<Days>90</Days>", "<StorageClass>GLACIER</StorageClass>", "<Status>Enabled</Status>"} {
		assert.Contains(t, s3srv.Lifecycle()[0], want)
	}

	mem := runCLI(t, "-memory", "tables", "ensure", "-store", "journey")
	require.Equal(t, exitOK, mem.code, mem.stderr)
	assert.Regexp(t, `bucket transformation-journey-logs\s+lifecycle: journeys/ to GLACIER after 90 days`, mem.stdout)

	local := runCLI(t, "tables", "ensure", "-endpoint", srv.URL)
	require.Equal(t, exitOK, local.code, local.stderr)
	assert.Contains(t, local.stdout, "lifecycle not applied: DynamoDB is at -endpoint and no -s3-endpoint")

	// s3rver answers 501 NotImplemented to a lifecycle configuration.
	noLifecycle := fakes3.New(t)
	noLifecycle.NoLifecycle.Store(true)
	unsupported := runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-s3-endpoint", noLifecycle.URL, "-store", "journey")
	require.Equal(t, exitOK, unsupported.code, unsupported.stderr)
	assert.Contains(t, unsupported.stdout, "lifecycle not applied: the S3 endpoint implements no lifecycle rules")

	jobsOnly := runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-s3-endpoint", s3srv.URL, "-store", "jobs")
	require.Equal(t, exitOK, jobsOnly.code, jobsOnly.stderr)
	assert.NotContains(t, jobsOnly.stdout, "lifecycle", "only the journey store has a bucket rule")
	assert.Len(t, s3srv.Lifecycle(), 1)
}
