package tasks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tablekit/tablekit/table"
)

// DefaultPageSize is the page size of Maintenance.Pending and .Dead unless
// Limit says otherwise.
const DefaultPageSize = 100

const maxPageSize = 1000

// ListOptions configure Maintenance.Pending and Maintenance.Dead.
type ListOptions struct {
	// Limit is the most tasks one page holds: default DefaultPageSize, at
	// most 1000.
	Limit int
}

// Limit sets ListOptions.Limit.
func Limit(n int) func(*ListOptions) { return func(o *ListOptions) { o.Limit = n } }

// Pending is the listing of PENDING tasks in the order they become
// claimable (AvailableAt ascending; ties by task id ascending, bytewise, on
// every backend and across pages, sharded or not): the seed's admin view
// (GSI1PK = STATUS#PENDING), not the workers' path. Tasks still in their
// retry backoff, and delayed submissions (SubmitInput.AvailableAt) not yet
// due, are listed after the claimable ones, at their AvailableAt. Read it a
// page at a time (Page: "" as cursor for the first page and Page.Next for
// the next; Next is "" after the last page) or whole (All). A cursor from
// another list, another store configuration or an altered one fails with
// table.ErrInvalidCursor before anything is read; a bad Limit is an
// *table.InputError before anything is read.
//
// With Options.Shards = N > 1 a page costs N queries, merged by creation
// time, plus one more for each shard the page stops in the middle of (to
// get a cursor there): the price of write sharding that the data-modelling design (docs/systems/datamodel.md) names
// ("querying all shards and merging results in your application"). The
// index is eventually consistent and the queue moves while it is listed,
// so a page is a recent view, not a snapshot.
func (h *Maintenance) Pending(opts ...func(*ListOptions)) table.List[Task] {
	return h.list("tasks.Maintenance.Pending", opts, (*Store).pendingPage)
}

func (s *Store) pendingPage(ctx context.Context, cursor string, limit int) (table.Page[Task], error) {
	if _, err := s.tableShards(ctx, false); err != nil {
		return table.Page[Task]{}, err
	}
	if s.shardCount() == 1 {
		return s.listPartition(ctx, StatusPending, cursor, limit)
	}
	return s.listMerged(ctx, cursor, limit)
}

// Dead is the listing of DEAD tasks, the dead letters (GSI1PK =
// STATUS#DEAD, one partition whatever Options.Shards says: dead tasks are
// few), with their LastError, in the order they died (ties by task id
// ascending). It is read as Pending is.
func (h *Maintenance) Dead(opts ...func(*ListOptions)) table.List[Task] {
	return h.list("tasks.Maintenance.Dead", opts, (*Store).deadPage)
}

func (s *Store) deadPage(ctx context.Context, cursor string, limit int) (table.Page[Task], error) {
	return s.listPartition(ctx, StatusDead, cursor, limit)
}

func listOptions(opts []func(*ListOptions)) (ListOptions, error) {
	o := ListOptions{}
	for _, f := range opts {
		f(&o)
	}
	if o.Limit < 0 || o.Limit > maxPageSize {
		return o, inputError("Limit", o.Limit, fmt.Sprintf("must be between 0 and %d", maxPageSize))
	}
	if o.Limit == 0 {
		o.Limit = DefaultPageSize
	}
	return o, nil
}

// listPartition is a page of the one GSI1 partition of status st.
func (s *Store) listPartition(ctx context.Context, st Status, cursor string, limit int) (table.Page[Task], error) {
	page, err := s.queuePage(ctx, st, 0, limit, cursor)
	if err != nil {
		return table.Page[Task]{}, fmt.Errorf("tasks: list %s: %w", strings.ToLower(string(st)), err)
	}
	return tasksPage(page.Items, page.Next)
}

