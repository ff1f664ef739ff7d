package s3blob_test

import (
	"errors"
	"testing"

	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/fakes3"
)

// lifecycleStore is a store on the in-process S3, which records the
// lifecycle configurations it gets.
func lifecycleStore(t *testing.T) (*s3blob.Store, *fakes3.Server) {
	f := fakes3.New(t)
	s, err := s3blob.New(f.Client, "journey-logs")
	require.NoError(t, err)
	return s, f
}

func TestApplyLifecycleSendsSeedZeroGlacierRule(t *testing.T) {
	s, f := lifecycleStore(t)
	require.NoError(t, s.ApplyLifecycle(t.Context(), blobstore.GlacierAfter("logs/", 90),
		blobstore.LifecycleRule{ID: "reports-expire", Prefix: "reports/", ExpireAfterDays: 365}))
	require.Len(t, f.Lifecycle(), 1)
	body := f.Lifecycle()[0]
	for _, want := range []string{
		"/journey-logs ",
		"<ID>tablekit-logs/</ID>", "<Prefix>logs/</Prefix>", "<Days>90</Days>", "<StorageClass>GLACIER</StorageClass>",
		"<ID>reports-expire</ID>", "<Prefix>reports/</Prefix>", "<Expiration><Days>365</Days></Expiration>",
		"<Status>Enabled</Status>",
	} {
		assert.Contains(t, body, want)
	}
}

func TestApplyLifecycleRefusesBadRulesBeforeSending(t *testing.T) {
	s, f := lifecycleStore(t)
	bad := map[string][]blobstore.LifecycleRule{
		"no rules":                 nil,
		"nothing to do":            {{Prefix: "logs/"}},
		"negative days":            {{Prefix: "logs/", ExpireAfterDays: -1}},
		"unknown class":            {{Prefix: "logs/", TransitionAfterDays: 30, StorageClass: "TAPE"}},
		"class without transition": {{Prefix: "logs/", ExpireAfterDays: 30, StorageClass: "GLACIER"}},
		"expiry before transition": {{Prefix: "logs/", TransitionAfterDays: 90, StorageClass: "GLACIER", ExpireAfterDays: 30}},
		"prefix leaving the store": {blobstore.GlacierAfter("../logs/", 90)},
		"two rules, one ID":        {blobstore.GlacierAfter("logs/", 90), blobstore.GlacierAfter("logs/", 30)},
	}
	for name, rules := range bad {
		err := s.ApplyLifecycle(t.Context(), rules...)
		assert.True(t, errors.Is(err, blobstore.ErrInvalidInput) || errors.Is(err, blobstore.ErrInvalidKey), "%s: %v", name, err)
	}
	assert.Empty(t, f.Lifecycle(), "nothing was sent")
}

// TestApplyLifecycleOnAServerWithoutLifecycleIsUnsupported: s3rver
// answers 501 NotImplemented to a lifecycle configuration; the store says
// ErrUnsupported rather than a bare server error.
func TestApplyLifecycleOnAServerWithoutLifecycleIsUnsupported(t *testing.T) {
	s, f := lifecycleStore(t)
	f.NoLifecycle.Store(true)
	err := s.ApplyLifecycle(t.Context(), blobstore.GlacierAfter("journeys/", 90))
	assert.ErrorIs(t, err, blobstore.ErrUnsupported)
	assert.ErrorIs(t, blobstore.ApplyLifecycle(t.Context(), s, blobstore.GlacierAfter("journeys/", 90)), blobstore.ErrUnsupported)
}

// TestTransitionStorageClassesAreS3s: blobstore's list (which cannot
// import the SDK) is the SDK's TransitionStorageClass enum.
func TestTransitionStorageClassesAreS3s(t *testing.T) {
	var sdk []string
	for _, c := range s3types.TransitionStorageClass("").Values() {
		sdk = append(sdk, string(c))
	}
	assert.ElementsMatch(t, sdk, blobstore.TransitionStorageClasses)
}
