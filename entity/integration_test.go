package entity_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// localEnv is the test domain on its own table in DynamoDB Local (skipped
// when TABLEKIT_DYNAMODB_ENDPOINT is unset), offloading to s3rver when
// TABLEKIT_S3_ENDPOINT is set and to memory otherwise.
func localEnv(t *testing.T, opts ...func(*entity.RegistryOptions)) *env {
	t.Helper()
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "albums")
	s := testSchema(name)
	require.NoError(t, s.Create(ctx, client))
	t.Cleanup(func() { client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	var blobs blobstore.Store = blobstore.NewMemory()
	if os.Getenv(testenv.S3EndpointVar) != "" {
		s3blobs, err := s3blob.New(testenv.S3(t), testenv.Bucket(t, "albums"))
		require.NoError(t, err)
		blobs = s3blobs
	}
	e := &env{t: table.New(client, s), clock: newTestClock()}
	e.declare(t, blobs, append([]func(*entity.RegistryOptions){entity.Clock(e.clock.Now)}, opts...)...)
	return e
}

// localCount is how many items the table on Local holds.
func localCount(t *testing.T, e *env) int {
	t.Helper()
	n := 0
	for _, err := range table.ScanAll[table.Item](ctx, e.t, table.Scan{Consistent: true}) {
		require.NoError(t, err)
		n++
	}
	return n
}

func TestIntegrationEveryOperationOnDynamoDBLocal(t *testing.T) {
	e := localEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	_, err = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "again"})
	require.ErrorIs(t, err, table.ErrAlreadyExists)

	got, err := e.albums.Get(ctx, Album{ID: "a1"}, entity.Consistent())
	require.NoError(t, err)
	assert.Equal(t, "Alps", got.Title)

	got.Title = "Alps 2025"
	put, err := e.albums.Put(ctx, got)
	require.NoError(t, err)
	assert.Equal(t, 2, put.Version)
	_, err = e.albums.Put(ctx, got)
	require.ErrorIs(t, err, entity.ErrVersionConflict, "the same version twice")

	patched, err := e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 2).Append("tags", "snow").IfVersion(2).Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, patched.PhotoCount)
	assert.Equal(t, 3, patched.Version)
	_, err = e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).IfVersion(2).Run(ctx)
	require.ErrorIs(t, err, entity.ErrVersionConflict)
	_, err = e.albums.Patch(Album{ID: "zz"}).Add("photoCount", 1).Run(ctx)
	require.ErrorIs(t, err, table.ErrNotFound)

	up, err := e.shares.Update(Share{AlbumID: "a1", UserID: "u2"}).Set("role", "viewer").Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, Share{AlbumID: "a1", UserID: "u2", Role: "viewer"}, up)
	ups, err := e.albums.Upsert(ctx, Album{ID: "a2", OwnerID: "u1", Title: "Dolomites"})
	require.NoError(t, err)
	assert.Equal(t, 1, ups.Version)

	for i := range 12 {
		_, err := e.photos.Create(ctx, Photo{AlbumID: "a1", ID: fmt.Sprintf("p%02d", i), OwnerID: "u1", TakenAt: a.CreatedAt.Add(-1)})
		require.NoError(t, err)
	}
	var listed []string
	for p, err := range e.photos.Items(ctx, Photo{AlbumID: "a1"}, entity.Limit(5), entity.Consistent()) {
		require.NoError(t, err)
		listed = append(listed, p.ID)
	}
	assert.Len(t, listed, 12, "photos only, across three pages")
	var byUser []string
	for p, err := range e.photos.Items(ctx, Photo{OwnerID: "u1"}, entity.ByIndex("GSI1"), entity.Limit(4)) {
		require.NoError(t, err)
		byUser = append(byUser, p.ID)
	}
	assert.Equal(t, listed, byUser, "photos taken in one instant are ordered by their sort key on the index too")

	_, err = e.albums.Delete(ctx, Album{ID: "a1"}, entity.IfVersion(1))
	require.ErrorIs(t, err, entity.ErrVersionConflict)
	deleted, err := e.albums.Delete(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.True(t, deleted)
	_, err = e.albums.Delete(ctx, Album{ID: "a1"})
	require.ErrorIs(t, err, table.ErrNotFound)
	deleted, err = e.albums.Delete(ctx, Album{ID: "a1"}, entity.Unchecked())
	require.NoError(t, err)
	assert.False(t, deleted, "an unchecked Delete of a missing item reports none")
	_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u9", Role: "viewer"})
	require.NoError(t, err)
	deleted, err = e.shares.Delete(ctx, Share{AlbumID: "a1", UserID: "u9"}, entity.Unchecked())
	require.NoError(t, err)
	assert.True(t, deleted, "an unchecked Delete of a live item reports it")
}

