package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// conn is what a command talks to.
type conn struct {
	db    table.API
	fake  *dynamotest.DB // with -memory
	s3    *s3.Client     // nil with -memory
	blobs map[string]blobstore.Store
}

func (c *conn) close() {}

// memoryBlobs is the blob store of a -memory run (one for the whole run),
// and nil otherwise: against real services a store's bucket is named by a
// flag.
func (c *conn) memoryBlobs() blobstore.Store {
	if c.fake == nil {
		return nil
	}
	if c.blobs[""] == nil {
		c.blobs[""] = blobstore.NewMemory()
	}
	return c.blobs[""]
}

// connect opens DynamoDB (and lazily S3) as the global flags say.
func (a *app) connect(ctx context.Context) (*conn, error) {
	if a.conn != nil {
		return a.conn, nil
	}
	g := a.global
	c := &conn{blobs: map[string]blobstore.Store{}}
	if g.memory {
		if g.endpoint != "" || g.s3Endpoint != "" {
			return nil, usagef("-memory and -endpoint/-s3-endpoint exclude each other")
		}
		// A demo: the fake starts with every store's table, so describe,
		// inspect and the store commands have something to act on.
		c.fake = dynamotest.New()
		c.db = c.fake
		for _, name := range storeNames {
			sc, err := (&storeFlags{env: "dev"}).schemaOf(name)
			if err != nil {
				return nil, err
			}
			if err := sc.EnsureTable(ctx, c.db); err != nil {
				return nil, err
			}
		}
		a.conn = c
		return c, nil
	}
	cfg, err := awsConfig(ctx, g.region, g.endpoint != "" || g.s3Endpoint != "")
	if err != nil {
		return nil, err
	}
	c.db = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if g.endpoint != "" {
			o.BaseEndpoint = aws.String(g.endpoint)
		}
	})
	c.s3 = s3.NewFromConfig(cfg, func(o *s3.Options) {
		if g.s3Endpoint != "" {
			o.BaseEndpoint = aws.String(g.s3Endpoint)
			o.UsePathStyle = true
		}
	})
	a.conn = c
	return c, nil
}

// awsConfig loads the default chain. Against a local endpoint a missing
// region or missing credentials are filled with placeholders (DynamoDB
// Local accepts any; s3rver wants its own, S3RVER).
func awsConfig(ctx context.Context, region string, local bool) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	if !local {
		return cfg, nil
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil || os.Getenv("AWS_ACCESS_KEY_ID") == "" && !hasProfile() {
		cfg.Credentials = credentials.NewStaticCredentialsProvider("S3RVER", "S3RVER", "")
	}
	return cfg, nil
}

func hasProfile() bool {
	return os.Getenv("AWS_PROFILE") != "" || os.Getenv("AWS_CONFIG_FILE") != "" || os.Getenv("AWS_SHARED_CREDENTIALS_FILE") != ""
}

// bucket opens a blob store on one bucket (in memory with -memory).
func (a *app) bucket(ctx context.Context, name string) (blobstore.Store, error) {
	c, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	if b, ok := c.blobs[name]; ok {
		return b, nil
	}
	var b blobstore.Store
	if c.s3 == nil {
		b = blobstore.NewMemory()
	} else {
		s3store, err := blobstore.NewS3(c.s3, name)
		if err != nil {
			return nil, err
		}
		b = s3store
	}
	c.blobs[name] = b
	return b, nil
}
