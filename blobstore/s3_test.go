package blobstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/fakes3"
)

// newS3 is the S3 driver's store on an empty bucket of gofakes3, so the
// Offloader and the benchmarks run on S3 as well as on Memory and Dir.
func newS3(t testing.TB) blobstore.Store {
	t.Helper()
	f := fakes3.New(t)
	s, err := s3blob.New(f.Client, f.Bucket(t))
	require.NoError(t, err)
	return s
}
