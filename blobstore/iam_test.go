package blobstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/iam"
)

func TestEnforceRefusesNilStoreEmptyBucketAndBadPolicy(t *testing.T) {
	ok := iam.Policy{Version: iam.Version}
	_, err := blobstore.Enforce(nil, "b", ok)
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput)
	_, err = blobstore.Enforce(blobstore.NewMemory(), "", ok)
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput)
	_, err = blobstore.Enforce(blobstore.NewMemory(), "b", iam.Policy{})
	assert.ErrorIs(t, err, iam.ErrInvalidPolicy)
}

// TestEnforcedMemoryRefusesAndChangesNothing: a Put outside the policy's
// prefix is S3's AccessDenied and stores nothing.
func TestEnforcedMemoryRefusesAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	p, err := iam.Runtime(iam.Env{Region: "eu-west-1", Account: "1"}, iam.Service{Objects: []iam.Objects{
		{Bucket: "b", Prefix: "in/", Actions: []string{iam.S3PutObject, iam.S3GetObject}}}})
	require.NoError(t, err)
	mem := blobstore.NewMemory()
	s, err := blobstore.Enforce(mem, "b", p)
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, "in/a", strings.NewReader("a")))
	err = s.Put(ctx, "out/a", strings.NewReader("a"))
	var ad *iam.AccessDeniedError
	require.ErrorAs(t, err, &ad)
	assert.Equal(t, "AccessDenied", ad.ErrorCode())
	_, err = mem.Head(ctx, "out/a")
	assert.ErrorIs(t, err, blobstore.ErrNotFound)
	err = s.Delete(ctx, "in/a")
	require.ErrorAs(t, err, &ad)
	assert.Equal(t, iam.S3DeleteObject, ad.Action)
}
