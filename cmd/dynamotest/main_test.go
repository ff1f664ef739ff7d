package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startRun runs the command's server as c says on a free loopback port and
// returns its URL and a function that stops it and returns run's error.
func startRun(t *testing.T, c config) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, c, pw, slog.New(slog.NewTextHandler(io.Discard, nil)))
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		require.NoError(t, err, "no URL printed (run: %v)", <-done)
	}
	go io.Copy(io.Discard, pr)
	_, url, ok := strings.Cut(strings.TrimSpace(line), " at ")
	require.True(t, ok && strings.HasPrefix(url, "http://127.0.0.1:"), "printed %q, want the endpoint's URL", line)
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return errors.New("run did not return after its context ended")
		}
	}
	t.Cleanup(func() { _ = stop() })
	return url, stop
}

func onFreePort() config {
	c := defaultConfig()
	c.addr = "127.0.0.1:0"
	return c
}

func client(url, id, secret string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url),
		Region:       "eu-west-1",
		Credentials:  credentials.NewStaticCredentialsProvider(id, secret, ""),
		Retryer:      aws.NopRetryer{},
	})
}

func TestRunServesDynamoDBAtThePrintedURLAndStopsCleanly(t *testing.T) {
	url, stop := startRun(t, onFreePort())
	c := client(url, "any", "thing") // any region and any credentials work
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{"jobs"}, out.TableNames)
	require.NoError(t, stop(), "run returned an error after a clean shutdown")
	_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Error(t, err, "the endpoint still answers after shutdown")
}

func TestRunFailsOnAnAddressInUse(t *testing.T) {
	url, _ := startRun(t, onFreePort())
	c := defaultConfig()
	c.addr = strings.TrimPrefix(url, "http://")
	assert.Error(t, run(context.Background(), c, io.Discard, slog.Default()), "a second server on the same address started")
}

func TestRunListensOnLoopbackUnlessAllowedElsewhere(t *testing.T) {
	assert.True(t, strings.HasPrefix(defaultConfig().addr, "127.0.0.1:"), "default address %s", defaultConfig().addr)
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "192.0.2.1:0"} {
		c := defaultConfig()
		c.addr = addr
		err := run(context.Background(), c, io.Discard, slog.Default())
		assert.ErrorIs(t, err, errRemote, addr)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		assert.NoError(t, checkLoopback(addr, false), addr)
	}
	assert.NoError(t, checkLoopback("0.0.0.0:0", true), "-allow-remote")
}

func errorCode(t *testing.T, err error) string {
	t.Helper()
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	return ae.ErrorCode()
}

func TestRunRequireCredentialsAndKeysFile(t *testing.T) {
	c := onFreePort()
	c.requireCredentials = true
	url, _ := startRun(t, c)
	anonymous := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(url), Region: "eu-west-1",
		Credentials: aws.AnonymousCredentials{}, Retryer: aws.NopRetryer{}})
	_, err := anonymous.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.Equal(t, "MissingAuthenticationTokenException", errorCode(t, err))
	_, err = client(url, "any", "thing").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.NoError(t, err)

	keys := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(keys, []byte("# test keys\nAKIDTEST s3cret\n"), 0o600))
	c = onFreePort()
	c.keysFile = keys
	url, _ = startRun(t, c)
	_, err = client(url, "AKIDTEST", "s3cret").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.NoError(t, err)
	_, err = client(url, "AKIDTEST", "guess").ListTables(context.Background(), &dynamodb.ListTablesInput{})
	assert.Equal(t, "InvalidSignatureException", errorCode(t, err))
}

func TestRunRefusesABadKeysFile(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "# nothing\n", "malformed": "AKID\n"} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		c := onFreePort()
		c.keysFile = path
		assert.Error(t, run(context.Background(), c, io.Discard, slog.Default()), name)
	}
	c := onFreePort()
	c.keysFile = filepath.Join(dir, "missing")
	assert.Error(t, run(context.Background(), c, io.Discard, slog.Default()))
}

