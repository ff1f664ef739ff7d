package table_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// pageAll walks q page by page and returns the SKs in the order read,
// failing when a page is over the limit or a page other than the last is
// empty.
func pageAll(t *testing.T, tbl *table.Table, q table.Query) []string {
	t.Helper()
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000, "paging does not end")
		page, err := table.QueryPage[job](context.Background(), tbl, q, cursor)
		require.NoError(t, err)
		if q.Limit > 0 {
			require.LessOrEqual(t, len(page.Items), int(q.Limit))
		}
		for _, j := range page.Items {
			got = append(got, j.SK)
		}
		if page.Next == "" {
			return got
		}
		require.NotEmpty(t, page.Items, "a page with a next cursor is empty")
		cursor = page.Next
	}
}

// testQueryTiesPageExactlyOnce is issue 18's case: 200 log entries with one
// microsecond timestamp (one GSI1SK), paged 7 at a time newest first and
// oldest first, come each exactly once, ties ordered by the table's sort
// key, and the descending walk is the exact reverse of the ascending one.
func testQueryTiesPageExactlyOnce(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	const n = 200
	var puts []any
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("LOG#%03d", i)
		// Written in a scrambled order, so no backend returns them sorted
		// by accident of insertion.
		sk := fmt.Sprintf("LOG#%03d", (i*37)%n)
		puts = append(puts, job{PK: "J", SK: sk, GSI1PK: "LOGS#J", GSI1SK: "2025-11-01T20:30:00.000000Z"})
	}
	require.NoError(t, tbl.BatchWrite(context.Background(), puts, nil))

	q := table.Query{Index: "GSI1", Partition: "LOGS#J", TieBreak: []string{"SK"}, Limit: 7}
	assert.Equal(t, want, pageAll(t, tbl, q), "oldest first")
	q.Descending = true
	reversed := slices.Clone(want)
	slices.Reverse(reversed)
	assert.Equal(t, reversed, pageAll(t, tbl, q), "newest first")

	var all []string
	for j, err := range table.QueryAll[job](context.Background(), tbl, q) {
		require.NoError(t, err)
		all = append(all, j.SK)
	}
	assert.Equal(t, reversed, all, "QueryAll newest first")
}

// testQueryTiesUnderSortConditions mixes runs of ties of several lengths
// with every sort condition, both directions, a filter and page sizes that
// end pages inside runs: a resumed page narrows the key condition to the
// cursor's sort key, and must neither lose nor repeat an item nor step
// outside the query's condition.
func testQueryTiesUnderSortConditions(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	type entry struct{ gsk, sk string }
	var entries []entry
	var puts []any
	runs := []int{3, 1, 12, 2, 5, 1, 4, 3, 1, 6} // ties per sort key T#0..T#9
	for k, size := range runs {
		for i := range size {
			e := entry{fmt.Sprintf("T#%d", k), fmt.Sprintf("ID#%02d#%d", (k*7+i*5)%41, i)}
			entries = append(entries, e)
			puts = append(puts, job{PK: "P", SK: e.sk, GSI1PK: "G", GSI1SK: e.gsk, Count: i})
		}
	}
	// Items of another GSI1 partition and others outside the T# prefix
	// must never show up.
	puts = append(puts, job{PK: "P", SK: "OTHER#1", GSI1PK: "G", GSI1SK: "U#0"},
		job{PK: "P", SK: "OTHER#2", GSI1PK: "H", GSI1SK: "T#3"})
	require.NoError(t, tbl.BatchWrite(context.Background(), puts, nil))

	conds := []struct {
		name string
		sort table.SortCondition
		in   func(gsk string) bool
	}{
		{"begins_with", table.SortBeginsWith("T#"), func(g string) bool { return strings.HasPrefix(g, "T#") }},
		{"equals", table.SortEquals("T#2"), func(g string) bool { return g == "T#2" }},
		{"between", table.SortBetween("T#2", "T#6"), func(g string) bool { return g >= "T#2" && g <= "T#6" }},
		{"less", table.SortLess("T#4"), func(g string) bool { return g < "T#4" }},
		{"less or equal", table.SortLessOrEqual("T#4"), func(g string) bool { return g <= "T#4" }},
		{"greater", table.SortGreater("T#4"), func(g string) bool { return g > "T#4" && strings.HasPrefix(g, "T#") }},
		{"greater or equal", table.SortGreaterOrEqual("T#4"), func(g string) bool { return g >= "T#4" && strings.HasPrefix(g, "T#") }},
	}
	for _, c := range conds {
		var want []string
		for _, e := range entries {
			if c.in(e.gsk) {
				want = append(want, e.gsk+" "+e.sk)
			}
		}
		slices.Sort(want)
		for i, w := range want {
			want[i] = w[strings.IndexByte(w, ' ')+1:]
		}
		if c.name == "greater" || c.name == "greater or equal" {
			want = append(want, "OTHER#1") // U#0 sorts after T#
		}
		reversed := slices.Clone(want)
		slices.Reverse(reversed)
		for _, limit := range []int32{1, 3, 7, 0} {
			q := table.Query{Index: "GSI1", Partition: "G", Sort: c.sort, TieBreak: []string{"SK"}, Limit: limit}
			assert.Equal(t, want, pageAll(t, tbl, q), "%s, ascending, limit %d", c.name, limit)
			q.Descending = true
			assert.Equal(t, reversed, pageAll(t, tbl, q), "%s, descending, limit %d", c.name, limit)
		}
	}

	// A filter drops items after the read: the order and the exactly-once
	// walk hold over what is left.
	odd := expression.Name("count").Equal(expression.Value(1))
	var want []string
	for _, e := range entries {
		if strings.HasSuffix(e.sk, "#1") {
			want = append(want, e.gsk+" "+e.sk)
		}
	}
	slices.Sort(want)
	for i, w := range want {
		want[i] = w[strings.IndexByte(w, ' ')+1:]
	}
	q := table.Query{Index: "GSI1", Partition: "G", Sort: table.SortBeginsWith("T#"), Filter: &odd, TieBreak: []string{"SK"}, Limit: 2}
	assert.Equal(t, want, pageAll(t, tbl, q), "filtered")
}

