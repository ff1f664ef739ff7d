package pipeline

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Keys of tag items and tag aggregates.
//
// A plain tag source=sap of pipeline 01HF... is one item:
//
//	pk "T:source"  sk "T:sap:P:01HF..."
//
// A hierarchical tag region=usa/northwest/seattle is one item per level.
// At level i the item's value is the level's own name, and <parent> is the
// path of the levels above it, joined by '/' as in the tag; the first level
// has no parent and shares the plain tag's partition:
//
//	pk "T:region"                sk "T:usa:P:01HF..."
//	pk "T:region#usa"            sk "T:northwest:P:01HF..."
//	pk "T:region#usa/northwest"  sk "T:seattle:P:01HF..."
//
// So "region=usa" finds pipelines tagged usa and usa/anything, and
// "region=usa/northwest" those tagged usa/northwest and below: a query per
// tag, and a tag matches at any level. A pipeline has one item per distinct
// (key, level path): tags usa and usa/northwest share the first level's.
//
// Aggregates count the pipelines per (key, level path), so every count is
// exactly how many pipelines Pipelines.ByTags finds for that one tag:
//
//	pk "TA:region"  sk "TA:usa/northwest"  siKey1 "TD"  count 12
//
// The entities "tag" and "tagAggregate" of schema.go.
type tagItem struct {
	TagKey     string `dynamodbav:"tagKey"` // the key, or key#parent
	Value      string `dynamodbav:"value"`  // the level
	PipelineID string `dynamodbav:"pipelineId"`
}

type aggregateItem struct {
	Key   string `dynamodbav:"key"`
	Value string `dynamodbav:"value"` // the level path
	Count int    `dynamodbav:"count"`
}

// aggregatesPartition is the GSI-1 partition of every aggregate. The seed's
// tables say TD, its "list tags" query says TA; TD is what is stored.
const aggregatesPartition = "TD"

// tagEntry is one (key, level path) of a pipeline's tags.
type tagEntry struct {
	Key, Path string
}

// tagKey is the entry's partition: its key, and the path above its level.
func (e tagEntry) tagKey() string {
	if i := strings.LastIndexByte(e.Path, '/'); i >= 0 {
		return e.Key + "#" + e.Path[:i]
	}
	return e.Key
}

func (e tagEntry) level() string { return e.Path[strings.LastIndexByte(e.Path, '/')+1:] }

func (e tagEntry) item(id string) tagItem {
	return tagItem{TagKey: e.tagKey(), Value: e.level(), PipelineID: id}
}

func (e tagEntry) aggregate() aggregateItem { return aggregateItem{Key: e.Key, Value: e.Path} }

// aggregateAdd is the update of a tag aggregate: counts move by ADD, which
// DynamoDB applies atomically whatever else writes the item, and the
// entity sets siKey1 (TD) each time, so an aggregate that ADD creates is in
// GSI-1 too.
func (s *Store) aggregateAdd(e tagEntry, n int) entity.Action {
	return s.aggregates.Update(e.aggregate()).Add(attrCount, n).Action()
}

// tagEntries returns the distinct (key, level path) entries of tags, sorted.
func tagEntries(tags []Tag) []tagEntry {
	var out []tagEntry
	for _, t := range tags {
		for i := 0; i <= len(t.Value); i++ {
			if i == len(t.Value) || t.Value[i] == '/' {
				out = append(out, tagEntry{t.Key, t.Value[:i]})
			}
		}
	}
	slices.SortFunc(out, compareEntries)
	return slices.Compact(out)
}

func compareEntries(a, b tagEntry) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.Path, b.Path)
}

// diffEntries returns the entries of next not in cur and of cur not in next.
func diffEntries(cur, next []tagEntry) (added, removed []tagEntry) {
	for _, e := range next {
		if _, ok := slices.BinarySearchFunc(cur, e, compareEntries); !ok {
			added = append(added, e)
		}
	}
	for _, e := range cur {
		if _, ok := slices.BinarySearchFunc(next, e, compareEntries); !ok {
			removed = append(removed, e)
		}
	}
	return added, removed
}

// TagCount is a tag aggregate: how many pipelines carry Key=Value, Value
// being a hierarchical tag's level path ("usa", "usa/northwest") or a plain
// value.
type TagCount struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Count int    `json:"count"`
}

func (a aggregateItem) tagCount() TagCount {
	return TagCount{Key: a.Key, Value: a.Value, Count: a.Count}
}

