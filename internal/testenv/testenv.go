package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Environment variables naming the services' endpoints.
const (
	DynamoDBEndpointVar = "TABLEKIT_DYNAMODB_ENDPOINT"
	S3EndpointVar       = "TABLEKIT_S3_ENDPOINT"
)

// Region is the region every test client signs for. DynamoDB Local and
// s3rver accept any region; a fixed one keeps signatures reproducible.
const Region = "us-east-1"

// S3AccessKey and S3SecretKey are s3rver's built-in credentials; it rejects
// requests signed with any others.
const (
	S3AccessKey = "S3RVER"
	S3SecretKey = "S3RVER"
)

// dynamoAccessKey is arbitrary: DynamoDB Local started with -sharedDb keeps
// one database whatever the key, so every test client sees the same tables.
const (
	dynamoAccessKey = "tablekit"
	dynamoSecretKey = "tablekit"
)

// DynamoDBEndpoint returns TABLEKIT_DYNAMODB_ENDPOINT, or skips the test
// with the reason when it is unset.
func DynamoDBEndpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv(DynamoDBEndpointVar)
	if ep == "" {
		t.Skip(DynamoDBEndpointVar + " not set: this test needs DynamoDB Local " +
			"(.ci/run starts it; locally: source .ci/services; start_services)")
	}
	return ep
}

// S3Endpoint returns TABLEKIT_S3_ENDPOINT, or skips the test with the
// reason when it is unset.
func S3Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv(S3EndpointVar)
	if ep == "" {
		t.Skip(S3EndpointVar + " not set: this test needs s3rver " +
			"(.ci/run starts it; locally: source .ci/services; start_services)")
	}
	return ep
}

// DynamoDB returns a client for the DynamoDB at TABLEKIT_DYNAMODB_ENDPOINT
// (static credentials, region us-east-1), or skips the test when the
// variable is unset.
func DynamoDB(t testing.TB) *dynamodb.Client {
	t.Helper()
	return NewDynamoDB(DynamoDBEndpoint(t))
}

// NewDynamoDB returns a client for the DynamoDB at endpoint with the same
// settings as [DynamoDB], for programs (examples, benchmarks) that are not
// tests.
func NewDynamoDB(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(dynamoAccessKey, dynamoSecretKey, ""),
	})
}

// S3 returns a path-style client for the s3rver at TABLEKIT_S3_ENDPOINT,
// signed with s3rver's credentials, or skips the test when the variable is
// unset.
func S3(t testing.TB) *s3.Client {
	t.Helper()
	return NewS3(S3Endpoint(t))
}

// NewS3 returns a client for the S3-compatible server at endpoint with the
// same settings as [S3].
func NewS3(endpoint string) *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(S3AccessKey, S3SecretKey, ""),
		// s3rver serves buckets by path only (started with --no-vhost-buckets).
		UsePathStyle: true,
		// s3rver predates flexible checksums: it cannot read the aws-chunked
		// bodies with CRC trailers that the SDK sends by default, and sends
		// no checksums back.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// TableName returns a DynamoDB table name unique to this test and this run:
// base, the test's name and a random suffix, in DynamoDB's alphabet
// (a-z A-Z 0-9 _ - .) and within its 255-byte limit.
//
// When TABLEKIT_DYNAMODB_ENDPOINT is set, a table of that name is deleted
// from that DynamoDB when the test ends (after the test's own cleanups, which
// ran later-registered first), whoever created it. Tables left behind are not
// only clutter on DynamoDB Local: it runs each TTL-enabled table's expiry job
// on the same 10-thread pool as index builds, and that job never ends while
// the table exists, so a handful of leftover TTL tables stops every later
// UpdateTable index create or delete of the run (see dynamotest/conformance).
func TableName(t testing.TB, base string) string {
	t.Helper()
	name := uniqueName(base, t.Name(), 255, false)
	if ep := os.Getenv(DynamoDBEndpointVar); ep != "" {
		t.Cleanup(func() { deleteTable(t, NewDynamoDB(ep), name) })
	}
	return name
}

