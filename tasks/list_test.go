package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// walkPages reads every page of ListPending with limit and returns the ids
// in order.
func walkPages(t *testing.T, s *tasks.Store, limit int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("ListPending never ended")
		}
		p, err := s.ListPending(context.Background(), cursor, tasks.Limit(limit))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) > limit {
			t.Fatalf("page of %d, limit %d", len(p.Items), limit)
		}
		if len(p.Items) == 0 && p.Next != "" {
			t.Fatal("an empty page with a cursor")
		}
		for _, task := range p.Items {
			ids = append(ids, task.ID)
		}
		if p.Next == "" {
			return ids
		}
		cursor = p.Next
	}
}

func TestListPendingOldestFirstInPages(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			f := newFixture(t, func(o *tasks.Options) { o.Shards = shards })
			var want []string
			for i := range 37 {
				want = append(want, f.submit(t, fmt.Sprint(i)).ID)
			}
			for _, limit := range []int{1, 5, 7, 37, 100} {
				got := walkPages(t, f.store, limit)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("limit %d: pending %v, want oldest first %v", limit, got, want)
				}
			}
			var walked []string
			for task, err := range f.store.Pending(context.Background(), tasks.Limit(6)) {
				if err != nil {
					t.Fatal(err)
				}
				walked = append(walked, task.ID)
			}
			if fmt.Sprint(walked) != fmt.Sprint(want) {
				t.Fatalf("Pending walked %v", walked)
			}
		})
	}
}

func TestListPendingEmptyQueue(t *testing.T) {
	for _, shards := range []int{1, 3} {
		f := newFixture(t, func(o *tasks.Options) { o.Shards = shards })
		p, err := f.store.ListPending(context.Background(), "")
		if err != nil || len(p.Items) != 0 || p.Next != "" {
			t.Fatalf("shards %d: empty queue listed %+v, %v", shards, p, err)
		}
	}
}

func TestListPendingRejectsForeignAndAlteredCursors(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.Shards = 4 })
	for range 10 {
		f.submit(t, "x")
	}
	ctx := context.Background()
	p, err := f.store.ListPending(ctx, "", tasks.Limit(3))
	if err != nil || p.Next == "" {
		t.Fatalf("first page %+v, %v", p, err)
	}
	// The same table read with another shard count, an altered cursor, and
	// a cursor of the unsharded list.
	other := newStore(t, f.db, f.db.Now, tasks.Shards(2))
	unsharded := newStore(t, f.db, f.db.Now)
	for range 2 {
		if _, _, err := unsharded.Submit(ctx, tasks.SubmitInput{}); err != nil {
			t.Fatal(err)
		}
	}
	up, err := unsharded.ListPending(ctx, "", tasks.Limit(1))
	if err != nil || up.Next == "" {
		t.Fatalf("unsharded page %+v, %v", up, err)
	}
	altered := []byte(p.Next)
	altered[3] ^= 1
	for name, c := range map[string]func() error{
		"other shard count": func() error { _, err := other.ListPending(ctx, p.Next); return err },
		"altered":           func() error { _, err := f.store.ListPending(ctx, string(altered)); return err },
		"unsharded cursor":  func() error { _, err := f.store.ListPending(ctx, up.Next); return err },
		"sharded in unsharded": func() error {
			_, err := unsharded.ListPending(ctx, p.Next)
			return err
		},
	} {
		before := f.db.Calls("Query")
		if err := c(); !errors.Is(err, table.ErrInvalidCursor) {
			t.Errorf("%s: got %v, want ErrInvalidCursor", name, err)
		}
		if f.db.Calls("Query") != before {
			t.Errorf("%s: an invalid cursor was used to read", name)
		}
	}
}

func TestListPendingBadLimit(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() {
		_, err := f.store.ListPending(context.Background(), "", tasks.Limit(-1))
		wantInputError(t, err, "Limit")
		_, err = f.store.ListPending(context.Background(), "", tasks.Limit(1001))
		wantInputError(t, err, "Limit")
		for _, err := range f.store.Pending(context.Background(), tasks.Limit(-5)) {
			wantInputError(t, err, "Limit")
		}
	})
}

