package exampleenv_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
)

func TestOpenWithoutEndpointsIsInMemory(t *testing.T) {
	t.Setenv(exampleenv.DynamoDBEndpointVar, "")
	t.Setenv(exampleenv.S3EndpointVar, "")
	env, err := exampleenv.Open(context.Background(), exampleenv.Config{Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if env.Fake == nil || env.DB != env.Fake {
		t.Fatalf("DB is %T, want the in-memory fake", env.DB)
	}
	if _, ok := env.Blobs.(*blobstore.Memory); !ok {
		t.Fatalf("blobs are %T, want in-memory", env.Blobs)
	}
	if got := env.String(); got != "DynamoDB: in-memory fake; blobs: in-memory" {
		t.Fatalf("String() = %q", got)
	}
	other, err := env.Bucket(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := other.(*blobstore.Memory); !ok || other == env.Blobs {
		t.Fatalf("Bucket gave %T, want a second in-memory store", other)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		if env.Fake != nil || !strings.Contains(env.String(), ddb.URL) || !strings.Contains(env.String(), s3srv.URL) {
			t.Fatalf("env %s, want both endpoints", env)
		}
		if err := env.Blobs.Put(ctx, "k", strings.NewReader("v")); err != nil {
			t.Fatalf("put through the S3 endpoint: %v", err)
		}
		if _, err := env.DB.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("ListTables through the DynamoDB endpoint: %v", err)
		}
	}
	if _, err := backend.HeadObject("tablekit-examples", "k"); err != nil {
		t.Fatalf("the object is not in the bucket on the endpoint: %v", err)
	}

	// A second bucket on the same endpoint.
	env, err := exampleenv.Open(ctx, exampleenv.Config{Bucket: "tablekit-examples"})
	if err != nil {
		t.Fatal(err)
	}
	reports, err := env.Bucket(ctx, "tablekit-reports")
	if err != nil {
		t.Fatal(err)
	}
	if err := reports.Put(ctx, "r", strings.NewReader("report")); err != nil {
		t.Fatal(err)
	}
	if _, err := backend.HeadObject("tablekit-reports", "r"); err != nil {
		t.Fatalf("the object is not in the second bucket: %v", err)
	}
}
