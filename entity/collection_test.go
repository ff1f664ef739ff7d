package entity_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

func TestACollectionReadsAnAlbumWithItsPhotosAndSharesInOneQuery(t *testing.T) {
	e := newEnv(t)
	photos := seedAlbum(t, e, 3)
	col, err := entity.NewCollection(e.reg, "albumView", "", e.albums, e.photos, e.shares)
	require.NoError(t, err)

	before := e.db.Calls("Query")
	page, err := col.List(ctx, Album{ID: "a1"}, "")
	require.NoError(t, err)
	assert.Equal(t, 1, e.db.Calls("Query")-before, "one round trip")
	require.Len(t, page.Items, 5)
	album, ok := page.Items[0].(Album)
	require.True(t, ok, "items come back typed, in sort key order: ALBUM < PHOTO# < SHARE#")
	assert.Equal(t, "Alps", album.Title)
	assert.Equal(t, ids(photos), ids(entity.Of[Photo](page.Items)))
	shares := entity.Of[Share](page.Items)
	require.Len(t, shares, 1)
	assert.Equal(t, "u2", shares[0].UserID)
	_, isShare := page.Items[4].(Share)
	assert.True(t, isShare)

	var n int
	for v, err := range col.Items(ctx, Photo{AlbumID: "a1"}, entity.Limit(2)) {
		require.NoError(t, err)
		require.NotNil(t, v)
		n++
	}
	assert.Equal(t, 5, n, "a partition named by any member's value, paged")
}

func TestACollectionOnAnIndexHasATotalOrder(t *testing.T) {
	e := newEnv(t)
	seedAlbum(t, e, 4)
	col, err := entity.NewCollection(e.reg, "byUser", "GSI1", e.albums, e.photos)
	require.NoError(t, err)
	var kinds []string
	for v, err := range col.Items(ctx, Album{OwnerID: "u1"}, entity.Limit(2)) {
		require.NoError(t, err)
		kinds = append(kinds, fmt.Sprintf("%T", v))
	}
	assert.Equal(t, []string{"entity_test.Album", "entity_test.Photo", "entity_test.Photo", "entity_test.Photo", "entity_test.Photo"}, kinds)
}

func TestNewCollectionRefusesMembersThatDoNotShareAPartition(t *testing.T) {
	e := newEnv(t)
	_, err := entity.NewCollection(e.reg, "bad", "GSI1", e.albums, e.shares)
	require.ErrorIs(t, err, entity.ErrDeclaration, "shares are not in GSI1")
	other := newEnv(t)
	_, err = entity.NewCollection(e.reg, "bad", "", e.albums, other.photos)
	require.ErrorIs(t, err, entity.ErrDeclaration, "another registry's entity")
	col, err := entity.NewCollection(e.reg, "ok", "", e.albums, e.photos)
	require.NoError(t, err)
	_, err = col.List(ctx, "a1", "")
	require.ErrorIs(t, err, table.ErrInvalidInput, "the partition is named by a member's value")
}
