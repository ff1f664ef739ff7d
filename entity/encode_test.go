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

// TestEncodeIsTheItemPutWritesAndDecodeReadsBack: a value with its stamps
// set encodes to the very item Put stores (keys, index keys, type
// attribute), Decode returns the value, and Key is the key Get reads; a
// write composed with table's calls stores what Put would.
func TestEncodeIsTheItemPutWritesAndDecodeReadsBack(t *testing.T) {
	e := newEnv(t)
	at := e.db.Now().UTC()
	p := Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: at, Caption: "peak", CreatedAt: at, UpdatedAt: at}
	item, err := e.photos.Encode(ctx, p)
	require.NoError(t, err)
	_, err = e.photos.Put(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, e.raw(t, "ALBUM#a1", "PHOTO#p1"), item, "the item Put stored")

	got, err := e.photos.Decode(ctx, item)
	require.NoError(t, err)
	assert.Equal(t, p, got)

	k, err := e.photos.Key(Photo{AlbumID: "a1", ID: "p1"})
	require.NoError(t, err)
	assert.Equal(t, e.t.Key("ALBUM#a1", "PHOTO#p1"), k)
	var read table.Item
	require.NoError(t, e.t.Get(ctx, k, &read, table.Consistent()))
	assert.Equal(t, item, read, "Key is the stored item's key")
}

// TestEncodeAndKeyRefuseWhatAWriteRefuses: a missing key field and a
// broken rule are *table.InputErrors, as Put's, and nothing is sent.
func TestEncodeAndKeyRefuseWhatAWriteRefuses(t *testing.T) {
	e := newEnv(t)
	_, err := e.photos.Key(Photo{AlbumID: "a1"})
	require.ErrorIs(t, err, keys.ErrEmpty)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = e.photos.Encode(ctx, Photo{AlbumID: "a1", OwnerID: "u1", TakenAt: time.Now()})
	require.ErrorIs(t, err, keys.ErrEmpty)
	_, err = e.albums.Encode(ctx, Album{ID: "a1", Visibility: "nosuch"})
	assert.ErrorIs(t, err, entity.ErrValidation, "a rule is checked")
	assert.Zero(t, e.db.Calls("PutItem"))
	var nilEntity *entity.Entity[Photo]
	_, err = nilEntity.Key(Photo{})
	assert.ErrorIs(t, err, entity.ErrNoEntity)
	_, err = nilEntity.Encode(ctx, Photo{})
	assert.ErrorIs(t, err, entity.ErrNoEntity)
}
