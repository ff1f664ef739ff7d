package entity_test

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// The model test: random sequences of entity operations, checked after
// every step against a plain Go model of what should hold. Two entities
// share a partition and a prefix (a photo PHOTO#p1, its tags
// PHOTO#p1#TAG#x); photos are versioned, expire by a TTL stored even when
// 0, keep a counter under Bounds, and are in two indexes whose sort keys
// tie across partitions: GSI1 by owner and updatedAt (which the entity
// keeps), GSI2 (sparse) by rank (which the caller sets). Tags expire by a
// TTL left out when 0. The clock moves without the fake deleting what
// expired, as DynamoDB deletes expired items days late, so entity's own
// meaning of expiry is what is checked.

type mPhoto struct {
	Album     string   `dynamodbav:"albumId"`
	ID        string   `dynamodbav:"photoId"`
	Owner     string   `dynamodbav:"ownerId"`
	Rank      string   `dynamodbav:"rank"`
	Likes     int      `dynamodbav:"likes"`
	Note      string   `dynamodbav:"note,omitempty"`
	Labels    []string `dynamodbav:"labels,omitempty"`
	ExpiresAt int64    `dynamodbav:"expiresAt"`
	Created   int64    `dynamodbav:"createdAt"`
	Updated   int64    `dynamodbav:"updatedAt"`
	Version   int      `dynamodbav:"version"`
}

type mTag struct {
	Album     string `dynamodbav:"albumId"`
	PhotoID   string `dynamodbav:"photoId"`
	Name      string `dynamodbav:"tag"`
	Count     int    `dynamodbav:"count"`
	ExpiresAt int64  `dynamodbav:"expiresAt,omitempty"`
}

const (
	likesMax  = 5
	countMax  = 3
	labelsMax = 3
)

var (
	mAlbums = []string{"a1", "a2"}
	mPhotos = []string{"p1", "p2", "p3"}
	mTags   = []string{"x", "y"}
	mOwners = []string{"u1", "u2"}
	mRanks  = []string{"", "r1", "r2"}
)

// mKey is a table key as the model spells it.
type mKey struct{ pk, sk string }

func photoKey(album, id string) mKey    { return mKey{"ALBUM#" + album, "PHOTO#" + id} }
func tagKey(album, id, tag string) mKey { return mKey{"ALBUM#" + album, "PHOTO#" + id + "#TAG#" + tag} }

// mItem is what the model holds at a key: a photo or a tag, expired or
// not (nothing deletes expired items but the entity's own writes).
type mItem struct {
	photo *mPhoto
	tag   *mTag
	// noLikes: the photo has no likes attribute (an Update created it
	// without setting one; every other write stores likes, 0 included).
	noLikes bool
}

func (it mItem) ttl() int64 {
	if it.photo != nil {
		return it.photo.ExpiresAt
	}
	return it.tag.ExpiresAt
}

// modelEnv is the system under test and the model.
type modelEnv struct {
	t      *table.Table
	db     *dynamotest.DB // nil on DynamoDB Local
	clock  *testClock
	reg    *entity.Registry
	photos *entity.Entity[mPhoto]
	tags   *entity.Entity[mTag]
	col    *entity.Collection

	items map[mKey]mItem
	// stats counts steps per operation and refusals per outcome, for the
	// test's log: what the random sequences covered.
	stats map[string]int
}

func newModelEnv(t *rapid.T, api table.API, db *dynamotest.DB, clock *testClock, s table.Schema, typeAttr bool, stats map[string]int) *modelEnv {
	var opts []func(*entity.RegistryOptions)
	if !typeAttr {
		opts = append(opts, entity.NoTypeAttribute())
	}
	opts = append(opts, entity.Clock(clock.Now))
	tbl := table.New(api, s, fastBackoff)
	reg, err := entity.NewRegistry(tbl, opts...)
	require.NoError(t, err)
	photos, err := entity.New[mPhoto](reg, "photo",
		entity.Key("ALBUM#{albumId}", "PHOTO#{photoId}"),
		entity.Index("GSI1", "OWNER#{ownerId}", "T#{updatedAt:013d}"),
		entity.SparseIndex("GSI2", "RANKS", "R#{rank}"),
		// GSI3's keys come from an attribute an update may set or not
		// (rank) and one every update rebuilds (updatedAt): the index keys
		// an update writes are those a Put of the photo after it writes,
		// both or neither (issue 32), checked raw after every step.
		entity.SparseIndex("GSI3", "RANK#{rank}", "T#{updatedAt:013d}"),
		entity.Timestamps("createdAt", "updatedAt"), entity.Version("version"), entity.TTL("expiresAt", 0),
		entity.Required("ownerId"), entity.Bounds("likes", 0, likesMax), entity.Bounds("labels", 1, labelsMax))
	require.NoError(t, err)
	tags, err := entity.New[mTag](reg, "tag",
		entity.Key("ALBUM#{albumId}", "PHOTO#{photoId}#TAG#{tag}"),
		entity.TTL("expiresAt", 0), entity.Bounds("count", 0, countMax))
	require.NoError(t, err)
	col, err := entity.NewCollection(reg, "album", "", photos, tags)
	require.NoError(t, err)
	return &modelEnv{t: tbl, db: db, clock: clock, reg: reg, photos: photos, tags: tags, col: col, items: map[mKey]mItem{}, stats: stats}
}

func (m *modelEnv) now() time.Time { return m.clock.Now() }

func (m *modelEnv) expired(it mItem) bool { return table.Expired(it.ttl(), m.now()) }

// livePhoto is the photo at k that reads return, if any.
func (m *modelEnv) livePhoto(k mKey) (mPhoto, bool) {
	it, ok := m.items[k]
	if !ok || it.photo == nil || m.expired(it) {
		return mPhoto{}, false
	}
	return *it.photo, true
}

func (m *modelEnv) liveTag(k mKey) (mTag, bool) {
	it, ok := m.items[k]
	if !ok || it.tag == nil || m.expired(it) {
		return mTag{}, false
	}
	return *it.tag, true
}

// outcome names an error by the sentinel that matters most.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, entity.ErrValidation):
		return "validation"
	case errors.Is(err, entity.ErrIndexKey):
		return "index key"
	case errors.Is(err, entity.ErrVersionConflict):
		return "version conflict"
	case errors.Is(err, table.ErrAlreadyExists):
		return "already exists"
	case errors.Is(err, table.ErrNotFound):
		return "not found"
	case errors.Is(err, table.ErrConditionFailed):
		return "condition failed"
	case errors.Is(err, table.ErrInvalidInput):
		return "invalid input"
	}
	return "unexpected: " + err.Error()
}

// Generators.

func drawTTL(t *rapid.T, now time.Time, label string) int64 {
	switch rapid.IntRange(0, 3).Draw(t, label+" ttl") {
	case 0:
		return 0
	case 1:
		return now.Unix() - int64(rapid.IntRange(0, 100).Draw(t, label+" past"))
	case 2:
		return now.Unix() + int64(rapid.IntRange(1, 100).Draw(t, label+" soon"))
	}
	return now.Unix() + int64(rapid.IntRange(1000, 5000).Draw(t, label+" later"))
}

func drawPhotoKey(t *rapid.T) (string, string) {
	return rapid.SampledFrom(mAlbums).Draw(t, "album"), rapid.SampledFrom(mPhotos).Draw(t, "photo")
}

