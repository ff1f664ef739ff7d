package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

func TestPutIsOptimisticOnTheVersionItWasRead(t *testing.T) {
	e := newEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "v1"})
	require.NoError(t, err)

	mine, theirs := a, a
	mine.Title, theirs.Title = "mine", "theirs"
	saved, err := e.albums.Put(ctx, mine)
	require.NoError(t, err)
	assert.Equal(t, 2, saved.Version, "a put stores the next version")
	assert.True(t, saved.CreatedAt.Equal(a.CreatedAt), "Created is kept")

	_, err = e.albums.Put(ctx, theirs)
	require.ErrorIs(t, err, entity.ErrVersionConflict, "the second put based on version 1 loses")
	assert.ErrorIs(t, err, table.ErrConditionFailed)
	got, err := e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, "mine", got.Title)
	assert.Equal(t, 2, got.Version)
}

func TestPutOfVersionZeroCreatesAndOfAMissingItemIsNotFound(t *testing.T) {
	e := newEnv(t)
	a, err := e.albums.Put(ctx, Album{ID: "new", OwnerID: "u", Title: "t"})
	require.NoError(t, err)
	assert.Equal(t, 1, a.Version)
	_, err = e.albums.Put(ctx, Album{ID: "new", OwnerID: "u", Title: "again"})
	require.ErrorIs(t, err, entity.ErrVersionConflict, "version 0 says it is not there yet")
	_, err = e.albums.Put(ctx, Album{ID: "gone", OwnerID: "u", Title: "t", Version: 3})
	require.ErrorIs(t, err, table.ErrNotFound)
}

func TestPutOfAnUnversionedEntityReplacesAndHonoursConditions(t *testing.T) {
	e := newEnv(t)
	_, err := e.shares.Put(ctx, Share{AlbumID: "a", UserID: "u", Role: "viewer"})
	require.NoError(t, err)
	_, err = e.shares.Put(ctx, Share{AlbumID: "a", UserID: "u", Role: "editor"})
	require.NoError(t, err)
	_, err = e.shares.Put(ctx, Share{AlbumID: "a", UserID: "u", Role: "viewer"},
		entity.If(expression.Name("role").Equal(expression.Value("viewer"))))
	require.ErrorIs(t, err, table.ErrConditionFailed)
	got, err := e.shares.Get(ctx, Share{AlbumID: "a", UserID: "u"})
	require.NoError(t, err)
	assert.Equal(t, "editor", got.Role)
}

func TestDeleteIsConditionalOnTheItemAndItsVersion(t *testing.T) {
	e := newEnv(t)
	require.ErrorIs(t, e.albums.Delete(ctx, Album{ID: "a1"}), table.ErrNotFound)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
	require.NoError(t, err)
	require.ErrorIs(t, e.albums.Delete(ctx, Album{ID: "a1"}, entity.IfVersion(a.Version+1)), entity.ErrVersionConflict)
	require.NoError(t, e.albums.Delete(ctx, Album{ID: "a1"}, entity.IfVersion(a.Version)))
	_, err = e.albums.Get(ctx, Album{ID: "a1"})
	require.ErrorIs(t, err, table.ErrNotFound)
}

func TestUpsertCreatesOrUpdatesKeepingCreated(t *testing.T) {
	e := newEnv(t)
	first, err := e.albums.Upsert(ctx, Album{ID: "u1", OwnerID: "o", Title: "one"})
	require.NoError(t, err)
	assert.Equal(t, 1, first.Version)
	e.db.Advance(1)
	second, err := e.albums.Upsert(ctx, Album{ID: "u1", OwnerID: "o", Title: "two"})
	require.NoError(t, err)
	assert.Equal(t, "two", second.Title)
	assert.Equal(t, 2, second.Version)
	assert.True(t, second.CreatedAt.Equal(first.CreatedAt), "Created stays")
	assert.True(t, second.UpdatedAt.After(first.UpdatedAt))
}

func TestAnUncheckedDeleteOfAMissingItemIsNoError(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, e.shares.Delete(ctx, Share{AlbumID: "a", UserID: "u"}, entity.Unchecked()))
	require.NoError(t, entity.Transact(ctx, e.shares.TxDelete(Share{AlbumID: "a", UserID: "u"}, entity.Unchecked())))
	require.ErrorIs(t, e.shares.Delete(ctx, Share{AlbumID: "a", UserID: "u"}), table.ErrNotFound)
}
