package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
)

func TestListGroupPagesMembersWithTheirCurrentVersion(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		groups := []string{"/usa/northwest"}
		if i%2 == 1 {
			groups = []string{"/eu"}
		}
		p, err := e.store.Create(ctx, pipeline.Input{ID: fmt.Sprint("p", i), Name: "n", Groups: groups})
		require.NoError(t, err)
		if i%2 == 0 {
			want = append(want, p.ID)
			_, err := e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "n2", Groups: groups})
			require.NoError(t, err)
		}
	}
	var got []string
	cursor := ""
	for {
		page, err := e.store.Pipelines().InGroup("/usa/northwest", pipeline.Limit(3)).Page(ctx, cursor)
		require.NoError(t, err)
		for _, p := range page.Items {
			assert.Equal(t, 2, p.Version, "group listed %s at its current version", p.ID)
			assert.Equal(t, "n2", p.Name, "group listed %s at its current version", p.ID)
			got = append(got, p.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, want, got, "group members")
	var all []string
	for p, err := range e.store.Pipelines().InGroup("/eu").All(ctx) {
		require.NoError(t, err)
		all = append(all, p.ID)
	}
	assert.Equal(t, []string{"p1", "p3", "p5"}, all, "Group /eu")
}

func TestIteratorsWalkEveryPage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var want []string
	for i := range pipeline.DefaultTagsPageSize*2 + 3 {
		p, err := e.store.Create(ctx, pipeline.Input{ID: fmt.Sprintf("p%03d", i), Name: "n",
			Tags: []pipeline.Tag{{Key: "k", Value: "v"}, {Key: "n", Value: fmt.Sprint(i % 4)}}})
		require.NoError(t, err)
		want = append(want, p.ID)
	}
	var got []string
	for p, err := range e.store.Pipelines().ByTags([]pipeline.Tag{{Key: "k", Value: "v"}}).All(ctx) {
		require.NoError(t, err)
		got = append(got, p.ID)
	}
	assert.Equal(t, want, got, "ByTags")
	counts := map[string]int{}
	for tc, err := range e.store.Tags().List().All(ctx) {
		require.NoError(t, err)
		counts[tc.Key+"="+tc.Value] = tc.Count
	}
	assert.Equal(t, map[string]int{"k=v": 53, "n=0": 14, "n=1": 13, "n=2": 13, "n=3": 13}, counts, "Tags")
	// A key whose every value dropped to zero is no longer listed.
	_, err := e.store.Create(ctx, pipeline.Input{ID: "gone", Name: "n", Tags: []pipeline.Tag{{Key: "b", Value: "x/y"}, {Key: "m", Value: "1"}}})
	require.NoError(t, err)
	_, err = e.store.Update(ctx, "gone", 1, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "m", Value: "1"}}})
	require.NoError(t, err)
	e.db.ResetCalls()
	keys, err := e.store.Tags().Keys(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"k", "m", "n"}, keys, "TagKeys")
	assert.LessOrEqual(t, e.db.Calls("Query"), 8, "TagKeys's queries for 3 keys (and one gone)")
}

func TestListByTagsReportsAFailedTagQuery(t *testing.T) {
	e := newEnv(t, func(o *pipeline.Options) { o.TagQueryLimit = 2 })
	ctx := context.Background()
	for i := range 10 {
		_, err := e.store.Create(ctx, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "a", Value: "1"}, {Key: "b", Value: fmt.Sprint(i % 2)}, {Key: "c", Value: "x"}}})
		require.NoError(t, err)
	}
	boom := errors.New("boom")
	q := []pipeline.Tag{{Key: "a", Value: "1"}, {Key: "b", Value: "0"}, {Key: "c", Value: "x"}}
	for nth := 1; nth <= 6; nth++ {
		e.db.ClearFaults()
		e.db.Inject(dynamotest.FailNth("Query", nth, boom))
		e.db.ResetCalls()
		_, err := e.store.Pipelines().ByTags(q, pipeline.Limit(10)).Page(ctx, "")
		assert.ErrorIs(t, err, boom, "query %d failing", nth)
	}
	e.db.ClearFaults()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := e.store.Pipelines().ByTags(q, pipeline.Limit(10)).Page(canceled, "")
	assert.ErrorIs(t, err, context.Canceled)
	page, err := e.store.Pipelines().ByTags(q, pipeline.Limit(10)).Page(ctx, "")
	require.NoError(t, err, "after the faults")
	assert.Len(t, page.Items, 5, "after the faults")
}
