package entity_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

func bigPhoto(e *env, id string, size int) Photo {
	return Photo{AlbumID: "a1", ID: id, OwnerID: "u1", TakenAt: e.db.Now(), Metadata: strings.Repeat("m", size)}
}

func TestLargeMetadataGoesToTheBlobStoreAndComesBackOnReads(t *testing.T) {
	e := newEnv(t)
	p, err := e.photos.Create(ctx, bigPhoto(e, "p1", 600*1024))
	require.NoError(t, err, "600 KB of metadata is over DynamoDB's limit, but it may be offloaded")
	item := e.raw(t, "ALBUM#a1", "PHOTO#p1")
	ptr, ok := blobstore.PointerOf(item["metadata"])
	require.True(t, ok, "the item keeps a pointer")
	assert.Less(t, table.ItemSize(item), 4096)
	_, info, err := e.blobs.Get(ctx, ptr.Key)
	require.NoError(t, err, "the object is there")
	assert.EqualValues(t, 600*1024, info.Size)

	got, err := e.photos.Get(ctx, Photo{AlbumID: "a1", ID: "p1"})
	require.NoError(t, err)
	assert.Equal(t, p.Metadata, got.Metadata, "reads restore it")
	page, err := e.photos.List(ctx, Photo{AlbumID: "a1"}, "")
	require.NoError(t, err)
	assert.Equal(t, p.Metadata, page.Items[0].Metadata)

	small, err := e.photos.Create(ctx, bigPhoto(e, "p2", 100))
	require.NoError(t, err)
	_, ok = blobstore.PointerOf(e.raw(t, "ALBUM#a1", "PHOTO#p2")["metadata"])
	assert.False(t, ok, "a small item stays whole")

	updated, err := e.photos.Patch(Photo{AlbumID: "a1", ID: "p2"}).Set("metadata", strings.Repeat("u", 300*1024)).Run(ctx)
	require.NoError(t, err, "an update offloads a large value of an offloadable attribute")
	assert.Len(t, updated.Metadata, 300*1024)
	_, ok = blobstore.PointerOf(e.raw(t, "ALBUM#a1", "PHOTO#p2")["metadata"])
	assert.True(t, ok)
	_ = small
}

// failingBlobs refuses every Put.
type failingBlobs struct{ blobstore.Store }

func (failingBlobs) Put(context.Context, string, io.Reader, ...func(*blobstore.PutOptions)) error {
	return errors.New("S3 is down")
}

func TestAnOffloadThatFailsWritesNoItem(t *testing.T) {
	e := newEnv(t, entity.Blobs(failingBlobs{blobstore.NewMemory()}))
	_, err := e.photos.Create(ctx, bigPhoto(e, "p1", 600*1024))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "S3 is down")
	assert.Equal(t, 0, e.count(t), "S3 first: no item points at a missing object")
}

func TestWithoutABlobStoreAnItemOver400KBIsRefused(t *testing.T) {
	e := newEnv(t, entity.Blobs(nil))
	_, err := e.photos.Create(ctx, bigPhoto(e, "p1", 600*1024))
	require.ErrorIs(t, err, table.ErrItemTooLarge)
	assert.Contains(t, err.Error(), "no blob store")
	assert.Equal(t, 0, e.count(t))
}

func TestOrphansAreTheObjectsNoItemPointsAt(t *testing.T) {
	e := newEnv(t)
	_, err := e.photos.Create(ctx, bigPhoto(e, "p1", 500*1024))
	require.NoError(t, err)
	_, err = e.photos.Create(ctx, bigPhoto(e, "p2", 500*1024))
	require.NoError(t, err)
	_, err = e.photos.Delete(ctx, Photo{AlbumID: "a1", ID: "p1"})
	require.NoError(t, err)

	e.db.Advance(blobstore.DefaultOrphanMinAge * 2)
	var orphans []string
	for k, err := range e.reg.Orphans(ctx) {
		require.NoError(t, err)
		orphans = append(orphans, k)
	}
	require.Len(t, orphans, 1, "p1's metadata; p2's is still pointed at")
	assert.Contains(t, orphans[0], "PHOTO%23p1")
}

// The registry's OrphanMinAge is the age an object must reach before a
// sweep may take it; OrphanMinAge(0) sweeps at once, a negative one is
// refused.
func TestTheRegistrySetsTheOrphanMinimumAge(t *testing.T) {
	orphanAfterDelete := func(t *testing.T, e *env) {
		t.Helper()
		_, err := e.photos.Create(ctx, bigPhoto(e, "p1", 500*1024))
		require.NoError(t, err)
		_, err = e.photos.Delete(ctx, Photo{AlbumID: "a1", ID: "p1"})
		require.NoError(t, err)
	}
	count := func(t *testing.T, e *env) int {
		t.Helper()
		n := 0
		for _, err := range e.reg.Orphans(ctx) {
			require.NoError(t, err)
			n++
		}
		return n
	}
	t.Run("an hour", func(t *testing.T) {
		e := newEnv(t, entity.OrphanMinAge(time.Hour))
		orphanAfterDelete(t, e)
		e.db.Advance(blobstore.DefaultOrphanMinAge * 2)
		assert.Zero(t, count(t, e), "30 minutes old: younger than the registry's hour")
		e.db.Advance(time.Hour)
		assert.Equal(t, 1, count(t, e))
		removed, err := e.reg.RemoveOrphans(ctx)
		require.NoError(t, err)
		assert.Len(t, removed, 1)
	})
	t.Run("none", func(t *testing.T) {
		e := newEnv(t, entity.OrphanMinAge(0))
		orphanAfterDelete(t, e)
		e.db.Advance(time.Millisecond)
		assert.Equal(t, 1, count(t, e), "no protection: swept at once")
	})
	t.Run("default", func(t *testing.T) {
		e := newEnv(t)
		orphanAfterDelete(t, e)
		e.db.Advance(blobstore.DefaultOrphanMinAge - time.Minute)
		assert.Zero(t, count(t, e), "younger than blobstore.DefaultOrphanMinAge")
		e.db.Advance(2 * time.Minute)
		assert.Equal(t, 1, count(t, e))
	})
	t.Run("negative", func(t *testing.T) {
		db := dynamotest.New()
		_, err := entity.NewRegistry(table.New(db, testSchema("x1")), entity.OrphanMinAge(-time.Second))
		require.ErrorIs(t, err, table.ErrInvalidInput)
		assert.Contains(t, err.Error(), "OrphanMinAge")
	})
}
