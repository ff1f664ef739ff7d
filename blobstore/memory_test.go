package blobstore_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
	"github.com/tablekit/tablekit/dynamotest"
)

func TestMemoryConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobstore.Store { return blobstore.NewMemory() })
}

func TestMemoryConformanceWithPresignedURLs(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobstore.Store {
		m := blobstore.NewMemory()
		srv := httptest.NewServer(m)
		t.Cleanup(srv.Close)
		require.NoError(t, m.EnablePresign(srv.URL))
		return m
	})
}

var _ http.Handler = (*blobstore.Memory)(nil)

func TestMemoryPresignIsUnsupportedUntilEnabled(t *testing.T) {
	m := blobstore.NewMemory()
	_, err := m.PresignGet(t.Context(), "k", time.Minute)
	assert.ErrorIs(t, err, blobstore.ErrUnsupported, "PresignGet before EnablePresign")
	_, err = m.PresignPut(t.Context(), "k", time.Minute)
	assert.ErrorIs(t, err, blobstore.ErrUnsupported, "PresignPut before EnablePresign")
	assert.Error(t, m.EnablePresign("not a url"), "a base URL without scheme and host")
}

func TestMemoryExpiredURLIsRefused(t *testing.T) {
	clock := dynamotest.New() // its clock: Now and Advance
	m := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = clock.Now })
	srv := httptest.NewServer(m)
	defer srv.Close()
	require.NoError(t, m.EnablePresign(srv.URL+"/blobs"))
	require.NoError(t, m.Put(t.Context(), "report.txt", strings.NewReader("secret report")))
	u, err := m.PresignGet(t.Context(), "report.txt", 10*time.Minute)
	require.NoError(t, err)
	status := func(u string) int {
		resp, err := http.Get(u)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, status(u), "fresh URL")
	clock.Advance(10 * time.Minute)
	assert.Equal(t, http.StatusForbidden, status(u), "expired URL")
}
