package exampleenv_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestOpenWithoutEndpointsIsInMemory(t *testing.T) {
	t.Setenv(exampleenv.DynamoDBEndpointVar, "")
	t.Setenv(exampleenv.S3EndpointVar, "")
	env, err := exampleenv.Open(context.Background(), exampleenv.Config{Bucket: "b"})
	require.NoError(t, err)
	require.NotNil(t, env.Fake, "DB is %T, want the in-memory fake", env.DB)
	assert.Equal(t, table.API(env.Fake), env.DB, "DB is the in-memory fake")
	assert.IsType(t, &blobstore.Memory{}, env.Blobs, "blobs are in-memory")
	assert.Equal(t, "DynamoDB: in-memory fake; blobs: in-memory", env.String())
	other, err := env.Bucket(context.Background(), "other")
	require.NoError(t, err)
	assert.IsType(t, &blobstore.Memory{}, other, "Bucket gives an in-memory store")
	assert.NotSame(t, other, env.Blobs, "Bucket gives a second store")
}

// With both endpoints set, Open talks to them: here the fake's HTTP server
// and gofakes3, which like s3rver serve buckets by path.
func TestOpenWithEndpointsCreatesTheBucketAndUsesBoth(t *testing.T) {
	ddb := dynamotest.NewServer()
	t.Cleanup(ddb.Close)
	backend := s3mem.New()
	s3srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(s3srv.Close)
	t.Setenv(exampleenv.DynamoDBEndpointVar, ddb.URL)
	t.Setenv(exampleenv.S3EndpointVar, s3srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")

	ctx := context.Background()
	for range 2 { // the second Open finds the bucket there
		env, err := exampleenv.Open(ctx, exampleenv.Config{Bucket: "tablekit-examples"})
		require.NoError(t, err)
		assert.Nil(t, env.Fake, "no fake with endpoints set")
		assert.Contains(t, env.String(), ddb.URL)
		assert.Contains(t, env.String(), s3srv.URL)
		require.NoError(t, env.Blobs.Put(ctx, "k", strings.NewReader("v")), "put through the S3 endpoint")
		_, err = env.DB.ListTables(ctx, &dynamodb.ListTablesInput{})
		require.NoError(t, err, "ListTables through the DynamoDB endpoint")
	}
	_, err := backend.HeadObject("tablekit-examples", "k")
	assert.NoError(t, err, "the object is in the bucket on the endpoint")

	// A second bucket on the same endpoint.
	env, err := exampleenv.Open(ctx, exampleenv.Config{Bucket: "tablekit-examples"})
	require.NoError(t, err)
	reports, err := env.Bucket(ctx, "tablekit-reports")
	require.NoError(t, err)
	require.NoError(t, reports.Put(ctx, "r", strings.NewReader("report")))
	_, err = backend.HeadObject("tablekit-reports", "r")
	assert.NoError(t, err, "the object is in the second bucket")
}

func TestOpenAWSWithoutARegionSaysToSetAWSRegion(t *testing.T) {
	testenv.NoAWSConfig(t)
	_, err := exampleenv.Open(context.Background(), exampleenv.Config{AWS: true, Bucket: "b"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set AWS_REGION")
}
