package s3blob

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/tablekit/tablekit/blobstore"
)

// Open returns the Store a URL names: the schemes blobstore.Open takes
// (mem://, file:///dir) and S3's:
//
//	s3://bucket                     an S3 store on AWS, default configuration chain
//	s3://bucket?region=eu-west-1
//	s3://bucket?endpoint=http://127.0.0.1:4569&region=us-east-1
//
// S3 query parameters:
//   - region: the bucket's region; otherwise the default chain's (AWS_REGION,
//     shared config), and "us-east-1" when an endpoint is set and none is found.
//   - endpoint: an S3-compatible server (s3rver, MinIO). Setting it turns on
//     path-style addressing (such servers rarely resolve bucket host names)
//     and asks for checksums only where S3 requires them (servers that
//     predate flexible checksums cannot read the SDK's default ones).
//   - path_style: true or false, overriding the above.
//
// Credentials always come from the default chain (environment, shared
// files, instance roles), never from the URL. An unknown parameter is an
// error, so a typo does not silently fall back to a default.
func Open(ctx context.Context, rawURL string) (blobstore.Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("s3blob: open %q: %w", rawURL, err)
	}
	if u.Scheme != "s3" {
		return blobstore.Open(ctx, rawURL)
	}
	bucket := u.Host
	if bucket == "" {
		return nil, fmt.Errorf("s3blob: open %q: no bucket (want s3://bucket)", rawURL)
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("s3blob: open %q: an s3 URL names a bucket, not a path (%q)", rawURL, u.Path)
	}
	q := u.Query()
	for k, v := range q {
		if k != "region" && k != "endpoint" && k != "path_style" {
			return nil, fmt.Errorf("s3blob: open %q: unknown parameter %q (want region, endpoint, path_style)", rawURL, k)
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("s3blob: open %q: parameter %q given %d times", rawURL, k, len(v))
		}
	}
	co := ClientOptions{Endpoint: q.Get("endpoint"), Region: q.Get("region")}
	if ps := q.Get("path_style"); ps != "" {
		b, err := strconv.ParseBool(ps)
		if err != nil {
			return nil, fmt.Errorf("s3blob: open %q: path_style=%q is not true or false", rawURL, ps)
		}
		co.PathStyle = &b
	}
	client, err := NewClient(ctx, func(o *ClientOptions) { *o = co })
	if err != nil {
		return nil, fmt.Errorf("s3blob: open %q: %w", rawURL, err)
	}
	s, err := New(client, bucket)
	if err != nil {
		return nil, fmt.Errorf("s3blob: open %q: %w", rawURL, err)
	}
	return s, nil
}

// checkEndpoint refuses an endpoint that is not an http(s) URL with a host.
func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return inputError("endpoint", fmt.Sprintf("%q", endpoint), "want an http(s) URL such as http://127.0.0.1:4569")
	}
	return nil
}