// positive hides aggregates whose count dropped to zero. They are kept,
// not deleted (see the package doc: deleting is one more conditional
// write per removed tag, after the transaction).
var positive = expression.Name(attrCount).GreaterThan(expression.Value(0))

// List is the listing of the tag counts of every key (ListOptions.Limit
// per page; 0: what one DynamoDB page holds), from GSI-1
// partition TD: by key (GSI-1 sorts on pk TA:<key>), the values of one key
// (a run of ties on that sort key) by value ascending (table.Query.TieBreak
// on the aggregate's unique sk TA:<value>), on every backend and across
// page boundaries. Zero counts are left out.
func (h *Tags) List(opts ...func(*ListOptions)) table.List[TagCount] {
	s := h.store()
	limit, err := pageLimit(opts)
	return newList(s, "pipeline.Tags.List", err,
		func(ctx context.Context, cursor string) (table.Page[TagCount], error) {
			return tagCountPage(s.aggregates.List(ctx, aggregateItem{}, cursor, entity.ByIndex(IndexGSI1), entity.Where(positive), limit))
		})
}

// Keys returns every tag key some pipeline carries, in order. GSI-1
// sorts the aggregates by pk (TA:<key>), so each key costs one query of one
// item: the first aggregate with a count above zero past the previous key
// (pk > TA:<previous key>). The values themselves are not read.
func (h *Tags) Keys(ctx context.Context) (_ []string, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "pipeline.Tags.Keys")
	defer span.End(&err)
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	var out []string
	opts := []func(*entity.ListOptions){entity.ByIndex(IndexGSI1), entity.Where(positive), entity.Limit(1), entity.AnyTieOrder(), nil}
	for {
		page, err := s.aggregates.List(ctx, aggregateItem{}, "", opts...)
		if err != nil {
			return nil, err
		}
		if len(page.Items) == 0 {
			return out, nil
		}
		out = append(out, page.Items[0].Key)
		opts[len(opts)-1] = entity.SortGreater(page.Items[0].Key)
	}
}

// Values is the listing of the values of tag key key with their counts
// (ListOptions.Limit per page; 0: what one DynamoDB page holds), in value
// order (the unique sort key TA:<value>). Zero counts are left out.
func (h *Tags) Values(key string, opts ...func(*ListOptions)) table.List[TagCount] {
	s := h.store()
	limit, err := pageLimit(opts)
	return newList(s, "pipeline.Tags.Values", firstErr(validateTagKey("key", key), err),
		func(ctx context.Context, cursor string) (table.Page[TagCount], error) {
			return tagCountPage(s.aggregates.List(ctx, aggregateItem{Key: key}, cursor, entity.Where(positive), limit))
		})
}

func tagCountPage(page table.Page[aggregateItem], err error) (table.Page[TagCount], error) {
	if err != nil {
		return table.Page[TagCount]{}, err
	}
	out := table.Page[TagCount]{Items: make([]TagCount, 0, len(page.Items)), Next: page.Next}
	for _, a := range page.Items {
		out.Items = append(out.Items, a.tagCount())
	}
	return out, nil
}

// DefaultTagsPageSize is Pipelines.ByTags's page size when ListOptions.Limit is 0.
const DefaultTagsPageSize = 25

// maxTagsPageSize bounds a Pipelines.ByTags page: its pipelines are read by one
// BatchGet, which table splits into requests of 100.
const maxTagsPageSize = 1000

// ByTags is the listing of the pipelines carrying every tag in tags (AND;
// ListOptions.Limit per page, default DefaultTagsPageSize, at most 1000),
// in pipeline id order (unique: a pipeline is matched once); a page's Next
// is "" exactly when no further pipeline matches. A tag matches at any
// level of a hierarchical tag: region=usa matches usa/northwest.
//
// As the seed describes, each tag is one query of its tag items (in
// parallel, at most Options.MaxConcurrency at once); the items come back in
// pipeline id order, so the intersection is a merge of sorted streams, and
// a stream that falls behind restarts its query at the id the others have
// reached instead of reading what lies between. The page's pipelines are
// then read with one BatchGet. The cursor is bound to the tag set (in any
// order): used with other tags, or altered, it fails with
// table.ErrInvalidCursor before anything is read.
func (h *Pipelines) ByTags(tags []Tag, opts ...func(*ListOptions)) table.List[*Pipeline] {
	s := h.store()
	wanted, limit, err := byTagsArgs(tags, opts)
	return newList(s, "pipeline.Pipelines.ByTags", err,
		func(ctx context.Context, cursor string) (table.Page[*Pipeline], error) {
			return s.byTagsPage(ctx, wanted, cursor, limit)
		})
}

