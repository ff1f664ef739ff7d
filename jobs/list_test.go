package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
		page, err := f.store.ListByUser(ctx, "user-1", cursor, jobs.Limit(25))
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		if len(page.Items) != 25 {
			t.Fatalf("page %d has %d jobs, want 25", pages, len(page.Items))
		}
		for _, j := range page.Items {
			if _, ok := created[j.ID]; !ok || j.UserID != "user-1" {
				t.Fatalf("page %d holds job %s of %q, not one of user-1's", pages, j.ID, j.UserID)
			}
			if seen[j.ID] {
				t.Fatalf("job %s listed twice", j.ID)
			}
			seen[j.ID] = true
			if !prev.IsZero() && !j.CreatedAt.Before(prev) {
				t.Fatalf("job %s created %v listed after one created %v: not newest first", j.ID, j.CreatedAt, prev)
			}
			prev = j.CreatedAt
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if pages != 40 || len(seen) != n {
		t.Fatalf("%d pages, %d jobs; want 40 pages of %d jobs", pages, len(seen), n)
	}

	// The walker sees the same thousand in the same order.
	count := 0
	for j, err := range f.store.ByUser(ctx, "user-1", jobs.Limit(100)) {
		if err != nil {
			t.Fatal(err)
		}
		if !seen[j.ID] {
			t.Fatalf("walker yielded unknown job %s", j.ID)
		}
		count++
	}
	if count != n {
		t.Fatalf("UserJobs yielded %d jobs, want %d", count, n)
	}
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
	page, err := f.store.ListByStatus(ctx, jobs.StatusFailed, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page.Items); len(got) != 3 || got[0] != failed[0] || got[1] != failed[1] || got[2] != failed[2] || page.Next != "" {
		t.Fatalf("failed list %v (next %q), want %v", got, page.Next, failed)
	}
	queued := 0
	for _, err := range f.store.ByStatus(ctx, jobs.StatusQueued, jobs.Limit(1)) {
		if err != nil {
			t.Fatal(err)
		}
		queued++
	}
	if queued != 3 {
		t.Fatalf("%d QUEUED jobs listed, want 3", queued)
	}
}

func TestListCreatedRangeReadsOnlyThatRange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var all []*jobs.Job
	for range 10 {
		all = append(all, f.create(t, "u1"))
		f.db.Advance(time.Second)
	}
	page, err := f.store.ListByUser(ctx, "u1", "", func(o *jobs.ListOptions) {
		o.CreatedAfter = all[2].CreatedAt
		o.CreatedBefore = all[7].CreatedAt
	})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(page.Items)
	want := []string{all[6].ID, all[5].ID, all[4].ID, all[3].ID}
	if len(got) != len(want) {
		t.Fatalf("range listed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("range listed %v, want %v", got, want)
		}
	}
}

func TestListCursorOfAnotherUserIsRejected(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for range 3 {
		f.create(t, "alice")
		f.create(t, "bob")
	}
	page, err := f.store.ListByUser(ctx, "alice", "", jobs.Limit(1))
	if err != nil || page.Next == "" {
		t.Fatalf("first page: %v, next %q", err, page.Next)
	}
	before := f.db.Calls("Query")
	if _, err := f.store.ListByUser(ctx, "bob", page.Next); !errors.Is(err, table.ErrInvalidCursor) {
		t.Fatalf("alice's cursor on bob's list: %v, want ErrInvalidCursor", err)
	}
	if _, err := f.store.ListByStatus(ctx, jobs.StatusQueued, page.Next); !errors.Is(err, table.ErrInvalidCursor) {
		t.Fatalf("a user cursor on the status list: %v, want ErrInvalidCursor", err)
	}
	if f.db.Calls("Query") != before {
		t.Fatal("a rejected cursor was sent to DynamoDB")
	}
}

func TestListRejectsBadInputBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"empty user", "userId", func() error { _, err := f.store.ListByUser(ctx, "", ""); return err }},
		{"unknown status", "status", func() error { _, err := f.store.ListByStatus(ctx, "DONE", ""); return err }},
		{"lower-case status", "status", func() error { _, err := f.store.ListByStatus(ctx, "failed", ""); return err }},
		{"negative limit", "Limit", func() error { _, err := f.store.ListByUser(ctx, "u1", "", jobs.Limit(-1)); return err }},
		{"huge limit", "Limit", func() error { _, err := f.store.ListByStatus(ctx, jobs.StatusFailed, "", jobs.Limit(5000)); return err }},
		{"empty range", "CreatedAfter/CreatedBefore", func() error {
			_, err := f.store.ListByUser(ctx, "u1", "", func(o *jobs.ListOptions) { o.CreatedAfter, o.CreatedBefore = epoch, epoch })
			return err
		}},
		{"walker with unknown status", "status", func() error {
			for _, err := range f.store.ByStatus(ctx, "RUNNING") {
				return err
			}
			return nil
		}},
		{"walker with empty user", "userId", func() error {
			for _, err := range f.store.ByUser(ctx, "") {
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
