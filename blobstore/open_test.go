package blobstore_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		require.NoError(t, err, "Open(%q)", raw)
		require.NoError(t, s.Put(t.Context(), "opened/by-url", strings.NewReader(raw)), raw)
		info, err := s.Head(t.Context(), "opened/by-url")
		require.NoError(t, err, raw)
		assert.Equal(t, int64(len(raw)), info.Size, raw)
	}
	_, err := os.Stat(filepath.Join(dir, "opened", "by-url"))
	assert.NoError(t, err, "file:// store did not write under %s", dir)
}

func TestOpenRefusesBadURLs(t *testing.T) {
	for _, raw := range []string{
		"",
		"ftp://bucket",
		"s3://",
		"s3://bucket/some/path",
		"s3://bucket?endpiont=http://x",
		"s3://bucket?path_style=maybe",
		"s3://bucket?endpoint=localhost:4569",
		"s3://Bad_Bucket?endpoint=http://127.0.0.1:1",
		"file://",
		"file://otherhost/dir",
		"mem://?x=1",
		"::not a url",
	} {
		s, err := blobstore.Open(t.Context(), raw)
		assert.Error(t, err, "Open(%q) = %T", raw, s)
	}
}