// Now is the instant a test's stopped clock starts at when it writes to
// DynamoDB Local: the real time, in whole seconds (as a ttl is). A fixed
// date in the past would do on the fake, but Local deletes items whose ttl
// has passed on its own clock, whenever its TTL job gets a thread, so items
// stamped from such a date vanish while the test reads them.
func Now() time.Time {
	return time.Now().UTC().Truncate(time.Second)
}

// deleteTable deletes the named table if it exists; a table the test never
// created (ResourceNotFoundException) or one it protected from deletion is
// left as it is.
func deleteTable(t testing.TB, client *dynamodb.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	var missing *types.ResourceNotFoundException
	if err != nil && !errors.As(err, &missing) {
		t.Logf("testenv: delete table %q: %v", name, err)
	}
}

// Bucket creates an empty bucket whose name is unique to this test and this
// run, on the s3rver at TABLEKIT_S3_ENDPOINT, and returns its name (skipping
// the test when the variable is unset). The bucket and its objects are
// removed when the test ends.
func Bucket(t testing.TB, base string) string {
	t.Helper()
	client := S3(t)
	name := BucketName(t, base)
	ctx := context.Background()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("testenv: create bucket %q: %v", name, err)
	}
	t.Cleanup(func() { removeBucket(t, client, name) })
	return name
}

// BucketName returns an S3 bucket name unique to this test and this run,
// within S3's rules (3 to 63 characters: lower-case letters, digits and
// hyphens). It creates nothing; see [Bucket].
func BucketName(t testing.TB, base string) string {
	t.Helper()
	return uniqueName(base, t.Name(), 63, true)
}

func removeBucket(t testing.TB, client *s3.Client, name string) {
	ctx := context.Background()
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(name)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Logf("testenv: list bucket %q for cleanup: %v", name, err)
			return
		}
		for _, obj := range page.Contents {
			if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(name), Key: obj.Key}); err != nil {
				t.Logf("testenv: delete %q from bucket %q: %v", aws.ToString(obj.Key), name, err)
			}
		}
	}
	if _, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Logf("testenv: delete bucket %q: %v", name, err)
	}
}

// uniqueName joins base, the test name and 8 random hex digits with "-",
// replacing characters outside the allowed alphabet and trimming the test
// name so the whole fits in max bytes.
func uniqueName(base, testName string, max int, lower bool) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("testenv: crypto/rand: " + err.Error())
	}
	suffix := hex.EncodeToString(b[:])
	clean := func(s string) string {
		if lower {
			s = strings.ToLower(s)
		}
		var sb strings.Builder
		for _, r := range s {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
				sb.WriteRune(r)
			case !lower && (r >= 'A' && r <= 'Z' || r == '_' || r == '.'):
				sb.WriteRune(r)
			default:
				sb.WriteByte('-')
			}
		}
		return strings.Trim(sb.String(), "-")
	}
	base, testName = clean(base), clean(testName)
	if base == "" {
		base = "tablekit"
	}
	// Room for base, two separators and the suffix.
	room := max - len(base) - len(suffix) - 2
	if room < 0 {
		base = base[:max-len(suffix)-1]
		return base + "-" + suffix
	}
	if len(testName) > room {
		testName = strings.Trim(testName[:room], "-")
	}
	if testName == "" {
		return base + "-" + suffix
	}
	return base + "-" + testName + "-" + suffix
}

// NoAWSConfig empties the AWS configuration chain for the test: no region,
// no credentials, no profile or shared files, no container or instance
// credentials. Tests of what a program says on a machine without AWS
// configuration start here.
func NoAWSConfig(t testing.TB) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
	} {
		t.Setenv(k, v)
	}
}

// Describer is what WaitActive needs of a backend: the fake, DynamoDB
// Local's client or any table.API.
type Describer interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// WaitActive waits, up to 30 seconds, until the table and every global
// secondary index are ACTIVE: DynamoDB Local, like DynamoDB, refuses the
// next UpdateTable while an update is in progress.
func WaitActive(t testing.TB, db Describer, name string) {
	t.Helper()
	active := func() bool {
		d, err := db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil || d.Table.TableStatus != types.TableStatusActive {
			return false
		}
		for _, ix := range d.Table.GlobalSecondaryIndexes {
			if ix.IndexStatus != types.IndexStatusActive {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(30 * time.Second); !active(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("table %s is not ACTIVE after 30s", name)
		}
	}
}
