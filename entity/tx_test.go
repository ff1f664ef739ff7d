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

func TestAnActionAddedToTheCallersTransactionWritesWhatTransactWould(t *testing.T) {
	e := newEnv(t)
	other := testSchema("ledger")
	require.NoError(t, other.EnsureTable(ctx, e.db))
	ledger := table.New(e.db, other)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)

	// The caller's own write on another table, and entity's actions, in one transaction.
	tx := ledger.WriteTx().Put(table.Item{"pk": s("L#1"), "sk": s("L")})
	require.NoError(t, e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()}).AddTo(ctx, tx))
	require.NoError(t, e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).IfVersion(a.Version).Action().AddTo(ctx, tx))
	require.NoError(t, tx.Run(ctx))
	got, err := e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, 1, got.PhotoCount)
	assert.Equal(t, a.Version+1, got.Version, "the version moves as in Transact")
	_, err = e.photos.Get(ctx, Photo{AlbumID: "a1", ID: "p1"})
	require.NoError(t, err)

	// Under the same conditions: a taken key cancels the caller's transaction.
	tx = ledger.WriteTx().Put(table.Item{"pk": s("L#2"), "sk": s("L")})
	require.NoError(t, e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()}).AddTo(ctx, tx))
	err = tx.Run(ctx)
	require.ErrorIs(t, err, table.ErrConditionFailed)
	var txe *table.TxError
	require.ErrorAs(t, err, &txe)
	require.Len(t, txe.Reasons, 1)
	assert.Equal(t, 1, txe.Reasons[0].Index, "refusals are the caller's, by position")

	// Bad input adds nothing.
	tx = ledger.WriteTx()
	require.ErrorIs(t, e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p9"}).AddTo(ctx, tx), entity.ErrValidation)
	require.ErrorIs(t, entity.Action{}.AddTo(ctx, tx), entity.ErrNoEntity)
	require.ErrorIs(t, e.photos.TxDelete(Photo{AlbumID: "a1", ID: "p1"}).AddTo(ctx, nil), table.ErrInvalidInput)
	require.ErrorIs(t, e.photos.TxDelete(Photo{AlbumID: "a1", ID: "p1"}).AddTo(nil, tx), table.ErrInvalidInput) //nolint:staticcheck // a nil context is the bad input
	require.ErrorIs(t, tx.Run(ctx), table.ErrInvalidInput, "an empty transaction: nothing was added")
}
