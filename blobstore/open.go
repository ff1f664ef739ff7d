package blobstore

import (
	"context"
	"fmt"
	"net/url"
)

// Open returns the Store a URL names, so a service chooses its backend by
// configuration rather than code:
//
//	mem://                          a new, empty Memory (any host is ignored)
//	file:///var/lib/app/blobs       a Dir rooted at the path (created if missing)
//
// s3:// URLs are opened by blobstore/s3blob.Open, which takes these two as
// well: blobstore itself builds no S3 client, so a service that keeps its
// blobs in memory or on disk does not compile one in.
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
		return nil, fmt.Errorf("blobstore: open %q: s3 URLs are opened by blobstore/s3blob.Open", rawURL)
	default:
		return nil, fmt.Errorf("blobstore: open %q: unknown scheme %q (want mem or file; s3 with blobstore/s3blob.Open)", rawURL, u.Scheme)
	}
}
