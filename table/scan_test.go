package table

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/stretchr/testify/require"
)

func TestScanPagesCoverTableExactlyOnce(t *testing.T) {
	tbl, _, db := pagedThings(t)
	db.pageEndKey = true
	seen := map[string]int{}
	cursor := ""
	for {
		p, err := ScanPage[thing](context.Background(), tbl, Scan{Limit: 6}, cursor)
		require.NoError(t, err)
		require.NotEmpty(t, p.Items, "a page")
		for _, it := range p.Items {
			seen[it.PK+it.SK]++
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	require.Len(t, seen, 20, "items seen")
	for k, n := range seen {
		require.Equal(t, 1, n, "%s seen once", k)
	}
}

func TestParallelScanVisitsEverySegment(t *testing.T) {
	tbl, c, _ := pagedThings(t)
	var mu sync.Mutex
	segs := map[int]int{}
	err := ParallelScan(context.Background(), tbl, 4, func(_ context.Context, seg int, _ Item) error {
		mu.Lock()
		segs[seg]++
		mu.Unlock()
		return nil
	})
	require.NoError(t, err)
	total := 0
	for _, n := range segs {
		total += n
	}
	require.Len(t, segs, 4, "segments %v", segs)
	require.Equal(t, 20, total, "items over the segments %v", segs)
	require.GreaterOrEqual(t, c.count("Scan"), 4, "Scan calls for 4 segments")
}

func TestParallelScanReturnsFirstErrorAndStops(t *testing.T) {
	tbl, _, _ := pagedThings(t)
	boom := errors.New("boom")
	err := ParallelScan(context.Background(), tbl, 2, func(ctx context.Context, seg int, _ Item) error {
		if seg == 1 {
			return boom
		}
		return ctx.Err()
	})
	require.ErrorIs(t, err, boom)
}

func TestScanRejectsBadInputBeforeSending(t *testing.T) {
	cases := map[string]Scan{
		"negative limit":          {Limit: -1},
		"unknown index":           {Index: "Nope"},
		"consistent on index":     {Index: "GSI1", Consistent: true},
		"segment without total":   {Segment: 1},
		"segment past total":      {Segment: 4, TotalSegments: 4},
		"negative segment":        {Segment: -1, TotalSegments: 4},
		"too many segments":       {TotalSegments: 1000001},
		"invalid filter":          {Filter: &expression.ConditionBuilder{}},
		"invalid projection":      {Projection: &expression.ProjectionBuilder{}},
		"negative total segments": {TotalSegments: -2},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCalls(nil)
			tbl := New(c, thingsSchema)
			_, err := ScanPage[thing](context.Background(), tbl, s, "")
			mustInputError(t, err)
			for _, err := range ScanAll[thing](context.Background(), tbl, s) {
				mustInputError(t, err)
			}
			require.Zero(t, c.total(), "calls for bad input")
		})
	}
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	mustInputError(t, ParallelScan(context.Background(), tbl, 0, func(context.Context, int, Item) error { return nil }))
	mustInputError(t, ParallelScan(context.Background(), tbl, 2, nil))
	require.Zero(t, c.total(), "calls for bad input")
}
