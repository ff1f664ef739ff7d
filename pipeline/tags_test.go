package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// tagVocabulary: plain keys with a few values each, and a hierarchical
// region tree three levels deep.
var (
	plainTags = map[string][]string{
		"source": {"sap", "oracle", "csv", "api"},
		"plant":  {"abc", "def", "ghi", "jkl", "mno"},
		"env":    {"prod", "dev"},
	}
	regionLeaves = []string{
		"usa/northwest/seattle", "usa/northwest/portland", "usa/southeast/miami", "usa/southeast",
		"eu/west/paris", "eu/west/dublin", "eu/central/berlin", "eu", "apac/japan/tokyo", "apac/japan",
	}
)

func randomTags(r *rand.Rand) []pipeline.Tag {
	var tags []pipeline.Tag
	seen := map[pipeline.Tag]bool{}
	add := func(t pipeline.Tag) {
		if !seen[t] {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	for _, k := range []string{"source", "plant", "env"} {
		if r.IntN(3) > 0 {
			vs := plainTags[k]
			add(pipeline.Tag{Key: k, Value: vs[r.IntN(len(vs))]})
		}
	}
	for range r.IntN(3) {
		add(pipeline.Tag{Key: "region", Value: regionLeaves[r.IntN(len(regionLeaves))]})
	}
	return tags
}

// randomQueryTag picks a tag to search for: a plain value, or any level of
// the region tree (so searches hit pipelines tagged deeper down).
func randomQueryTag(r *rand.Rand) pipeline.Tag {
	if r.IntN(2) == 0 {
		keys := []string{"source", "plant", "env"}
		k := keys[r.IntN(len(keys))]
		return pipeline.Tag{Key: k, Value: plainTags[k][r.IntN(len(plainTags[k]))]}
	}
	leaf := strings.Split(regionLeaves[r.IntN(len(regionLeaves))], "/")
	return pipeline.Tag{Key: "region", Value: strings.Join(leaf[:1+r.IntN(len(leaf))], "/")}
}

// matches is the brute-force reading of "p carries tag q at any level".
func matches(p *pipeline.Pipeline, q pipeline.Tag) bool {
	for _, t := range p.Tags {
		if t.Key == q.Key && (t.Value == q.Value || strings.HasPrefix(t.Value, q.Value+"/")) {
			return true
		}
	}
	return false
}

func createMany(t testing.TB, e *env, n int, r *rand.Rand) []*pipeline.Pipeline {
	t.Helper()
	inputs := make([]pipeline.Input, n)
	for i := range inputs {
		inputs[i] = pipeline.Input{ID: fmt.Sprintf("p%05d", r.IntN(1_000_000)*10+i%10), Name: "n", Tags: randomTags(r)}
	}
	out := make([]*pipeline.Pipeline, n)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				p, err := e.store.Create(context.Background(), inputs[i])
				if err != nil && errors.Is(err, table.ErrAlreadyExists) {
					inputs[i].ID += "x"
					p, err = e.store.Create(context.Background(), inputs[i])
				}
				if err != nil {
					errs <- err
					return
				}
				out[i] = p
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	return out
}

func TestListByTagsMatchesBruteForceOnTwoThousandPipelines(t *testing.T) {
	e := newEnv(t, func(o *pipeline.Options) { o.TagQueryLimit = 40 })
	ctx := context.Background()
	r := rand.New(rand.NewPCG(4, 2026))
	all := createMany(t, e, 2000, r)
	pageSizes := []int{15, 40, 100}
	nonEmpty, pages := 0, 0
	for c := range 200 {
		var q []pipeline.Tag
		for range 1 + r.IntN(3) {
			q = append(q, randomQueryTag(r))
		}
		var want []string
		for _, p := range all {
			ok := true
			for _, tag := range q {
				ok = ok && matches(p, tag)
			}
			if ok {
				want = append(want, p.ID)
			}
		}
		slices.Sort(want)
		limit := pageSizes[c%len(pageSizes)]
		var got []string
		cursor := ""
		for {
			page, err := e.store.Pipelines().ByTags(q, pipeline.Limit(limit)).Page(ctx, cursor)
			require.NoError(t, err, "%v", q)
			pages++
			require.LessOrEqual(t, len(page.Items), limit, "%v: page with limit %d", q, limit)
			if page.Next != "" {
				require.Len(t, page.Items, limit, "%v: a page with a next one is full", q)
			}
			for _, p := range page.Items {
				got = append(got, p.ID)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		require.True(t, slices.Equal(got, want), "combination %d %v (pages of %d): got %d ids, want %d\n got %v\nwant %v", c, q, limit, len(got), len(want), head(got), head(want))
		if len(want) > 0 {
			nonEmpty++
		}
	}
	assert.GreaterOrEqual(t, nonEmpty, 100, "combinations of 200 that matched anything: fewer and the test does not exercise much")
	t.Logf("200 combinations, %d non-empty, %d pages", nonEmpty, pages)
}

func head(s []string) []string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func TestTagAggregatesExactAfterFiftyConcurrentUpdates(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 7))
	ps := createMany(t, e, 8, r)
	updates := make([][]pipeline.Tag, 50)
	for i := range updates {
		updates[i] = randomTags(r)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(updates))
	conflicts := make(chan int, len(updates))
	for i, tags := range updates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := ps[i%len(ps)].ID
			lost := 0
			for {
				cur, err := e.store.Get(ctx, id)
				if err != nil {
					errs <- err
					return
				}
				_, err = e.store.Update(ctx, id, cur.Version, pipeline.Input{Name: cur.Name, Tags: tags})
				if errors.Is(err, pipeline.ErrConflict) {
					lost++
					continue
				}
				if err != nil {
					errs <- err
				}
				conflicts <- lost
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(conflicts)
	for err := range errs {
		require.NoError(t, err)
	}
	lost := 0
	for n := range conflicts {
		lost += n
	}
	want := map[string]int{}
	versions := 0
	for _, p := range ps {
		cur, err := e.store.Get(ctx, p.ID)
		require.NoError(t, err)
		versions += cur.Version - 1
		for _, tag := range allLevels(cur.Tags) {
			want[tag]++
		}
	}
	assert.Equal(t, len(updates), versions, "versions written by the updates")
	assert.Equal(t, want, tagCounts(t, e), "aggregates after concurrent updates")
	// Every visible count is what ListByTags finds for that tag alone.
	for kv, n := range want {
		k, v, _ := strings.Cut(kv, "=")
		page, err := e.store.Pipelines().ByTags([]pipeline.Tag{{Key: k, Value: v}}, pipeline.Limit(100)).Page(ctx, "")
		require.NoError(t, err, "ListByTags %s", kv)
		assert.Len(t, page.Items, n, "ListByTags %s: as many pipelines as the aggregate says", kv)
	}
	t.Logf("50 updates on %d pipelines, %d lost races retried", len(ps), lost)
}

// allLevels is the distinct "key=level path" of tags.
func allLevels(tags []pipeline.Tag) []string {
	set := map[string]bool{}
	for _, t := range tags {
		parts := strings.Split(t.Value, "/")
		for i := range parts {
			set[t.Key+"="+strings.Join(parts[:i+1], "/")] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}

func TestHierarchicalTagMatchesAtEveryLevel(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	deep, err := e.store.Create(ctx, pipeline.Input{ID: "deep", Name: "n", Tags: []pipeline.Tag{{Key: "region", Value: "usa/northwest/seattle"}}})
	require.NoError(t, err)
	_, err = e.store.Create(ctx, pipeline.Input{ID: "plain", Name: "n", Tags: []pipeline.Tag{{Key: "region", Value: "usa"}}})
	require.NoError(t, err)
	_, err = e.store.Create(ctx, pipeline.Input{ID: "sibling", Name: "n", Tags: []pipeline.Tag{{Key: "region", Value: "usa/northwestern"}}})
	require.NoError(t, err)
	for v, want := range map[string][]string{
		"usa":                   {"deep", "plain", "sibling"},
		"usa/northwest":         {"deep"},
		"usa/northwest/seattle": {"deep"},
		"usa/northwestern":      {"sibling"},
		"northwest":             nil,
		"usa/northwest/sea":     nil,
	} {
		page, err := e.store.Pipelines().ByTags([]pipeline.Tag{{Key: "region", Value: v}}, pipeline.Limit(10)).Page(ctx, "")
		require.NoError(t, err)
		if got := sortedIDs(page.Items); len(got)+len(want) > 0 {
			assert.Equal(t, want, got, "region=%s", v)
		}
	}
	require.NotEmpty(t, deep.Tags)
	assert.Equal(t, "usa/northwest/seattle", deep.Tags[0].Value)
}

func TestListByTagsCursorIsBoundToTheTagSet(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range 6 {
		_, err := e.store.Create(ctx, pipeline.Input{ID: fmt.Sprint("p", i), Name: "n",
			Tags: []pipeline.Tag{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}})
		require.NoError(t, err)
	}
	ab := []pipeline.Tag{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}
	first, err := e.store.Pipelines().ByTags(ab, pipeline.Limit(4)).Page(ctx, "")
	require.NoError(t, err)
	require.Len(t, first.Items, 4, "first page")
	require.NotEmpty(t, first.Next, "first page")
	// The same set in another order, or with a tag repeated, continues.
	ba := []pipeline.Tag{{Key: "b", Value: "2"}, {Key: "a", Value: "1"}, {Key: "b", Value: "2"}}
	second, err := e.store.Pipelines().ByTags(ba, pipeline.Limit(4)).Page(ctx, first.Next)
	require.NoError(t, err)
	assert.Equal(t, []string{"p4", "p5"}, sortedIDs(second.Items), "second page")
	assert.Empty(t, second.Next, "second page")
	other := newStore(t, e.db, nil, func(o *pipeline.Options) { o.CursorKey = []byte("another secret") })
	otherPage, err := other.Pipelines().ByTags(ab, pipeline.Limit(4)).Page(ctx, "")
	require.NoError(t, err, "other store")
	require.NotEmpty(t, otherPage.Next, "other store")
	e.db.ResetCalls()
	altered := []byte(first.Next)
	altered[len(altered)-1] ^= 1
	for name, c := range map[string]struct {
		tags   []pipeline.Tag
		cursor string
	}{
		"other tags":     {[]pipeline.Tag{{Key: "a", Value: "1"}}, first.Next},
		"altered":        {ab, string(altered)},
		"not base64":     {ab, "!!"},
		"table cursor":   {ab, "AQ"},
		"other key":      {ab, otherPage.Next},
		"truncated":      {ab, first.Next[:10]},
		"empty-ish junk": {ab, "AAAAAAAAAAAAAAAAAAAAAAAA"},
	} {
		_, err := e.store.Pipelines().ByTags(c.tags, pipeline.Limit(4)).Page(ctx, c.cursor)
		assert.ErrorIs(t, err, table.ErrInvalidCursor, name)
	}
	assert.Zero(t, e.calls(), "requests sent for invalid cursors")
}

func TestTagCountsThatDropToZeroAreRemoved(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "plant", Value: "abc"}, {Key: "plant", Value: "def"}}})
	require.NoError(t, err)
	other, err := e.store.Create(ctx, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "plant", Value: "def"}}})
	require.NoError(t, err)
	_, err = e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "plant", Value: "def"}}})
	require.NoError(t, err)
	page, err := e.store.Tags().Values("plant").Page(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, []pipeline.TagCount{{Key: "plant", Value: "def", Count: 2}}, page.Items)
	var raw map[string]any
	err = e.store.Table().Get(ctx, e.store.Table().Key("TA:plant", "TA:abc"), &raw)
	assert.ErrorIs(t, err, table.ErrNotFound, "the zero count is removed, not kept: %v", raw)

	// A count that goes down without reaching zero stays.
	_, err = e.store.Update(ctx, other.ID, 1, pipeline.Input{Name: "n"})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"plant=def": 1}, storedCounts(t, e))
	// A value used again counts up from nothing.
	_, err = e.store.Update(ctx, other.ID, 2, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "plant", Value: "abc"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"plant=abc": 1, "plant=def": 1}, storedCounts(t, e))
}

func TestTooManyTagsFailsBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var tags []pipeline.Tag
	for i := range 60 {
		tags = append(tags, pipeline.Tag{Key: "k", Value: fmt.Sprintf("a/b%d", i)})
	}
	// 1 shared level + 60 leaves = 61 entries, each an item and a count.
	e.db.ResetCalls()
	_, err := e.store.Create(ctx, pipeline.Input{ID: "big", Name: "n", Tags: tags, Groups: []string{"g"}})
	var tm *pipeline.TooManyTagsError
	require.ErrorAs(t, err, &tm, "create")
	assert.ErrorIs(t, err, pipeline.ErrTooManyTags)
	assert.Equal(t, 2+1+122, tm.Actions)
	assert.Equal(t, 100, tm.Max)
	assert.Zero(t, e.calls(), "requests sent")
	// 49 entries fit exactly: 2 + 98 = 100.
	p, err := e.store.Create(ctx, pipeline.Input{ID: "fits", Name: "n", Tags: tags[:24]})
	require.NoError(t, err)
	// An update swapping all 25 entries for 25 others needs 2 + 100 writes.
	other := make([]pipeline.Tag, 24)
	for i := range other {
		other[i] = pipeline.Tag{Key: "k", Value: fmt.Sprintf("c/d%d", i)}
	}
	before := e.snapshot(t)
	e.db.ResetCalls()
	_, err = e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "n", Tags: other})
	require.ErrorAs(t, err, &tm, "update")
	assert.Equal(t, 102, tm.Actions)
	assert.Zero(t, e.writeCalls(), "writes sent")
	assert.Equal(t, before, e.snapshot(t), "a refused update changed nothing")
}