// byTagsArgs checks ByTags's tags and limit and returns the tags as sorted,
// distinct entries and the page size.
func byTagsArgs(tags []Tag, opts []func(*ListOptions)) ([]tagEntry, int, error) {
	limit := listOptions(opts).Limit
	if len(tags) == 0 {
		return nil, 0, inputError("tags", "[]", "at least one tag is needed")
	}
	for i, t := range tags {
		if err := validateTag(fmt.Sprintf("tags[%d]", i), t); err != nil {
			return nil, 0, err
		}
	}
	if limit < 0 || limit > maxTagsPageSize {
		return nil, 0, inputError("limit", limit, fmt.Sprintf("must be between 0 and %d", maxTagsPageSize))
	}
	if limit == 0 {
		limit = DefaultTagsPageSize
	}
	wanted := make([]tagEntry, len(tags))
	for i, t := range tags {
		wanted[i] = tagEntry{t.Key, t.Value}
	}
	slices.SortFunc(wanted, compareEntries)
	return slices.Compact(wanted), limit, nil
}

func (s *Store) byTagsPage(ctx context.Context, wanted []tagEntry, cursor string, limit int) (table.Page[*Pipeline], error) {
	binding := s.tagsBinding(wanted)
	after := ""
	if cursor != "" {
		var err error
		if after, err = s.decodeCursor("Pipelines.ByTags", binding, cursor); err != nil {
			return table.Page[*Pipeline]{}, err
		}
		if strings.Contains(after, ":") {
			return table.Page[*Pipeline]{}, cursorError(cursor, "not a pipeline id")
		}
	}

	ids, more, err := s.intersect(ctx, wanted, after, limit)
	if err != nil {
		return table.Page[*Pipeline]{}, err
	}
	page := table.Page[*Pipeline]{Items: make([]*Pipeline, 0, len(ids))}
	if len(ids) > 0 {
		ks := make([]pipelineItem, len(ids))
		for i, id := range ids {
			ks[i] = pipelineItem{ID: id}
		}
		items, err := s.current.BatchGet(ctx, ks)
		if err != nil {
			return table.Page[*Pipeline]{}, err
		}
		for i := range items {
			if items[i].Deleting != "" {
				continue // Delete is removing it
			}
			p, err := items[i].pipeline()
			if err != nil {
				return table.Page[*Pipeline]{}, err
			}
			page.Items = append(page.Items, p)
		}
	}
	if more {
		page.Next = s.encodeCursor(binding, ids[len(ids)-1])
	}
	return page, nil
}

// tagStream is one tag's query, read a few items at a time: buf holds ids
// after pos in ascending order, and done says nothing follows buf.
type tagStream struct {
	entry tagEntry
	buf   []string
	pos   string // ids up to pos (exclusive bound; "" = none) are behind us
	done  bool
}

// fill reads the stream's next ids from lo on: lo itself is skipped when it
// is pos (already seen), kept when it is a target the other streams reached.
func (st *tagStream) fill(ctx context.Context, s *Store, lo string, n int) error {
	// BETWEEN "T:<v>:P:<lo>" and "T:<v>:P;": every item of this level from
	// lo on, as ';' follows ':' and no item's key has it there.
	from := []any{st.entry.level()}
	if lo != "" {
		from = append(from, lo)
	}
	sort := entity.SortBetween(from, []any{st.entry.level()})
	st.buf = st.buf[:0]
	next := ""
	for {
		page, err := s.tags.List(ctx, tagItem{TagKey: st.entry.tagKey()}, next, sort, entity.Limit(n))
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			if id := it.PipelineID; st.pos == "" || id > st.pos {
				st.buf = append(st.buf, id)
			}
		}
		// A page may hold only pos itself; read on, or the caller would
		// ask for the same page again.
		if next = page.Next; next == "" || len(st.buf) > 0 {
			st.done = next == ""
			return nil
		}
	}
}

