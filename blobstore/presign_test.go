package blobstore_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/blobstore"
)

// Memory and Dir sign URLs themselves; these pin down what their signer
// refuses. (s3rver and gofakes3 do not verify SigV4 signatures, so the
// same checks for S3 would only test the fake.)

type presigningStore interface {
	blobstore.Store
	http.Handler
	EnablePresign(baseURL string) error
}

func localPresigners(t *testing.T) map[string]presigningStore {
	return map[string]presigningStore{"Memory": blobstore.NewMemory(), "Dir": newDir(t)}
}

func serve(t *testing.T, s presigningStore) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	if err := s.EnablePresign(srv.URL); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, method, u string, body string, h http.Header) int {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestPresignedGetURLDoesNotAllowPut(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			if err := s.Put(t.Context(), "k", strings.NewReader("original")); err != nil {
				t.Fatal(err)
			}
			u, err := s.PresignGet(t.Context(), "k", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			h, _ := blobstore.PutHeaders()
			if got := do(t, http.MethodPut, u, "overwritten", h); got != http.StatusForbidden {
				t.Fatalf("PUT with a GET URL: %d, want 403", got)
			}
			rc, _, err := s.Get(t.Context(), "k")
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if b, _ := io.ReadAll(rc); string(b) != "original" {
				t.Fatalf("object is %q after a refused PUT", b)
			}
		})
	}
}

func TestPresignedPutRequiresTheSignedHeaders(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			opts := []func(*blobstore.PutOptions){blobstore.WithContentType("text/csv"),
				blobstore.WithMetadata(map[string]string{"pipeline": "p1"})}
			u, err := s.PresignPut(t.Context(), "in.csv", time.Minute, opts...)
			if err != nil {
				t.Fatal(err)
			}
			right, _ := blobstore.PutHeaders(opts...)
			wrongType := right.Clone()
			wrongType.Set("Content-Type", "text/html")
			noMeta := right.Clone()
			noMeta.Del("X-Amz-Meta-Pipeline")
			for what, h := range map[string]http.Header{"another content type": wrongType, "no metadata header": noMeta} {
				if got := do(t, http.MethodPut, u, "a,b", h); got != http.StatusForbidden {
					t.Fatalf("PUT with %s: %d, want 403", what, got)
				}
			}
			if _, err := s.Head(t.Context(), "in.csv"); err == nil {
				t.Fatal("a refused PUT stored the object")
			}
			if got := do(t, http.MethodPut, u, "a,b", right); got != http.StatusOK {
				t.Fatalf("PUT with the signed headers: %d", got)
			}
			info, err := s.Head(t.Context(), "in.csv")
			if err != nil || info.ContentType != "text/csv" || info.Metadata["pipeline"] != "p1" {
				t.Fatalf("presigned PUT stored %+v %v", info, err)
			}
		})
	}
}

func TestPresignedURLForAnotherKeyIsRefused(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			for _, k := range []string{"mine", "theirs"} {
				if err := s.Put(t.Context(), k, strings.NewReader(k)); err != nil {
					t.Fatal(err)
				}
			}
			u, err := s.PresignGet(t.Context(), "mine", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if got := do(t, http.MethodGet, u, "", nil); got != http.StatusOK {
				t.Fatalf("GET with its own URL: %d", got)
			}
			if got := do(t, http.MethodGet, strings.Replace(u, "key=mine", "key=theirs", 1), "", nil); got != http.StatusForbidden {
				t.Fatalf("GET with the key swapped: %d, want 403", got)
			}
		})
	}
}
