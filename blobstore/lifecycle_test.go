package blobstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
)

// TestMemoryKeepsTheLifecycleItIsGiven: Memory keeps the last
// configuration applied, whole; a bad rule is refused and the kept
// configuration stays.
func TestMemoryKeepsTheLifecycleItIsGiven(t *testing.T) {
	ctx := context.Background()
	m := blobstore.NewMemory()
	assert.Nil(t, m.Lifecycle())
	rules := []blobstore.LifecycleRule{blobstore.GlacierAfter("journeys/", 90), {ID: "old", Prefix: "tmp/", ExpireAfterDays: 7}}
	require.NoError(t, blobstore.ApplyLifecycle(ctx, m, rules...))
	assert.Equal(t, rules, m.Lifecycle())
	assert.Equal(t, "tablekit-journeys/", m.Lifecycle()[0].RuleID())

	for name, bad := range map[string][]blobstore.LifecycleRule{
		"none":                     nil,
		"nothing to do":            {{Prefix: "logs/"}},
		"negative":                 {{Prefix: "logs/", TransitionAfterDays: -1, StorageClass: "GLACIER"}},
		"unknown class":            {{Prefix: "logs/", TransitionAfterDays: 30, StorageClass: "TAPE"}},
		"class without transition": {{Prefix: "logs/", ExpireAfterDays: 30, StorageClass: "GLACIER"}},
		"expiry before transition": {{Prefix: "logs/", TransitionAfterDays: 90, StorageClass: "GLACIER", ExpireAfterDays: 90}},
		"two rules, one ID":        {blobstore.GlacierAfter("logs/", 90), blobstore.GlacierAfter("logs/", 30)},
		"bad prefix":               {blobstore.GlacierAfter("../logs/", 90)},
	} {
		err := blobstore.ApplyLifecycle(ctx, m, bad...)
		assert.True(t, errors.Is(err, blobstore.ErrInvalidInput) || errors.Is(err, blobstore.ErrInvalidKey), "%s: %v", name, err)
		assert.Equal(t, rules, m.Lifecycle(), "%s: the kept configuration stays", name)
	}
	require.NoError(t, m.ApplyLifecycle(ctx, blobstore.LifecycleRule{Prefix: "", ExpireAfterDays: 1}))
	assert.Len(t, m.Lifecycle(), 1, "a configuration replaces the last one whole")
}

// TestApplyLifecycleToAStoreWithoutLifecycleIsUnsupported: Dir keeps no
// rules; ApplyLifecycle says so (ErrUnsupported) instead of dropping
// them, after checking them.
func TestApplyLifecycleToAStoreWithoutLifecycleIsUnsupported(t *testing.T) {
	ctx := context.Background()
	d, err := blobstore.NewDir(t.TempDir())
	require.NoError(t, err)
	assert.ErrorIs(t, blobstore.ApplyLifecycle(ctx, d, blobstore.GlacierAfter("journeys/", 90)), blobstore.ErrUnsupported)
	assert.ErrorIs(t, blobstore.ApplyLifecycle(ctx, d), blobstore.ErrInvalidInput, "no rule: bad input first")
	var nilMemory *blobstore.Memory
	assert.ErrorIs(t, nilMemory.ApplyLifecycle(ctx, blobstore.GlacierAfter("journeys/", 90)), blobstore.ErrInvalidInput)
	assert.Nil(t, nilMemory.Lifecycle())
	assert.ErrorIs(t, blobstore.NewMemory().ApplyLifecycle(nil, blobstore.GlacierAfter("journeys/", 90)), blobstore.ErrInvalidInput)
}

// TestLongPrefixesKeepDistinctValidRuleIDs: a default rule ID is at most
// S3's 255 characters, valid UTF-8 however the prefix's characters fall
// on the cut, and distinct for two long prefixes that differ only past
// the cut (cut plainly, they shared an ID and the configuration was
// refused). An ID given is measured in characters, as S3 measures it.
func TestLongPrefixesKeepDistinctValidRuleIDs(t *testing.T) {
	segment := strings.Repeat("é", 100) + "/" // 201 bytes, 101 characters
	long := strings.Repeat(segment, 3)
	a := blobstore.GlacierAfter(long+"a/", 90)
	b := blobstore.GlacierAfter(long+"b/", 90)
	for _, r := range []blobstore.LifecycleRule{a, b} {
		id := r.RuleID()
		assert.True(t, utf8.ValidString(id), "%q", id)
		assert.Equal(t, 255, utf8.RuneCountInString(id))
		assert.True(t, strings.HasPrefix(id, "tablekit-"+strings.Repeat("é", 100)), "the ID still reads as its prefix")
	}
	assert.NotEqual(t, a.RuleID(), b.RuleID())
	require.NoError(t, blobstore.CheckLifecycle([]blobstore.LifecycleRule{a, b}), "two long prefixes are two rules")
	assert.Equal(t, "tablekit-logs/", blobstore.GlacierAfter("logs/", 90).RuleID(), "a prefix that fits is the ID as it was")

	named := blobstore.LifecycleRule{ID: strings.Repeat("é", 255), Prefix: "logs/", ExpireAfterDays: 7}
	require.NoError(t, blobstore.CheckLifecycle([]blobstore.LifecycleRule{named}), "255 characters, 510 bytes")
	named.ID += "é"
	assert.ErrorIs(t, blobstore.CheckLifecycle([]blobstore.LifecycleRule{named}), blobstore.ErrInvalidInput, "256 characters")
}
