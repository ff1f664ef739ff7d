package entity_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// testACountCountsWhatAListReturns: Count is List's meanings as
// DynamoDB's filter: the entity's own items (a tag stored in the photos'
// sort range is not a photo), live ones only (an expired share DynamoDB
// has not yet deleted is not counted), within the sort condition and
// Where's filter. Every count is checked against the items Items yields.
func testACountCountsWhatAListReturns(t *testing.T, mk makeEnv) {
	e := mk(t)
	seedAlbum(t, e, 5)
	_, err := e.tags.Create(ctx, Tag{AlbumID: "a1", PhotoID: "p00", Name: "snow"})
	require.NoError(t, err)
	for _, u := range []string{"u3", "u4"} {
		_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: u, Role: "editor", ExpiresAt: e.now().Add(time.Hour).Unix()})
		require.NoError(t, err)
	}
	e.lag(2 * time.Hour) // u3's and u4's shares expire; u2's never does

	count := func(n int64, err error) int64 {
		t.Helper()
		require.NoError(t, err)
		return n
	}
	listed := func(items func(yield func(Share, error) bool)) int64 {
		var n int64
		for _, err := range items {
			require.NoError(t, err)
			n++
		}
		return n
	}
	a1 := Photo{AlbumID: "a1"}
	assert.Equal(t, int64(5), count(e.photos.Count(ctx, a1)), "the photos, not the tag in their sort range")
	assert.Equal(t, int64(2), count(e.photos.Count(ctx, a1, entity.SortGreaterOrEqual("p03"))), "p03, p04")
	editor := expression.Name("ownerId").Equal(expression.Value("u1"))
	assert.Equal(t, int64(5), count(e.photos.Count(ctx, a1, entity.Where(editor), entity.Limit(2), entity.Descending())), "Limit and Descending change no count")
	nobody := expression.Name("ownerId").Equal(expression.Value("u9"))
	assert.Equal(t, int64(0), count(e.photos.Count(ctx, a1, entity.Where(nobody))))

	shares := listed(e.shares.Items(ctx, Share{AlbumID: "a1"}))
	assert.Equal(t, int64(1), shares, "the expired shares are not listed")
	assert.Equal(t, shares, count(e.shares.Count(ctx, Share{AlbumID: "a1"})), "nor counted")
	viewers := expression.Name("role").Equal(expression.Value("viewer"))
	assert.Equal(t, int64(1), count(e.shares.Count(ctx, Share{AlbumID: "a1"}, entity.Where(viewers))))

	assert.Equal(t, int64(5), count(e.photos.Count(ctx, Photo{OwnerID: "u1"}, entity.ByIndex("GSI1"))), "the owner's photos on GSI1, not the album")
}

func TestACountCountsWhatAListReturns(t *testing.T) {
	testACountCountsWhatAListReturns(t, fakeEnv)
}

func TestIntegrationACountCountsWhatAListReturns(t *testing.T) {
	testACountCountsWhatAListReturns(t, localEnv)
}

// Without a type attribute an item's entity is its key's shape, which no
// filter expresses: Count is refused in a registry of several entities
// (it would count the tags in the photos' range), and counts an entity
// alone in its registry.
func TestACountWithoutATypeAttributeNeedsTheEntityAloneInItsRegistry(t *testing.T) {
	e := newEnv(t, entity.NoTypeAttribute())
	seedAlbum(t, e, 3)
	_, err := e.tags.Create(ctx, Tag{AlbumID: "a1", PhotoID: "p00", Name: "snow"})
	require.NoError(t, err)
	n, err := e.photos.Count(ctx, Photo{AlbumID: "a1"})
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	assert.Zero(t, n)

	reg, err := entity.NewRegistry(e.t, entity.NoTypeAttribute())
	require.NoError(t, err)
	shares, err := entity.New[Share](reg, "share", entity.Key("ALBUM#{albumId}", "SHARE#{userId}"), entity.TTL("expiresAt", 0))
	require.NoError(t, err)
	_, err = shares.Create(ctx, Share{AlbumID: "a1", UserID: "u3", ExpiresAt: e.now().Add(time.Hour).Unix()})
	require.NoError(t, err)
	e.lag(2 * time.Hour)
	n, err = shares.Count(ctx, Share{AlbumID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "u2's share; u3's has expired")
}

func TestACountRefusesANilEntityOrContext(t *testing.T) {
	var none *entity.Entity[Photo]
	_, err := none.Count(ctx, Photo{})
	require.ErrorIs(t, err, entity.ErrNoEntity)
	e := newEnv(t)
	_, err = e.photos.Count(nil, Photo{AlbumID: "a1"}) //nolint:staticcheck // the nil context is the test
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
}
