package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/connect"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// conn is what a command talks to.
type conn struct {
	db     table.API
	fake   *dynamotest.DB // with -memory
	region string
	s3     *s3.Client // built on first use of a bucket; nil with -memory
	blobs  map[string]blobstore.Store
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

// connect opens DynamoDB as the global flags say, through package connect:
// the same three places (AWS, an endpoint, in memory) the examples and
// services use, quiet and with the SDK's retries.
func (a *app) connect(ctx context.Context) (*conn, error) {
	if a.conn != nil {
		return a.conn, nil
	}
	g := a.global
	var opts []func(*connect.Options)
	switch {
	case g.memory && (g.endpoint != "" || g.s3Endpoint != "" || g.region != ""):
		return nil, usagef("-memory goes without -endpoint, -s3-endpoint and -region")
	case g.memory:
		opts = append(opts, connect.InMemory())
	case g.endpoint != "":
		if err := connect.CheckEndpoint(g.endpoint); err != nil {
			return nil, usagef("-endpoint %q: want an http(s) URL such as http://127.0.0.1:8000", g.endpoint)
		}
		opts = append(opts, connect.Endpoint(g.endpoint))
	}
	if g.s3Endpoint != "" {
		if err := connect.CheckEndpoint(g.s3Endpoint); err != nil {
			return nil, usagef("-s3-endpoint %q: want an http(s) URL such as http://127.0.0.1:4569", g.s3Endpoint)
		}
	}
	if g.region != "" {
		opts = append(opts, connect.Region(g.region))
	}
	cn, err := connect.Open(ctx, opts...)
	if err != nil {
		return nil, err
	}
	c := &conn{db: cn.DB, fake: cn.Fake, region: cn.Config.Region, blobs: map[string]blobstore.Store{}}
	if c.fake != nil {
		// A demo: the fake starts with every store's table, so describe,
		// inspect and the store commands have something to act on.
		for _, name := range storeNames {
			sc, err := (&storeFlags{env: "dev"}).schemaOf(name)
			if err != nil {
				return nil, err
			}
			if err := sc.EnsureTable(ctx, c.db); err != nil {
				return nil, err
			}
		}
	}
	a.conn = c
	return c, nil
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
	if c.fake != nil {
		b = blobstore.NewMemory()
	} else {
		if c.s3 == nil {
			client, err := s3blob.NewClient(ctx, s3blob.Endpoint(a.global.s3Endpoint), s3blob.Region(a.global.region))
			if errors.Is(err, connect.ErrNoRegion) || errors.Is(err, connect.ErrNoCredentials) {
				// DynamoDB at an -endpoint, S3 on AWS without a region or
				// credentials: the commands that never touch the bucket
				// (journey list, recover) still run; one that does fails
				// then, saying why.
				b = unopenedBucket{name: name, err: fmt.Errorf("S3 bucket %q: %w", name, err)}
				c.blobs[name] = b
				return b, nil
			}
			if err != nil {
				return nil, err
			}
			c.s3 = client
		}
		s3store, err := s3blob.New(c.s3, name)
		if err != nil {
			return nil, err
		}
		b = s3store
	}
	c.blobs[name] = b
	return b, nil
}

// unopenedBucket is a bucket whose S3 client could not be built: the name
// the stores put in their pointers (journey's s3Location), and err on
// every call.
type unopenedBucket struct {
	name string
	err  error
}

// Bucket is the bucket's name, as an s3blob store says it.
func (b unopenedBucket) Bucket() string { return b.name }

func (b unopenedBucket) Put(context.Context, string, io.Reader, ...func(*blobstore.PutOptions)) error {
	return b.err
}

func (b unopenedBucket) Get(context.Context, string, ...func(*blobstore.GetOptions)) (io.ReadCloser, blobstore.Info, error) {
	return nil, blobstore.Info{}, b.err
}

func (b unopenedBucket) Head(context.Context, string) (blobstore.Info, error) {
	return blobstore.Info{}, b.err
}

func (b unopenedBucket) Delete(context.Context, string) error { return b.err }

func (b unopenedBucket) List(context.Context, string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) { yield(blobstore.Info{}, b.err) }
}

func (b unopenedBucket) PresignGet(context.Context, string, time.Duration) (string, error) {
	return "", b.err
}

func (b unopenedBucket) PresignPut(context.Context, string, time.Duration, ...func(*blobstore.PutOptions)) (string, error) {
	return "", b.err
}
