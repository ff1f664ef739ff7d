package entity_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

func TestGetReadsBackWhatCreateWrote(t *testing.T) {
	e := newEnv(t)
	want, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps", Tags: []string{"snow"}})
	require.NoError(t, err)
	got, err := e.albums.Get(ctx, Album{ID: "a1"}, entity.Consistent())
	require.NoError(t, err)
	assert.Equal(t, want.Title, got.Title)
	assert.Equal(t, want.Tags, got.Tags)
	assert.True(t, want.CreatedAt.Equal(got.CreatedAt))
	assert.Equal(t, 1, got.Version)
}

func TestGetOfAMissingItemIsNotFound(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Get(ctx, Album{ID: "nosuch"})
	require.ErrorIs(t, err, table.ErrNotFound)
	var te *table.Error
	require.ErrorAs(t, err, &te)
	assert.Contains(t, te.Key, "ALBUM#nosuch", "the error names the key")
}

func TestGetRefusesAnEmptyKeyFieldBeforeSending(t *testing.T) {
	e := newEnv(t)
	_, err := e.photos.Get(ctx, Photo{AlbumID: "a1"})
	require.ErrorIs(t, err, keys.ErrEmpty)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	assert.Zero(t, e.db.Calls("GetItem"))
}

func TestAnExpiredItemIsGoneForReadsAndCreatesBeforeDynamoDBDeletesIt(t *testing.T) {
	e := newEnv(t)
	exp := e.db.Now().Add(time.Hour).Unix()
	_, err := e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u2", Role: "viewer", ExpiresAt: exp})
	require.NoError(t, err)
	_, err = e.shares.Get(ctx, Share{AlbumID: "a1", UserID: "u2"})
	require.NoError(t, err)

	e.db.Advance(2 * time.Hour)
	_, err = e.shares.Get(ctx, Share{AlbumID: "a1", UserID: "u2"})
	require.ErrorIs(t, err, table.ErrNotFound, "past its TTL the item is gone")
	_, err = e.shares.Delete(ctx, Share{AlbumID: "a1", UserID: "u2"})
	require.ErrorIs(t, err, table.ErrNotFound, "and cannot be deleted")
	_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u2", Role: "editor"})
	require.NoError(t, err, "a create takes its key over")
	got, err := e.shares.Get(ctx, Share{AlbumID: "a1", UserID: "u2"})
	require.NoError(t, err)
	assert.Equal(t, "editor", got.Role)
}
