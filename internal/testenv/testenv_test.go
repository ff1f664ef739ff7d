package testenv_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

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
	if a == b {
		t.Fatalf("two calls gave the same name %q", a)
	}
	for _, n := range []string{a, b} {
		if !tableNameRE.MatchString(n) {
			t.Errorf("%q is not a valid DynamoDB table name", n)
		}
		if !strings.HasPrefix(n, "Orders-TestTableNameIsValidAndUniquePerCall-") {
			t.Errorf("%q does not name the base and the test", n)
		}
	}
}

func TestTableNameDiffersBetweenSubtests(t *testing.T) {
	names := map[string]bool{}
	for _, sub := range []string{"one", "two/three", "spaces and #symbols"} {
		t.Run(sub, func(t *testing.T) {
			n := testenv.TableName(t, "T")
			if !tableNameRE.MatchString(n) {
				t.Errorf("%q is not a valid DynamoDB table name", n)
			}
			names[n] = true
		})
	}
	if len(names) != 3 {
		t.Errorf("want 3 distinct names, got %v", names)
	}
}

func TestTableNameFitsLimitWithLongTestName(t *testing.T) {
	t.Run(strings.Repeat("x", 300), func(t *testing.T) {
		n := testenv.TableName(t, strings.Repeat("b", 40))
		if !tableNameRE.MatchString(n) {
			t.Errorf("%q (%d bytes) is not a valid DynamoDB table name", n, len(n))
		}
	})
}

func TestBucketNameIsValidForAnyTestName(t *testing.T) {
	for _, sub := range []string{"Upper/Case", strings.Repeat("long", 40), "dots.and_underscores"} {
		t.Run(sub, func(t *testing.T) {
			a, b := testenv.BucketName(t, "Blob_Store"), testenv.BucketName(t, "Blob_Store")
			if a == b {
				t.Errorf("two calls gave the same name %q", a)
			}
			for _, n := range []string{a, b} {
				if !bucketNameRE.MatchString(n) {
					t.Errorf("%q is not a valid bucket name", n)
				}
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
	if reached {
		t.Fatal("DynamoDB returned a client with the endpoint unset; want a skip")
	}
}

func TestS3SkipsWhenEndpointUnset(t *testing.T) {
	t.Setenv(testenv.S3EndpointVar, "")
	var reached bool
	t.Run("needs-s3", func(t *testing.T) {
		testenv.S3(t)
		reached = true
	})
	if reached {
		t.Fatal("S3 returned a client with the endpoint unset; want a skip")
	}
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
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() { _, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(name),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "7"}},
	})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	other := testenv.DynamoDB(t)
	out, err := other.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(name),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("GetItem from a second client: %v", err)
	}
	if n, ok := out.Item["n"].(*types.AttributeValueMemberN); !ok || n.Value != "7" {
		t.Fatalf("GetItem = %v, want n=7", out.Item)
	}

	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name + "-missing")})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Fatalf("DescribeTable of a missing table: err = %v, want *types.ResourceNotFoundException", err)
	}
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
		if err != nil {
			t.Fatalf("PutObject %d: %v", i, err)
		}
	}
	got, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("logs/03.txt")})
	if err != nil {
		t.Fatalf("GetObject: %v", err)
	}
	body, err := io.ReadAll(got.Body)
	got.Body.Close()
	if err != nil || string(body) != "line 3\n" {
		t.Fatalf("GetObject body = %q, %v; want %q", body, err, "line 3\n")
	}

	var keys []string
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket), Prefix: aws.String("logs/"), MaxKeys: aws.Int32(2),
	})
	var pageCount int
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("ListObjectsV2 page %d: %v", pageCount+1, err)
		}
		pageCount++
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	if len(keys) != objects || pageCount != 3 {
		t.Fatalf("listed %d keys in %d pages (%v); want %d keys in 3 pages", len(keys), pageCount, keys, objects)
	}
}
