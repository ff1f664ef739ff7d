// Package fakes3 is an S3 in process for tests: gofakes3 behind an
// httptest server, with a client pointed at it. It addresses buckets by
// path, as s3rver does, counts multipart parts so a test can tell a
// multipart upload happened, and records lifecycle configurations, which
// gofakes3 would take for a CreateBucket.
package fakes3

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is gofakes3 over HTTP and a client of it.
type Server struct {
	// URL is the server's endpoint, for a client or a CLI flag.
	URL     string
	Backend *s3mem.Backend
	Client  *s3.Client
	// Parts counts UploadPart requests (PUT with partNumber); PartSeen is
	// closed when the first one arrives.
	Parts    atomic.Int64
	PartSeen chan struct{}
	// NoLifecycle makes the server answer a lifecycle configuration as
	// s3rver does: 501 NotImplemented.
	NoLifecycle atomic.Bool

	mu        sync.Mutex
	lifecycle []string

	buckets  atomic.Int64
	seenOnce sync.Once
}

// putLifecycle records a PutBucketLifecycleConfiguration, or refuses it
// as s3rver does.
func (f *Server) putLifecycle(w http.ResponseWriter, r *http.Request) {
	if f.NoLifecycle.Load() {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotImplemented)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>A parameter you provided implies functionality that is not implemented</Message></Error>`)
		return
	}
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.lifecycle = append(f.lifecycle, r.URL.Path+" "+string(b))
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// Lifecycle returns the lifecycle configurations the server was given, in
// order, each as "/bucket <the XML body>".
func (f *Server) Lifecycle() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lifecycle...)
}

// New starts a server that stops when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	backend := s3mem.New()
	faker := gofakes3.New(replacingBackend{backend}, gofakes3.WithLogger(gofakes3.DiscardLog()))
	f := &Server{Backend: backend, PartSeen: make(chan struct{})}
	handler := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Query().Has("partNumber") {
			f.Parts.Add(1)
			f.seenOnce.Do(func() { close(f.PartSeen) })
		}
		if r.Method == http.MethodPut && r.URL.Query().Has("lifecycle") {
			f.putLifecycle(w, r)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	f.Client = s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("fake", "fake", ""),
		UsePathStyle: true,
	})
	return f
}

// Bucket creates a new, empty bucket and returns its name.
func (f *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("bucket-%d", f.buckets.Add(1))
	if err := f.Backend.CreateBucket(name); err != nil {
		t.Fatalf("fakes3: create bucket %s: %v", name, err)
	}
	return name
}

// replacingBackend makes gofakes3 replace an object's metadata on
// overwrite, as S3 does; gofakes3 merges the old metadata into the new
// (gofakes3.MergeMetadata), which would fail PutReplacesExistingObject for
// a reason that is not the store's.
type replacingBackend struct{ *s3mem.Backend }

func (b replacingBackend) PutObject(bucket, key string, meta map[string]string, body io.Reader, size int64, cond *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	if cond == nil {
		if _, err := b.Backend.DeleteObject(bucket, key); err != nil {
			return gofakes3.PutObjectResult{}, err
		}
	}
	return b.Backend.PutObject(bucket, key, meta, body, size, cond)
}