func drawPhoto(t *rapid.T, now time.Time) mPhoto {
	a, id := drawPhotoKey(t)
	return mPhoto{Album: a, ID: id,
		Owner:     rarely(t, "owner", rapid.SampledFrom(mOwners), ""),
		Rank:      rapid.SampledFrom(mRanks).Draw(t, "rank"),
		Likes:     rarely(t, "likes", rapid.IntRange(0, likesMax), rapid.SampledFrom([]int{-1, likesMax + 1}).Draw(t, "bad likes")),
		Note:      rapid.SampledFrom([]string{"", "n"}).Draw(t, "note"),
		Labels:    rarely(t, "labels", rapid.SampledFrom([][]string{nil, {"l1"}, {"l1", "l2"}}), []string{"l1", "l2", "l3", "l4"}),
		ExpiresAt: drawTTL(t, now, "photo"),
	}
}

func drawTag(t *rapid.T, now time.Time) mTag {
	a, id := drawPhotoKey(t)
	return mTag{Album: a, PhotoID: id, Name: rapid.SampledFrom(mTags).Draw(t, "tag"),
		Count: rarely(t, "count", rapid.IntRange(0, countMax), countMax+1), ExpiresAt: drawTTL(t, now, "tag")}
}

// rarely draws from gen, and one time in eight is bad instead: most
// writes are valid, so that sequences reach deep states.
func rarely[V any](t *rapid.T, label string, gen *rapid.Generator[V], bad V) V {
	if rapid.IntRange(0, 7).Draw(t, label+" bad") == 0 {
		return bad
	}
	return gen.Draw(t, label)
}

// photoValid is the rules of a photo: an owner, likes within bounds.
func photoValid(p mPhoto) bool {
	return p.Owner != "" && p.Likes >= 0 && p.Likes <= likesMax && len(p.Labels) <= labelsMax
}

func tagValid(g mTag) bool { return g.Count >= 0 && g.Count <= countMax }

// drawVersion is a version for an optimistic write of k: the stored one,
// one off it, or 0 (not created yet).
func (m *modelEnv) drawVersion(t *rapid.T, k mKey) int {
	cur := 0
	if it, ok := m.items[k]; ok && it.photo != nil {
		cur = it.photo.Version
	}
	return rapid.SampledFrom([]int{0, cur, cur, cur + 1, max(cur-1, 1)}).Draw(t, "version")
}

// Checks.

func (m *modelEnv) expect(t *rapid.T, want string, err error, what string) {
	t.Helper()
	if want != "ok" {
		m.stats["refused: "+want]++
	}
	require.Equal(t, want, outcome(err), "%s: %v", what, err)
}

// listing walks every page of list and checks that a page ends with a
// cursor only when an item follows.
func listing[T any](t *rapid.T, list func(cursor string) (table.Page[T], error)) []T {
	t.Helper()
	var all []T
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100)
		page, err := list(cursor)
		require.NoError(t, err)
		all = append(all, page.Items...)
		if page.Next == "" {
			if pages > 0 {
				require.NotEmpty(t, page.Items, "a cursor led to an empty page")
			}
			return all
		}
		require.NotEmpty(t, page.Items, "a page with a next cursor is empty")
		cursor = page.Next
	}
}

// modelPhotos are the live photos for which keep holds, ordered by the
// index sort key gives (ties by the whole table key), reversed when desc.
func (m *modelEnv) modelPhotos(keep func(mPhoto) bool, sortKey func(mPhoto) string, desc bool) []mPhoto {
	type row struct {
		k mKey
		p mPhoto
	}
	var rows []row
	for k, it := range m.items {
		if it.photo != nil && !m.expired(it) && keep(*it.photo) {
			rows = append(rows, row{k, *it.photo})
		}
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(sortKey(a.p), sortKey(b.p)), cmp.Compare(a.k.pk, b.k.pk), cmp.Compare(a.k.sk, b.k.sk))
	})
	if desc {
		slices.Reverse(rows)
	}
	var out []mPhoto
	for _, r := range rows {
		out = append(out, r.p)
	}
	return out
}

// partition is the live items of an album in sort key order: photos and
// tags (a collection), or one of them.
func (m *modelEnv) partition(album string, photos, tags bool, keep func(mKey) bool, desc bool) []any {
	var ks []mKey
	for k, it := range m.items {
		if k.pk == "ALBUM#"+album && !m.expired(it) && (it.photo != nil && photos || it.tag != nil && tags) && (keep == nil || keep(k)) {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b mKey) int { return cmp.Compare(a.sk, b.sk) })
	if desc {
		slices.Reverse(ks)
	}
	var out []any
	for _, k := range ks {
		if it := m.items[k]; it.photo != nil {
			out = append(out, *it.photo)
		} else {
			out = append(out, *it.tag)
		}
	}
	return out
}

func gsi1sk(p mPhoto) string { return fmt.Sprintf("T#%013d", p.Updated) }
func gsi2sk(p mPhoto) string { return "R#" + p.Rank }

// checkAll reads every partition and index as a whole and compares them
// with the model: each entity lists exactly its own live items, in order.
func (m *modelEnv) checkAll(t *rapid.T) {
	t.Helper()
	m.checkStored(t)
	for _, a := range mAlbums {
		var got []any
		for v, err := range m.photos.Items(ctx, mPhoto{Album: a}, entity.Consistent()) {
			require.NoError(t, err)
			got = append(got, v)
		}
		require.Equal(t, m.partition(a, true, false, nil, false), got, "photos of %s", a)
		got = nil
		for v, err := range m.tags.Items(ctx, mTag{Album: a}, entity.Consistent()) {
			require.NoError(t, err)
			got = append(got, v)
		}
		require.Equal(t, m.partition(a, false, true, nil, false), got, "tags of %s", a)
	}
	items := func(key mPhoto, index string) func() []mPhoto {
		return func() []mPhoto {
			var got []mPhoto
			for v, err := range m.photos.Items(ctx, key, entity.ByIndex(index)) {
				require.NoError(t, err)
				got = append(got, v)
			}
			return got
		}
	}
	for _, o := range mOwners {
		m.indexRead(t, m.modelPhotos(func(p mPhoto) bool { return p.Owner == o }, gsi1sk, false), items(mPhoto{Owner: o}, "GSI1"), "GSI1 of "+o)
	}
	m.indexRead(t, m.modelPhotos(func(p mPhoto) bool { return p.Rank != "" }, gsi2sk, false), items(mPhoto{}, "GSI2"), "GSI2")
}

// indexRead checks a read of an index. A global secondary index is
// eventually consistent (no strongly consistent read): on DynamoDB Local
// the read is tried again for a while before it must agree; the fake
// updates its indexes with the write.
func (m *modelEnv) indexRead(t *rapid.T, want []mPhoto, read func() []mPhoto, what string) {
	t.Helper()
	got := read()
	for try := 0; m.db == nil && try < 100 && !assert.ObjectsAreEqual(want, got); try++ {
		time.Sleep(20 * time.Millisecond)
		got = read()
	}
	require.Equal(t, want, got, what)
}

// The operations.

func (m *modelEnv) actions() map[string]func(*rapid.T) {
	actions := map[string]func(*rapid.T){
		"":               m.checkAll,
		"Clock":          m.advance,
		"Create":         m.create,
		"Put":            m.put,
		"Patch":          func(t *rapid.T) { m.update(t, true) },
		"Update":         func(t *rapid.T) { m.update(t, false) },
		"Upsert":         m.upsert,
		"Delete":         m.delete,
		"Get":            m.get,
		"List":           m.list,
		"ListIndex":      m.listIndex,
		"Collection":     m.collection,
		"BatchPut":       m.batchPut,
		"BatchGet":       m.batchGet,
		"Transact":       m.transact,
		"TxReuse":        m.txReuse,
		"BatchDelete":    m.batchDelete,
		"Decode":         m.decode,
		"TxPutAddTo":     m.txPutAddTo,
		"FromChange":     m.fromChange,
		"TagCreate":      m.tagCreate,
		"TagPut":         m.tagPut,
		"TagAdd":         m.tagAdd,
		"TagDelete":      m.tagDelete,
		"TagGet":         m.tagGet,
		"TagListByPhoto": m.tagList,
	}
	for name, a := range actions {
		if name != "" {
			actions[name] = func(t *rapid.T) { m.stats[name]++; a(t) }
		}
	}
	return actions
}

