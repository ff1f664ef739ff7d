// Package exampleenv connects tablekit's example programs to a DynamoDB and
// a blob store, the same way for every example. DynamoDB is reached through
// package connect, as the tablekit CLI and services reach it:
//
//   - By default: dynamotest's in-memory fake and an in-memory blob store.
//     No AWS account, no setup.
//   - TABLEKIT_DYNAMODB_ENDPOINT (e.g. DynamoDB Local) and
//     TABLEKIT_S3_ENDPOINT (e.g. s3rver): those endpoints instead, each
//     independently. S3 uses path-style addressing. Credentials and region
//     come from the standard AWS chain (without EC2 instance metadata);
//     where the chain has none, the local emulators' own are used (any key
//     for DynamoDB Local, S3RVER/S3RVER for s3rver), and the region
//     defaults to us-east-1.
//   - TABLEKIT_POLICY=<file>: every DynamoDB call is first checked against
//     that IAM policy (see PolicyVar), whichever DynamoDB is used.
//   - -aws: the default AWS configuration chain for both (credentials,
//     region, AWS_ENDPOINT_URL_*), ignoring the TABLEKIT variables. With no
//     region configured, Open fails saying to set AWS_REGION.
//
// The bucket is created when missing (Env.Bucket opens more beside it);
// tables are the example's to create (table.Schema.EnsureTable), since only
// the example knows its schema. Call Open once per program: each call in
// memory mode starts its own fake.
//
// A typical main:
//
//	useAWS := flag.Bool("aws", false, exampleenv.AWSFlagUsage)
//	flag.Parse()
//	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: "tablekit-examples"})
//	...
//	fmt.Println("using", env)
//	store := jobs.NewStore(env.DB, env.Blobs)
package exampleenv

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/connect"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

// The environment variables naming local endpoints.
const (
	DynamoDBEndpointVar = "TABLEKIT_DYNAMODB_ENDPOINT"
	S3EndpointVar       = "TABLEKIT_S3_ENDPOINT"
)

// PolicyVar names an IAM policy file (docs/<store>/iam-policy.json, as
// cmd/datamodel writes it). When set, every DynamoDB call of the example
// on the in-memory fake is checked against the policy first
// (dynamotest.Enforce, with the fake's region and account: generate the
// policy with dynamotest.Env) and one outside it fails with
// AccessDeniedException: running an example this way shows the store's
// least-privilege policy is enough for its flows.
const PolicyVar = "TABLEKIT_POLICY"

// enforcePolicy wraps env.DB in the policy PolicyVar names, if any.
func enforcePolicy(env *Env) error {
	path := os.Getenv(PolicyVar)
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("exampleenv: %s: %w", PolicyVar, err)
	}
	policy, err := iam.Parse(data)
	if err != nil {
		return fmt.Errorf("exampleenv: %s=%s: %w", PolicyVar, path, err)
	}
	if env.Fake == nil {
		return fmt.Errorf("exampleenv: %s is enforced on the in-memory fake only", PolicyVar)
	}
	enforced, err := dynamotest.Enforce(env.Fake, policy)
	if err != nil {
		return fmt.Errorf("exampleenv: %s=%s: %w", PolicyVar, path, err)
	}
	env.DB = enforced
	env.DynamoDBWhere += " (IAM policy " + path + " enforced)"
	return nil
}

// AWSFlagUsage is the usage text of the conventional -aws flag.
const AWSFlagUsage = "use the default AWS configuration chain instead of the in-memory fake or the TABLEKIT_*_ENDPOINT emulators"

// Config says where an example runs.
type Config struct {
	// AWS uses the default AWS configuration chain for DynamoDB and S3.
	AWS bool
	// Bucket is the S3 bucket for blobs, created when missing. Unused with
	// the in-memory blob store.
	Bucket string
}

// Env is what an example talks to.
type Env struct {
	DB    table.API
	Blobs blobstore.Store
	// Streams reads DynamoDB Streams where DB is: the fake itself, a
	// streams client on the same endpoint, or AWS's. (A TABLEKIT_POLICY
	// applies to DB only.)
	Streams changes.StreamsAPI
	// Fake is the in-memory DynamoDB when DB is one (nil otherwise), so an
	// example can move its clock.
	Fake *dynamotest.DB
	// DynamoDBWhere and S3Where say where each service is, for printing.
	DynamoDBWhere, S3Where string

	s3        *s3.Client // nil when Blobs is in memory
	pathStyle bool
}