// TestRunPolicyAuthorizesEveryRequestPartiQLIncluded: with -policy, a
// request the policy does not allow is AccessDeniedException, by the
// statement's PartiQL action too; a bad policy file stops the command.
func TestRunPolicyAuthorizesEveryRequestPartiQLIncluded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.json")
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/jobs"
	require.NoError(t, os.WriteFile(path, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Action":["dynamodb:CreateTable","dynamodb:PutItem","dynamodb:PartiQLSelect"],"Resource":"`+arn+`"}]}`), 0o600))
	c := onFreePort()
	c.policyFile = path
	url, _ := startRun(t, c)
	db := client(url, "any", "thing")
	ctx := context.Background()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "1"}}})
	require.NoError(t, err)
	out, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "jobs" WHERE id = '1'`)})
	require.NoError(t, err)
	assert.Len(t, out.Items, 1)
	for name, call := range map[string]func() error{
		"dynamodb:PartiQLDelete": func() error {
			_, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`DELETE FROM "jobs" WHERE id = '1'`)})
			return err
		},
		"dynamodb:GetItem": func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "1"}}})
			return err
		},
	} {
		var api smithy.APIError
		require.ErrorAs(t, call(), &api, name)
		assert.Equal(t, "AccessDeniedException", api.ErrorCode(), name)
		assert.Contains(t, api.ErrorMessage(), "perform: "+name+" on resource: "+arn, name)
	}

	require.NoError(t, os.WriteFile(path, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotAction":"dynamodb:*","Resource":"*"}]}`), 0o600))
	err = run(context.Background(), c, io.Discard, slog.Default())
	assert.ErrorContains(t, err, "-policy", "a policy the fake cannot enforce faithfully is refused")
}

func TestRunEventualServesStaleEventuallyConsistentReads(t *testing.T) {
	c := onFreePort()
	c.eventual = time.Hour // the wall clock never reaches it during the test
	url, _ := startRun(t, c)
	cl := client(url, "any", "thing")
	ctx := context.Background()
	_, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "1"}}
	_, err = cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: key})
	require.NoError(t, err)

	stale, err := cl.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key})
	require.NoError(t, err)
	assert.Nil(t, stale.Item, "an eventually consistent read within the lag misses the write")
	fresh, err := cl.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.NotNil(t, fresh.Item)
}

func TestRunDataKeepsTheDatabaseAcrossRestarts(t *testing.T) {
	c := onFreePort()
	c.data = filepath.Join(t.TempDir(), "data")
	url, stop := startRun(t, c)
	ctx := context.Background()
	_, err := client(url, "a", "b").CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	_, err = client(url, "a", "b").PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"),
		Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "j1"}}})
	require.NoError(t, err)

	// A second server on the same directory is refused while the first runs.
	second := onFreePort()
	second.data = c.data
	err = run(ctx, second, io.Discard, slog.Default())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in use by another dynamotest")
	require.NoError(t, stop())

	url, _ = startRun(t, c)
	got, err := client(url, "a", "b").GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "j1"}}})
	require.NoError(t, err)
	assert.NotNil(t, got.Item, "the item written before the restart")
}

// A data directory that cannot be closed (its final snapshot fails) is the
// command's error, not a clean exit.
func TestRunReportsADataDirectoryItCouldNotClose(t *testing.T) {
	c := onFreePort()
	c.data = filepath.Join(t.TempDir(), "data")
	url, stop := startRun(t, c)
	_, err := client(url, "a", "b").CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(c.data), "the snapshot on Close has nowhere to go")
	err = stop()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "closing "+c.data)
}

func TestRunRefusesADataPathThatIsAFile(t *testing.T) {
	c := onFreePort()
	c.data = filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(c.data, []byte("x"), 0o644))
	err := run(context.Background(), c, io.Discard, slog.Default())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "it is a file")
}
