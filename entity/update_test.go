package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

func TestUpdateBuilderSetsAddsRemovesAndAppends(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t", Tags: []string{"a"}, Visibility: "public"})
	require.NoError(t, err)
	got, err := e.albums.Patch(Album{ID: "a1"}).
		Set("title", "Alps").
		Add("photoCount", 2).
		Append("tags", "b", "c").
		Remove("visibility").
		Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, "Alps", got.Title)
	assert.Equal(t, 2, got.PhotoCount)
	assert.Equal(t, []string{"a", "b", "c"}, got.Tags)
	assert.Empty(t, got.Visibility)
	assert.Equal(t, 2, got.Version, "every update moves the version")

	got, err = e.albums.Patch(Album{ID: "a1"}).SetIfNotExists("title", "ignored").Add("photoCount", 1).Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, "Alps", got.Title, "if_not_exists keeps what is there")
	assert.Equal(t, 3, got.PhotoCount)
}

func TestPatchOfAMissingItemIsNotFoundAndUpdateCreatesIt(t *testing.T) {
	e := newEnv(t)
	_, err := e.shares.Patch(Share{AlbumID: "a", UserID: "u"}).Set("role", "viewer").Run(ctx)
	require.ErrorIs(t, err, table.ErrNotFound)
	assert.Equal(t, 0, e.count(t))

	got, err := e.shares.Update(Share{AlbumID: "a", UserID: "u"}).Set("role", "viewer").Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, Share{AlbumID: "a", UserID: "u", Role: "viewer"}, got)
	item := e.raw(t, "ALBUM#a", "SHARE#u")
	assert.Equal(t, s("share"), item["_type"], "an upserted item is typed like a created one")
}

func TestUpdateWithIfVersionDetectsAConflict(t *testing.T) {
	e := newEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
	require.NoError(t, err)
	_, err = e.albums.Patch(Album{ID: "a1"}).Set("title", "first").IfVersion(a.Version).Run(ctx)
	require.NoError(t, err)
	_, err = e.albums.Patch(Album{ID: "a1"}).Set("title", "second").IfVersion(a.Version).Run(ctx)
	require.ErrorIs(t, err, entity.ErrVersionConflict)
	_, err = e.albums.Patch(Album{ID: "zz"}).Set("title", "x").IfVersion(1).Run(ctx)
	require.ErrorIs(t, err, table.ErrNotFound)
	_, err = e.albums.Patch(Album{ID: "a1"}).Set("title", "x").If(expression.Name("title").Equal(expression.Value("nope"))).Run(ctx)
	require.ErrorIs(t, err, table.ErrConditionFailed)
	got, err := e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, "first", got.Title)
}

func TestUpdateRebuildsTheIndexKeysOfWhatItSets(t *testing.T) {
	e := newEnv(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
	require.NoError(t, err)
	_, err = e.albums.Patch(Album{ID: "a1"}).Set("ownerId", "u2").Run(ctx)
	require.NoError(t, err, "the index partition key is built from ownerId alone; the sort key from createdAt, unchanged")
	item := e.raw(t, "ALBUM#a1", "ALBUM")
	assert.Equal(t, s("USER#u2"), item["gsi1pk"])
	assert.Equal(t, s("ALBUM#"+keys.FormatTime(a.CreatedAt)), item["gsi1sk"])
	_, err = e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: e.db.Now()})
	require.NoError(t, err)
	at := e.db.Now().Add(-1)
	_, err = e.photos.Patch(Photo{AlbumID: "a1", ID: "p1"}).Set("ownerId", "u9").Set("takenAt", at).Run(ctx)
	require.NoError(t, err)
	item = e.raw(t, "ALBUM#a1", "PHOTO#p1")
	assert.Equal(t, s("USER#u9"), item["gsi1pk"])
}

func TestUpdateRefusesWhatItCannotWriteBeforeSending(t *testing.T) {
	e := newEnv(t)
	cases := map[string]*entity.Update[Album]{
		"a table key field":         e.albums.Patch(Album{ID: "a"}).Set("albumId", "b"),
		"an unknown attribute":      e.albums.Patch(Album{ID: "a"}).Set("nosuch", 1),
		"a value of the wrong type": e.albums.Patch(Album{ID: "a"}).Set("title", 3),
		"a kept attribute":          e.albums.Patch(Album{ID: "a"}).Set("version", 9),
		"a broken rule":             e.albums.Patch(Album{ID: "a"}).Set("visibility", "secret"),
		"removing a required one":   e.albums.Patch(Album{ID: "a"}).Remove("title"),
		"adding to a string":        e.albums.Patch(Album{ID: "a"}).Add("title", 1),
		"appending to a number":     e.albums.Patch(Album{ID: "a"}).Append("photoCount", 1),
		"nothing to do":             e.albums.Patch(Album{ID: "a"}),
		"an empty key field":        e.albums.Patch(Album{}).Set("title", "x"),
		"one attribute twice":       e.albums.Patch(Album{ID: "a"}).Set("title", "x").Set("title", "y"),
	}
	for name, u := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := u.Run(ctx)
			require.ErrorIs(t, err, table.ErrInvalidInput)
		})
	}
	assert.Zero(t, e.db.Calls("UpdateItem"))
}

func TestLeaveIndexTakesTheItemOutOfAnIndex(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t"})
	require.NoError(t, err)
	_, err = e.albums.Patch(Album{ID: "a1"}).Set("title", "archived").LeaveIndex("GSI1").Run(ctx)
	require.NoError(t, err)
	item := e.raw(t, "ALBUM#a1", "ALBUM")
	assert.NotContains(t, item, "gsi1pk")
	assert.NotContains(t, item, "gsi1sk")
	page, err := e.albums.List(ctx, Album{OwnerID: "u1"}, "", entity.ByIndex("GSI1"))
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	_, err = e.albums.Patch(Album{ID: "a1"}).LeaveIndex("GSI9").Run(ctx)
	require.ErrorIs(t, err, table.ErrInvalidInput)
}