// advance moves the clock, a second or up to two hours, without the
// fake's TTL sweep.
func (m *modelEnv) advance(t *rapid.T) {
	d := time.Duration(rapid.SampledFrom([]int{1, 1, 30, 90, 1200, 7200}).Draw(t, "seconds")) * time.Second
	m.clock.mu.Lock()
	m.clock.at = m.clock.at.Add(d)
	m.clock.mu.Unlock()
}

// stored is v as a create or replace writes it: Created kept when given,
// Updated now.
func (m *modelEnv) stamp(p *mPhoto) {
	now := m.now()
	if p.Created == 0 {
		p.Created = now.UnixMilli()
	}
	p.Updated = now.UnixMilli()
}

func (m *modelEnv) create(t *rapid.T) {
	v := m.drawPhoto(t)
	// The caller's condition meets no item over a missing or expired
	// photo: one that holds there, or one that fails there (it held over
	// an expired photo with few likes, and failed over one with many).
	cond := rapid.IntRange(0, 2).Draw(t, "if")
	var opts []func(*entity.WriteOptions)
	switch cond {
	case 1:
		opts = append(opts, entity.If(expression.AttributeNotExists(expression.Name("likes")).Or(expression.Name("likes").LessThan(expression.Value(3)))))
	case 2:
		opts = append(opts, entity.If(expression.Name("likes").LessThan(expression.Value(3))))
	}
	got, err := m.photos.Create(ctx, v, opts...)
	k := photoKey(v.Album, v.ID)
	_, live := m.livePhoto(k)
	switch {
	case !photoValid(v):
		m.expect(t, "validation", err, "Create of an invalid photo")
		return
	case live:
		m.expect(t, "already exists", err, "Create over a live photo")
		return
	case cond == 2:
		m.expect(t, "condition failed", err, "Create with an If that fails on no item")
		return
	}
	require.NoError(t, err, "Create")
	v.Version, v.Created = 1, 0
	m.stamp(&v)
	require.Equal(t, v, got, "Create returns the item as written")
	m.items[k] = mItem{photo: &v}
}

func (m *modelEnv) drawPhoto(t *rapid.T) mPhoto { return drawPhoto(t, m.now()) }

func (m *modelEnv) put(t *rapid.T) {
	v := m.drawPhoto(t)
	k := photoKey(v.Album, v.ID)
	v.Version = m.drawVersion(t, k)
	cur, live := m.livePhoto(k)
	if rapid.Bool().Draw(t, "keep created") && live {
		v.Created = cur.Created
	}
	got, err := m.photos.Put(ctx, v)
	switch want := m.putOutcome(v, k); {
	case !photoValid(v):
		m.expect(t, "validation", err, "Put of an invalid photo")
		return
	case want != "ok":
		m.expect(t, want, err, fmt.Sprintf("Put of version %d over %v", v.Version, m.items[k].photo))
		return
	}
	require.NoError(t, err, "Put")
	v.Version++
	m.stamp(&v)
	require.Equal(t, v, got, "Put returns the item as written")
	m.items[k] = mItem{photo: &v}
}

// putOutcome is what a Put of v (valid) answers: version 0 over a live
// photo or a stale version is a conflict, a version over none not found.
func (m *modelEnv) putOutcome(v mPhoto, k mKey) string {
	cur, live := m.livePhoto(k)
	switch {
	case v.Version == 0 && live:
		return "version conflict"
	case v.Version > 0 && !live:
		return "not found"
	case v.Version > 0 && cur.Version != v.Version:
		return "version conflict"
	}
	return "ok"
}

// deleteOutcome is what a checked Delete answers, at version ver (-1:
// any).
func (m *modelEnv) deleteOutcome(k mKey, ver int) string {
	cur, live := m.livePhoto(k)
	switch {
	case !live:
		return "not found"
	case ver >= 0 && cur.Version != ver:
		return "version conflict"
	}
	return "ok"
}

// tagAddOutcome is what a Patch adding n to a tag's count answers.
func (m *modelEnv) tagAddOutcome(k mKey, n int) string {
	cur, live := m.liveTag(k)
	switch {
	case !live:
		return "not found"
	case cur.Count+n < 0 || cur.Count+n > countMax:
		return "validation"
	}
	return "ok"
}

// verb is one action of an update, applied to the model by apply (fresh:
// the item has no such attribute yet).
type verb struct {
	name  string
	build func(u *entity.Update[mPhoto]) *entity.Update[mPhoto]
	apply func(p *mPhoto, fresh bool)
	// guarded: a rule on the attribute is checked in the condition (an
	// Add to likes, an Append to labels), on the value after it.
	guarded bool
	// input: refused before sending (ErrIndexKey, an ErrInvalidInput); validation: a rule
	// refuses it before sending (ErrValidation).
	input, validation bool
	attr              string
	setsOwner         bool
}

func drawVerb(t *rapid.T) verb {
	switch rapid.IntRange(0, 10).Draw(t, "verb") {
	case 0, 1:
		n := rapid.IntRange(-3, 3).Draw(t, "add")
		return verb{name: fmt.Sprintf("Add(likes, %d)", n), attr: "likes", guarded: true,
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Add("likes", n) },
			apply: func(p *mPhoto, _ bool) { p.Likes += n }}
	case 2:
		r := rapid.SampledFrom(mRanks).Draw(t, "rank")
		return verb{name: "Set(rank, " + strconv.Quote(r) + ")", attr: "rank",
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Set("rank", r) },
			apply: func(p *mPhoto, _ bool) { p.Rank = r }}
	case 3:
		o := rapid.SampledFrom(append([]string{""}, mOwners...)).Draw(t, "owner")
		return verb{name: "Set(ownerId, " + o + ")", attr: "ownerId", setsOwner: o != "", validation: o == "",
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Set("ownerId", o) },
			apply: func(p *mPhoto, _ bool) { p.Owner = o }}
	case 4:
		n := rapid.SampledFrom([]string{"n", "m"}).Draw(t, "note")
		return verb{name: "Set(note, " + n + ")", attr: "note",
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Set("note", n) },
			apply: func(p *mPhoto, _ bool) { p.Note = n }}
	case 5:
		return verb{name: "Remove(note)", attr: "note",
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Remove("note") },
			apply: func(p *mPhoto, _ bool) { p.Note = "" }}
	case 6:
		// Append to a list under Bounds of its length: the rule is in the
		// condition, on the list DynamoDB holds.
		vals := rapid.SampledFrom([][]string{{"a"}, {"a", "b"}}).Draw(t, "append")
		return verb{name: fmt.Sprintf("Append(labels, %q)", vals), attr: "labels", guarded: true,
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Append("labels", anys(vals)...) },
			apply: func(p *mPhoto, _ bool) { p.Labels = append(slices.Clone(p.Labels), vals...) }}
	case 7:
		// SetIfNotExists of an attribute left out when empty: set only
		// when the item has none.
		n := rapid.SampledFrom([]string{"n", "m"}).Draw(t, "note if none")
		return verb{name: "SetIfNotExists(note, " + n + ")", attr: "note",
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.SetIfNotExists("note", n) },
			apply: func(p *mPhoto, _ bool) {
				if p.Note == "" {
					p.Note = n
				}
			}}
	case 8:
		// SetIfNotExists of an attribute every item has (likes, stored
		// even when 0): a new item's value only; its rules checked as
		// Set's.
		n := rarely(t, "likes if none", rapid.IntRange(0, likesMax), likesMax+1)
		return verb{name: fmt.Sprintf("SetIfNotExists(likes, %d)", n), attr: "likes", validation: n > likesMax,
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.SetIfNotExists("likes", n) },
			apply: func(p *mPhoto, fresh bool) {
				if fresh {
					p.Likes = n
				}
			}}
	case 9:
		// SetIfNotExists of an attribute an index key is built from: the
		// update cannot know the key after it, and is refused.
		r := rapid.SampledFrom(mRanks[1:]).Draw(t, "rank if none")
		return verb{name: "SetIfNotExists(rank, " + r + ")", attr: "rank", input: true,
			build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.SetIfNotExists("rank", r) },
			apply: func(p *mPhoto, _ bool) {}}
	}
	return verb{name: "Remove(rank)", attr: "rank",
		build: func(u *entity.Update[mPhoto]) *entity.Update[mPhoto] { return u.Remove("rank") },
		apply: func(p *mPhoto, _ bool) { p.Rank = "" }}
}

