package entity_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// seedAlbum writes album a1 with n photos p00.. taken a minute apart, and
// a share, all in one partition.
func seedAlbum(t testing.TB, e *env, n int) []Photo {
	t.Helper()
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u2", Role: "viewer"})
	require.NoError(t, err)
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var ps []Photo
	for i := range n {
		p, err := e.photos.Create(ctx, Photo{AlbumID: "a1", ID: fmt.Sprintf("p%02d", i), OwnerID: "u1", TakenAt: base.Add(time.Duration(i) * time.Minute)})
		require.NoError(t, err)
		ps = append(ps, p)
	}
	return ps
}

func ids(ps []Photo) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func TestListPagesThroughTheEntitysItemsOfAPartitionOnly(t *testing.T) {
	e := newEnv(t)
	want := seedAlbum(t, e, 25)
	var got []Photo
	cursor, pages := "", 0
	for {
		page, err := e.photos.List(ctx, Photo{AlbumID: "a1"}, cursor, entity.Limit(10))
		require.NoError(t, err)
		got = append(got, page.Items...)
		pages++
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, 3, pages)
	assert.Equal(t, ids(want), ids(got), "photos only (not the album or the share), in sort key order")

	var all []Photo
	for p, err := range e.photos.Items(ctx, Photo{AlbumID: "a1"}, entity.Limit(7)) {
		require.NoError(t, err)
		all = append(all, p)
	}
	assert.Equal(t, ids(want), ids(all))

	_, err := e.photos.List(ctx, Photo{AlbumID: "a2"}, page1Next(t, e))
	require.ErrorIs(t, err, table.ErrInvalidCursor, "a cursor is bound to its partition")
}

func page1Next(t *testing.T, e *env) string {
	page, err := e.photos.List(ctx, Photo{AlbumID: "a1"}, "", entity.Limit(2))
	require.NoError(t, err)
	require.NotEmpty(t, page.Next)
	return page.Next
}

func TestListSortConditionsComeFromTheTemplate(t *testing.T) {
	e := newEnv(t)
	ps := seedAlbum(t, e, 12)
	list := func(opts ...func(*entity.ListOptions)) []string {
		t.Helper()
		var out []Photo
		for p, err := range e.photos.Items(ctx, Photo{OwnerID: "u1"}, append(opts, entity.ByIndex("GSI1"))...) {
			require.NoError(t, err)
			out = append(out, p)
		}
		return ids(out)
	}
	assert.Equal(t, ids(ps), list(), "the index sorts photos by takenAt")
	assert.Equal(t, []string{"p03", "p04", "p05"}, list(entity.SortBetween([]any{ps[3].TakenAt}, []any{ps[5].TakenAt})))
	assert.Equal(t, []string{"p10", "p11"}, list(entity.SortGreaterOrEqual(ps[10].TakenAt)))
	assert.Equal(t, []string{"p11"}, list(entity.SortGreater(ps[10].TakenAt)))
	assert.Equal(t, []string{"p00", "p01"}, list(entity.SortLess(ps[2].TakenAt)))
	assert.Equal(t, []string{"p00", "p01", "p02"}, list(entity.SortLessOrEqual(ps[2].TakenAt)))
	assert.Equal(t, []string{"p07"}, list(entity.SortBeginsWith(ps[7].TakenAt, "p07")))
	assert.Equal(t, []string{"p11", "p10"}, list(entity.SortGreaterOrEqual(ps[10].TakenAt), entity.Descending()))

	_, err := e.photos.List(ctx, Photo{OwnerID: "u1"}, "", entity.ByIndex("GSI1"), entity.SortBeginsWith("not a time"))
	require.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = e.photos.List(ctx, Photo{}, "")
	require.ErrorIs(t, err, table.ErrInvalidInput, "a partition field left empty")
}

func TestAnIndexListOrdersTiesByTheTieBreak(t *testing.T) {
	e := newEnv(t)
	// Albums created in one microsecond share their index sort key.
	for _, id := range []string{"b", "c", "a", "d"} {
		_, err := e.albums.Create(ctx, Album{ID: id, OwnerID: "u1", Title: id, CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		require.NoError(t, err)
	}
	var got []string
	for a, err := range e.albums.Items(ctx, Album{OwnerID: "u1"}, entity.ByIndex("GSI1"), entity.Limit(1)) {
		require.NoError(t, err)
		got = append(got, a.ID)
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, got, "ties by the table key, one item a page")
}
