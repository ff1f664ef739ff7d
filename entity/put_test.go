package entity_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	_, err := e.albums.Delete(ctx, Album{ID: "a1"})
	require.ErrorIs(t, err, table.ErrNotFound)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
	require.NoError(t, err)
	_, err = e.albums.Delete(ctx, Album{ID: "a1"}, entity.IfVersion(a.Version+1))
	require.ErrorIs(t, err, entity.ErrVersionConflict)
	deleted, err := e.albums.Delete(ctx, Album{ID: "a1"}, entity.IfVersion(a.Version))
	require.NoError(t, err)
	assert.True(t, deleted, "a checked Delete that succeeds removed an item")
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
	deleted, err := e.shares.Delete(ctx, Share{AlbumID: "a", UserID: "u"}, entity.Unchecked())
	require.NoError(t, err)
	assert.False(t, deleted)
	require.NoError(t, entity.Transact(ctx, e.shares.TxDelete(Share{AlbumID: "a", UserID: "u"}, entity.Unchecked())))
	_, err = e.shares.Delete(ctx, Share{AlbumID: "a", UserID: "u"})
	require.ErrorIs(t, err, table.ErrNotFound)
}

// An unchecked Delete says whether a live item was there: a missing key and
// an item past its TTL that DynamoDB has not yet removed are none (the fake
// keeps an expired item until its clock moves, as DynamoDB keeps it until
// the sweeper comes), a live item is one. Either way the key is gone after.
func TestAnUncheckedDeleteReportsWhetherALiveItemWasThere(t *testing.T) {
	e := newEnv(t)
	now := e.db.Now()
	_, err := e.shares.Create(ctx, Share{AlbumID: "a", UserID: "live", Role: "viewer", ExpiresAt: now.Add(time.Hour).Unix()})
	require.NoError(t, err)
	_, err = e.shares.Create(ctx, Share{AlbumID: "a", UserID: "expired", Role: "viewer", ExpiresAt: now.Add(-time.Minute).Unix()})
	require.NoError(t, err)
	stored := func(user string) bool {
		out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("albums"),
			Key: e.t.Key("ALBUM#a", "SHARE#"+user), ConsistentRead: aws.Bool(true)})
		require.NoError(t, err)
		return len(out.Item) > 0
	}
	require.True(t, stored("expired"), "the expired item is still stored: the fake's clock has not moved")

	for _, c := range []struct {
		user string
		want bool
	}{{"missing", false}, {"expired", false}, {"live", true}} {
		deleted, err := e.shares.Delete(ctx, Share{AlbumID: "a", UserID: c.user}, entity.Unchecked())
		require.NoError(t, err, c.user)
		assert.Equal(t, c.want, deleted, "deleted of the %s item", c.user)
		assert.False(t, stored(c.user), "the %s item's key is empty after", c.user)
	}

	deleted, err := e.shares.Delete(ctx, Share{AlbumID: "a", UserID: "live"})
	require.ErrorIs(t, err, table.ErrNotFound, "a checked Delete of a missing item is refused")
	assert.False(t, deleted)
}

// TestAConditionWithoutValuesIsSentWithoutAnEmptyValueMap: DynamoDB refuses
// an empty ExpressionAttributeValues, which a caller's condition such as
// attribute_not_exists(caption) on an entity whose own condition has no
// value (no TTL, no version compared) left: every such write was refused
// with a ValidationException.
func TestAConditionWithoutValuesIsSentWithoutAnEmptyValueMap(t *testing.T) {
	e := newEnv(t)
	noCaption := entity.If(expression.AttributeNotExists(expression.Name("caption")))
	p, err := e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.now()}, noCaption)
	require.NoError(t, err, "Create")
	p.Caption = "snow"
	_, err = e.photos.Put(ctx, p, noCaption)
	require.NoError(t, err, "Put")
	_, err = e.photos.Put(ctx, p, noCaption)
	require.ErrorIs(t, err, table.ErrConditionFailed, "the condition is sent and holds no more")
	_, err = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"}, entity.If(expression.AttributeNotExists(expression.Name("title"))))
	require.NoError(t, err, "Create of a versioned entity")
	deleted, err := e.photos.Delete(ctx, Photo{AlbumID: "a1", ID: "p1"}, entity.If(expression.AttributeExists(expression.Name("caption"))))
	require.NoError(t, err, "Delete")
	assert.True(t, deleted)
}