// photoUpdate is a drawn Patch or Update of one or two verbs, with
// IfVersion or not.
type photoUpdate struct {
	k     mKey
	u     *entity.Update[mPhoto]
	what  string
	patch bool
	ver   *int
	verbs []verb
}

func (m *modelEnv) drawUpdate(t *rapid.T, patch bool) photoUpdate {
	a, id := drawPhotoKey(t)
	pu := photoUpdate{k: photoKey(a, id), patch: patch, verbs: []verb{drawVerb(t)}, what: "Update"}
	if rapid.Bool().Draw(t, "second verb") {
		if v := drawVerb(t); v.attr != pu.verbs[0].attr {
			pu.verbs = append(pu.verbs, v)
		}
	}
	if rapid.Bool().Draw(t, "if version") {
		n := m.drawVersion(t, pu.k)
		pu.ver = &n
	}
	pu.u = m.photos.Update(mPhoto{Album: a, ID: id})
	if patch {
		pu.u, pu.what = m.photos.Patch(mPhoto{Album: a, ID: id}), "Patch"
	}
	for _, v := range pu.verbs {
		pu.u = v.build(pu.u)
		pu.what += "." + v.name
	}
	if pu.ver != nil {
		pu.u = pu.u.IfVersion(*pu.ver)
		pu.what += fmt.Sprintf(".IfVersion(%d)", *pu.ver)
	}
	return pu
}

// expect is what the update should answer, and the photo after it. An
// update that may create starts afresh over an expired photo (Run clears
// it); as a transaction's action it cannot, and is refused (inTx).
func (pu photoUpdate) expect(m *modelEnv, inTx bool) (string, mItem) {
	setsOwner, validation, input, guarded := false, false, false, false
	setsRank := slices.ContainsFunc(pu.verbs, func(v verb) bool { return v.attr == "rank" })
	for _, v := range pu.verbs {
		setsOwner = setsOwner || v.setsOwner
		validation = validation || v.validation
		input = input || v.input
		guarded = guarded || v.guarded
	}
	cur, live := m.livePhoto(pu.k)
	_, stored := m.items[pu.k]
	creates := !pu.patch && setsOwner
	next := cur
	if !live {
		next = mPhoto{Album: pu.k.pk[len("ALBUM#"):], ID: pu.k.sk[len("PHOTO#"):]}
	}
	noLikes := !live || m.items[pu.k].noLikes
	for _, v := range pu.verbs {
		v.apply(&next, noLikes && v.attr == "likes")
		noLikes = noLikes && v.attr != "likes"
	}
	out := func(want string) (string, mItem) { return want, mItem{photo: &next, noLikes: noLikes} }
	switch {
	case validation:
		return out("validation")
	case input:
		return out("index key") // an index key it cannot build: ErrIndexKey, before sending
	case !live && !pu.patch && pu.ver == nil && !creates:
		return out("validation") // Required owner unset on a missing photo
	case !live && (pu.patch || pu.ver != nil):
		return out("not found")
	case pu.ver != nil && cur.Version != *pu.ver:
		return out("version conflict")
	case inTx && !setsRank && !(live && cur.Rank != ""):
		// GSI3's sort key follows updatedAt, its partition the rank the
		// update does not set: an action expects a photo in the index
		// (Run resends when the photo belies it; an action cannot).
		return out("index key")
	case guarded && !photoValid(next):
		return out("validation") // over an expired photo: as over none
	case inTx && !live && stored:
		return out("condition failed") // over an expired photo, an action is refused
	}
	now := m.now().UnixMilli()
	if !live {
		next.Created, next.Version = now, 0
	}
	next.Updated = now
	next.Version++
	return out("ok")
}

// update is a Patch or an Update, run.
func (m *modelEnv) update(t *rapid.T, patch bool) {
	pu := m.drawUpdate(t, patch)
	got, err := pu.u.Run(ctx)
	want, next := pu.expect(m, false)
	if want != "ok" {
		m.expect(t, want, err, pu.what)
		return
	}
	require.NoError(t, err, pu.what)
	require.Equal(t, *next.photo, got, pu.what+" returns the item after it")
	m.items[pu.k] = next
}

func (m *modelEnv) upsert(t *rapid.T) {
	v := m.drawPhoto(t)
	v.Version = rapid.IntRange(0, 3).Draw(t, "ignored version")
	k := photoKey(v.Album, v.ID)
	got, err := m.photos.Upsert(ctx, v)
	if !photoValid(v) {
		m.expect(t, "validation", err, "Upsert of an invalid photo")
		return
	}
	require.NoError(t, err, "Upsert")
	cur, live := m.livePhoto(k)
	next := v
	next.Updated = m.now().UnixMilli()
	if live {
		next.Created, next.Version = cur.Created, cur.Version+1
		if next.Note == "" {
			next.Note = cur.Note // left out of v (omitempty): stays
		}
		if next.Labels == nil {
			next.Labels = cur.Labels
		}
	} else {
		next.Created, next.Version = m.now().UnixMilli(), 1
	}
	require.Equal(t, next, got, "Upsert returns the item after it")
	m.items[k] = mItem{photo: &next}
}

func (m *modelEnv) delete(t *rapid.T) {
	a, id := drawPhotoKey(t)
	k := photoKey(a, id)
	var opts []func(*entity.WriteOptions)
	ver := -1
	if rapid.Bool().Draw(t, "if version") {
		ver = m.drawVersion(t, k)
		opts = append(opts, entity.IfVersion(ver))
	} else if rapid.Bool().Draw(t, "unchecked") {
		// Unchecked: no error either way, and deleted tells whether a
		// live photo was there (an expired one not yet swept is none).
		deleted, err := m.photos.Delete(ctx, mPhoto{Album: a, ID: id}, entity.Unchecked())
		require.NoError(t, err, "unchecked Delete")
		_, live := m.livePhoto(k)
		require.Equal(t, live, deleted, "unchecked Delete reports whether a live photo was there")
		delete(m.items, k)
		return
	}
	deleted, err := m.photos.Delete(ctx, mPhoto{Album: a, ID: id}, opts...)
	if want := m.deleteOutcome(k, ver); want != "ok" {
		m.expect(t, want, err, fmt.Sprintf("Delete at version %d of %v", ver, m.items[k].photo))
		return
	}
	require.NoError(t, err, "Delete")
	require.True(t, deleted, "a checked Delete that succeeds removed a photo")
	delete(m.items, k)
}

func (m *modelEnv) get(t *rapid.T) {
	a, id := drawPhotoKey(t)
	got, err := m.photos.Get(ctx, mPhoto{Album: a, ID: id}, entity.Consistent())
	want, live := m.livePhoto(photoKey(a, id))
	if !live {
		m.expect(t, "not found", err, "Get of no live photo")
		return
	}
	require.NoError(t, err, "Get")
	require.Equal(t, want, got, "Get")
}

