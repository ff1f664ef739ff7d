package entity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

func TestATransactionAddsAPhotoAndCountsIt(t *testing.T) {
	e := newEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	err = entity.Transact(ctx,
		e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()}),
		e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).IfVersion(a.Version).Action())
	require.NoError(t, err)
	got, err := e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, 1, got.PhotoCount)
	assert.Equal(t, 2, got.Version)

	// The same again: the photo exists, so nothing is counted.
	err = entity.Transact(ctx,
		e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()}),
		e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Action())
	require.ErrorIs(t, err, table.ErrAlreadyExists)
	var txe *table.TxError
	require.ErrorAs(t, err, &txe)
	assert.Equal(t, 0, txe.Reasons[0].Index)
	got, err = e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, 1, got.PhotoCount, "all or nothing")

	// A stale version cancels it too, as a version conflict.
	err = entity.Transact(ctx,
		e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p2", OwnerID: "u1", TakenAt: e.db.Now()}),
		e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).IfVersion(a.Version).Action())
	require.ErrorIs(t, err, entity.ErrVersionConflict)
	_, err = e.photos.Get(ctx, Photo{AlbumID: "a1", ID: "p2"})
	require.ErrorIs(t, err, table.ErrNotFound)
}

func TestATransactionSpansEntitiesAndTables(t *testing.T) {
	e := newEnv(t)
	archive := e.archive(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)

	require.NoError(t, entity.Transact(ctx, archive.TxPut(Album{ID: "a1", OwnerID: "u1", Title: a.Title}), e.albums.TxDelete(Album{ID: "a1"}, entity.IfVersion(a.Version))))
	_, err = e.albums.Get(ctx, Album{ID: "a1"})
	require.ErrorIs(t, err, table.ErrNotFound)
	moved, err := archive.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, "Alps", moved.Title)

	err = entity.Transact(ctx, e.albums.TxDelete(Album{ID: "a1"}))
	require.ErrorIs(t, err, table.ErrNotFound)
	err = entity.Transact(ctx, e.albums.TxCheck(Album{ID: "a1"}, albumExists()), archive.TxPut(moved))
	require.ErrorIs(t, err, table.ErrConditionFailed)
}

func TestTransactRefusesBadActionsBeforeSending(t *testing.T) {
	e := newEnv(t)
	require.ErrorIs(t, entity.Transact(ctx), table.ErrInvalidInput)
	require.ErrorIs(t, entity.Transact(ctx, entity.Action{}), entity.ErrNoEntity)
	err := entity.Transact(ctx, e.photos.TxCreate(Photo{AlbumID: "a", ID: "p"}))
	require.ErrorIs(t, err, entity.ErrValidation, "ownerId is required")
	err = entity.Transact(ctx, e.albums.Patch(Album{ID: "a"}).Set("albumId", "b").Action())
	require.ErrorIs(t, err, table.ErrInvalidInput)
	assert.Zero(t, e.db.Calls("TransactWriteItems"))
}

// archive declares albums on a second table of e's fake, with a registry
// of its own.
func (e *env) archive(t *testing.T) *entity.Entity[Album] {
	t.Helper()
	s := testSchema("albums-archive")
	require.NoError(t, s.EnsureTable(ctx, e.db))
	reg, err := entity.NewRegistry(table.New(e.db, s), entity.Clock(e.db.Now))
	require.NoError(t, err)
	archive, err := entity.New[Album](reg, "album", albumOptions()...)
	require.NoError(t, err)
	return archive
}
