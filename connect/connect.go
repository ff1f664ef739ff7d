package connect

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go/logging"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/awsconfig"
	"github.com/tablekit/tablekit/table"
)

// ErrNoRegion: AWS was asked for and no region was given or configured
// (AWS_REGION, the shared config file's profile).
var ErrNoRegion = awsconfig.ErrNoRegion

// ErrNoCredentials: AWS was asked for and the configuration chain found no
// credentials.
var ErrNoCredentials = awsconfig.ErrNoCredentials

// Options say where to connect. The zero value is AWS through the default
// configuration chain.
type Options struct {
	// Endpoint is the URL of a DynamoDB-compatible server (DynamoDB Local,
	// cmd/dynamotest); "" means AWS.
	Endpoint string
	// InMemory connects to a new in-process fake (dynamotest.New).
	InMemory bool
	// Region overrides the configuration chain's region.
	Region string
	// AWSConfig, when set, is used as it is instead of loading the default
	// chain (its region, credentials, retryer and HTTP client); Endpoint
	// still applies.
	AWSConfig *aws.Config
	// Logger receives the SDK's own log messages; nil drops them.
	Logger logging.Logger
	// RetryMaxAttempts is the SDK's attempts per request; 0 keeps its
	// standard retryer (3 attempts with backoff and jitter). The stores
	// retry throttled batches and transactions themselves on top.
	RetryMaxAttempts int
}

// Endpoint connects to the DynamoDB-compatible server at url.
func Endpoint(url string) func(*Options) { return func(o *Options) { o.Endpoint = url } }

// InMemory connects to a new in-process fake.
func InMemory() func(*Options) { return func(o *Options) { o.InMemory = true } }

// Region names the region, overriding the configuration chain's.
func Region(region string) func(*Options) { return func(o *Options) { o.Region = region } }

// AWSConfig uses cfg instead of loading the default configuration chain.
func AWSConfig(cfg aws.Config) func(*Options) { return func(o *Options) { o.AWSConfig = &cfg } }

// Logger sends the SDK's own log messages to l.
func Logger(l logging.Logger) func(*Options) { return func(o *Options) { o.Logger = l } }

// RetryMaxAttempts sets the SDK's attempts per request.
func RetryMaxAttempts(n int) func(*Options) { return func(o *Options) { o.RetryMaxAttempts = n } }

// Conn is an open connection: what the stores and consumers take.
type Conn struct {
	// DB is the DynamoDB client: a *dynamodb.Client, or the fake.
	DB table.API
	// Streams reads the tables' DynamoDB Streams where DB is.
	Streams changes.StreamsAPI
	// Fake is the in-memory DynamoDB when DB is one, nil otherwise.
	Fake *dynamotest.DB
	// Config is the AWS configuration DB was built from (zero in memory):
	// build any other client the program needs from it.
	Config aws.Config
	// Endpoint is Options.Endpoint, "" for AWS and in memory.
	Endpoint string
}

// String says where the connection goes: "AWS (eu-west-1)",
// "http://127.0.0.1:8000" or "in-memory fake".
func (c *Conn) String() string {
	switch {
	case c == nil:
		return "not connected"
	case c.Fake != nil:
		return "in-memory fake"
	case c.Endpoint != "":
		return c.Endpoint
	}
	return "AWS (" + c.Config.Region + ")"
}

// Open connects as the options say. Bad options (an endpoint that is not
// an http(s) URL, an endpoint with InMemory, a negative RetryMaxAttempts)
// are a *table.InputError; for AWS, a missing region or missing credentials
// are ErrNoRegion or ErrNoCredentials. Open sends no request to DynamoDB.
func Open(ctx context.Context, opts ...func(*Options)) (*Conn, error) {
	var o Options
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if ctx == nil {
		return nil, &table.InputError{Field: "ctx", Value: "nil", Reason: "pass context.Background() or a request's context", Err: table.ErrInvalidInput}
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.InMemory {
		fake := dynamotest.New()
		return &Conn{DB: fake, Streams: fake, Fake: fake}, nil
	}
	cfg, err := o.config(ctx)
	if err != nil {
		return nil, err
	}
	c := &Conn{Config: cfg, Endpoint: o.Endpoint}
	if o.Endpoint == "" {
		c.DB = dynamodb.NewFromConfig(cfg)
		c.Streams = dynamodbstreams.NewFromConfig(cfg)
		return c, nil
	}
	c.DB = dynamodb.NewFromConfig(cfg, func(do *dynamodb.Options) {
		do.BaseEndpoint = aws.String(o.Endpoint)
		// DynamoDB Local's error responses carry a CRC32 header that does
		// not match their body; the SDK would warn on every refused
		// conditional write. The connection is local: TCP's own checks
		// stand.
		do.DisableValidateResponseChecksum = true
	})
	c.Streams = dynamodbstreams.NewFromConfig(cfg, func(so *dynamodbstreams.Options) {
		so.BaseEndpoint = aws.String(o.Endpoint)
	})
	return c, nil
}

func (o *Options) validate() error {
	bad := func(field, value, reason string) error {
		return &table.InputError{Field: field, Value: value, Reason: reason, Err: table.ErrInvalidInput}
	}
	switch {
	case o.InMemory && (o.Endpoint != "" || o.AWSConfig != nil || o.Region != ""):
		return bad("Options.InMemory", "true", "goes without Endpoint, Region and AWSConfig")
	case o.RetryMaxAttempts < 0:
		return bad("Options.RetryMaxAttempts", fmt.Sprint(o.RetryMaxAttempts), "0 (the SDK's default) or more")
	case o.Endpoint != "":
		if err := CheckEndpoint(o.Endpoint); err != nil {
			return err
		}
	}
	return nil
}

// CheckEndpoint reports whether endpoint is a URL a client can be pointed
// at: http or https, a host, no query. A *table.InputError otherwise.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return &table.InputError{Field: "endpoint", Value: fmt.Sprintf("%q", endpoint),
			Reason: "want an http(s) URL such as http://127.0.0.1:8000", Err: table.ErrInvalidInput}
	}
	return nil
}

// config is the AWS configuration: the caller's, or the default chain.
func (o *Options) config(ctx context.Context) (aws.Config, error) {
	if o.AWSConfig != nil {
		cfg := o.AWSConfig.Copy()
		if o.Region != "" {
			cfg.Region = o.Region
		}
		if cfg.Region == "" && o.Endpoint == "" {
			return aws.Config{}, ErrNoRegion
		}
		if cfg.Region == "" {
			cfg.Region = awsconfig.LocalRegion
		}
		if o.RetryMaxAttempts > 0 {
			cfg.RetryMaxAttempts = o.RetryMaxAttempts
		}
		return cfg, nil
	}
	cfg, err := awsconfig.Load(ctx, awsconfig.Settings{
		Region: o.Region, Local: o.Endpoint != "", Key: "tablekit", Secret: "tablekit",
		Logger: o.Logger, RetryMaxAttempts: o.RetryMaxAttempts,
	})
	if err != nil && !errors.Is(err, ErrNoRegion) && !errors.Is(err, ErrNoCredentials) {
		return aws.Config{}, fmt.Errorf("connect: %w", err)
	}
	return cfg, err
}
