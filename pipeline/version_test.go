package pipeline_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// mixedVersions writes a pipeline whose versions are in both forms,
// interleaved: padded ones written by Update, some of them replaced by the
// seed's unpadded form, seed-form ones beyond them, numbers written in
// both forms, and a ten-digit one (a single form). Each item's name says
// its number and form; the result is every name in ListVersions's order:
// by number, the padded item first where a number has both.
func mixedVersions(t *testing.T, s *pipeline.Store, id string) []string {
	t.Helper()
	ctx := context.Background()
	p, err := s.Create(ctx, pipeline.Input{ID: id, Name: "padded-1"})
	require.NoError(t, err)
	for v := 2; v <= 12; v++ {
		p, err = s.Update(ctx, id, p.Version, pipeline.Input{Name: fmt.Sprint("padded-", v)})
		require.NoError(t, err)
	}
	pk := "P:" + id
	for _, v := range []int{2, 5, 10, 11} { // the padded item goes, the seed's form replaces it
		require.NoError(t, s.Table().Delete(ctx, s.Table().Key(pk, fmt.Sprintf("PV:%010d", v))))
	}
	seed := []int{2, 5, 10, 11, 3, 12, 9, 13, 20, 100, 21, 1000000000}
	for _, v := range seed {
		it, err := table.Marshal(map[string]any{"pk": pk, "sk": fmt.Sprint("PV:", v), "siKey1": "P", "name": fmt.Sprint("seed-", v),
			"state": "enabled", "createdAt": "2022-08-10T23:55:20.322Z", "updatedAt": "2022-08-10T23:55:20.322Z", "version": v})
		require.NoError(t, err)
		require.NoError(t, s.Table().Put(ctx, it))
	}
	type entry struct {
		n    int
		name string
	}
	var want []entry
	for v := 1; v <= 12; v++ {
		if !slices.Contains([]int{2, 5, 10, 11}, v) {
			want = append(want, entry{v, fmt.Sprint("padded-", v)})
		}
	}
	for _, v := range seed {
		want = append(want, entry{v, fmt.Sprint("seed-", v)})
	}
	// By number; the padded form first ("padded-" < "seed-").
	slices.SortStableFunc(want, func(a, b entry) int {
		if a.n != b.n {
			return a.n - b.n
		}
		return map[bool]int{true: -1, false: 1}[a.name < b.name]
	})
	names := make([]string, len(want))
	for i, e := range want {
		names[i] = e.name
	}
	return names
}

// checkVersionsPaged pages through id's versions limit at a time and
// returns the names in the order they came.
func checkVersionsPaged(t *testing.T, s *pipeline.Store, id string, limit int) []string {
	t.Helper()
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100, "the listing ends")
		page, err := s.Versions().List(id, pipeline.Limit(limit)).Page(context.Background(), cursor)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.Items), limit)
		for _, p := range page.Items {
			got = append(got, p.Name)
		}
		if cursor = page.Next; cursor == "" {
			return got
		}
		assert.Len(t, page.Items, limit, "only the last page is short")
	}
}

func checkMixedVersions(t *testing.T, s *pipeline.Store, id string) {
	want := mixedVersions(t, s, id)
	require.Equal(t, []string{"padded-1", "seed-2", "padded-3", "seed-3", "padded-4", "seed-5"}, want[:6], "the expected order itself")
	for _, limit := range []int{1, 2, 3, 7, len(want) - 1, len(want), 100} {
		assert.Equal(t, want, checkVersionsPaged(t, s, id, limit), "pages of %d", limit)
	}
	var all []string
	for p, err := range s.Versions().List(id, pipeline.Limit(4)).All(context.Background()) {
		require.NoError(t, err)
		all = append(all, p.Name)
	}
	assert.Equal(t, want, all)
}

func TestListVersionsOrdersBothFormsByNumberAcrossPages(t *testing.T) {
	e := newEnv(t)
	checkMixedVersions(t, e.store, "mixed")
}

func TestIntegrationListVersionsOrdersBothFormsByNumberAcrossPages(t *testing.T) {
	store, _, _ := localEnv(t, nil)
	checkMixedVersions(t, store, "mixed")
}

func TestListVersionsCursorIsBoundToItsPipeline(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	mixedVersions(t, e.store, "a")
	mixedVersions(t, e.store, "b")
	page, err := e.store.Versions().List("a", pipeline.Limit(3)).Page(ctx, "")
	require.NoError(t, err)
	require.NotEmpty(t, page.Next)
	_, err = e.store.Versions().List("b", pipeline.Limit(3)).Page(ctx, page.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a cursor of pipeline a used for b")
	tagged, err := e.store.Create(ctx, pipeline.Input{ID: "t1", Name: "n", Tags: []pipeline.Tag{{Key: "k", Value: "v"}}})
	require.NoError(t, err)
	_, err = e.store.Create(ctx, pipeline.Input{ID: "t2", Name: "n", Tags: tagged.Tags})
	require.NoError(t, err)
	byTags, err := e.store.Pipelines().ByTags(tagged.Tags, pipeline.Limit(1)).Page(ctx, "")
	require.NoError(t, err)
	require.NotEmpty(t, byTags.Next)
	_, err = e.store.Versions().List("a", pipeline.Limit(3)).Page(ctx, byTags.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a ListByTags cursor")
	_, err = e.store.Pipelines().ByTags(tagged.Tags, pipeline.Limit(1)).Page(ctx, page.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a ListVersions cursor")

	next, err := e.store.Versions().List("a", pipeline.Limit(3)).Page(ctx, page.Next)
	require.NoError(t, err)
	names := []string{next.Items[0].Name, next.Items[1].Name, next.Items[2].Name}
	assert.Equal(t, []string{"seed-3", "padded-4", "seed-5"}, names, "resumes inside the tie of version 3")
}

func TestGetVersionReadsThePaddedItemOfATie(t *testing.T) {
	e := newEnv(t)
	mixedVersions(t, e.store, "tie")
	v3, err := e.store.Versions().Get(context.Background(), "tie", 3)
	require.NoError(t, err)
	assert.Equal(t, "padded-3", v3.Name)
	v20, err := e.store.Versions().Get(context.Background(), "tie", 20)
	require.NoError(t, err)
	assert.Equal(t, "seed-20", v20.Name)
}
