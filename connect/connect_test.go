package connect_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/connect"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestOpenInMemoryServesAStore(t *testing.T) {
	ctx := context.Background()
	conn, err := connect.Open(ctx, connect.InMemory())
	require.NoError(t, err)
	require.NotNil(t, conn.Fake)
	assert.Same(t, conn.Fake, conn.DB)
	assert.Equal(t, "in-memory fake", conn.String())
	store, err := tasks.NewStore(conn.DB, nil)
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	_, _, err = store.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{}`)})
	assert.NoError(t, err)
}

func TestOpenEndpointNeedsNoRegionOrCredentials(t *testing.T) {
	testenv.NoAWSConfig(t)
	srv := dynamotest.NewServer()
	t.Cleanup(srv.Close)
	conn, err := connect.Open(context.Background(), connect.Endpoint(srv.URL))
	require.NoError(t, err)
	assert.Equal(t, srv.URL, conn.String())
	assert.Equal(t, "us-east-1", conn.Config.Region, "an emulator takes any region")
	_, err = conn.DB.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.NoError(t, err)
}

func TestOpenEndpointRetriesThrottledCalls(t *testing.T) {
	testenv.NoAWSConfig(t)
	srv := dynamotest.NewServer()
	t.Cleanup(srv.Close)
	conn, err := connect.Open(context.Background(), connect.Endpoint(srv.URL))
	require.NoError(t, err)
	// dynamotest.NewClient turns the SDK's retries off for tests; a
	// connection keeps them, as a service needs.
	srv.DB.Inject(dynamotest.Throttle("ListTables", 1))
	_, err = conn.DB.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err, "the SDK retried the throttled call")
	assert.Equal(t, 2, srv.DB.Calls("ListTables"))

	once, err := connect.Open(context.Background(), connect.Endpoint(srv.URL), connect.RetryMaxAttempts(1))
	require.NoError(t, err)
	srv.DB.Inject(dynamotest.Throttle("ListTables", 1))
	_, err = once.DB.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.Error(t, err, "one attempt: the throttle reaches the caller")
}

func TestOpenAWSNamesWhatIsMissing(t *testing.T) {
	testenv.NoAWSConfig(t)
	_, err := connect.Open(context.Background())
	assert.ErrorIs(t, err, connect.ErrNoRegion)
	assert.Contains(t, err.Error(), "set AWS_REGION")

	_, err = connect.Open(context.Background(), connect.Region("eu-west-1"))
	assert.ErrorIs(t, err, connect.ErrNoCredentials)

	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	conn, err := connect.Open(context.Background(), connect.Region("eu-west-1"))
	require.NoError(t, err, "Open sends no request")
	assert.Equal(t, "AWS (eu-west-1)", conn.String())
}

func TestOpenWithAWSConfigUsesItAsGiven(t *testing.T) {
	testenv.NoAWSConfig(t)
	srv := dynamotest.NewServer()
	t.Cleanup(srv.Close)
	cfg := aws.Config{Region: "ap-south-1", Credentials: aws.AnonymousCredentials{}}
	conn, err := connect.Open(context.Background(), connect.AWSConfig(cfg), connect.Endpoint(srv.URL))
	require.NoError(t, err)
	assert.Equal(t, "ap-south-1", conn.Config.Region)
	_, err = connect.Open(context.Background(), connect.AWSConfig(aws.Config{}))
	assert.ErrorIs(t, err, connect.ErrNoRegion)
}

func TestOpenRefusesBadOptions(t *testing.T) {
	for name, opts := range map[string][]func(*connect.Options){
		"endpoint without scheme":  {connect.Endpoint("localhost:8000")},
		"endpoint of another kind": {connect.Endpoint("ftp://127.0.0.1")},
		"endpoint with a query":    {connect.Endpoint("http://127.0.0.1:8000/?x=1")},
		"memory and endpoint":      {connect.InMemory(), connect.Endpoint("http://127.0.0.1:8000")},
		"memory and region":        {connect.InMemory(), connect.Region("eu-west-1")},
		"negative attempts":        {connect.RetryMaxAttempts(-1)},
	} {
		conn, err := connect.Open(context.Background(), opts...)
		assert.Nil(t, conn, name)
		var ie *table.InputError
		assert.True(t, errors.As(err, &ie), "%s: %v", name, err)
		assert.ErrorIs(t, err, table.ErrInvalidInput, name)
	}
	_, err := connect.Open(nil)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
}

func TestOpenIntegrationAgainstDynamoDBLocal(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	testenv.NoAWSConfig(t)
	conn, err := connect.Open(context.Background(), connect.Endpoint(endpoint))
	require.NoError(t, err)
	name := testenv.TableName(t, "connect")
	store, err := tasks.NewStore(conn.DB, nil, tasks.TableName(name))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(context.Background()))
	task, _, err := store.Submit(context.Background(), tasks.SubmitInput{Payload: []byte(`{}`)})
	require.NoError(t, err)
	got, err := store.Get(context.Background(), task.ID)
	require.NoError(t, err)
	assert.Equal(t, task.ID, got.ID)
}
