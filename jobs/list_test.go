package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func TestListThousandJobsOfOneUserInFortyPagesNewestFirst(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n = 1000
	created := make(map[string]time.Time, n)
	for range n {
		j := f.create(t, "user-1")
		created[j.ID] = j.CreatedAt
		f.db.Advance(time.Millisecond) // one createdAt per job, so "newest first" is a total order
	}
	f.create(t, "someone-else")

	seen := map[string]bool{}
	var prev time.Time
	cursor, pages := "", 0
	for {
		page, err := f.store.ByUser("user-1", jobs.Limit(25)).Page(ctx, cursor)
		require.NoError(t, err, "page")
		pages++
		require.Len(t, page.Items, 25, "page")
		for _, j := range page.Items {
			_, ok := created[j.ID]
			require.Falsef(t, !ok || j.UserID != "user-1", "page %d holds job %s of %q, not one of user-1's", pages, j.ID, j.UserID)
			require.Falsef(t, seen[j.ID], "job %s listed twice", j.ID)
			seen[j.ID] = true
			require.Falsef(t, !prev.IsZero() && !j.CreatedAt.Before(prev), "job %s created %v listed after one created %v: not newest first", j.ID, j.CreatedAt, prev)
			prev = j.CreatedAt
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	require.Falsef(t, pages != 40 || len(seen) != n, "%d pages, %d jobs; want 40 pages of %d jobs", pages, len(seen), n)

	// The walker sees the same thousand in the same order.
	count := 0
	for j, err := range f.store.ByUser("user-1", jobs.Limit(100)).All(ctx) {
		require.NoError(t, err)
		require.Falsef(t, !seen[j.ID], "walker yielded unknown job %s", j.ID)
		count++
	}
	require.Equal(t, n, count, "UserJobs yielded")
}

func TestListByStatusIsTheAdminsFailedView(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var failed []string
	for i := range 6 {
		j := f.create(t, "u1")
		f.db.Advance(time.Millisecond)
		if i%2 == 0 {
			moved(t)(f.store.StartProcessing(ctx, j.ID))
			moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, j.ID), nil))
			moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, j.ID), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "timeout"}))
			failed = append([]string{j.ID}, failed...) // newest first
		}
	}
	page, err := f.store.Maintenance().ByStatus(jobs.StatusFailed).Page(ctx, "")
	require.NoError(t, err)
	got := ids(page.Items)
	require.Falsef(t, len(got) != 3 || got[0] != failed[0] || got[1] != failed[1] || got[2] != failed[2] || page.Next != "", "failed list %v (next %q), want %v", got, page.Next, failed)
	queued := 0
	for _, err := range f.store.Maintenance().ByStatus(jobs.StatusQueued, jobs.Limit(1)).All(ctx) {
		require.NoError(t, err)
		queued++
	}
	require.Equal(t, 3, queued)
}

func TestListCreatedRangeReadsOnlyThatRange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var all []*jobs.Job
	for range 10 {
		all = append(all, f.create(t, "u1"))
		f.db.Advance(time.Second)
	}
	page, err := f.store.ByUser("u1", func(o *jobs.ListOptions) {
		o.CreatedAfter = all[2].CreatedAt
		o.CreatedBefore = all[7].CreatedAt
	}).Page(ctx, "")
	require.NoError(t, err)
	got := ids(page.Items)
	want := []string{all[6].ID, all[5].ID, all[4].ID, all[3].ID}
	require.Len(t, got, len(want), "range listed")
	for i := range want {
		require.Equal(t, want[i], got[i], "range listed")
	}
}

func TestListCursorOfAnotherUserIsRejected(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for range 3 {
		f.create(t, "alice")
		f.create(t, "bob")
	}
	page, err := f.store.ByUser("alice", jobs.Limit(1)).Page(ctx, "")
	require.Falsef(t, err != nil || page.Next == "", "first page: %v, next %q", err, page.Next)
	before := f.db.Calls("Query")
	_, err = f.store.ByUser("bob").Page(ctx, page.Next)
	require.ErrorIs(t, err, table.ErrInvalidCursor, "alice's cursor on bob's list")
	_, err = f.store.Maintenance().ByStatus(jobs.StatusQueued).Page(ctx, page.Next)
	require.ErrorIs(t, err, table.ErrInvalidCursor, "a user cursor on the status list")
	require.Equal(t, before, f.db.Calls("Query"))
}

func TestListRejectsBadInputBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"empty user", "userId", func() error { _, err := f.store.ByUser("").Page(ctx, ""); return err }},
		{"unknown status", "status", func() error { _, err := f.store.Maintenance().ByStatus("DONE").Page(ctx, ""); return err }},
		{"lower-case status", "status", func() error { _, err := f.store.Maintenance().ByStatus("failed").Page(ctx, ""); return err }},
		{"negative limit", "Limit", func() error { _, err := f.store.ByUser("u1", jobs.Limit(-1)).Page(ctx, ""); return err }},
		{"huge limit", "Limit", func() error {
			_, err := f.store.Maintenance().ByStatus(jobs.StatusFailed, jobs.Limit(5000)).Page(ctx, "")
			return err
		}},
		{"empty range", "CreatedAfter/CreatedBefore", func() error {
			_, err := f.store.ByUser("u1", func(o *jobs.ListOptions) { o.CreatedAfter, o.CreatedBefore = epoch, epoch }).Page(ctx, "")
			return err
		}},
		{"walker with unknown status", "status", func() error {
			for _, err := range f.store.Maintenance().ByStatus("RUNNING").All(ctx) {
				return err
			}
			return nil
		}},
		{"walker with empty user", "userId", func() error {
			for _, err := range f.store.ByUser("").All(ctx) {
				return err
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.noRequests(t, func() { wantInputError(t, c.call(), c.field) })
		})
	}
}