func tasksPage(items []metaItem, next string) (table.Page[Task], error) {
	page := table.Page[Task]{Items: make([]Task, 0, len(items)), Next: next}
	for i := range items {
		t, err := items[i].task()
		if err != nil {
			return table.Page[Task]{}, err
		}
		page.Items = append(page.Items, *t)
	}
	return page, nil
}

// A merged cursor holds one table cursor per shard: "" to start the shard,
// "-" when it is done. It is signed like table's own cursors, so an edited
// one is refused rather than silently skipping a shard.
type mergedCursor struct {
	Shards []string `json:"s"`
}

const shardDone = "-"

func (s *Store) listMerged(ctx context.Context, cursor string, limit int) (table.Page[Task], error) {
	n := s.shardCount()
	cur := make([]string, n)
	if cursor != "" {
		var err error
		if cur, err = s.decodeMerged(cursor); err != nil {
			return table.Page[Task]{}, err
		}
	}
	type entry struct {
		m     metaItem
		shard int
	}
	pages := make([]table.Page[metaItem], n)
	var all []entry
	for shard := range n {
		if cur[shard] == shardDone {
			continue
		}
		p, err := s.queuePage(ctx, StatusPending, shard, limit, cur[shard])
		if err != nil {
			return table.Page[Task]{}, fmt.Errorf("tasks: list pending, shard %d: %w", shard, err)
		}
		pages[shard] = p
		for _, m := range p.Items {
			all = append(all, entry{m, shard})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].m.GSI1SK != all[j].m.GSI1SK {
			return all[i].m.GSI1SK < all[j].m.GSI1SK
		}
		return all[i].m.TaskID < all[j].m.TaskID
	})
	if len(all) > limit {
		all = all[:limit]
	}
	taken := make([]int, n)
	items := make([]metaItem, len(all))
	for i, e := range all {
		items[i] = e.m
		taken[e.shard]++
	}
	next := make([]string, n)
	more := false
	for shard := range n {
		p := pages[shard]
		switch {
		case cur[shard] == shardDone:
			next[shard] = shardDone
		case taken[shard] == len(p.Items):
			next[shard] = p.Next
			if p.Next == "" {
				next[shard] = shardDone
			}
		case taken[shard] == 0:
			next[shard] = cur[shard]
		default:
			// The page ends inside this shard's items: read up to the
			// last one taken again to get a cursor there.
			q, err := s.queuePage(ctx, StatusPending, shard, taken[shard], cur[shard])
			if err != nil {
				return table.Page[Task]{}, fmt.Errorf("tasks: list pending, shard %d: %w", shard, err)
			}
			next[shard] = q.Next
			if q.Next == "" {
				next[shard] = shardDone
			}
		}
		if next[shard] != shardDone {
			more = true
		}
	}
	nextCursor := ""
	if more {
		nextCursor = s.encodeMerged(next)
	}
	return tasksPage(items, nextCursor)
}

func (s *Store) cursorMAC(payload []byte) []byte {
	key := sha256.Sum256([]byte(fmt.Sprintf("tasks pending cursor\x00%s\x00%d", s.t.Name(), s.shardCount())))
	mac := hmac.New(sha256.New, key[:])
	mac.Write(payload)
	return mac.Sum(nil)[:16]
}

func (s *Store) encodeMerged(shards []string) string {
	payload, _ := json.Marshal(mergedCursor{Shards: shards}) // strings only: cannot fail
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(s.cursorMAC(payload))
}

func (s *Store) decodeMerged(cursor string) ([]string, error) {
	bad := func(reason string) error {
		return &table.InputError{Field: "cursor", Value: fmt.Sprintf("%.24q", cursor), Reason: reason, Err: table.ErrInvalidCursor}
	}
	body, sig, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, bad("not a pending-list cursor of this store")
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.cursorMAC(payload)) {
		return nil, bad("altered, or from another table or shard count")
	}
	var c mergedCursor
	if err := json.Unmarshal(payload, &c); err != nil || len(c.Shards) != s.shardCount() {
		return nil, bad("malformed")
	}
	return c.Shards, nil
}
