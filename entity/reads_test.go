package entity_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// makeEnv makes the test domain's table and entities: on the fake
// (fakeEnv) or on DynamoDB Local (localEnv), so one test body runs on both.
type makeEnv func(t *testing.T, opts ...func(*entity.RegistryOptions)) *env

func fakeEnv(t *testing.T, opts ...func(*entity.RegistryOptions)) *env { return newEnv(t, opts...) }

// registries runs fn with the test domain stored with the type attribute
// and without it (items told apart by key shape alone).
func registries(t *testing.T, mk makeEnv, fn func(t *testing.T, e *env)) {
	t.Run("type attribute", func(t *testing.T) { fn(t, mk(t)) })
	t.Run("no type attribute", func(t *testing.T) { fn(t, mk(t, entity.NoTypeAttribute())) })
}

// walk lists every page of list, failing on a page that is empty but
// for the last, and returns the items in order.
func walk[T any](t *testing.T, list func(cursor string) (table.Page[T], error)) []T {
	t.Helper()
	var all []T
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000)
		page, err := list(cursor)
		require.NoError(t, err)
		all = append(all, page.Items...)
		if cursor = page.Next; cursor == "" {
			return all
		}
		require.NotEmpty(t, page.Items, "a page with a next cursor is empty")
	}
}

func tagNames(ts []Tag) []string {
	out := make([]string, len(ts))
	for i, v := range ts {
		out[i] = v.PhotoID + "/" + v.Name
	}
	return out
}