// drawList is a page size and a direction.
func drawList(t *rapid.T) (limit int, desc bool, opts []func(*entity.ListOptions)) {
	limit = rapid.IntRange(0, 3).Draw(t, "limit")
	desc = rapid.Bool().Draw(t, "descending")
	opts = []func(*entity.ListOptions){entity.Limit(limit)}
	if desc {
		opts = append(opts, entity.Descending())
	}
	return limit, desc, opts
}

// list lists the photos of an album, all or from a photo on.
func (m *modelEnv) list(t *rapid.T) {
	a := rapid.SampledFrom(mAlbums).Draw(t, "album")
	_, desc, opts := drawList(t)
	opts = append(opts, entity.Consistent())
	var keep func(mKey) bool
	if rapid.Bool().Draw(t, "from") {
		from := rapid.SampledFrom(mPhotos).Draw(t, "from photo")
		opts = append(opts, entity.SortGreaterOrEqual(from))
		keep = func(k mKey) bool { return k.sk >= "PHOTO#"+from }
	}
	got := listing(t, func(c string) (table.Page[mPhoto], error) { return m.photos.List(ctx, mPhoto{Album: a}, c, opts...) })
	require.Equal(t, m.partition(a, true, false, keep, desc), anys(got), "List of photos")
}

func anys[T any](vs []T) []any {
	var out []any
	for _, v := range vs {
		out = append(out, v)
	}
	return out
}

// listIndex lists an index: GSI1 per owner by updatedAt, or GSI2 by rank,
// whole or up to (down from) a rank.
func (m *modelEnv) listIndex(t *rapid.T) {
	_, desc, opts := drawList(t)
	if rapid.Bool().Draw(t, "GSI1") {
		o := rapid.SampledFrom(mOwners).Draw(t, "owner")
		m.indexRead(t, m.modelPhotos(func(p mPhoto) bool { return p.Owner == o }, gsi1sk, desc), func() []mPhoto {
			return listing(t, func(c string) (table.Page[mPhoto], error) {
				return m.photos.List(ctx, mPhoto{Owner: o}, c, append(opts, entity.ByIndex("GSI1"))...)
			})
		}, "GSI1 of "+o)
		return
	}
	keep, what := func(mPhoto) bool { return true }, "GSI2"
	switch rapid.IntRange(0, 2).Draw(t, "sort") {
	case 1:
		r := rapid.SampledFrom(mRanks[1:]).Draw(t, "up to rank")
		opts = append(opts, entity.SortLessOrEqual(r))
		keep, what = func(p mPhoto) bool { return p.Rank <= r }, "GSI2 SortLessOrEqual "+r
	case 2:
		r := rapid.SampledFrom(mRanks[1:]).Draw(t, "after rank")
		opts = append(opts, entity.SortGreater(r))
		keep, what = func(p mPhoto) bool { return p.Rank > r }, "GSI2 SortGreater "+r
	}
	m.indexRead(t, m.modelPhotos(func(p mPhoto) bool { return p.Rank != "" && keep(p) }, gsi2sk, desc), func() []mPhoto {
		return listing(t, func(c string) (table.Page[mPhoto], error) {
			return m.photos.List(ctx, mPhoto{}, c, append(opts, entity.ByIndex("GSI2"))...)
		})
	}, what)
}

func (m *modelEnv) collection(t *rapid.T) {
	a := rapid.SampledFrom(mAlbums).Draw(t, "album")
	_, desc, opts := drawList(t)
	opts = append(opts, entity.Consistent())
	var partition any = mPhoto{Album: a}
	if rapid.Bool().Draw(t, "by a tag") {
		partition = mTag{Album: a}
	}
	got := listing(t, func(c string) (table.Page[any], error) { return m.col.List(ctx, partition, c, opts...) })
	require.Equal(t, m.partition(a, true, true, nil, desc), got, "the collection")
}

// distinctPhotos draws 1 to 3 photos of distinct keys.
func (m *modelEnv) distinctPhotos(t *rapid.T) []mPhoto {
	n := rapid.IntRange(1, 3).Draw(t, "batch")
	var vs []mPhoto
	seen := map[mKey]bool{}
	for range n {
		v := m.drawPhoto(t)
		if k := photoKey(v.Album, v.ID); !seen[k] {
			seen[k] = true
			vs = append(vs, v)
		}
	}
	return vs
}

// batchPut writes unconditionally, incrementing the version v holds.
func (m *modelEnv) batchPut(t *rapid.T) {
	vs := m.distinctPhotos(t)
	for i := range vs {
		vs[i].Version = rapid.IntRange(0, 3).Draw(t, "version")
	}
	got, err := m.photos.BatchPut(ctx, vs)
	if !all(vs, photoValid) {
		m.expect(t, "validation", err, "BatchPut with an invalid photo")
		return
	}
	require.NoError(t, err, "BatchPut")
	for i := range vs {
		vs[i].Version++
		m.stamp(&vs[i])
		m.items[photoKey(vs[i].Album, vs[i].ID)] = mItem{photo: &vs[i]}
	}
	require.Equal(t, vs, got, "BatchPut returns the items as written")
}

func all[T any](vs []T, ok func(T) bool) bool {
	for _, v := range vs {
		if !ok(v) {
			return false
		}
	}
	return true
}

func (m *modelEnv) batchGet(t *rapid.T) {
	keys := m.distinctPhotos(t)
	got, err := m.photos.BatchGet(ctx, keys, entity.Consistent())
	require.NoError(t, err)
	var want []mPhoto
	for _, k := range keys {
		if p, ok := m.livePhoto(photoKey(k.Album, k.ID)); ok {
			want = append(want, p)
		}
	}
	require.Equal(t, len(want), len(got), "BatchGet")
	if len(want) > 0 {
		require.Equal(t, want, got, "BatchGet")
	}
}

// txAction is one drawn action of a transaction: what it should answer,
// and what it leaves at its key when the transaction happens.
type txAction struct {
	a    entity.Action
	kind string
	k    mKey
	// pre: refused before anything is sent ("validation", "invalid
	// input"); built: found when the action was built (Transact checks
	// every action's before encoding any).
	pre   string
	built bool
	want  string // the action's own refusal, "ok" for none
	after *mItem // nil: the key's item is deleted
	keep  bool   // the action writes nothing (TxCheck)
}

func (m *modelEnv) drawTxAction(t *rapid.T) txAction {
	x := m.drawTxMaker(t)()
	return x
}

