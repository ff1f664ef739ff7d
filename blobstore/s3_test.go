package blobstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
)

// fakeS3 is gofakes3 in process with a client pointed at it.
type fakeS3 struct {
	backend *s3mem.Backend
	client  *s3.Client
	buckets atomic.Int64
	// parts counts UploadPart requests (PUT with partNumber); partSeen is
	// closed when the first one arrives.
	parts    atomic.Int64
	partSeen chan struct{}
	seenOnce sync.Once
}

func newFakeS3(t testing.TB) *fakeS3 {
	t.Helper()
	backend := s3mem.New()
	faker := gofakes3.New(replacingBackend{backend}, gofakes3.WithLogger(gofakes3.DiscardLog()))
	f := &fakeS3{backend: backend, partSeen: make(chan struct{})}
	handler := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Query().Has("partNumber") {
			f.parts.Add(1)
			f.seenOnce.Do(func() { close(f.partSeen) })
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.client = s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("fake", "fake", ""),
		UsePathStyle: true,
	})
	return f
}

// replacingBackend makes gofakes3 replace an object's metadata on
// overwrite, as S3 does; gofakes3 merges the old metadata into the new
// (gofakes3.MergeMetadata), which would fail PutReplacesExistingObject for
// a reason that is not ours.
type replacingBackend struct{ *s3mem.Backend }

func (b replacingBackend) PutObject(bucket, key string, meta map[string]string, body io.Reader, size int64, cond *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	if cond == nil {
		if _, err := b.Backend.DeleteObject(bucket, key); err != nil {
			return gofakes3.PutObjectResult{}, err
		}
	}
	return b.Backend.PutObject(bucket, key, meta, body, size, cond)
}

// store returns an S3 store on a new, empty bucket.
func (f *fakeS3) store(t testing.TB, opts ...func(*blobstore.S3Options)) *blobstore.S3 {
	t.Helper()
	name := fmt.Sprintf("bucket-%d", f.buckets.Add(1))
	if err := f.backend.CreateBucket(name); err != nil {
		t.Fatal(err)
	}
	return blobstore.NewS3(f.client, name, opts...)
}

// unsignedPresign keeps gofakes3 out of the presign tests: it does not
// check signatures, so a URL it accepts proves nothing. Signing still runs
// (so key and expiry checks are exercised), its result is withheld.
type unsignedPresign struct{ *blobstore.S3 }

func (u unsignedPresign) PresignGet(ctx context.Context, key string, d time.Duration) (string, error) {
	if _, err := u.S3.PresignGet(ctx, key, d); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%w: gofakes3 does not verify signatures", blobstore.ErrUnsupported)
}

func (u unsignedPresign) PresignPut(ctx context.Context, key string, d time.Duration, opts ...func(*blobstore.PutOptions)) (string, error) {
	if _, err := u.S3.PresignPut(ctx, key, d, opts...); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%w: gofakes3 does not verify signatures", blobstore.ErrUnsupported)
}

func TestS3ConformanceOnGofakes3(t *testing.T) {
	f := newFakeS3(t)
	blobtest.Run(t, func(t *testing.T) blobstore.Store { return unsignedPresign{f.store(t)} })
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
	if err := s.Put(t.Context(), "big/20mb.bin", io.MultiReader(bytes.NewReader(body))); err != nil {
		t.Fatal(err)
	}
	rc, info, err := s.Get(t.Context(), "big/20mb.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(body)) || info.Size != int64(len(body)) {
		t.Fatalf("read %d bytes, Info.Size %d, want %d", n, info.Size, len(body))
	}
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Fatal("20 MB body came back with different bytes")
	}
	tail, _, err := s.Get(t.Context(), "big/20mb.bin", blobstore.WithRange(int64(len(body))-100, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	got, _ := io.ReadAll(tail)
	if !bytes.Equal(got, body[len(body)-100:]) {
		t.Fatal("the last 100 bytes (in the last part) differ")
	}
}

func TestS3MultipartTwentyMegabytesRoundTripOnGofakes3(t *testing.T) {
	f := newFakeS3(t)
	roundTrip20MB(t, f.store(t))
	if n := f.parts.Load(); n != 4 {
		t.Fatalf("20 MB went up in %d parts, want 4 parts of 5 MiB", n)
	}
}

func TestS3MultipartFailureLeavesNoObject(t *testing.T) {
	f := newFakeS3(t)
	s := f.store(t)
	// 12 MB, then a body that breaks once the server has seen a part, so
	// the upload fails with parts already stored.
	body := io.MultiReader(bytes.NewReader(make([]byte, 12<<20)), brokenReader{after: f.partSeen})
	if err := s.Put(t.Context(), "big/broken.bin", body); err == nil {
		t.Fatal("Put with a body that fails after 12 MB returned nil")
	}
	if _, err := s.Head(t.Context(), "big/broken.bin"); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("after a failed multipart upload Head = %v, want ErrNotFound", err)
	}
	if f.parts.Load() == 0 {
		t.Fatal("no part was uploaded before the failure; the test did not exercise multipart")
	}
	ups, err := f.client.ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: aws.String(s.Bucket())})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups.Uploads) != 0 {
		t.Fatalf("%d multipart uploads left open, want them aborted", len(ups.Uploads))
	}
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
	s := blobstore.NewS3(f.client, "no-such-bucket")
	// Get has an error body naming NoSuchBucket; Head cannot tell the two
	// 404s apart (documented on S3.Head).
	_, _, err := s.Get(t.Context(), "k")
	if err == nil || errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Get on a missing bucket = %v, want an error that is not ErrNotFound", err)
	}
}

func TestS3PresignExpiryIsBoundedBySevenDays(t *testing.T) {
	s := newFakeS3(t).store(t)
	if _, err := s.PresignGet(t.Context(), "k", 7*24*time.Hour); err != nil {
		t.Fatalf("7 days: %v", err)
	}
	_, err := s.PresignGet(t.Context(), "k", 7*24*time.Hour+time.Second)
	if !errors.Is(err, blobstore.ErrInvalidExpiry) {
		t.Fatalf("7 days + 1 s: %v, want ErrInvalidExpiry", err)
	}
}

// listAcrossPages lists 7 objects two per page and expects every one once.
func listAcrossPages(t *testing.T, s *blobstore.S3) {
	t.Helper()
	want := map[string]bool{}
	for i := range 7 {
		k := fmt.Sprintf("paged/%02d", i)
		want[k] = true
		if err := s.Put(t.Context(), k, bytes.NewReader([]byte(k))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(t.Context(), "other/x", bytes.NewReader(nil)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for info, err := range s.List(t.Context(), "paged/") {
		if err != nil {
			t.Fatal(err)
		}
		if seen[info.Key] || !want[info.Key] {
			t.Fatalf("List yielded %q twice or unasked", info.Key)
		}
		seen[info.Key] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("List across pages yielded %d keys, want %d", len(seen), len(want))
	}
}

func TestS3ListFollowsContinuationTokens(t *testing.T) {
	listAcrossPages(t, newFakeS3(t).store(t, func(o *blobstore.S3Options) { o.ListPageSize = 2 }))
}
