package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

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
			if _, err := e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "n2", Groups: groups}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	cursor := ""
	for {
		page, err := e.store.ListGroup(ctx, "/usa/northwest", cursor, pipeline.Limit(3))
		require.NoError(t, err)
		for _, p := range page.Items {
			if p.Version != 2 || p.Name != "n2" {
				t.Fatalf("group listed %s at version %d", p.ID, p.Version)
			}
			got = append(got, p.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("group members %v, want %v", got, want)
	}
	var all []string
	for p, err := range e.store.Group(ctx, "/eu") {
		require.NoError(t, err)
		all = append(all, p.ID)
	}
	if !slices.Equal(all, []string{"p1", "p3", "p5"}) {
		t.Fatalf("AllGroup /eu %v", all)
	}
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
	for p, err := range e.store.ByTags(ctx, []pipeline.Tag{{Key: "k", Value: "v"}}) {
		require.NoError(t, err)
		got = append(got, p.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("AllByTags gave %d, want %d", len(got), len(want))
	}
	counts := map[string]int{}
	for tc, err := range e.store.Tags(ctx) {
		require.NoError(t, err)
		counts[tc.Key+"="+tc.Value] = tc.Count
	}
	if fmt.Sprint(counts) != "map[k=v:53 n=0:14 n=1:13 n=2:13 n=3:13]" {
		t.Fatalf("AllTags %v", counts)
	}
	// A key whose every value dropped to zero is no longer listed.
	if _, err := e.store.Create(ctx, pipeline.Input{ID: "gone", Name: "n", Tags: []pipeline.Tag{{Key: "b", Value: "x/y"}, {Key: "m", Value: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Update(ctx, "gone", 1, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "m", Value: "1"}}}); err != nil {
		t.Fatal(err)
	}
	e.db.ResetCalls()
	keys, err := e.store.TagKeys(ctx)
	if err != nil || !slices.Equal(keys, []string{"k", "m", "n"}) {
		t.Fatalf("TagKeys %v %v", keys, err)
	}
	if q := e.db.Calls("Query"); q > 8 {
		t.Fatalf("TagKeys sent %d queries for 3 keys (and one gone)", q)
	}
}

func TestListByTagsReportsAFailedTagQuery(t *testing.T) {
	e := newEnv(t, func(o *pipeline.Options) { o.TagQueryLimit = 2 })
	ctx := context.Background()
	for i := range 10 {
		if _, err := e.store.Create(ctx, pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "a", Value: "1"}, {Key: "b", Value: fmt.Sprint(i % 2)}, {Key: "c", Value: "x"}}}); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	q := []pipeline.Tag{{Key: "a", Value: "1"}, {Key: "b", Value: "0"}, {Key: "c", Value: "x"}}
	for nth := 1; nth <= 6; nth++ {
		e.db.ClearFaults()
		e.db.Inject(dynamotest.FailNth("Query", nth, boom))
		e.db.ResetCalls()
		if _, err := e.store.ListByTags(ctx, q, "", pipeline.Limit(10)); !errors.Is(err, boom) {
			t.Fatalf("query %d failing: %v", nth, err)
		}
	}
	e.db.ClearFaults()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.store.ListByTags(canceled, q, "", pipeline.Limit(10)); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	page, err := e.store.ListByTags(ctx, q, "", pipeline.Limit(10))
	if err != nil || len(page.Items) != 5 {
		t.Fatalf("after the faults: %d %v", len(page.Items), err)
	}
}
