// Package awsconfig loads the AWS SDK configuration the same way for every
// tablekit package that builds a client (connect for DynamoDB and its
// streams, blobstore/s3blob for S3), so the CLI, the examples and services
// reach AWS, an emulator on an endpoint, and report a missing region or
// missing credentials, identically.
//
// It lives apart from the stores on purpose: the SDK's configuration loader
// brings STS, SSO and the instance-metadata client, which a store's
// importers should not build unless they ask for a connection.
package awsconfig

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/smithy-go/logging"
)

// LocalRegion is the region signed for when an endpoint is named and the
// configuration chain has none: emulators accept any.
const LocalRegion = "us-east-1"

// ErrNoRegion: AWS was asked for and neither the options nor the
// configuration chain (AWS_REGION, the shared config file's profile) name a
// region.
var ErrNoRegion = errors.New("no AWS region: set AWS_REGION (or the region option)")

// ErrNoCredentials: AWS was asked for and the configuration chain found no
// credentials (environment, shared files, SSO, container or instance role).
var ErrNoCredentials = errors.New("no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run where a role provides them")

// Settings say what to load.
type Settings struct {
	// Region overrides the chain's region.
	Region string
	// Local: the client talks to an endpoint (an emulator, a test server),
	// not to AWS. The region defaults to LocalRegion; credentials come from
	// the chain without probing the EC2 instance metadata service (slow,
	// and noisy off EC2), and are Key/Secret where the chain has none.
	Local bool
	// Key and Secret are the placeholder credentials of a Local endpoint
	// (DynamoDB Local takes any; s3rver wants its own, S3RVER).
	Key, Secret string
	// Logger receives the SDK's own messages; nil drops them (they are
	// warnings an operator cannot act on, printed on every command: the
	// IMDSv1 fallback, response checksums an emulator does not send).
	Logger logging.Logger
	// RetryMaxAttempts is the SDK retryer's attempts per request; 0 keeps
	// the SDK's standard retryer (3 attempts, backoff with jitter).
	RetryMaxAttempts int
}

// Load loads the default configuration chain as s says. For AWS (not
// Local) it checks, before any request, that a region and credentials are
// there, and fails with ErrNoRegion or ErrNoCredentials otherwise.
func Load(ctx context.Context, s Settings) (aws.Config, error) {
	logger := s.Logger
	if logger == nil {
		logger = logging.Nop{}
	}
	opts := []func(*config.LoadOptions) error{
		config.WithLogger(logger),
		config.WithLogConfigurationWarnings(s.Logger != nil),
	}
	if s.Region != "" {
		opts = append(opts, config.WithRegion(s.Region))
	}
	if s.RetryMaxAttempts > 0 {
		opts = append(opts, config.WithRetryMaxAttempts(s.RetryMaxAttempts))
	}
	if s.Local {
		opts = append(opts,
			config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
			// Emulators predate flexible checksums: they cannot read the
			// SDK's aws-chunked bodies and send no checksums back.
			config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	if s.Local {
		if cfg.Region == "" {
			cfg.Region = LocalRegion
		}
		if cfg.Credentials == nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider(s.Key, s.Secret, "")
		} else if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider(s.Key, s.Secret, "")
		}
		return cfg, nil
	}
	if cfg.Region == "" {
		return aws.Config{}, ErrNoRegion
	}
	if cfg.Credentials == nil {
		return aws.Config{}, ErrNoCredentials
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		if ctx.Err() != nil {
			return aws.Config{}, ctx.Err()
		}
		return aws.Config{}, fmt.Errorf("%w (%s)", ErrNoCredentials, firstClause(err))
	}
	return cfg, nil
}

// firstClause is the SDK's reason without the request dump the SDK appends
// after it ("failed to refresh cached credentials, no EC2 IMDS role found,
// operation error ec2imds: GetMetadata, http response error ...").
func firstClause(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ", operation error"); i > 0 {
		msg = msg[:i]
	}
	return msg
}
