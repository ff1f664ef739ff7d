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

// TestKeyIsTheKeyOfTheItemPutStores: Key of a value's key fields is the
// key of the item Put stored for it, the key Get reads.
func TestKeyIsTheKeyOfTheItemPutStores(t *testing.T) {
	e := newEnv(t)
	at := e.db.Now().UTC()
	p := Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: at, Caption: "peak", CreatedAt: at, UpdatedAt: at}
	_, err := e.photos.Put(ctx, p)
	require.NoError(t, err)

	k, err := e.photos.Key(Photo{AlbumID: "a1", ID: "p1"})
	require.NoError(t, err)
	assert.Equal(t, e.t.Key("ALBUM#a1", "PHOTO#p1"), k)
	var read table.Item
	require.NoError(t, e.t.Get(ctx, k, &read, table.Consistent()))
	assert.Equal(t, e.raw(t, "ALBUM#a1", "PHOTO#p1"), read, "Key is the stored item's key")
}

// TestKeyRefusesWhatAWriteRefuses: a missing key field is a
// *table.InputError, as Put's, and nothing is sent.
func TestKeyRefusesWhatAWriteRefuses(t *testing.T) {
	e := newEnv(t)
	_, err := e.photos.Key(Photo{AlbumID: "a1", TakenAt: time.Now()})
	require.ErrorIs(t, err, keys.ErrEmpty)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	assert.Zero(t, e.db.Calls("GetItem"))
	var nilEntity *entity.Entity[Photo]
	_, err = nilEntity.Key(Photo{})
	assert.ErrorIs(t, err, entity.ErrNoEntity)
}