// drawTxMaker draws a transaction action, built once, and returns what
// it means each time it runs: its expectation in the model as it is when
// called (the same action, run again later, means what a fresh one
// would then).
func (m *modelEnv) drawTxMaker(t *rapid.T) func() txAction {
	switch rapid.IntRange(0, 8).Draw(t, "tx action") {
	case 0:
		v := m.drawPhoto(t)
		k := photoKey(v.Album, v.ID)
		a := m.photos.TxCreate(v)
		return func() txAction {
			x := txAction{a: a, kind: "TxCreate", k: k, want: "ok"}
			switch _, live := m.livePhoto(k); {
			case !photoValid(v):
				x.pre = "validation"
			case live:
				x.want = "already exists"
			}
			after := v
			after.Version, after.Created = 1, 0
			m.stamp(&after)
			x.after = &mItem{photo: &after}
			return x
		}
	case 1:
		v := m.drawPhoto(t)
		k := photoKey(v.Album, v.ID)
		v.Version = m.drawVersion(t, k)
		a := m.photos.TxPut(v)
		return func() txAction {
			x := txAction{a: a, kind: "TxPut", k: k, want: m.putOutcome(v, k)}
			if !photoValid(v) {
				x.pre, x.want = "validation", "ok"
			}
			after := v
			after.Version++
			m.stamp(&after)
			x.after = &mItem{photo: &after}
			return x
		}
	case 2:
		a, id := drawPhotoKey(t)
		k := photoKey(a, id)
		var opts []func(*entity.WriteOptions)
		ver := -1
		if rapid.Bool().Draw(t, "if version") {
			ver = m.drawVersion(t, k)
			opts = append(opts, entity.IfVersion(ver))
		}
		act := m.photos.TxDelete(mPhoto{Album: a, ID: id}, opts...)
		return func() txAction {
			return txAction{a: act, kind: "TxDelete", k: k, want: m.deleteOutcome(k, ver)}
		}
	case 3:
		// A check of a photo's attributes: an expired photo is no photo,
		// which fails it as a missing one does.
		a, id := drawPhotoKey(t)
		k := photoKey(a, id)
		c, holds := expression.Name("likes").LessThan(expression.Value(3)), func(p mPhoto, noLikes bool) bool { return p.Likes < 3 && !noLikes }
		if rapid.Bool().Draw(t, "check owner") {
			c, holds = expression.Name("ownerId").Equal(expression.Value("u1")), func(p mPhoto, _ bool) bool { return p.Owner == "u1" }
		}
		act := m.photos.TxCheck(mPhoto{Album: a, ID: id}, c)
		return func() txAction {
			x := txAction{a: act, kind: "TxCheck", k: k, want: "condition failed", keep: true}
			// likes < 3 fails on a photo without likes (an Update created it
			// with the attributes it set only).
			if p, live := m.livePhoto(k); live && holds(p, m.items[k].noLikes) {
				x.want = "ok"
			}
			return x
		}
	case 4, 5:
		pu := m.drawUpdate(t, rapid.Bool().Draw(t, "patch"))
		a := pu.u.Action()
		return func() txAction {
			x := txAction{a: a, kind: "Tx" + strings.SplitN(pu.what, ".", 2)[0], k: pu.k, want: "ok"}
			want, next := pu.expect(m, true)
			switch {
			case slices.ContainsFunc(pu.verbs, func(v verb) bool { return v.validation }):
				x.pre, x.built = "validation", true
			case want == "index key" && slices.ContainsFunc(pu.verbs, func(v verb) bool { return v.input }):
				x.pre = want
			default:
				x.want = want
			}
			x.after = &next
			return x
		}
	case 6:
		v := drawTag(t, m.now())
		k := tagKey(v.Album, v.PhotoID, v.Name)
		a := m.tags.TxCreate(v)
		return func() txAction {
			x := txAction{a: a, kind: "TagTxCreate", k: k, want: "ok", after: &mItem{tag: &v}}
			switch _, live := m.liveTag(k); {
			case !tagValid(v):
				x.pre = "validation"
			case live:
				x.want = "already exists"
			}
			return x
		}
	case 7:
		key, k := m.drawTagKey(t)
		a := m.tags.TxDelete(key)
		return func() txAction {
			x := txAction{a: a, kind: "TagTxDelete", k: k, want: "ok"}
			if _, live := m.liveTag(k); !live {
				x.want = "not found"
			}
			return x
		}
	}
	key, k := m.drawTagKey(t)
	n := rapid.IntRange(-2, 2).Draw(t, "add")
	a := m.tags.Patch(key).Add("count", n).Action()
	return func() txAction {
		x := txAction{a: a, kind: "TagTxPatch", k: k}
		cur, _ := m.liveTag(k)
		cur.Count += n
		x.want, x.after = m.tagAddOutcome(k, n), &mItem{tag: &cur}
		return x
	}
}

// transact runs one to three actions on distinct items, photos and tags
// of shared partitions: all happen or none, and each refusal is told by
// its action as the same call outside a transaction would answer it.
func (m *modelEnv) transact(t *rapid.T) {
	var xs []txAction
	seen := map[mKey]bool{}
	for range rapid.IntRange(1, 3).Draw(t, "actions") {
		if x := m.drawTxAction(t); !seen[x.k] {
			seen[x.k] = true
			xs = append(xs, x)
		}
	}
	m.runTx(t, xs, "Transact")
}

// runTx runs xs in one transaction and checks each action's answer
// against its expectation, then applies what they wrote to the model.
func (m *modelEnv) runTx(t *rapid.T, xs []txAction, what string) {
	actions := make([]entity.Action, len(xs))
	for i, x := range xs {
		actions[i] = x.a
		what += " " + x.kind
		m.stats["Transact: "+x.kind]++
	}
	m.txAnswer(t, xs, entity.Transact(ctx, actions...), what)
	m.txApply(xs)
}

// txAnswer checks a transaction's error against its actions'
// expectations; it reports whether the transaction wrote.
func (m *modelEnv) txAnswer(t *rapid.T, xs []txAction, err error, what string) bool {
	for _, built := range []bool{true, false} {
		for _, x := range xs {
			if x.pre != "" && x.built == built {
				m.expect(t, x.pre, err, what+": refused before sending by "+x.kind)
				return false
			}
		}
	}
	if slices.ContainsFunc(xs, func(x txAction) bool { return x.want != "ok" }) {
		var txe *entity.TxError
		require.ErrorAs(t, err, &txe, what)
		for _, x := range xs {
			m.expect(t, x.want, txe.Err(x.a), what+": "+x.kind)
		}
		return false
	}
	require.NoError(t, err, what)
	return true
}

// txApply applies to the model what xs wrote, when they all could.
func (m *modelEnv) txApply(xs []txAction) {
	for _, x := range xs {
		if x.pre != "" || x.want != "ok" {
			return
		}
	}
	for _, x := range xs {
		switch {
		case x.keep:
		case x.after == nil:
			delete(m.items, x.k)
		default:
			m.items[x.k] = *x.after
		}
	}
}

// txReuse runs one transaction action, built once, in two transactions
// (the clock moved forward or back between them), and then, sometimes, in two at once
// from two goroutines: each run means what a fresh action built then
// would (a reused TxCheck carried its first run's time, fixed in
// 218769f, which a fresh action per step could not find).
func (m *modelEnv) txReuse(t *rapid.T) {
	mk := m.drawTxMaker(t)
	x := mk()
	m.runTx(t, []txAction{x}, "TxReuse first run:")
	if rapid.Bool().Draw(t, "clock back") {
		// Back as well as forward: a run that kept an earlier run's time
		// shows only when the time it keeps is later than now.
		d := time.Duration(rapid.SampledFrom([]int{1, 30, 90, 1200}).Draw(t, "seconds back")) * time.Second
		m.clock.mu.Lock()
		m.clock.at = m.clock.at.Add(-d)
		m.clock.mu.Unlock()
	} else {
		m.advance(t)
	}
	again := mk()
	m.runTx(t, []txAction{again}, "TxReuse after the clock moved:")
	if !rapid.Bool().Draw(t, "concurrently") {
		return
	}
	m.stats["TxReuse concurrently"]++
	// Two runs at once: one is first, the other second, whichever
	// goroutine it is (the same action): their answers are the first's
	// and the second's expectations, in some order. A run DynamoDB
	// cancels for the other's (TransactionConflict) is run again after.
	first := mk()
	saved := maps.Clone(m.items)
	m.txApply([]txAction{first})
	second := mk()
	m.items = saved
	var errs [2]error
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = entity.Transact(ctx, x.a)
		}()
	}
	wg.Wait()
	conflict := func(err error) bool { return errors.Is(err, table.ErrTransactionConflict) }
	switch {
	case conflict(errs[0]) && conflict(errs[1]):
		errs[0], errs[1] = entity.Transact(ctx, x.a), entity.Transact(ctx, x.a)
	case conflict(errs[0]):
		errs[0], errs[1] = errs[1], entity.Transact(ctx, x.a)
	case conflict(errs[1]):
		errs[1] = entity.Transact(ctx, x.a)
	}
	what := "TxReuse concurrently: " + x.kind
	if txOutcome(first, errs[0]) != expected(first) {
		errs[0], errs[1] = errs[1], errs[0]
	}
	m.txAnswer(t, []txAction{first}, errs[0], what+" (first)")
	m.txApply([]txAction{first})
	m.txAnswer(t, []txAction{second}, errs[1], what+" (second)")
	m.txApply([]txAction{second})
}

