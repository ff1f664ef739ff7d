package entity_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// The caller keeps the actions it built and asks the error about each:
// which one was refused, and why, without counting positions.
func TestTxErrorTellsRefusalsApartByTheActionsBuilt(t *testing.T) {
	e := newEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	_, err = e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()})
	require.NoError(t, err)

	fresh := e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p2", OwnerID: "u1", TakenAt: e.db.Now()})
	taken := e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()})
	gone := e.shares.TxDelete(Share{AlbumID: "a1", UserID: "nobody"})
	stale := e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).IfVersion(a.Version + 5).Action()
	outside := e.photos.TxCreate(Photo{AlbumID: "a9", ID: "p9", OwnerID: "u1", TakenAt: e.db.Now()})

	err = entity.Transact(ctx, fresh, taken, gone, stale)
	var txe *entity.TxError
	require.ErrorAs(t, err, &txe)
	assert.ErrorIs(t, err, entity.ErrVersionConflict, "one action's version had moved")
	var tableTx *table.TxError
	require.ErrorAs(t, err, &tableTx, "the table's error is still reachable")
	assert.Len(t, tableTx.Reasons, 3)

	assert.NoError(t, txe.Err(fresh), "DynamoDB did not refuse the fresh create")
	_, refused := txe.Reason(fresh)
	assert.False(t, refused)

	r, refused := txe.Reason(taken)
	require.True(t, refused)
	assert.Equal(t, 1, r.Index)
	assert.Contains(t, r.Key, "PHOTO#p1")
	assert.ErrorIs(t, txe.Err(taken), table.ErrAlreadyExists)
	assert.ErrorIs(t, txe.Err(taken), table.ErrConditionFailed)
	assert.NotErrorIs(t, txe.Err(taken), entity.ErrVersionConflict)
	assert.Contains(t, txe.Err(taken).Error(), "photo")

	assert.ErrorIs(t, txe.Err(gone), table.ErrNotFound)
	assert.NotErrorIs(t, txe.Err(gone), table.ErrAlreadyExists)

	assert.ErrorIs(t, txe.Err(stale), entity.ErrVersionConflict)
	assert.ErrorIs(t, txe.Err(stale), table.ErrConditionFailed)
	assert.NotErrorIs(t, txe.Err(stale), table.ErrNotFound)

	assert.NoError(t, txe.Err(outside), "an action of no transaction of this error")
	_, refused = txe.Reason(entity.Action{})
	assert.False(t, refused, "the zero Action")
	copied := taken
	assert.ErrorIs(t, txe.Err(copied), table.ErrAlreadyExists, "a copy of the action is the action")
}

// Without a moved version the error is no version conflict: a caller's
// condition that failed returns the item, version and all, yet compared
// none; and a nil *TxError answers without panicking.
func TestTxErrorIsAVersionConflictOnlyWhenAVersionMoved(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	_, err = e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()})
	require.NoError(t, err)
	dup := e.albums.TxCreate(Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	err = entity.Transact(ctx, dup)
	require.ErrorIs(t, err, table.ErrAlreadyExists)
	assert.NotErrorIs(t, err, entity.ErrVersionConflict)

	titled := e.albums.Patch(Album{ID: "a1"}).Set("title", "Andes").If(expression.Name("title").Equal(expression.Value("Pyrenees"))).Action()
	captioned := e.photos.TxPut(Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()},
		entity.If(expression.Name("caption").Equal(expression.Value("x"))))
	err = entity.Transact(ctx, titled, captioned)
	var txe *entity.TxError
	require.ErrorAs(t, err, &txe)
	assert.NotErrorIs(t, err, entity.ErrVersionConflict)
	for _, a := range []entity.Action{titled, captioned} {
		r, ok := txe.Reason(a)
		require.True(t, ok)
		assert.NotEmpty(t, r.Item, "the item came back with the refusal")
		assert.ErrorIs(t, txe.Err(a), table.ErrConditionFailed)
		assert.NotErrorIs(t, txe.Err(a), entity.ErrVersionConflict)
	}

	missing := e.albums.Patch(Album{ID: "a2"}).Set("title", "Andes").IfVersion(1).Action()
	err = entity.Transact(ctx, missing)
	require.ErrorAs(t, err, &txe)
	assert.ErrorIs(t, txe.Err(missing), table.ErrNotFound, "no item, so no version to conflict with")
	assert.NotErrorIs(t, err, entity.ErrVersionConflict)

	var none *entity.TxError
	assert.NoError(t, none.Err(dup))
	_, ok := none.Reason(dup)
	assert.False(t, ok)
	assert.NotEmpty(t, none.Error())
	assert.Nil(t, none.Unwrap())
	assert.False(t, errors.Is(none, table.ErrAlreadyExists))
}

// A TxPut's refusal means what Put answers over the same item, decided by
// one function (putFailure): version 0 over a live item is a version
// conflict, a version over a missing or expired item is not found (it was
// ErrConditionFailed for all three).
func TestATxPutIsRefusedWithWhatPutAnswers(t *testing.T) {
	e := newEnv(t)
	_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "live@y", Seats: 1})
	require.NoError(t, err)
	_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "old@y", Seats: 1, ExpiresAt: e.now().Unix() + 60})
	require.NoError(t, err)
	e.lag(time.Hour) // old@y expired, still stored
	for _, c := range []struct {
		what string
		v    Invite
		want error
	}{
		{"version 0 over a live item", Invite{AlbumID: "a1", Email: "live@y", Seats: 1}, entity.ErrVersionConflict},
		{"a stale version", Invite{AlbumID: "a1", Email: "live@y", Seats: 1, Version: 5}, entity.ErrVersionConflict},
		{"a version over a missing item", Invite{AlbumID: "a1", Email: "none@y", Seats: 1, Version: 1}, table.ErrNotFound},
		{"a version over an expired item", Invite{AlbumID: "a1", Email: "old@y", Seats: 1, Version: 1}, table.ErrNotFound},
	} {
		_, putErr := e.invites.Put(ctx, c.v)
		require.ErrorIs(t, putErr, c.want, "Put of %s", c.what)
		put := e.invites.TxPut(c.v)
		err := entity.Transact(ctx, put)
		var txe *entity.TxError
		require.ErrorAs(t, err, &txe, c.what)
		assert.ErrorIs(t, txe.Err(put), c.want, "TxPut of %s", c.what)
		assert.ErrorIs(t, txe.Err(put), table.ErrConditionFailed, "TxPut of %s", c.what)
		if c.want == table.ErrNotFound {
			assert.NotErrorIs(t, txe.Err(put), entity.ErrVersionConflict, "TxPut of %s", c.what)
		}
	}
}