// intersect returns up to limit ids after after that every stream holds,
// and whether another one follows.
func (s *Store) intersect(ctx context.Context, wanted []tagEntry, after string, limit int) ([]string, bool, error) {
	streams := make([]*tagStream, len(wanted))
	for i, e := range wanted {
		streams[i] = &tagStream{entry: e, pos: after}
	}
	var ids []string
	target := after // no stream needs ids below it
	for {
		var empty []*tagStream
		for _, st := range streams {
			if len(st.buf) == 0 {
				if st.done {
					return ids, false, nil // one tag has no more pipelines
				}
				empty = append(empty, st)
			}
		}
		// One tag alone needs only what the page still lacks, plus one
		// item (the cursor's own id, which fill skips) to know more follow.
		n := s.opts.TagQueryLimit
		if len(streams) == 1 {
			n = min(n, limit-len(ids)+2)
		}
		if err := s.fillAll(ctx, empty, target, n); err != nil {
			return nil, false, err
		}
		for _, st := range streams {
			if len(st.buf) == 0 && st.done {
				return ids, false, nil
			}
		}
		for _, st := range streams {
			if len(st.buf) > 0 && st.buf[0] > target {
				target = st.buf[0]
			}
		}
		match := true
		for _, st := range streams {
			for len(st.buf) > 0 && st.buf[0] < target {
				st.pos, st.buf = st.buf[0], st.buf[1:]
			}
			if len(st.buf) == 0 || st.buf[0] != target {
				match = false
			}
		}
		if !match {
			continue
		}
		if len(ids) == limit {
			return ids, true, nil
		}
		ids = append(ids, target)
		for _, st := range streams {
			st.pos, st.buf = target, st.buf[1:]
		}
	}
}

// fillAll refills streams in parallel, at most Options.MaxConcurrency at a
// time, each from target on (or from its own position, if further). The
// first failure cancels the others; every goroutine ends before it returns.
func (s *Store) fillAll(ctx context.Context, streams []*tagStream, target string, n int) error {
	from := func(st *tagStream) string {
		if target > st.pos {
			return target
		}
		return st.pos
	}
	if len(streams) == 1 {
		return streams[0].fill(ctx, s, from(streams[0]), n)
	}
	// The first failure cancels the others with itself as the cause, so
	// the caller gets that failure, not the cancellation it caused in a
	// sibling that happened to finish first.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	limit := s.opts.MaxConcurrency
	if limit <= 0 {
		limit = DefaultMaxConcurrency
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, st := range streams {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return context.Cause(ctx)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := st.fill(ctx, s, from(st), n); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}

// Cursors of Pipelines.ByTags and Versions.List: base64url(version |
// HMAC-SHA256(key, binding | position)[:16] | position), the binding naming
// the listing, the table and what is listed (the tag set, the pipeline).
const (
	cursorVersion = 1
	cursorMACLen  = 16
)

func (s *Store) tagsBinding(wanted []tagEntry) string {
	var b strings.Builder
	b.WriteString("listByTags\x00" + s.t.Name())
	for _, e := range wanted {
		b.WriteString("\x00" + e.Key + "\x00" + e.Path)
	}
	return b.String()
}

func (s *Store) cursorMAC(binding, after string) []byte {
	m := hmac.New(sha256.New, s.opts.CursorKey)
	m.Write([]byte(binding))
	m.Write([]byte{0})
	m.Write([]byte(after))
	return m.Sum(nil)[:cursorMACLen]
}

func (s *Store) encodeCursor(binding, after string) string {
	buf := append([]byte{cursorVersion}, s.cursorMAC(binding, after)...)
	return base64.RawURLEncoding.EncodeToString(append(buf, after...))
}

func cursorError(cursor, reason string) error {
	shown := cursor
	if len(shown) > 40 {
		shown = shown[:40] + "..."
	}
	return &table.InputError{Field: "cursor", Value: fmt.Sprintf("%q", shown), Reason: reason, Err: table.ErrInvalidCursor}
}

// decodeCursor returns the position a cursor of listing (Pipelines.ByTags,
// Versions.List) carries, after checking it was made for binding.
func (s *Store) decodeCursor(listing, binding, cursor string) (string, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(cursor)
	if err != nil {
		return "", cursorError(cursor, "not base64url")
	}
	if len(raw) < 2+cursorMACLen || raw[0] != cursorVersion {
		return "", cursorError(cursor, "not a "+listing+" cursor")
	}
	mac, after := raw[1:1+cursorMACLen], string(raw[1+cursorMACLen:])
	if !hmac.Equal(mac, s.cursorMAC(binding, after)) {
		return "", cursorError(cursor, "altered, or from another listing")
	}
	return after, nil
}
