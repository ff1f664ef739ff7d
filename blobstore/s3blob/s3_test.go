package s3blob_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/fakes3"
)

// newFakeS3 is gofakes3 in process with a client pointed at it.
func newFakeS3(t testing.TB) *fakeS3 { return &fakeS3{fakes3.New(t)} }

type fakeS3 struct{ *fakes3.Server }

// store returns an S3 store on a new, empty bucket.
func (f *fakeS3) store(t testing.TB, opts ...func(*s3blob.Options)) *s3blob.Store {
	t.Helper()
	s, err := s3blob.New(f.Client, f.Bucket(t), opts...)
	require.NoError(t, err)
	return s
}

func TestS3ConformanceOnGofakes3(t *testing.T) {
	f := newFakeS3(t)
	// gofakes3 does not verify signatures: the suite checks what the URLs
	// sign, not that the server refuses what they do not allow.
	blobtest.Run(t, func(t *testing.T) blobstore.Store { return f.store(t) }, blobtest.UnverifiedSignatures())
}

// roundTrip20MB puts a random 20 MB body and checks it reads back byte
// for byte; with the default 5 MiB part size that is a four-part upload.
func roundTrip20MB(t *testing.T, s blobstore.Store) {
	t.Helper()
	body := make([]byte, 20<<20)
	_, _ = rand.Read(body)
	want := sha256.Sum256(body)
	// A plain io.Reader (not a ReadSeeker) so the uploader has to stream
	// parts instead of knowing the size up front.
	require.NoError(t, s.Put(t.Context(), "big/20mb.bin", io.MultiReader(bytes.NewReader(body))))
	rc, info, err := s.Get(t.Context(), "big/20mb.bin")
	require.NoError(t, err)
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	require.NoError(t, err)
	assert.Equal(t, int64(len(body)), n, "bytes read")
	assert.Equal(t, int64(len(body)), info.Size, "Info.Size")
	assert.Equal(t, want[:], h.Sum(nil), "20 MB body came back with different bytes")
	tail, _, err := s.Get(t.Context(), "big/20mb.bin", blobstore.WithRange(int64(len(body))-100, 0))
	require.NoError(t, err)
	defer tail.Close()
	got, err := io.ReadAll(tail)
	require.NoError(t, err)
	assert.Equal(t, body[len(body)-100:], got, "the last 100 bytes (in the last part) differ")
}

func TestS3MultipartTwentyMegabytesRoundTripOnGofakes3(t *testing.T) {
	f := newFakeS3(t)
	roundTrip20MB(t, f.store(t))
	assert.Equal(t, int64(4), f.Parts.Load(), "20 MB goes up in 4 parts of 5 MiB")
}

func TestS3MultipartFailureLeavesNoObject(t *testing.T) {
	f := newFakeS3(t)
	s := f.store(t)
	// 12 MB, then a body that breaks once the server has seen a part, so
	// the upload fails with parts already stored.
	body := io.MultiReader(bytes.NewReader(make([]byte, 12<<20)), brokenReader{after: f.PartSeen})
	require.Error(t, s.Put(t.Context(), "big/broken.bin", body), "Put with a body that fails after 12 MB")
	_, err := s.Head(t.Context(), "big/broken.bin")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "after a failed multipart upload")
	require.NotZero(t, f.Parts.Load(), "no part was uploaded before the failure; the test did not exercise multipart")
	ups, err := f.Client.ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: aws.String(s.Bucket())})
	require.NoError(t, err)
	assert.Empty(t, ups.Uploads, "multipart uploads left open, want them aborted")
}

type brokenReader struct{ after <-chan struct{} }

func (b brokenReader) Read([]byte) (int, error) {
	select {
	case <-b.after:
	case <-time.After(10 * time.Second):
	}
	return 0, errors.New("connection reset by test")
}

func TestS3MissingBucketIsNotErrNotFound(t *testing.T) {
	f := newFakeS3(t)
	s, err := s3blob.New(f.Client, "no-such-bucket")
	require.NoError(t, err)
	// Get has an error body naming NoSuchBucket; Head cannot tell the two
	// 404s apart (documented on the driver's Head).
	_, _, err = s.Get(t.Context(), "k")
	require.Error(t, err)
	assert.NotErrorIs(t, err, blobstore.ErrNotFound)
}