// testQueryTiesAcrossPartitionsBreakByTheWholeTableKey: an index partition
// gathers items of several table partitions, whose sort keys repeat from
// one to the next ("META" in every partition), so the table's sort key
// alone is no tie-break (ErrBadTieBreak); the table key, partition then
// sort key, is unique for every item.
func testQueryTiesAcrossPartitions(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	var puts []any
	var want []string
	for p := range 6 {
		for _, sk := range []string{"A", "B"} {
			pk := fmt.Sprintf("P%d", (p*5)%6)
			puts = append(puts, job{PK: pk, SK: sk, GSI1PK: "G", GSI1SK: "T"})
		}
	}
	for p := range 6 {
		want = append(want, fmt.Sprintf("P%d A", p), fmt.Sprintf("P%d B", p))
	}
	require.NoError(t, tbl.BatchWrite(context.Background(), puts, nil))
	q := table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"SK"}, Limit: 3}
	_, err := table.QueryPage[job](context.Background(), tbl, q, "")
	require.ErrorIs(t, err, table.ErrBadTieBreak, "SK repeats across the table's partitions")

	walk := func(q table.Query) []string {
		var got []string
		cursor := ""
		for {
			page, err := table.QueryPage[job](context.Background(), tbl, q, cursor)
			require.NoError(t, err)
			for _, j := range page.Items {
				got = append(got, j.PK+" "+j.SK)
			}
			if cursor = page.Next; cursor == "" {
				return got
			}
		}
	}
	for _, limit := range []int32{1, 3, 5, 0} {
		q := table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"PK", "SK"}, Limit: limit}
		assert.Equal(t, want, walk(q), "limit %d: by PK, then SK", limit)
		q.Descending = true
		reversed := slices.Clone(want)
		slices.Reverse(reversed)
		assert.Equal(t, reversed, walk(q), "limit %d, descending: the exact reverse", limit)
	}
}

// testQueryKeep: a Go filter drops items after the read, as Filter does,
// and a page still ends with a cursor only when a kept item follows.
func testQueryKeep(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	var puts []any
	for i := range 20 {
		status := "drop"
		if i%7 == 0 {
			status = "keep"
		}
		puts = append(puts, job{PK: "P", SK: fmt.Sprintf("S%02d", i), Status: status, GSI1PK: "G", GSI1SK: "T"})
	}
	require.NoError(t, tbl.BatchWrite(context.Background(), puts, nil))
	keep := func(it table.Item) bool { return it["status"].(*types.AttributeValueMemberS).Value == "keep" }
	for _, q := range []table.Query{
		{Partition: "P", Keep: keep, Limit: 1},
		{Partition: "P", Keep: keep, Limit: 2},
		{Partition: "P", Keep: keep},
		{Index: "GSI1", Partition: "G", Keep: keep, TieBreak: []string{"PK", "SK"}, Limit: 1},
		{Index: "GSI1", Partition: "G", Keep: keep, TieBreak: []string{"PK", "SK"}, Limit: 2},
	} {
		assert.Equal(t, []string{"S00", "S07", "S14"}, pageAll(t, tbl, q), "index %q, limit %d", q.Index, q.Limit)
		var all []string
		for j, err := range table.QueryAll[job](context.Background(), tbl, q) {
			require.NoError(t, err)
			all = append(all, j.SK)
		}
		assert.Equal(t, []string{"S00", "S07", "S14"}, all, "QueryAll")
	}
	// The last kept item is followed by six dropped ones: its page has no
	// cursor.
	page, err := table.QueryPage[job](context.Background(), tbl, table.Query{Partition: "P", Keep: keep, Limit: 1, Sort: table.SortGreaterOrEqual("S10")}, "")
	require.NoError(t, err)
	assert.Len(t, page.Items, 1)
	assert.Empty(t, page.Next)
}
