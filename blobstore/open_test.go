package blobstore_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/blobstore"
)

func TestOpenChoosesBackendByURL(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "fake")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "fake")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	f := newFakeS3(t)
	bucket := f.store(t).Bucket()
	endpoint := f.client.Options().BaseEndpoint
	dir := filepath.Join(t.TempDir(), "blobs")

	for _, raw := range []string{
		"mem://",
		"file://" + dir,
		"s3://" + bucket + "?endpoint=" + url.QueryEscape(*endpoint) + "&region=us-east-1",
		"s3://" + bucket + "?endpoint=" + url.QueryEscape(*endpoint) + "&path_style=true",
	} {
		s, err := blobstore.Open(t.Context(), raw)
		if err != nil {
			t.Fatalf("Open(%q): %v", raw, err)
		}
		if err := s.Put(t.Context(), "opened/by-url", strings.NewReader(raw)); err != nil {
			t.Fatalf("%s: Put: %v", raw, err)
		}
		info, err := s.Head(t.Context(), "opened/by-url")
		if err != nil || info.Size != int64(len(raw)) {
			t.Fatalf("%s: Head: %+v %v", raw, info, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "opened", "by-url")); err != nil {
		t.Fatalf("file:// store did not write under %s: %v", dir, err)
	}
}

func TestOpenRefusesBadURLs(t *testing.T) {
	for _, raw := range []string{
		"ftp://bucket",
		"s3://",
		"s3://bucket/some/path",
		"s3://bucket?endpiont=http://x",
		"s3://bucket?path_style=maybe",
		"s3://bucket?endpoint=localhost:4569",
		"file://",
		"file://otherhost/dir",
		"mem://?x=1",
		"::not a url",
	} {
		if s, err := blobstore.Open(t.Context(), raw); err == nil {
			t.Errorf("Open(%q) = %T, want an error", raw, s)
		}
	}
}
