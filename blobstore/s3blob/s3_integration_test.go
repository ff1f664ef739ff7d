package s3blob_test

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/testenv"
)

// These run against the s3rver at TABLEKIT_S3_ENDPOINT (skipped when it is
// unset). s3rver checks a presigned URL's expiry, but not its SigV4
// signature (its authentication middleware leaves V4 "unimplemented"), so
// the suite checks what a URL signs rather than what s3rver refuses.

func s3rverStore(t *testing.T, opts ...func(*s3blob.Options)) *s3blob.Store {
	t.Helper()
	client := testenv.S3(t)
	s, err := s3blob.New(client, testenv.Bucket(t, "blobstore"), opts...)
	require.NoError(t, err)
	return s
}

// s3rverOrder lists in S3's order. s3rver keeps objects as files and
// lists them in directory-walk order ("a/b/c" before "a/b-c"), where S3
// lists in UTF-8 byte order; the S3 store passes S3's order through, so
// only this test double sorts.
type s3rverOrder struct{ *s3blob.Store }

func (s s3rverOrder) List(ctx context.Context, prefix string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) {
		var all []blobstore.Info
		for info, err := range s.Store.List(ctx, prefix) {
			if err != nil {
				yield(info, err)
				return
			}
			all = append(all, info)
		}
		slices.SortFunc(all, func(a, b blobstore.Info) int { return strings.Compare(a.Key, b.Key) })
		for _, info := range all {
			if !yield(info, nil) {
				return
			}
		}
	}
}

func TestS3IntegrationConformance(t *testing.T) {
	testenv.S3Endpoint(t)
	blobtest.Run(t, func(t *testing.T) blobstore.Store { return s3rverOrder{s3rverStore(t)} }, blobtest.UnverifiedSignatures())
}

func TestS3IntegrationListFollowsContinuationTokens(t *testing.T) {
	listAcrossPages(t, s3rverStore(t, func(o *s3blob.Options) { o.ListPageSize = 2 }))
}

func TestS3IntegrationMultipartTwentyMegabytesRoundTrip(t *testing.T) {
	roundTrip20MB(t, s3rverStore(t))
}

func TestS3IntegrationPresignedPutThenGetOverPlainHTTP(t *testing.T) {
	s := s3rverStore(t)
	opts := []func(*blobstore.PutOptions){
		blobstore.WithContentType("text/csv"),
		blobstore.WithMetadata(map[string]string{"pipeline-id": "p-1"}),
	}
	putURL, err := s.PresignPut(t.Context(), "uploads/input.csv", 15*time.Minute, opts...)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPut, putURL, strings.NewReader("a,b\n1,2\n"))
	require.NoError(t, err)
	req.Header, err = blobstore.PutHeaders(opts...)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "presigned PUT: %s", body)
	info, err := s.Head(t.Context(), "uploads/input.csv")
	require.NoError(t, err)
	assert.Equal(t, "text/csv", info.ContentType)
	assert.Equal(t, "p-1", info.Metadata["pipeline-id"])

	getURL, err := s.PresignGet(t.Context(), "uploads/input.csv", 15*time.Minute)
	require.NoError(t, err)
	resp, err = http.Get(getURL)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "presigned GET")
	assert.Equal(t, "a,b\n1,2\n", string(body), "presigned GET")
}

func TestS3IntegrationExpiredPresignedURLIsRefused(t *testing.T) {
	// Signed an hour ago for one minute: expired when it is used, with no
	// sleeping in the test.
	s := s3rverStore(t, func(o *s3blob.Options) {
		o.Clock = func() time.Time { return time.Now().Add(-time.Hour) }
	})
	require.NoError(t, s.Put(t.Context(), "reports/r.json", strings.NewReader(`{"ok":true}`)))
	getURL, err := s.PresignGet(t.Context(), "reports/r.json", time.Minute)
	require.NoError(t, err)
	resp, err := http.Get(getURL)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "expired GET URL: %s", body)
	putURL, err := s.PresignPut(t.Context(), "reports/r.json", time.Minute)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPut, putURL, strings.NewReader("overwritten"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", blobstore.DefaultContentType)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "expired PUT URL")
	assert.Equal(t, `{"ok":true}`, read(t, s, "reports/r.json"), "an expired PUT URL changed the object")
}

func TestS3IntegrationOpenByURLWithEndpoint(t *testing.T) {
	endpoint := testenv.S3Endpoint(t)
	bucket := testenv.Bucket(t, "open")
	t.Setenv("AWS_ACCESS_KEY_ID", testenv.S3AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testenv.S3SecretKey)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	st, err := s3blob.Open(t.Context(), "s3://"+bucket+"?endpoint="+url.QueryEscape(endpoint))
	require.NoError(t, err)
	// Over one part, so the multipart path runs with Open's client settings.
	body := bytes.Repeat([]byte("0123456789abcdef"), (6<<20)/16)
	require.NoError(t, st.Put(t.Context(), "opened/6mb", bytes.NewReader(body)))
	rc, _, err := st.Get(t.Context(), "opened/6mb")
	require.NoError(t, err)
	defer rc.Close()
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(got, body), "6 MB through Open's store: %d bytes back", len(got))
}