func TestS3PresignExpiryIsBoundedBySevenDays(t *testing.T) {
	s := newFakeS3(t).store(t)
	_, err := s.PresignGet(t.Context(), "k", 7*24*time.Hour)
	require.NoError(t, err, "7 days")
	_, err = s.PresignGet(t.Context(), "k", 7*24*time.Hour+time.Second)
	assert.ErrorIs(t, err, blobstore.ErrInvalidExpiry, "7 days + 1 s")
}

// listAcrossPages lists 7 objects two per page and expects every one once.
func listAcrossPages(t *testing.T, s *s3blob.Store) {
	t.Helper()
	want := map[string]bool{}
	for i := range 7 {
		k := fmt.Sprintf("paged/%02d", i)
		want[k] = true
		require.NoError(t, s.Put(t.Context(), k, bytes.NewReader([]byte(k))))
	}
	require.NoError(t, s.Put(t.Context(), "other/x", bytes.NewReader(nil)))
	seen := map[string]bool{}
	for info, err := range s.List(t.Context(), "paged/") {
		require.NoError(t, err)
		require.False(t, seen[info.Key], "List yielded %q twice", info.Key)
		require.True(t, want[info.Key], "List yielded %q unasked", info.Key)
		seen[info.Key] = true
	}
	assert.Len(t, seen, len(want), "List across pages")
}

func TestS3ListFollowsContinuationTokens(t *testing.T) {
	listAcrossPages(t, newFakeS3(t).store(t, func(o *s3blob.Options) { o.ListPageSize = 2 }))
}

func TestNewRefusesNilClientBadBucketAndBadOptions(t *testing.T) {
	client := newFakeS3(t).Client
	cases := map[string]func() (*s3blob.Store, error){
		"nil client":          func() (*s3blob.Store, error) { return s3blob.New(nil, "bucket") },
		"empty bucket":        func() (*s3blob.Store, error) { return s3blob.New(client, "") },
		"upper-case bucket":   func() (*s3blob.Store, error) { return s3blob.New(client, "Bucket") },
		"bucket with a slash": func() (*s3blob.Store, error) { return s3blob.New(client, "bucket/prefix") },
		"IP address bucket":   func() (*s3blob.Store, error) { return s3blob.New(client, "192.168.1.1") },
		"part below 5 MiB": func() (*s3blob.Store, error) {
			return s3blob.New(client, "bucket", func(o *s3blob.Options) { o.PartSize = 1 << 20 })
		},
		"negative concurrency": func() (*s3blob.Store, error) {
			return s3blob.New(client, "bucket", func(o *s3blob.Options) { o.Concurrency = -1 })
		},
		"list page over 1000": func() (*s3blob.Store, error) {
			return s3blob.New(client, "bucket", func(o *s3blob.Options) { o.ListPageSize = 1001 })
		},
	}
	for name, fn := range cases {
		s, err := fn()
		var ie *blobstore.InputError
		assert.ErrorAs(t, err, &ie, name)
		assert.ErrorIs(t, err, blobstore.ErrInvalidInput, name)
		assert.Nil(t, s, name)
	}
	s, err := s3blob.New(client, "bucket", nil)
	require.NoError(t, err, "a nil option is skipped")
	assert.Equal(t, "bucket", s.Bucket())
}

func TestS3PresignedPutSignsContentLength(t *testing.T) {
	s := newFakeS3(t).store(t)
	u, err := s.PresignPut(t.Context(), "upload.bin", time.Minute, blobstore.WithSize(1234))
	require.NoError(t, err)
	q := mustQuery(t, u)
	assert.Contains(t, strings.Split(q.Get("X-Amz-SignedHeaders"), ";"), "content-length",
		"S3 refuses a body whose Content-Length is not the signed one only if it is signed")
	h, err := blobstore.PutHeaders(blobstore.WithSize(1234))
	require.NoError(t, err)
	assert.Equal(t, "1234", h.Get("Content-Length"))

	u, err = s.PresignPut(t.Context(), "upload.bin", time.Minute)
	require.NoError(t, err)
	assert.NotContains(t, strings.Split(mustQuery(t, u).Get("X-Amz-SignedHeaders"), ";"), "content-length",
		"without a size the URL binds none")
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Query()
}

func read(t *testing.T, s blobstore.Store, key string) string {
	t.Helper()
	rc, _, err := s.Get(t.Context(), key)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b)
}
