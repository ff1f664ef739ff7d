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
		require.LessOrEqual(t, pages, 1000, "ListPending never ended")
		p, err := s.Maintenance().Pending(tasks.Limit(limit)).Page(context.Background(), cursor)
		require.NoError(t, err)
		require.LessOrEqual(t, len(p.Items), limit, "page size over the limit")
		if len(p.Items) == 0 {
			require.Empty(t, p.Next, "an empty page with a cursor")
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
				require.Equal(t, want, got, "limit %d: pending, want oldest first", limit)
			}
			var walked []string
			for task, err := range f.store.Maintenance().Pending(tasks.Limit(6)).All(context.Background()) {
				require.NoError(t, err)
				walked = append(walked, task.ID)
			}
			require.Equal(t, want, walked, "Pending walked")
		})
	}
}

func TestListPendingEmptyQueue(t *testing.T) {
	for _, shards := range []int{1, 3} {
		f := newFixture(t, func(o *tasks.Options) { o.Shards = shards })
		p, err := f.store.Maintenance().Pending().Page(context.Background(), "")
		require.NoError(t, err, "shards %d", shards)
		require.Empty(t, p.Items, "shards %d: empty queue listed items", shards)
		require.Empty(t, p.Next, "shards %d: empty queue listed a cursor", shards)
	}
}

func TestListPendingRejectsForeignAndAlteredCursors(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.Shards = 4 })
	for range 10 {
		f.submit(t, "x")
	}
	ctx := context.Background()
	p, err := f.store.Maintenance().Pending(tasks.Limit(3)).Page(ctx, "")
	require.NoError(t, err, "first page")
	require.NotEmpty(t, p.Next, "first page %+v", p)
	// A store on another table with another shard count, an altered
	// cursor, and a cursor of the unsharded list of that table.
	other := newStore(t, f.db, f.db.Now, tasks.Shards(2), tasks.TableName("other"))
	require.NoError(t, other.EnsureTable(ctx))
	unsharded := newStore(t, f.db, f.db.Now, tasks.TableName("unsharded"))
	require.NoError(t, unsharded.EnsureTable(ctx))
	for range 2 {
		_, _, err := unsharded.Submit(ctx, tasks.SubmitInput{})
		require.NoError(t, err)
	}
	up, err := unsharded.Maintenance().Pending(tasks.Limit(1)).Page(ctx, "")
	require.NoError(t, err, "unsharded page")
	require.NotEmpty(t, up.Next, "unsharded page %+v", up)
	altered := []byte(p.Next)
	altered[3] ^= 1
	for name, c := range map[string]func() error{
		"other table and shard count": func() error { _, err := other.Maintenance().Pending().Page(ctx, p.Next); return err },
		"altered":                     func() error { _, err := f.store.Maintenance().Pending().Page(ctx, string(altered)); return err },
		"unsharded cursor":            func() error { _, err := f.store.Maintenance().Pending().Page(ctx, up.Next); return err },
		"sharded in unsharded": func() error {
			_, err := unsharded.Maintenance().Pending().Page(ctx, p.Next)
			return err
		},
	} {
		before := f.db.Calls("Query")
		assert.ErrorIs(t, c(), table.ErrInvalidCursor, name)
		assert.Equal(t, before, f.db.Calls("Query"), "%s: an invalid cursor was used to read", name)
	}
}

func TestListPendingBadLimit(t *testing.T) {
	f := newFixture(t)
	f.noRequests(t, func() {
		_, err := f.store.Maintenance().Pending(tasks.Limit(-1)).Page(context.Background(), "")
		wantInputError(t, err, "Limit")
		_, err = f.store.Maintenance().Pending(tasks.Limit(1001)).Page(context.Background(), "")
		wantInputError(t, err, "Limit")
		for _, err := range f.store.Maintenance().Pending(tasks.Limit(-5)).All(context.Background()) {
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
	require.Len(t, partitions, 8, "200 tasks over partitions %v, want all 8", partitions)
	for p, n := range partitions {
		require.LessOrEqual(t, n, 50, "partition %s took too many of 200 submissions", p)
		_, err := fmt.Sscanf(p, "STATUS#PENDING#%d", new(int))
		require.NoError(t, err, "partition %q is not STATUS#PENDING#<n>", p)
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
		require.True(t, want[c.Task.ID], "claimed %s twice or unknown", c.Task.ID)
		delete(want, c.Task.ID)
		meta := f.raw(t, "TASK#"+c.Task.ID, "META")
		got := str(meta, "GSI1PK")
		require.GreaterOrEqual(t, len(got), len("STATUS#PROCESSING#0"), "a sharded task is processing under %q, want STATUS#PROCESSING#<n>", got)
		require.NoError(t, f.store.Complete(ctx, c.Lease, nil))
	}
	_, err := f.store.Claim(ctx, "w0")
	require.ErrorIs(t, err, tasks.ErrNoTask, "after draining")
}

func TestShardedReclaimFindsExpiredLeasesInEveryShard(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.Shards = 4 })
	for range 12 {
		f.submit(t, "x")
		f.claim(t, "w-crashed")
	}
	f.db.Advance(tasks.DefaultLeaseDuration)
	n, err := f.store.Maintenance().ReclaimExpired(context.Background())
	require.NoError(t, err, "ReclaimExpired")
	require.Equal(t, 12, n, "ReclaimExpired")
	require.Len(t, walkPages(t, f.store, 5), 12, "pending after reclaim")
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
		require.NoError(t, err)
		if string(c.Task.Payload) == "healthy" {
			err = f.store.Complete(ctx, c.Lease, nil)
		} else {
			_, err = f.store.Fail(ctx, c.Lease, "bad input "+string(c.Task.Payload))
		}
		require.NoError(t, err)
	}
	var got []string
	for task, err := range f.store.Maintenance().Dead(tasks.Limit(3)).All(ctx) {
		require.NoError(t, err)
		require.Equal(t, tasks.StatusDead, task.Status, "dead letter %+v", task)
		require.Equal(t, "bad input "+string(task.Payload), task.LastError, "dead letter %+v", task)
		got = append(got, task.ID)
	}
	require.Equal(t, want, got, "dead letters, want oldest first")
	f.noRequests(t, func() {
		_, err := f.store.Maintenance().Dead(tasks.Limit(-1)).Page(ctx, "")
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
				page, err := f.store.Maintenance().Pending(tasks.Limit(7)).Page(ctx, cursor)
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
