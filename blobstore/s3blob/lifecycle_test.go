package s3blob_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore/s3blob"
)

// lifecycleRecorder is an S3 endpoint that records PutBucketLifecycle
// requests (neither gofakes3 nor s3rver implements lifecycle rules).
type lifecycleRecorder struct {
	mu     sync.Mutex
	bodies []string
}

func (l *lifecycleRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut || !r.URL.Query().Has("lifecycle") {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.String(), http.StatusNotImplemented)
		return
	}
	b, _ := io.ReadAll(r.Body)
	l.mu.Lock()
	l.bodies = append(l.bodies, string(b))
	l.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func lifecycleStore(t *testing.T) (*s3blob.Store, *lifecycleRecorder) {
	rec := &lifecycleRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("fake", "fake", ""),
		UsePathStyle: true,
	})
	s, err := s3blob.New(client, "journey-logs")
	require.NoError(t, err)
	return s, rec
}

func TestApplyLifecycleSendsSeedZeroGlacierRule(t *testing.T) {
	s, rec := lifecycleStore(t)
	require.NoError(t, s.ApplyLifecycle(t.Context(), s3blob.GlacierAfter("logs/", 90),
		s3blob.LifecycleRule{ID: "reports-expire", Prefix: "reports/", ExpireAfterDays: 365}))
	require.Len(t, rec.bodies, 1)
	body := rec.bodies[0]
	for _, want := range []string{
		"<ID>tablekit-logs/</ID>", "<Prefix>logs/</Prefix>", "<Days>90</Days>", "<StorageClass>GLACIER</StorageClass>",
		"<ID>reports-expire</ID>", "<Prefix>reports/</Prefix>", "<Expiration><Days>365</Days></Expiration>",
		"<Status>Enabled</Status>",
	} {
		assert.Contains(t, body, want)
	}
}

func TestApplyLifecycleRefusesBadRulesBeforeSending(t *testing.T) {
	s, rec := lifecycleStore(t)
	bad := map[string][]s3blob.LifecycleRule{
		"no rules":                 nil,
		"nothing to do":            {{Prefix: "logs/"}},
		"negative days":            {{Prefix: "logs/", ExpireAfterDays: -1}},
		"unknown class":            {{Prefix: "logs/", TransitionAfterDays: 30, StorageClass: "TAPE"}},
		"class without transition": {{Prefix: "logs/", ExpireAfterDays: 30, StorageClass: "GLACIER"}},
		"expiry before transition": {{Prefix: "logs/", TransitionAfterDays: 90, StorageClass: "GLACIER", ExpireAfterDays: 30}},
		"prefix leaving the store": {s3blob.GlacierAfter("../logs/", 90)},
		"two rules, one ID":        {s3blob.GlacierAfter("logs/", 90), s3blob.GlacierAfter("logs/", 30)},
	}
	for name, rules := range bad {
		assert.Error(t, s.ApplyLifecycle(t.Context(), rules...), name)
	}
	assert.Empty(t, rec.bodies, "nothing was sent")
}
