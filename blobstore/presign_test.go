package blobstore_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
)

// Memory and Dir sign URLs themselves; these pin down what their signer
// refuses. (gofakes3 does not verify SigV4 signatures; S3's binding of the
// length is checked in s3_test.go by recomputing the signature.)

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
	require.NoError(t, s.EnablePresign(srv.URL))
}

// do sends body with its length unless chunked is set (then the length is
// unknown to the server, as with a streamed upload).
func do(t *testing.T, method, u string, body string, h http.Header, chunked ...bool) int {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	if len(chunked) > 0 && chunked[0] {
		req.ContentLength = -1
		req.Body = io.NopCloser(strings.NewReader(body))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
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

func TestPresignedGetURLDoesNotAllowPut(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			require.NoError(t, s.Put(t.Context(), "k", strings.NewReader("original")))
			u, err := s.PresignGet(t.Context(), "k", time.Minute)
			require.NoError(t, err)
			h, err := blobstore.PutHeaders()
			require.NoError(t, err)
			assert.Equal(t, http.StatusForbidden, do(t, http.MethodPut, u, "overwritten", h), "PUT with a GET URL")
			assert.Equal(t, "original", read(t, s, "k"), "object after a refused PUT")
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
			require.NoError(t, err)
			right, err := blobstore.PutHeaders(opts...)
			require.NoError(t, err)
			wrongType := right.Clone()
			wrongType.Set("Content-Type", "text/html")
			noMeta := right.Clone()
			noMeta.Del("X-Amz-Meta-Pipeline")
			for what, h := range map[string]http.Header{"another content type": wrongType, "no metadata header": noMeta} {
				assert.Equal(t, http.StatusForbidden, do(t, http.MethodPut, u, "a,b", h), "PUT with %s", what)
			}
			_, err = s.Head(t.Context(), "in.csv")
			require.ErrorIs(t, err, blobstore.ErrNotFound, "a refused PUT stored the object")
			require.Equal(t, http.StatusOK, do(t, http.MethodPut, u, "a,b", right), "PUT with the signed headers")
			info, err := s.Head(t.Context(), "in.csv")
			require.NoError(t, err)
			assert.Equal(t, "text/csv", info.ContentType)
			assert.Equal(t, "p1", info.Metadata["pipeline"])
		})
	}
}

func TestPresignedPutAcceptsOnlyTheSignedLength(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			opts := []func(*blobstore.PutOptions){blobstore.WithContentType("text/plain"), blobstore.WithSize(5)}
			u, err := s.PresignPut(t.Context(), "sized.txt", time.Minute, opts...)
			require.NoError(t, err)
			h, err := blobstore.PutHeaders(opts...)
			require.NoError(t, err)
			assert.Equal(t, "5", h.Get("Content-Length"), "PutHeaders names the bound length")
			for _, body := range []string{"four", "six..!", strings.Repeat("x", 1<<20)} {
				assert.Equal(t, http.StatusForbidden, do(t, http.MethodPut, u, body, h), "PUT of %d bytes", len(body))
			}
			assert.Equal(t, http.StatusForbidden, do(t, http.MethodPut, u, "five!", h, true), "chunked PUT (no length)")
			_, err = s.Head(t.Context(), "sized.txt")
			require.ErrorIs(t, err, blobstore.ErrNotFound, "a refused PUT stored the object")
			require.Equal(t, http.StatusOK, do(t, http.MethodPut, u, "five!", h))
			assert.Equal(t, "five!", read(t, s, "sized.txt"))
		})
	}
}

func TestPresignedURLWithAlteredLengthIsRefused(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			u, err := s.PresignPut(t.Context(), "k", time.Minute, blobstore.WithSize(3))
			require.NoError(t, err)
			h, err := blobstore.PutHeaders(blobstore.WithSize(8))
			require.NoError(t, err)
			altered := strings.Replace(u, "content-length=3", "content-length=8", 1)
			require.NotEqual(t, u, altered)
			assert.Equal(t, http.StatusForbidden, do(t, http.MethodPut, altered, "8 bytes!", h))
		})
	}
}

func TestPresignedURLForAnotherKeyIsRefused(t *testing.T) {
	for name, s := range localPresigners(t) {
		t.Run(name, func(t *testing.T) {
			serve(t, s)
			for _, k := range []string{"mine", "theirs"} {
				require.NoError(t, s.Put(t.Context(), k, strings.NewReader(k)))
			}
			u, err := s.PresignGet(t.Context(), "mine", time.Minute)
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, do(t, http.MethodGet, u, "", nil), "GET with its own URL")
			assert.Equal(t, http.StatusForbidden, do(t, http.MethodGet, strings.Replace(u, "key=mine", "key=theirs", 1), "", nil),
				"GET with the key swapped")
		})
	}
}