// Bucket opens another bucket beside Blobs, on the same S3 endpoint (created
// when missing), or a fresh in-memory store when Blobs is in memory. Use it
// rather than a second Open, which would also start a second fake DynamoDB.
func (e *Env) Bucket(ctx context.Context, name string) (blobstore.Store, error) {
	if e.s3 == nil {
		return blobstore.NewMemory(), nil
	}
	return openS3(ctx, e.s3, name, e.pathStyle)
}

// String describes the environment: "DynamoDB: in-memory fake; blobs: in-memory".
func (e *Env) String() string {
	return "DynamoDB: " + e.DynamoDBWhere + "; blobs: " + e.S3Where
}

// Open connects to the services cfg and the environment select.
func Open(ctx context.Context, cfg Config) (*Env, error) {
	env := &Env{}
	if cfg.AWS {
		conn, err := connect.Open(ctx)
		switch {
		case errors.Is(err, connect.ErrNoRegion):
			return nil, errors.New("exampleenv: -aws: no AWS region: set AWS_REGION (e.g. AWS_REGION=eu-west-1)")
		case err != nil:
			return nil, fmt.Errorf("exampleenv: -aws: %w", err)
		}
		env.DB, env.Streams, env.DynamoDBWhere = conn.DB, conn.Streams, conn.String()
		env.s3 = s3.NewFromConfig(conn.Config)
		blobs, err := openS3(ctx, env.s3, cfg.Bucket, false)
		if err != nil {
			return nil, err
		}
		env.Blobs, env.S3Where = blobs, "s3://"+cfg.Bucket
		return env, nil
	}

	var opts []func(*connect.Options)
	if ep := os.Getenv(DynamoDBEndpointVar); ep != "" {
		opts = append(opts, connect.Endpoint(ep))
	} else {
		opts = append(opts, connect.InMemory())
	}
	conn, err := connect.Open(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("exampleenv: %w", err)
	}
	env.DB, env.Streams, env.Fake, env.DynamoDBWhere = conn.DB, conn.Streams, conn.Fake, conn.String()
	if err := enforcePolicy(env); err != nil {
		return nil, err
	}

	if ep := os.Getenv(S3EndpointVar); ep != "" {
		client, err := s3blob.NewClient(ctx, s3blob.Endpoint(ep))
		if err != nil {
			return nil, fmt.Errorf("exampleenv: %w", err)
		}
		env.s3, env.pathStyle = client, true
		blobs, err := openS3(ctx, client, cfg.Bucket, true)
		if err != nil {
			return nil, err
		}
		env.Blobs, env.S3Where = blobs, ep+"/"+cfg.Bucket
	} else {
		env.Blobs, env.S3Where = blobstore.NewMemory(), "in-memory"
	}
	return env, nil
}

// openS3 returns the bucket's store, creating the bucket when it is missing.
func openS3(ctx context.Context, client *s3.Client, bucket string, pathStyle bool) (*s3blob.Store, error) {
	if bucket == "" {
		return nil, errors.New("exampleenv: no bucket name")
	}
	if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		var nf *types.NotFound
		if !errors.As(err, &nf) {
			return nil, fmt.Errorf("exampleenv: bucket %s: %w", bucket, err)
		}
		in := &s3.CreateBucketInput{Bucket: aws.String(bucket)}
		// Outside us-east-1 S3 wants the region named again.
		if r := client.Options().Region; r != "" && r != "us-east-1" {
			in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(r)}
		}
		_, err := client.CreateBucket(ctx, in)
		var owned *types.BucketAlreadyOwnedByYou
		if err != nil && !errors.As(err, &owned) {
			return nil, fmt.Errorf("exampleenv: create bucket %s: %w", bucket, err)
		}
	}
	return s3blob.New(client, bucket, func(o *s3blob.Options) { o.PathStyle = pathStyle })
}
