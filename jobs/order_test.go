package jobs_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/jobs"
)

func TestListsBreakCreatedAtTiesByJobIDAcrossPages(t *testing.T) {
	tiesInOrder(t, fakeLeaseEnv(t), 200)
}

func TestIntegrationListsBreakCreatedAtTiesByJobIDAcrossPages(t *testing.T) {
	tiesInOrder(t, localLeaseEnv(t), 200)
}

// tiesInOrder creates n jobs in one millisecond (the clock does not move)
// and pages through them 7 at a time, both ways, by user and by status:
// each job exactly once, in jobId order within the tie.
func tiesInOrder(t *testing.T, e leaseEnv, n int) {
	ctx := context.Background()
	store := e.store(t)
	user := "ties-" + strings.ReplaceAll(t.Name(), "/", "-")
	var ids []string
	for range n {
		in := upload(user)
		j, _, err := store.Create(ctx, in)
		require.NoError(t, err)
		ids = append(ids, j.ID)
	}
	slices.Sort(ids)
	reversed := slices.Clone(ids)
	slices.Reverse(reversed)

	lists := map[string]func(cursor string, opts ...func(*jobs.ListOptions)) (pageOf, error){
		"ByUser": func(cursor string, opts ...func(*jobs.ListOptions)) (pageOf, error) {
			p, err := store.ByUser(user, opts...).Page(ctx, cursor)
			return pageOf{p.Items, p.Next}, err
		},
		"ByStatus": func(cursor string, opts ...func(*jobs.ListOptions)) (pageOf, error) {
			p, err := store.Maintenance().ByStatus(jobs.StatusQueued, opts...).Page(ctx, cursor)
			return pageOf{p.Items, p.Next}, err
		},
	}
	for name, list := range lists {
		for order, want := range map[string][]string{"newest first": reversed, "oldest first": ids} {
			opt := jobs.NewestFirst()
			if order == "oldest first" {
				opt = jobs.OldestFirst()
			}
			var got []string
			cursor := ""
			for {
				p, err := list(cursor, jobs.Limit(7), opt)
				require.NoError(t, err)
				for _, j := range p.items {
					got = append(got, j.ID)
				}
				if p.next == "" {
					break
				}
				cursor = p.next
			}
			assert.Equal(t, want, got, "%s %s", name, order)
		}
	}
}

type pageOf struct {
	items []jobs.Job
	next  string
}
