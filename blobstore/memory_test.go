package blobstore_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/blobtest"
)

func TestMemoryConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobstore.Store { return blobstore.NewMemory() })
}

func TestMemoryConformanceWithPresignedURLs(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobstore.Store {
		m := blobstore.NewMemory()
		srv := httptest.NewServer(m)
		t.Cleanup(srv.Close)
		if err := m.EnablePresign(srv.URL); err != nil {
			t.Fatal(err)
		}
		return m
	})
}

var _ http.Handler = (*blobstore.Memory)(nil)

func TestMemoryPresignIsUnsupportedUntilEnabled(t *testing.T) {
	m := blobstore.NewMemory()
	if _, err := m.PresignGet(t.Context(), "k", time.Minute); !errors.Is(err, blobstore.ErrUnsupported) {
		t.Fatalf("PresignGet before EnablePresign: %v, want ErrUnsupported", err)
	}
	if _, err := m.PresignPut(t.Context(), "k", time.Minute); !errors.Is(err, blobstore.ErrUnsupported) {
		t.Fatalf("PresignPut before EnablePresign: %v, want ErrUnsupported", err)
	}
	if err := m.EnablePresign("not a url"); err == nil {
		t.Fatal("EnablePresign accepted a base URL without scheme and host")
	}
}

func TestMemoryExpiredURLIsRefused(t *testing.T) {
	now := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	m := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = clock })
	srv := httptest.NewServer(m)
	defer srv.Close()
	if err := m.EnablePresign(srv.URL + "/blobs"); err != nil {
		t.Fatal(err)
	}
	if err := m.Put(t.Context(), "report.txt", strings.NewReader("secret report")); err != nil {
		t.Fatal(err)
	}
	u, err := m.PresignGet(t.Context(), "report.txt", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	status := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(u); got != http.StatusOK {
		t.Fatalf("fresh URL: %d", got)
	}
	mu.Lock()
	now = now.Add(10 * time.Minute)
	mu.Unlock()
	if got := status(u); got != http.StatusForbidden {
		t.Fatalf("expired URL: %d, want 403", got)
	}
}
