package table

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

func TestScanPagesCoverTableExactlyOnce(t *testing.T) {
	tbl, _, db := pagedThings(t)
	db.pageEndKey = true
	seen := map[string]int{}
	cursor := ""
	for {
		p, err := ScanPage[thing](context.Background(), tbl, Scan{Limit: 6}, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) == 0 {
			t.Fatal("empty page")
		}
		for _, it := range p.Items {
			seen[it.PK+it.SK]++
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if len(seen) != 20 {
		t.Fatalf("saw %d items, want 20", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", k, n)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range segs {
		total += n
	}
	if len(segs) != 4 || total != 20 {
		t.Fatalf("segments %v, want 20 items over 4 segments", segs)
	}
	if c.count("Scan") < 4 {
		t.Fatalf("%d Scan calls for 4 segments", c.count("Scan"))
	}
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
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
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
			if c.total() != 0 {
				t.Fatalf("%d calls for bad input", c.total())
			}
		})
	}
	c := newCalls(nil)
	tbl := New(c, thingsSchema)
	mustInputError(t, ParallelScan(context.Background(), tbl, 0, func(context.Context, int, Item) error { return nil }))
	mustInputError(t, ParallelScan(context.Background(), tbl, 2, nil))
	if c.total() != 0 {
		t.Fatalf("%d calls for bad input", c.total())
	}
}