// testEveryReadReturnsOnlyTheEntitysItems is issue 32's first finding: a
// photo's key PHOTO#p1 is a prefix of its tags' PHOTO#p1#TAG#snow, in one
// partition, and the photos' plain prefix query returned the tags as
// photos with empty fields (and the tags' the photos). One test (owns)
// decides on every read path, with the type attribute and without it.
func testEveryReadReturnsOnlyTheEntitysItems(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
		require.NoError(t, err)
		var photos []string
		for i := range 3 {
			id := fmt.Sprintf("p%d", i)
			photos = append(photos, id)
			_, err := e.photos.Create(ctx, Photo{AlbumID: "a1", ID: id, OwnerID: "u1", TakenAt: at})
			require.NoError(t, err)
			for _, name := range []string{"snow", "sun"} {
				_, err := e.tags.Create(ctx, Tag{AlbumID: "a1", PhotoID: id, Name: name})
				require.NoError(t, err)
			}
		}
		_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u2", Role: "viewer"})
		require.NoError(t, err)
		tags := []string{"p0/snow", "p0/sun", "p1/snow", "p1/sun", "p2/snow", "p2/sun"}

		for _, limit := range []int{0, 1, 2, 4} {
			got := walk(t, func(c string) (table.Page[Photo], error) {
				return e.photos.List(ctx, Photo{AlbumID: "a1"}, c, entity.Limit(limit), entity.Consistent())
			})
			assert.Equal(t, photos, ids(got), "photos.List, limit %d: no tag is a photo", limit)
			gotTags := walk(t, func(c string) (table.Page[Tag], error) {
				return e.tags.List(ctx, Tag{AlbumID: "a1"}, c, entity.Limit(limit), entity.Consistent())
			})
			assert.Equal(t, tags, tagNames(gotTags), "tags.List, limit %d: no photo is a tag", limit)
			gotTags = walk(t, func(c string) (table.Page[Tag], error) {
				return e.tags.List(ctx, Tag{AlbumID: "a1"}, c, entity.Limit(limit), entity.Consistent(), entity.SortBeginsWith("p1"))
			})
			assert.Equal(t, tags[2:4], tagNames(gotTags), "tags of p1 (a prefix query that reaches photo p1)")
			byIndex := walk(t, func(c string) (table.Page[Photo], error) {
				return e.photos.List(ctx, Photo{OwnerID: "u1"}, c, entity.Limit(limit), entity.ByIndex("GSI1"))
			})
			assert.Equal(t, photos, ids(byIndex), "photos on the index, limit %d: no album", limit)
		}
		var items []Photo
		for p, err := range e.photos.Items(ctx, Photo{AlbumID: "a1"}, entity.Limit(1), entity.Consistent()) {
			require.NoError(t, err)
			items = append(items, p)
		}
		assert.Equal(t, photos, ids(items), "photos.Items")
		var itemTags []Tag
		for v, err := range e.tags.Items(ctx, Tag{AlbumID: "a1"}, entity.Consistent(), entity.SortGreaterOrEqual("p1")) {
			require.NoError(t, err)
			itemTags = append(itemTags, v)
		}
		assert.Equal(t, tags[2:], tagNames(itemTags), "tags.Items from p1 on")

		col, err := entity.NewCollection(e.reg, "photoView", "", e.photos, e.tags)
		require.NoError(t, err)
		all := walk(t, func(c string) (table.Page[any], error) {
			return col.List(ctx, Photo{AlbumID: "a1"}, c, entity.Limit(2), entity.Consistent())
		})
		var kinds []string
		for _, v := range all {
			switch v := v.(type) {
			case Photo:
				kinds = append(kinds, "photo "+v.ID)
			case Tag:
				kinds = append(kinds, "tag "+v.PhotoID+"/"+v.Name)
			default:
				kinds = append(kinds, fmt.Sprintf("%T", v))
			}
		}
		assert.Equal(t, []string{"photo p0", "tag p0/snow", "tag p0/sun", "photo p1", "tag p1/snow", "tag p1/sun",
			"photo p2", "tag p2/snow", "tag p2/sun"}, kinds, "the album and the share are no members")

		got, err := e.photos.BatchGet(ctx, []Photo{{AlbumID: "a1", ID: "p0"}, {AlbumID: "a1", ID: "p9"}}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, []string{"p0"}, ids(got))

		tagItem := e.raw(t, "ALBUM#a1", "PHOTO#p0#TAG#snow")
		photoItem := e.raw(t, "ALBUM#a1", "PHOTO#p0")
		name, ok := e.reg.Identify(tagItem)
		assert.True(t, ok)
		assert.Equal(t, "tag", name)
		_, ok, err = e.photos.FromChange(ctx, changes.Change[table.Item]{Event: changes.Insert, Keys: table.Item{"pk": tagItem["pk"], "sk": tagItem["sk"]}, New: &tagItem})
		require.NoError(t, err)
		assert.False(t, ok, "a tag's change is no photo's")
		v, ok, err := e.reg.FromChange(ctx, changes.Change[table.Item]{Event: changes.Insert, Keys: table.Item{"pk": tagItem["pk"], "sk": tagItem["sk"]}, New: &tagItem})
		require.NoError(t, err)
		require.True(t, ok)
		assert.IsType(t, Tag{}, v)
		_, err = e.photos.Decode(ctx, tagItem)
		assert.ErrorIs(t, err, entity.ErrUnknownItem, "photos.Decode(tag)")
		_, err = e.tags.Decode(ctx, photoItem)
		assert.ErrorIs(t, err, entity.ErrUnknownItem, "tags.Decode(photo)")
	})
}

func TestEveryReadReturnsOnlyTheEntitysItems(t *testing.T) {
	testEveryReadReturnsOnlyTheEntitysItems(t, fakeEnv)
}

func TestIntegrationEveryReadReturnsOnlyTheEntitysItems(t *testing.T) {
	testEveryReadReturnsOnlyTheEntitysItems(t, localEnv)
}

