package testenv_test

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/internal/testenv"
)

// DynamoDB's table-name rule: 3 to 255 of a-z A-Z 0-9 _ - .
var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

// S3's bucket-name rule as far as we generate names: lower-case letters,
// digits and hyphens, starting and ending with a letter or digit.
var bucketNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)

func TestTableNameIsValidAndUniquePerCall(t *testing.T) {
	a := testenv.TableName(t, "Orders")
	b := testenv.TableName(t, "Orders")
	require.NotEqual(t, b, a, "two calls gave the same name %q", a)
	for _, n := range []string{a, b} {
		assert.True(t, tableNameRE.MatchString(n), "%q is not a valid DynamoDB table name", n)
		assert.True(t, strings.HasPrefix(n, "Orders-TestTableNameIsValidAndUniquePerCall-"), "%q does not name the base and the test", n)
	}
}

func TestTableNameDiffersBetweenSubtests(t *testing.T) {
	names := map[string]bool{}
	for _, sub := range []string{"one", "two/three", "spaces and #symbols"} {
		t.Run(sub, func(t *testing.T) {
			n := testenv.TableName(t, "T")
			assert.True(t, tableNameRE.MatchString(n), "%q is not a valid DynamoDB table name", n)
			names[n] = true
		})
	}
	assert.Equal(t, 3, len(names), "want 3 distinct names, got %v", names)
}

func TestTableNameFitsLimitWithLongTestName(t *testing.T) {
	t.Run(strings.Repeat("x", 300), func(t *testing.T) {
		n := testenv.TableName(t, strings.Repeat("b", 40))
		assert.True(t, tableNameRE.MatchString(n), "%q (%d bytes) is not a valid DynamoDB table name", n, len(n))
	})
}

func TestBucketNameIsValidForAnyTestName(t *testing.T) {
	for _, sub := range []string{"Upper/Case", strings.Repeat("long", 40), "dots.and_underscores"} {
		t.Run(sub, func(t *testing.T) {
			a, b := testenv.BucketName(t, "Blob_Store"), testenv.BucketName(t, "Blob_Store")
			assert.NotEqual(t, b, a, "two calls gave the same name %q", a)
			for _, n := range []string{a, b} {
				assert.True(t, bucketNameRE.MatchString(n), "%q is not a valid bucket name", n)
			}
		})
	}
}

func TestDynamoDBSkipsWhenEndpointUnset(t *testing.T) {
	t.Setenv(testenv.DynamoDBEndpointVar, "")
	var reached bool
	t.Run("needs-dynamodb", func(t *testing.T) {
		testenv.DynamoDB(t)
		reached = true
	})
	require.False(t, reached, "DynamoDB returned a client with the endpoint unset; want a skip")
}

func TestS3SkipsWhenEndpointUnset(t *testing.T) {
	t.Setenv(testenv.S3EndpointVar, "")
	var reached bool
	t.Run("needs-s3", func(t *testing.T) {
		testenv.S3(t)
		reached = true
	})
	require.False(t, reached, "S3 returned a client with the endpoint unset; want a skip")
}

// TestIntegrationDynamoDBCreatesAndReadsTable checks the client settings
// against the real DynamoDB Local: signing, region, and that a table made
// by one client is seen by another (-sharedDb).
func TestIntegrationDynamoDBCreatesAndReadsTable(t *testing.T) {
	db := testenv.DynamoDB(t)
	ctx := context.Background()
	name := testenv.TableName(t, "testenv")
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err, "CreateTable")
	t.Cleanup(func() { _, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(name),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "7"}},
	})
	require.NoError(t, err, "PutItem")
	other := testenv.DynamoDB(t)
	out, err := other.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(name),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err, "GetItem from a second client")
	require.Equal(t, &types.AttributeValueMemberN{Value: "7"}, out.Item["n"], "GetItem from a second client")

	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name + "-missing")})
	var rnf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &rnf, "DescribeTable of a missing table")
}

// TestIntegrationTableNamesTableIsDeletedWhenTheTestEnds: a table a test
// made under a TableName name is gone once the test is over, TTL and all, so
// a run leaves no TTL tables holding DynamoDB Local's background threads.
func TestIntegrationTableNamesTableIsDeletedWhenTheTestEnds(t *testing.T) {
	db := testenv.DynamoDB(t)
	ctx := context.Background()
	var name string
	t.Run("makes a TTL table", func(t *testing.T) {
		name = testenv.TableName(t, "testenv")
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		})
		require.NoError(t, err, "CreateTable")
		_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
		require.NoError(t, err, "UpdateTimeToLive")
	})
	require.NotEmpty(t, name)
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var rnf *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &rnf, "DescribeTable after the test that made the table ended")
}

// TestIntegrationS3BucketPutGetAndPaginatedList checks the S3 client
// settings against the real s3rver: path-style addressing, its credentials,
// plain (non-chunked) uploads, and paginated listing, which fails when s3rver
// runs without node's --openssl-legacy-provider.
func TestIntegrationS3BucketPutGetAndPaginatedList(t *testing.T) {
	client := testenv.S3(t)
	bucket := testenv.Bucket(t, "testenv")
	ctx := context.Background()

	const objects = 5
	for i := range objects {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:      aws.String(bucket),
			Key:         aws.String(fmt.Sprintf("logs/%02d.txt", i)),
			Body:        strings.NewReader(fmt.Sprintf("line %d\n", i)),
			ContentType: aws.String("text/plain"),
		})
		require.NoError(t, err, "PutObject %d", i)
	}
	got, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("logs/03.txt")})
	require.NoError(t, err, "GetObject")
	body, err := io.ReadAll(got.Body)
	got.Body.Close()
	require.NoError(t, err, "GetObject body")
	require.Equal(t, "line 3\n", string(body))

	var keys []string
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket), Prefix: aws.String("logs/"), MaxKeys: aws.Int32(2),
	})
	var pageCount int
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		require.NoError(t, err, "ListObjectsV2 page %d", pageCount+1)
		pageCount++
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	require.Len(t, keys, objects, "listed %v", keys)
	require.Equal(t, 3, pageCount, "pages")
}
