package blobstore

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Open returns the Store a URL names, so a service chooses its backend by
// configuration rather than code:
//
//	mem://                          a new, empty Memory (any host is ignored)
//	file:///var/lib/app/blobs       a Dir rooted at the path (created if missing)
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
func Open(ctx context.Context, rawURL string) (Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blobstore: open %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case "mem":
		if len(u.Query()) != 0 {
			return nil, fmt.Errorf("blobstore: open %q: mem:// takes no parameters", rawURL)
		}
		return NewMemory(), nil
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("blobstore: open %q: file URLs name a local path (file:///dir), not host %q", rawURL, u.Host)
		}
		if u.Path == "" || len(u.Query()) != 0 {
			return nil, fmt.Errorf("blobstore: open %q: want file:///absolute/dir with no parameters", rawURL)
		}
		d, err := NewDir(u.Path)
		if err != nil {
			return nil, err
		}
		return d, nil
	case "s3":
		return openS3(ctx, rawURL, u)
	default:
		return nil, fmt.Errorf("blobstore: open %q: unknown scheme %q (want mem, file or s3)", rawURL, u.Scheme)
	}
}

func openS3(ctx context.Context, rawURL string, u *url.URL) (Store, error) {
	bucket := u.Host
	if bucket == "" {
		return nil, fmt.Errorf("blobstore: open %q: no bucket (want s3://bucket)", rawURL)
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("blobstore: open %q: an s3 URL names a bucket, not a path (%q)", rawURL, u.Path)
	}
	q := u.Query()
	for k, v := range q {
		if k != "region" && k != "endpoint" && k != "path_style" {
			return nil, fmt.Errorf("blobstore: open %q: unknown parameter %q (want region, endpoint, path_style)", rawURL, k)
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("blobstore: open %q: parameter %q given %d times", rawURL, k, len(v))
		}
	}
	endpoint := q.Get("endpoint")
	if endpoint != "" {
		eu, err := url.Parse(endpoint)
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
			return nil, fmt.Errorf("blobstore: open %q: endpoint %q is not an http(s) URL", rawURL, endpoint)
		}
	}
	pathStyle := endpoint != ""
	if ps := q.Get("path_style"); ps != "" {
		b, err := strconv.ParseBool(ps)
		if err != nil {
			return nil, fmt.Errorf("blobstore: open %q: path_style=%q is not true or false", rawURL, ps)
		}
		pathStyle = b
	}
	var loadOpts []func(*config.LoadOptions) error
	if r := q.Get("region"); r != "" {
		loadOpts = append(loadOpts, config.WithRegion(r))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("blobstore: open %q: AWS configuration: %w", rawURL, err)
	}
	if cfg.Region == "" {
		if endpoint == "" {
			return nil, fmt.Errorf("blobstore: open %q: no region (add ?region= or set AWS_REGION)", rawURL)
		}
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
		o.UsePathStyle = pathStyle
	})
	s, err := NewS3(client, bucket)
	if err != nil {
		return nil, fmt.Errorf("blobstore: open %q: %w", rawURL, err)
	}
	return s, nil
}