// testDecodeRefusesWhatIsNotTheEntitys: with NoTypeAttribute,
// albums.Decode(photoItem) returned an Album and no error; with the type
// attribute, decoding an empty item returned a zero Album and no error.
func testDecodeRefusesWhatIsNotTheEntitys(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
		require.NoError(t, err)
		_, err = e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: time.Unix(1, 0)})
		require.NoError(t, err)
		albumItem := e.raw(t, "ALBUM#a1", "ALBUM")
		photoItem := e.raw(t, "ALBUM#a1", "PHOTO#p1")

		a, err := e.albums.Decode(ctx, albumItem)
		require.NoError(t, err)
		assert.Equal(t, "Alps", a.Title)
		for name, item := range map[string]table.Item{"a photo": photoItem, "an empty item": {}, "nil": nil} {
			a, err := e.albums.Decode(ctx, item)
			assert.ErrorIs(t, err, entity.ErrUnknownItem, "albums.Decode(%s)", name)
			assert.Zero(t, a)
			_, err = e.reg.Decode(ctx, item)
			if name != "a photo" {
				assert.ErrorIs(t, err, entity.ErrUnknownItem, "reg.Decode(%s)", name)
			}
		}
		p, err := e.reg.Decode(ctx, photoItem)
		require.NoError(t, err)
		assert.IsType(t, Photo{}, p)
	})
}

func TestDecodeRefusesWhatIsNotTheEntitys(t *testing.T) {
	testDecodeRefusesWhatIsNotTheEntitys(t, fakeEnv)
}

func TestIntegrationDecodeRefusesWhatIsNotTheEntitys(t *testing.T) {
	testDecodeRefusesWhatIsNotTheEntitys(t, localEnv)
}

// testIndexTiesAcrossPartitionsAreBrokenByTheTableKey: two albums of one
// owner each hold a photo p1 taken in the same instant, so their index
// sort keys tie (PHOTO#<time>#p1) and so do their table sort keys
// (PHOTO#p1): the tie-break was the table's sort key alone, and the list
// failed with ErrBadTieBreak. The table key (pk, then sk) is unique.
func testIndexTiesAcrossPartitionsAreBrokenByTheTableKey(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		var want []string
		for _, album := range []string{"c", "a", "d", "b"} {
			for _, id := range []string{"p2", "p1"} {
				_, err := e.photos.Create(ctx, Photo{AlbumID: album, ID: id, OwnerID: "u1", TakenAt: at})
				require.NoError(t, err)
			}
		}
		for _, id := range []string{"p1", "p2"} {
			for _, album := range []string{"a", "b", "c", "d"} {
				want = append(want, album+"/"+id)
			}
		}
		key := func(ps []Photo) []string {
			out := make([]string, len(ps))
			for i, p := range ps {
				out[i] = p.AlbumID + "/" + p.ID
			}
			return out
		}
		for _, limit := range []int{0, 1, 3} {
			got := walk(t, func(c string) (table.Page[Photo], error) {
				return e.photos.List(ctx, Photo{OwnerID: "u1"}, c, entity.ByIndex("GSI1"), entity.Limit(limit))
			})
			assert.Equal(t, want, key(got), "limit %d: by takenAt and id, then by album", limit)
			got = walk(t, func(c string) (table.Page[Photo], error) {
				return e.photos.List(ctx, Photo{OwnerID: "u1"}, c, entity.ByIndex("GSI1"), entity.Limit(limit), entity.Descending())
			})
			rev := make([]string, len(want))
			for i, w := range want {
				rev[len(want)-1-i] = w
			}
			assert.Equal(t, rev, key(got), "limit %d, descending: the exact reverse", limit)
		}
		col, err := entity.NewCollection(e.reg, "byOwner", "GSI1", e.albums, e.photos)
		require.NoError(t, err)
		all := walk(t, func(c string) (table.Page[any], error) {
			return col.List(ctx, Photo{OwnerID: "u1"}, c, entity.Limit(3))
		})
		assert.Len(t, all, len(want), "a collection on the index too")
	})
}

func TestIndexTiesAcrossPartitionsAreBrokenByTheTableKey(t *testing.T) {
	testIndexTiesAcrossPartitionsAreBrokenByTheTableKey(t, fakeEnv)
}

func TestIntegrationIndexTiesAcrossPartitionsAreBrokenByTheTableKey(t *testing.T) {
	testIndexTiesAcrossPartitionsAreBrokenByTheTableKey(t, localEnv)
}