func TestIntegrationFiftyConcurrentCreatesOfOneKeyHaveOneWinner(t *testing.T) {
	e := localEnv(t)
	wins, exists := race(t, 50, table.ErrAlreadyExists, func(i int) error {
		_, err := e.albums.Create(ctx, Album{ID: "contended", OwnerID: "u", Title: fmt.Sprint(i)})
		return err
	})
	assert.Equal(t, 1, wins)
	assert.Equal(t, 49, exists)
}

func TestIntegrationConcurrentPutsOfOneVersionHaveOneWinner(t *testing.T) {
	e := localEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u", Title: "t"})
	require.NoError(t, err)
	wins, conflicts := race(t, 10, entity.ErrVersionConflict, func(i int) error {
		v := a
		v.Title = fmt.Sprint("writer ", i)
		_, err := e.albums.Put(ctx, v)
		return err
	})
	assert.Equal(t, 1, wins)
	assert.Equal(t, 9, conflicts)
	got, err := e.albums.Get(ctx, Album{ID: "a"}, entity.Consistent())
	require.NoError(t, err)
	assert.Equal(t, 2, got.Version)
}

func TestIntegrationBadInputIsRefusedAndWritesNothing(t *testing.T) {
	e := localEnv(t)
	_, err := e.albums.Create(ctx, Album{OwnerID: "u", Title: "t"})
	require.ErrorIs(t, err, keys.ErrEmpty, "missing key field")
	_, err = e.albums.Create(ctx, Album{ID: "a#b", OwnerID: "u", Title: "t"})
	require.ErrorIs(t, err, keys.ErrDelimiter, "a delimiter inside a value")
	_, err = e.albums.Create(ctx, Album{ID: "a", OwnerID: "u", Title: strings.Repeat("x", table.MaxItemSize)})
	require.ErrorIs(t, err, table.ErrItemTooLarge, "over 400 KB with no offload rule")
	assert.Equal(t, 0, localCount(t, e))
}

func TestIntegrationCollectionsBatchesTransactionsAndOffload(t *testing.T) {
	e := localEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, entity.Transact(ctx,
			e.photos.TxCreate(Photo{AlbumID: "a1", ID: fmt.Sprintf("p%d", i), OwnerID: "u1", TakenAt: a.CreatedAt,
				Metadata: strings.Repeat("m", i*250*1024)}),
			e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Action()))
	}
	_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u2", Role: "viewer"})
	require.NoError(t, err)
	err = entity.Transact(ctx,
		e.photos.TxCreate(Photo{AlbumID: "a1", ID: "p0", OwnerID: "u1", TakenAt: a.CreatedAt}),
		e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Action())
	require.ErrorIs(t, err, table.ErrAlreadyExists, "the photo exists: nothing counted")

	col, err := entity.NewCollection(e.reg, "albumView", "", e.albums, e.photos, e.shares)
	require.NoError(t, err)
	page, err := col.List(ctx, Album{ID: "a1"}, "", entity.Consistent())
	require.NoError(t, err)
	require.Len(t, page.Items, 5)
	assert.Equal(t, 3, page.Items[0].(Album).PhotoCount)
	photos := entity.Of[Photo](page.Items)
	require.Len(t, photos, 3)
	assert.Len(t, photos[2].Metadata, 500*1024, "offloaded to the blob store and read back")

	more := make([]Photo, 30)
	for i := range more {
		more[i] = Photo{AlbumID: "b", ID: fmt.Sprintf("q%02d", i), OwnerID: "u1", TakenAt: a.CreatedAt}
	}
	_, err = e.photos.BatchPut(ctx, more)
	require.NoError(t, err)
	got, err := e.photos.BatchGet(ctx, more, entity.Consistent())
	require.NoError(t, err)
	assert.Equal(t, ids(more), ids(got))
	require.NoError(t, e.photos.BatchDelete(ctx, more))
}
