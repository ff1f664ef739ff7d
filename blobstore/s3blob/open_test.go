package s3blob_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/testenv"
)

func TestOpenChoosesBackendByURL(t *testing.T) {
	testenv.NoAWSConfig(t)
	f := newFakeS3(t)
	bucket := f.Bucket(t)
	dir := filepath.Join(t.TempDir(), "blobs")

	for _, raw := range []string{
		"mem://",
		"file://" + dir,
		"s3://" + bucket + "?endpoint=" + url.QueryEscape(f.URL) + "&region=us-east-1",
		"s3://" + bucket + "?endpoint=" + url.QueryEscape(f.URL) + "&path_style=true",
	} {
		s, err := s3blob.Open(t.Context(), raw)
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
	testenv.NoAWSConfig(t)
	for _, raw := range []string{
		"",
		"ftp://bucket",
		"s3://",
		"s3://bucket/some/path",
		"s3://bucket?endpiont=http://x",
		"s3://bucket?path_style=maybe",
		"s3://bucket?endpoint=localhost:4569",
		"s3://Bad_Bucket?endpoint=http://127.0.0.1:1",
		"file://otherhost/dir",
		"mem://?x=1",
		"::not a url",
	} {
		s, err := s3blob.Open(t.Context(), raw)
		assert.Error(t, err, "Open(%q) = %T", raw, s)
	}
}

func TestOpenOnAWSWithoutARegionSaysToSetOne(t *testing.T) {
	testenv.NoAWSConfig(t)
	_, err := s3blob.Open(t.Context(), "s3://some-bucket")
	assert.ErrorIs(t, err, s3blob.ErrNoRegion)
	assert.Contains(t, err.Error(), "set AWS_REGION")
}

func TestNewClientWithAnEndpointNeedsNoConfiguration(t *testing.T) {
	testenv.NoAWSConfig(t)
	f := newFakeS3(t)
	bucket := f.Bucket(t)
	client, err := s3blob.NewClient(t.Context(), s3blob.Endpoint(f.URL))
	require.NoError(t, err)
	s, err := s3blob.New(client, bucket)
	require.NoError(t, err)
	require.NoError(t, s.Put(t.Context(), "k", strings.NewReader("v")))
	assert.Equal(t, "v", read(t, s, "k"))

	_, err = s3blob.NewClient(t.Context(), s3blob.Endpoint("localhost:4569"))
	assert.Error(t, err, "an endpoint must be an http(s) URL")
}