// txOutcome is the outcome of x in a transaction that answered err.
func txOutcome(x txAction, err error) string {
	var txe *entity.TxError
	if x.pre == "" && errors.As(err, &txe) {
		return outcome(txe.Err(x.a))
	}
	return outcome(err)
}

// expected is the outcome a transaction of x alone answers.
func expected(x txAction) string {
	if x.pre != "" {
		return x.pre
	}
	return x.want
}

// batchDelete deletes photos and tags unconditionally: missing ones are
// no error.
func (m *modelEnv) batchDelete(t *rapid.T) {
	photos := m.distinctPhotos(t)
	var tags []mTag
	for range rapid.IntRange(0, 2).Draw(t, "tags") {
		key, _ := m.drawTagKey(t)
		if !slices.Contains(tags, key) {
			tags = append(tags, key)
		}
	}
	require.NoError(t, m.photos.BatchDelete(ctx, photos), "BatchDelete of photos")
	require.NoError(t, m.tags.BatchDelete(ctx, tags), "BatchDelete of tags")
	for _, p := range photos {
		delete(m.items, photoKey(p.Album, p.ID))
	}
	for _, g := range tags {
		delete(m.items, tagKey(g.Album, g.PhotoID, g.Name))
	}
}

// decode decodes the item stored at a key (or an empty item) with the
// registry and with each entity, with its type attribute and without:
// each entity decodes its own items, expired ones too, and refuses every
// other item with ErrUnknownItem, the registry one of neither.
func (m *modelEnv) decode(t *rapid.T) {
	a, id := drawPhotoKey(t)
	k := photoKey(a, id)
	if rapid.Bool().Draw(t, "of a tag") {
		k = tagKey(a, id, rapid.SampledFrom(mTags).Draw(t, "tag"))
	}
	item := table.Item{}
	if rapid.IntRange(0, 4).Draw(t, "empty item") > 0 {
		out, err := m.t.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(m.t.Name()),
			Key: table.Item{"pk": s(k.pk), "sk": s(k.sk)}, ConsistentRead: aws.Bool(true)})
		require.NoError(t, err)
		item = out.Item
		if rapid.Bool().Draw(t, "without the type attribute") {
			item = maps.Clone(item)
			delete(item, entity.DefaultTypeAttribute)
		}
	}
	var it mItem
	if len(item) > 0 {
		it = m.items[k]
		require.True(t, it.photo != nil || it.tag != nil, "the table holds an item the model does not: %v", k)
	}
	what := fmt.Sprintf("Decode of %v (%d attributes)", k, len(item))
	v, err := m.reg.Decode(ctx, item)
	p, perr := m.photos.Decode(ctx, item)
	g, gerr := m.tags.Decode(ctx, item)
	switch {
	case it.photo != nil:
		require.NoError(t, err, what)
		require.Equal(t, *it.photo, v, what)
		require.NoError(t, perr, what)
		require.Equal(t, *it.photo, p, what)
		require.ErrorIs(t, gerr, entity.ErrUnknownItem, "tags.%s", what)
		require.Zero(t, g)
	case it.tag != nil:
		require.NoError(t, err, what)
		require.Equal(t, *it.tag, v, what)
		require.NoError(t, gerr, what)
		require.Equal(t, *it.tag, g, what)
		require.ErrorIs(t, perr, entity.ErrUnknownItem, "photos.%s", what)
		require.Zero(t, p)
	default:
		require.ErrorIs(t, err, entity.ErrUnknownItem, "registry %s", what)
		require.ErrorIs(t, perr, entity.ErrUnknownItem, "photos.%s", what)
		require.ErrorIs(t, gerr, entity.ErrUnknownItem, "tags.%s", what)
	}
}

