package jobs

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
)

// adversarialID draws ids from the pieces that break naive key building:
// separators, dot segments, escapes that look escaped, the hashed form's own
// prefix, unicode (precomposed and decomposed), NUL, and lengths around the
// point where ids get hashed.
func adversarialID(r *rand.Rand) string {
	pieces := []string{"/", "..", ".", "%", "%2F", "%25", "!", "!sha256-", "sha256-", "a", "B", "-", "_",
		"é", "e\u0301", "日本", "\x00", " ", "#", "\\", "?", "~", strings.Repeat("x", 100), strings.Repeat("%", 60)}
	var b strings.Builder
	for n := r.IntN(12); n >= 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestObjectKeysAreOneToOneOverAdversarialIDs(t *testing.T) {
	store, err := NewStore(dynamotest.New(), blobstore.NewMemory())
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 13))
	seen := map[string]string{} // key -> id
	ids := []string{".", "..", "a/b", "a%2Fb", "a%252Fb", "!sha256-00", strings.Repeat("é", 1024)}
	for range 50_000 {
		ids = append(ids, adversarialID(r))
	}
	for _, id := range ids {
		if checkID(id) != nil {
			continue
		}
		key := store.objectKey(id)
		require.NoError(t, blobstore.ValidateKey(key), "id %q", id)
		assert.NotContains(t, key, "/", "id %q", id)
		assert.NotContains(t, []string{"", ".", ".."}, key, "id %q", id)
		assert.LessOrEqual(t, len(key), maxPlainObjectID)
		other, ok := seen[key]
		require.Falsef(t, ok && other != id, "ids %q and %q share the object key %q", other, id, key)
		seen[key] = id
	}
	assert.Greater(t, len(seen), 40_000, "the generator must produce mostly distinct ids")
}

// Offloaded results of jobs whose ids would collide or escape under naive
// keys land on distinct objects, and each job reads back its own.
func TestOffloadedResultsOfAdversarialIDsStayApart(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New()
	blobs := blobstore.NewMemory()
	ids := []string{"a/b", "a%2Fb", "a", "..", ".", "../a", "é", "e\u0301", "!sha256-x"}
	next := 0
	store, err := NewStore(db, blobs, func(o *Options) {
		o.NewID = func(time.Time) string { id := ids[next]; next++; return id }
	})
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	for _, id := range ids {
		job, _, err := store.Create(ctx, CreateInput{UserID: "u", FileType: "image/png", Provider: ProviderStub})
		require.NoError(t, err)
		require.Equal(t, id, job.ID)
		started, err := store.StartProcessing(ctx, id)
		require.NoError(t, err)
		a := analysisOfSize(t, store.budget+1)
		a.Labels[0].Name = id // tells the jobs' results apart
		_, err = store.StartEditing(ctx, started.Lease(), a)
		require.NoError(t, err)
	}
	var keys []string
	for obj, err := range blobs.List(ctx, "") {
		require.NoError(t, err)
		keys = append(keys, obj.Key)
	}
	assert.Len(t, keys, len(ids), "one object per job: %q", keys)
	for _, key := range keys {
		assert.True(t, strings.HasPrefix(key, store.opts.OffloadPrefix), key)
		assert.NotContains(t, key, "/../")
		assert.NotContains(t, key, "/./")
	}
	for _, id := range ids {
		job, err := store.Get(ctx, id, Consistent())
		require.NoError(t, err)
		assert.Equal(t, id, job.AnalysisResult.Labels[0].Name)
	}
}