func TestShardedSubmissionsSpreadOverPartitions(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.Shards = 8 })
	partitions := map[string]int{}
	for range 200 {
		task := f.submit(t, "x")
		partitions[str(f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK")]++
	}
	if len(partitions) != 8 {
		t.Fatalf("200 tasks over %d partitions %v, want all 8", len(partitions), partitions)
	}
	for p, n := range partitions {
		if n > 50 {
			t.Fatalf("partition %s took %d of 200 submissions", p, n)
		}
		if _, err := fmt.Sscanf(p, "STATUS#PENDING#%d", new(int)); err != nil {
			t.Fatalf("partition %q is not STATUS#PENDING#<n>", p)
		}
	}
}

func TestShardedClaimsDrainEveryShard(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.Shards = 5 })
	ctx := context.Background()
	want := map[string]bool{}
	for range 40 {
		want[f.submit(t, "x").ID] = true
	}
	for i := range 40 {
		c := f.claim(t, fmt.Sprintf("w%d", i%3))
		if !want[c.Task.ID] {
			t.Fatalf("claimed %s twice or unknown", c.Task.ID)
		}
		delete(want, c.Task.ID)
		meta := f.raw(t, "TASK#"+c.Task.ID, "META")
		if got := str(meta, "GSI1PK"); len(got) < len("STATUS#PROCESSING#0") {
			t.Fatalf("a sharded task is processing under %q, want STATUS#PROCESSING#<n>", got)
		}
		if err := f.store.Complete(ctx, c.Lease, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.store.Claim(ctx, "w0"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("after draining: %v", err)
	}
}

func TestShardedReclaimFindsExpiredLeasesInEveryShard(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.Shards = 4 })
	for range 12 {
		f.submit(t, "x")
		f.claim(t, "w-crashed")
	}
	f.db.Advance(tasks.DefaultLeaseDuration)
	n, err := f.store.ReclaimExpired(context.Background())
	if err != nil || n != 12 {
		t.Fatalf("ReclaimExpired = %d, %v; want 12", n, err)
	}
	if got := len(walkPages(t, f.store, 5)); got != 12 {
		t.Fatalf("%d pending after reclaim, want 12", got)
	}
}

func TestListDeadShowsDeadLettersOldestFirst(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 1; o.Shards = 3 })
	ctx := context.Background()
	var want []string
	for i := range 4 {
		want = append(want, f.submit(t, fmt.Sprint(i)).ID)
	}
	f.submit(t, "healthy")
	// Drain the queue: every task but the healthy one fails its only
	// attempt.
	for {
		c, err := f.store.Claim(ctx, "w1")
		if errors.Is(err, tasks.ErrNoTask) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(c.Task.Payload) == "healthy" {
			err = f.store.Complete(ctx, c.Lease, nil)
		} else {
			_, err = f.store.Fail(ctx, c.Lease, "bad input "+string(c.Task.Payload))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for task, err := range f.store.Dead(ctx, tasks.Limit(3)) {
		if err != nil {
			t.Fatal(err)
		}
		if task.Status != tasks.StatusDead || task.LastError != "bad input "+string(task.Payload) {
			t.Fatalf("dead letter %+v", task)
		}
		got = append(got, task.ID)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dead letters %v, want oldest first %v", got, want)
	}
	f.noRequests(t, func() {
		_, err := f.store.ListDead(ctx, "", tasks.Limit(-1))
		wantInputError(t, err, "Limit")
	})
}

// Issue 18: tasks submitted in one microsecond share GSI1SK; the list
// still has one order, task id ascending, and paging 7 at a time returns
// each task once, in that order, sharded or not.
func TestListPendingTiesAreOrderedByTaskIDAcrossPages(t *testing.T) {
	for _, shards := range []int{1, 3} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			f := newFixture(t, tasks.Shards(shards))
			ctx := context.Background()
			var want []string
			for i := range 200 {
				task, _, err := f.store.Submit(ctx, tasks.SubmitInput{Payload: []byte(fmt.Sprint(i))}) // the clock stands still
				require.NoError(t, err)
				want = append(want, task.ID)
			}
			sort.Strings(want)
			var got []string
			cursor := ""
			for {
				page, err := f.store.ListPending(ctx, cursor, tasks.Limit(7))
				require.NoError(t, err)
				require.LessOrEqual(t, len(page.Items), 7)
				for _, it := range page.Items {
					got = append(got, it.ID)
				}
				if page.Next == "" {
					break
				}
				cursor = page.Next
			}
			assert.Equal(t, want, got)
		})
	}
}