// checkStored reads the table raw and compares it with the model: the
// same items (expired ones kept or cleared: only the entity's own writes
// delete them), each photo's index keys built from its attributes (GSI2
// only with a rank), no index keys on tags.
func (m *modelEnv) checkStored(t *rapid.T) {
	out, err := m.t.DB().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(m.t.Name()), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Nil(t, out.LastEvaluatedKey)
	str := func(item table.Item, name string) string {
		if v, ok := item[name].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	stored := map[mKey]bool{}
	for _, item := range out.Items {
		k := mKey{str(item, "pk"), str(item, "sk")}
		stored[k] = true
		it, ok := m.items[k]
		require.True(t, ok, "the table holds %v, the model nothing", k)
		keys := [6]string{str(item, "gsi1pk"), str(item, "gsi1sk"), str(item, "gsi2pk"), str(item, "gsi2sk"), str(item, "gsi3pk"), str(item, "gsi3sk")}
		want := [6]string{}
		if p := it.photo; p != nil {
			want[0], want[1] = "OWNER#"+p.Owner, gsi1sk(*p)
			if p.Rank != "" {
				want[2], want[3] = "RANKS", gsi2sk(*p)
				want[4], want[5] = "RANK#"+p.Rank, gsi1sk(*p)
			}
		}
		require.Equal(t, want, keys, "index keys of %v", k)
	}
	for k, it := range m.items {
		if !stored[k] {
			// A write that may create clears an expired item it meets
			// (and a refused one may leave it cleared): gone either way.
			require.True(t, m.expired(it), "the model holds a live %v the table does not", k)
			delete(m.items, k)
		}
	}
}

// txPutAddTo is TxPut added with Action.AddTo to a transaction the
// caller runs: it writes, and is refused, as in Transact, its refusal
// being the caller's *table.TxError.
func (m *modelEnv) txPutAddTo(t *rapid.T) {
	v := m.drawPhoto(t)
	k := photoKey(v.Album, v.ID)
	v.Version = m.drawVersion(t, k)
	tx := m.photos.Registry().Table().WriteTx()
	err := m.photos.TxPut(v).AddTo(ctx, tx)
	if err == nil {
		err = tx.Run(ctx)
	}
	cur, live := m.livePhoto(k)
	switch {
	case !photoValid(v):
		m.expect(t, "validation", err, "AddTo of an invalid photo")
		return
	case v.Version == 0 && live:
		m.expect(t, "already exists", err, "AddTo of a TxPut of version 0 over a live photo")
		return
	case v.Version > 0 && (!live || cur.Version != v.Version):
		m.expect(t, "condition failed", err, "AddTo of a TxPut of a version not stored")
		return
	}
	require.NoError(t, err, "AddTo")
	v.Version++
	m.stamp(&v)
	m.items[k] = mItem{photo: &v}
}

// fromChange decodes a change record of the item stored at a key, as a
// stream would carry it.
func (m *modelEnv) fromChange(t *rapid.T) {
	a, id := drawPhotoKey(t)
	k := photoKey(a, id)
	if rapid.Bool().Draw(t, "of a tag") {
		k = tagKey(a, id, rapid.SampledFrom(mTags).Draw(t, "tag"))
	}
	key := table.Item{"pk": s(k.pk), "sk": s(k.sk)}
	out, err := m.t.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(m.t.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	if out.Item == nil {
		return
	}
	item := table.Item(out.Item)
	p, ok, err := m.photos.FromChange(ctx, changes.Change[table.Item]{Event: changes.Modify, Keys: key, New: &item})
	require.NoError(t, err)
	want, live := m.livePhoto(k)
	require.Equal(t, live, ok, "FromChange of %v", k)
	if ok {
		require.Equal(t, want, p)
	}
	g, ok, err := m.tags.FromChange(ctx, changes.Change[table.Item]{Event: changes.Modify, Keys: key, New: &item})
	require.NoError(t, err)
	wantTag, live := m.liveTag(k)
	require.Equal(t, live, ok, "tags.FromChange of %v", k)
	if ok {
		require.Equal(t, wantTag, g)
	}
}

// Tags: no version, a TTL left out when 0, a counter under Bounds.

func (m *modelEnv) tagCreate(t *rapid.T) {
	v := drawTag(t, m.now())
	got, err := m.tags.Create(ctx, v)
	k := tagKey(v.Album, v.PhotoID, v.Name)
	_, live := m.liveTag(k)
	switch {
	case !tagValid(v):
		m.expect(t, "validation", err, "Create of an invalid tag")
		return
	case live:
		m.expect(t, "already exists", err, "Create over a live tag")
		return
	}
	require.NoError(t, err, "tag Create")
	require.Equal(t, v, got)
	m.items[k] = mItem{tag: &v}
}

func (m *modelEnv) tagPut(t *rapid.T) {
	v := drawTag(t, m.now())
	got, err := m.tags.Put(ctx, v)
	if !tagValid(v) {
		m.expect(t, "validation", err, "Put of an invalid tag")
		return
	}
	require.NoError(t, err, "tag Put")
	require.Equal(t, v, got)
	m.items[tagKey(v.Album, v.PhotoID, v.Name)] = mItem{tag: &v}
}

func (m *modelEnv) drawTagKey(t *rapid.T) (mTag, mKey) {
	a, id := drawPhotoKey(t)
	g := mTag{Album: a, PhotoID: id, Name: rapid.SampledFrom(mTags).Draw(t, "tag")}
	return g, tagKey(a, id, g.Name)
}

func (m *modelEnv) tagAdd(t *rapid.T) {
	key, k := m.drawTagKey(t)
	n := rapid.IntRange(-2, 2).Draw(t, "add")
	got, err := m.tags.Patch(key).Add("count", n).Run(ctx)
	cur, _ := m.liveTag(k)
	if want := m.tagAddOutcome(k, n); want != "ok" {
		m.expect(t, want, err, fmt.Sprintf("Add(count, %d) to %v", n, m.items[k].tag))
		return
	}
	require.NoError(t, err, "tag Patch")
	cur.Count += n
	require.Equal(t, cur, got)
	m.items[k] = mItem{tag: &cur}
}

func (m *modelEnv) tagDelete(t *rapid.T) {
	key, k := m.drawTagKey(t)
	_, err := m.tags.Delete(ctx, key)
	if _, live := m.liveTag(k); !live {
		m.expect(t, "not found", err, "Delete of no live tag")
		return
	}
	require.NoError(t, err, "tag Delete")
	delete(m.items, k)
}

func (m *modelEnv) tagGet(t *rapid.T) {
	key, k := m.drawTagKey(t)
	got, err := m.tags.Get(ctx, key, entity.Consistent())
	want, live := m.liveTag(k)
	if !live {
		m.expect(t, "not found", err, "Get of no live tag")
		return
	}
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// tagList lists the tags of an album, or of one photo (SortBeginsWith).
func (m *modelEnv) tagList(t *rapid.T) {
	a, id := drawPhotoKey(t)
	_, desc, opts := drawList(t)
	opts = append(opts, entity.Consistent())
	var keep func(mKey) bool
	if rapid.Bool().Draw(t, "of one photo") {
		opts = append(opts, entity.SortBeginsWith(id))
		keep = func(k mKey) bool {
			return len(k.sk) > len("PHOTO#"+id+"#") && k.sk[:len("PHOTO#"+id+"#")] == "PHOTO#"+id+"#"
		}
	}
	got := listing(t, func(c string) (table.Page[mTag], error) { return m.tags.List(ctx, mTag{Album: a}, c, opts...) })
	require.Equal(t, m.partition(a, false, true, keep, desc), anys(got), "tags")
}

// modelStart is the model clock's start: whole seconds, so that a TTL
// second and the clock compare as DynamoDB compares them.
var modelStart = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// TestModelEveryOperationAgreesWithAPlainModel runs rapid's random
// sequences of operations on the fake (250 sequences of up to 50 steps
// unless -rapid.checks and -rapid.steps say otherwise), checking each
// step's result and, after every step, the table raw and every partition
// and index read whole.
func TestModelEveryOperationAgreesWithAPlainModel(t *testing.T) {
	defaultFlag(t, "rapid.checks", "250")
	defaultFlag(t, "rapid.steps", "50")
	stats := map[string]int{}
	defer logStats(t, stats)
	rapid.Check(t, func(t *rapid.T) {
		stats["sequences"]++
		clock := &testClock{at: modelStart}
		db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = clock.Now })
		s := modelSchema("model")
		require.NoError(t, s.EnsureTable(ctx, db))
		m := newModelEnv(t, db, db, clock, s, rapid.Bool().Draw(t, "type attribute"), stats)
		t.Repeat(m.actions())
	})
}

// TestIntegrationModelOnDynamoDBLocal runs fewer sequences on DynamoDB
// Local (30 of up to 30 steps unless -rapid.checks and -rapid.steps say
// otherwise), each on its own table, with the same checks after every
// step as on the fake: the table raw, every partition and index whole.
func TestIntegrationModelOnDynamoDBLocal(t *testing.T) {
	client := testenv.DynamoDB(t)
	defaultFlag(t, "rapid.checks", "30")
	defaultFlag(t, "rapid.steps", "30")
	n := 0
	stats := map[string]int{}
	defer logStats(t, stats)
	rapid.Check(t, func(rt *rapid.T) {
		n++
		stats["sequences"]++
		name := testenv.TableName(t, fmt.Sprint("model", n))
		s := modelSchema(name)
		require.NoError(rt, s.Create(ctx, client))
		defer client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		// DynamoDB Local leaves out of index reads the items whose TTL
		// the real clock has passed (the table keeps them): the model's
		// clock runs ten years ahead, so that every TTL it draws is in
		// the real future and expiry is the registry's clock's alone.
		clock := &testClock{at: time.Now().AddDate(10, 0, 0).Truncate(time.Second)}
		m := newModelEnv(rt, client, nil, clock, s, rapid.Bool().Draw(rt, "type attribute"), stats)
		rt.Repeat(m.actions())
	})
}

// modelSchema is the test table with a third index, GSI3.
func modelSchema(name string) table.Schema {
	s := testSchema(name)
	attr := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	s.Indexes = append(s.Indexes, table.Index{Name: "GSI3", PartitionKey: attr("gsi3pk"), SortKey: attr("gsi3sk")})
	return s
}

// logStats logs what the sequences covered (shrinking runs included).
func logStats(t *testing.T, stats map[string]int) {
	names := slices.Sorted(maps.Keys(stats))
	steps := 0
	for _, n := range names {
		if n != "sequences" && !strings.HasPrefix(n, "refused: ") {
			steps += stats[n]
		}
	}
	out := fmt.Sprintf("%d sequences, %d steps:", stats["sequences"], steps)
	for _, n := range names {
		out += fmt.Sprintf(" %s %d;", n, stats[n])
	}
	t.Log(out)
}

// defaultFlag sets a rapid flag for one test unless the command line set
// it (go test -rapid.checks=N reaches every model test).
func defaultFlag(t *testing.T, name, value string) {
	if !commandLine()[name] {
		setFlag(t, name, value)
	}
}

// commandLine is the flags the command line set, read before any test set
// one (flag.Set counts as set for flag.Visit).
var commandLine = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
})

// setFlag sets a rapid flag for one test.
func setFlag(t *testing.T, name, value string) {
	f := flag.Lookup(name)
	require.NotNil(t, f)
	old := f.Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { _ = flag.Set(name, old) })
}
