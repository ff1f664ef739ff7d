package s3blob

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/tablekit/tablekit/internal/awsconfig"
)

// ErrNoRegion: AWS was asked for and no region was given or configured.
// It is connect.ErrNoRegion, so one errors.Is covers both clients.
var ErrNoRegion = awsconfig.ErrNoRegion

// ErrNoCredentials: AWS was asked for and the configuration chain found no
// credentials. It is connect.ErrNoCredentials.
var ErrNoCredentials = awsconfig.ErrNoCredentials

// ClientOptions say which S3 a client reaches.
type ClientOptions struct {
	// Endpoint is the URL of an S3-compatible server (s3rver, MinIO,
	// gofakes3); "" means AWS. With an endpoint, the client addresses
	// buckets by path and asks for checksums only where S3 requires them
	// (such servers rarely resolve bucket host names, and some predate
	// flexible checksums); the region defaults to us-east-1 and
	// credentials, where the chain has none, to s3rver's (S3RVER/S3RVER).
	Endpoint string
	// Region overrides the configuration chain's.
	Region string
	// PathStyle, when set, overrides the endpoint's default addressing.
	PathStyle *bool
	// Logger receives the SDK's own log messages; nil drops them.
	Logger logging.Logger
}

// NewClient returns an S3 client, loading the AWS configuration the way
// package connect does for DynamoDB: for AWS, the default chain, failing
// with ErrNoRegion or ErrNoCredentials before any request; for an
// endpoint, the chain without instance metadata and local placeholders
// where it has nothing. The SDK's standard retries are kept.
func NewClient(ctx context.Context, opts ...func(*ClientOptions)) (*s3.Client, error) {
	var o ClientOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if ctx == nil {
		return nil, inputError("ctx", "nil", "pass context.Background() or a request's context")
	}
	if o.Endpoint != "" {
		if err := checkEndpoint(o.Endpoint); err != nil {
			return nil, err
		}
	}
	cfg, err := awsconfig.Load(ctx, awsconfig.Settings{
		Region: o.Region, Local: o.Endpoint != "", Key: "S3RVER", Secret: "S3RVER", Logger: o.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("s3blob: %w", err)
	}
	pathStyle := o.Endpoint != ""
	if o.PathStyle != nil {
		pathStyle = *o.PathStyle
	}
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = pathStyle
	}), nil
}

// Endpoint sets ClientOptions.Endpoint.
func Endpoint(url string) func(*ClientOptions) { return func(o *ClientOptions) { o.Endpoint = url } }

// Region sets ClientOptions.Region.
func Region(region string) func(*ClientOptions) { return func(o *ClientOptions) { o.Region = region } }
