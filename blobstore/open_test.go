package blobstore_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
)

func TestOpenChoosesBackendByURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blobs")

	for _, raw := range []string{
		"mem://",
		"file://" + dir,
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
		"s3://bucket", // blobstore/s3blob.Open's: blobstore builds no S3 client
		"file://",
		"file://otherhost/dir",
		"mem://?x=1",
		"::not a url",
	} {
		s, err := blobstore.Open(t.Context(), raw)
		assert.Error(t, err, "Open(%q) = %T", raw, s)
	}
}
