package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

var reportsSchema = table.Schema{
	Name:         "Reports",
	PartitionKey: table.Attribute{Name: "PK", Type: types.ScalarAttributeTypeS},
	SortKey:      table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeS},
	Indexes: []table.Index{{
		Name:         "GSI1",
		PartitionKey: table.Attribute{Name: "GSI1PK", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "GSI1SK", Type: types.ScalarAttributeTypeS},
	}},
}

func newReportsTable(t *testing.T) (*dynamotest.DB, *table.Table) {
	t.Helper()
	db := dynamotest.New()
	require.NoError(t, reportsSchema.Create(t.Context(), db))
	return db, table.New(db, reportsSchema)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// stores returns one of each Store implementation, empty.
func stores(t *testing.T) map[string]blobstore.Store {
	return map[string]blobstore.Store{
		"Memory": blobstore.NewMemory(),
		"Dir":    newDir(t),
		"S3":     newS3(t),
	}
}

func objectKeys(t *testing.T, st blobstore.Store) []string {
	t.Helper()
	var keys []string
	for info, err := range st.List(t.Context(), "") {
		require.NoError(t, err)
		keys = append(keys, info.Key)
	}
	return keys
}

func rawItem(t *testing.T, tb *table.Table, pk, sk string) table.Item {
	t.Helper()
	var item table.Item
	require.NoError(t, tb.Get(t.Context(), table.Key{"PK": s(pk), "SK": s(sk)}, &item))
	return item
}

func newOffloader(t *testing.T, st blobstore.Store, opts ...func(*blobstore.OffloadOptions)) *blobstore.Offloader {
	t.Helper()
	off, err := blobstore.NewOffloader(st, opts...)
	require.NoError(t, err)
	return off
}

func orphanKeys(t *testing.T, off *blobstore.Offloader, tb *table.Table) []string {
	t.Helper()
	var out []string
	for k, err := range off.Orphans(t.Context(), tb, "") {
		require.NoError(t, err)
		out = append(out, k)
	}
	return out
}

func TestOffloadOneMegabyteAttributeIsSmallItemPlusOneObject(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			_, tb := newReportsTable(t)
			off := newOffloader(t, st, func(o *blobstore.OffloadOptions) { o.Prefix = "attrs/" })
			body := strings.Repeat("log line with some text\n", (1<<20)/24+1)[:1<<20]
			record := table.Item{
				"PK": s("JOB#1"), "SK": s("REPORT"), "GSI1PK": s("STAGE#a"), "GSI1SK": s("JOB#1"),
				"title": s("nightly"), "body": s(body),
			}
			require.NoError(t, off.Put(t.Context(), tb, "JOB#1/REPORT", record))

			stored := rawItem(t, tb, "JOB#1", "REPORT")
			assert.LessOrEqual(t, table.ItemSize(stored), blobstore.DefaultOffloadThreshold, "stored item size")
			p, ok := blobstore.PointerOf(stored["body"])
			require.True(t, ok, "body was not replaced by a pointer: %T", stored["body"])
			assert.Equal(t, int64(1<<20), p.Size)
			assert.Equal(t, "S", p.Type)
			assert.True(t, strings.HasPrefix(p.Key, "attrs/JOB#1/REPORT/body/"), "pointer key %q", p.Key)
			_, isPtr := blobstore.PointerOf(stored["title"])
			assert.False(t, isPtr, "the small title attribute was offloaded too")
			assert.Equal(t, []string{p.Key}, objectKeys(t, st), "exactly the pointer's object")

			got, err := off.Get(t.Context(), tb, table.Key{"PK": s("JOB#1"), "SK": s("REPORT")})
			require.NoError(t, err)
			assert.Equal(t, record, got, "record read back differs from the one written")
		})
	}
}

func TestOffloadFailedDynamoDBWriteLeavesNoItemAndListsOrphan(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			db, tb := newReportsTable(t)
			off := newOffloader(t, st, func(o *blobstore.OffloadOptions) {
				o.Prefix = "attrs/"
				o.OrphanMinAge = 0
			})
			db.Inject(dynamotest.FailNth("PutItem", 1, &types.InternalServerError{Message: aws.String("injected failure")}))
			record := table.Item{"PK": s("JOB#2"), "SK": s("REPORT"), "body": s(strings.Repeat("x", 1<<20))}
			err := off.Put(t.Context(), tb, "JOB#2/REPORT", record)
			var ise *types.InternalServerError
			require.ErrorAs(t, err, &ise, "Put with a failing PutItem")
			var item table.Item
			err = tb.Get(t.Context(), table.Key{"PK": s("JOB#2"), "SK": s("REPORT")}, &item)
			assert.ErrorIs(t, err, table.ErrNotFound, "item after the failed write")
			objects := objectKeys(t, st)
			require.Len(t, objects, 1, "objects after the failed write: the one orphan")
			assert.Equal(t, objects, orphanKeys(t, off, tb))
			removed, err := off.RemoveOrphans(t.Context(), tb, "")
			require.NoError(t, err)
			assert.Len(t, removed, 1)
			assert.Empty(t, objectKeys(t, st), "objects after RemoveOrphans")

			// The retry succeeds and leaves no orphan.
			require.NoError(t, off.Put(t.Context(), tb, "JOB#2/REPORT", record))
			assert.Empty(t, orphanKeys(t, off, tb), "orphans after a successful Put")
		})
	}
}

// failingStore refuses every Put after failAfter successful ones, as an S3
// outage or a full disk would.
type failingStore struct {
	blobstore.Store
	failAfter int
	puts      int
}

var errStoreDown = errors.New("blob store down")

func (f *failingStore) Put(ctx context.Context, key string, body io.Reader, opts ...func(*blobstore.PutOptions)) error {
	f.puts++
	if f.puts > f.failAfter {
		return errStoreDown
	}
	return f.Store.Put(ctx, key, body, opts...)
}

// TestOffloadBlobStoreFailureWritesNoItem is the S3-first rule: when an
// object cannot be written, no DynamoDB item may be written either (it
// would point at a missing object). The store fails on the first object,
// and on the second of two, with every backend behind it.
func TestOffloadBlobStoreFailureWritesNoItem(t *testing.T) {
	for name, st := range stores(t) {
		for _, failAfter := range []int{0, 1} {
			t.Run(fmt.Sprintf("%s/after%d", name, failAfter), func(t *testing.T) {
				db, tb := newReportsTable(t)
				failing := &failingStore{Store: st, failAfter: failAfter}
				off := newOffloader(t, failing, func(o *blobstore.OffloadOptions) { o.Threshold = 4096 })
				record := table.Item{"PK": s("JOB#3"), "SK": s("REPORT"),
					"log": s(strings.Repeat("l", 200_000)), "report": s(strings.Repeat("r", 100_000))}
				db.ResetCalls()
				err := off.Put(t.Context(), tb, fmt.Sprintf("JOB#3/after%d", failAfter), record)
				require.ErrorIs(t, err, errStoreDown)
				assert.Equal(t, failAfter+1, failing.puts, "Put stops at the first failing object")
				for _, op := range []string{"PutItem", "UpdateItem", "BatchWriteItem", "TransactWriteItems"} {
					assert.Zero(t, db.Calls(op), "%s sent after the blob store failed", op)
				}
				n := 0
				for _, err := range table.ScanAll[table.Item](t.Context(), tb, table.Scan{Consistent: true}) {
					require.NoError(t, err)
					n++
				}
				assert.Zero(t, n, "items in the table")
			})
		}
	}
}

func TestNewOffloaderRefusesNilStoreAndBadOptions(t *testing.T) {
	cases := map[string]func() (*blobstore.Offloader, error){
		"nil store": func() (*blobstore.Offloader, error) { return blobstore.NewOffloader(nil) },
		"negative threshold": func() (*blobstore.Offloader, error) {
			return blobstore.NewOffloader(blobstore.NewMemory(), func(o *blobstore.OffloadOptions) { o.Threshold = -1 })
		},
		"negative orphan age": func() (*blobstore.Offloader, error) {
			return blobstore.NewOffloader(blobstore.NewMemory(), func(o *blobstore.OffloadOptions) { o.OrphanMinAge = -time.Second })
		},
		"prefix that leaves the store": func() (*blobstore.Offloader, error) {
			return blobstore.NewOffloader(blobstore.NewMemory(), func(o *blobstore.OffloadOptions) { o.Prefix = "../" })
		},
	}
	for name, fn := range cases {
		off, err := fn()
		assert.Error(t, err, name)
		assert.Nil(t, off, name)
	}
	_, err := blobstore.NewOffloader(nil)
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput)
	off, err := blobstore.NewOffloader(blobstore.NewMemory(), nil)
	require.NoError(t, err, "a nil option is skipped")
	assert.NotNil(t, off.Store())
}

func TestOffloaderRefusesNilTableBeforeWriting(t *testing.T) {
	st := blobstore.NewMemory()
	off := newOffloader(t, st)
	big := table.Item{"PK": s("P"), "SK": s("S"), "body": s(strings.Repeat("b", 200_000))}
	assert.ErrorIs(t, off.Put(t.Context(), nil, "P/S", big), blobstore.ErrInvalidInput, "Put")
	_, err := off.Get(t.Context(), nil, table.Key{"PK": s("P")})
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "Get")
	for _, err := range off.Orphans(t.Context(), nil, "") {
		assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "Orphans")
	}
	_, err = off.RemoveOrphans(t.Context(), nil, "")
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "RemoveOrphans")
	assert.Empty(t, objectKeys(t, st), "objects written")
	_, err = off.Restore(t.Context(), nil)
	assert.NoError(t, err, "Restore of a nil item is an empty item")
	assert.Empty(t, blobstore.Pointers(nil))
	_, ok := blobstore.PointerOf(nil)
	assert.False(t, ok)
}

func TestOrphansSparesReferencedYoungAndForeignObjects(t *testing.T) {
	db, tb := newReportsTable(t)
	st := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = db.Now })
	// No Clock: the offloader ages objects by the table's (the fake's).
	off := newOffloader(t, st, func(o *blobstore.OffloadOptions) {
		o.Prefix = "attrs/"
		o.OrphanMinAge = time.Hour
	})
	put := func(pk, body string) {
		t.Helper()
		item := table.Item{"PK": s(pk), "SK": s("R"), "body": s(strings.Repeat(body, 200_000))}
		require.NoError(t, off.Put(t.Context(), tb, pk, item))
	}
	put("A", "a")
	put("B", "b")
	old := blobstore.Pointers(rawItem(t, tb, "A", "R"))["body"].Key
	put("A", "c") // replaces A's body: its first object is now unreferenced
	require.NoError(t, st.Put(t.Context(), "attrs/A/notes.txt", strings.NewReader("not ours")))
	assert.Empty(t, orphanKeys(t, off, tb), "Orphans within OrphanMinAge (a Put may be in flight)")
	db.Advance(2 * time.Hour)
	assert.Equal(t, []string{old}, orphanKeys(t, off, tb), "only the replaced body")
	_, err := off.RemoveOrphans(t.Context(), tb, "")
	require.NoError(t, err)
	for _, pk := range []string{"A", "B"} {
		_, err := off.Get(t.Context(), tb, table.Key{"PK": s(pk), "SK": s("R")})
		assert.NoError(t, err, "record %s after RemoveOrphans", pk)
	}
	_, err = st.Head(t.Context(), "attrs/A/notes.txt")
	assert.NoError(t, err, "RemoveOrphans deleted an object it did not write")
}

// An Offloader given a Clock ages objects by it, not by the table's.
func TestOrphansAgeObjectsByTheOffloadersOwnClockWhenGiven(t *testing.T) {
	db, tb := newReportsTable(t)
	st := blobstore.NewMemory(func(o *blobstore.MemoryOptions) { o.Clock = db.Now })
	later := func() time.Time { return db.Now().Add(2 * time.Hour) }
	off := newOffloader(t, st, func(o *blobstore.OffloadOptions) { o.OrphanMinAge = time.Hour; o.Clock = later })
	item := table.Item{"PK": s("A"), "SK": s("R"), "body": s(strings.Repeat("a", 500_000))}
	require.NoError(t, off.Put(t.Context(), tb, "A", item))
	old := blobstore.Pointers(rawItem(t, tb, "A", "R"))["body"].Key
	item["body"] = s(strings.Repeat("b", 500_000))
	require.NoError(t, off.Put(t.Context(), tb, "A", item))
	assert.Equal(t, []string{old}, orphanKeys(t, off, tb), "two hours on, by the offloader's clock")
	removed, err := off.RemoveOrphans(t.Context(), tb, "")
	require.NoError(t, err)
	assert.Equal(t, []string{old}, removed)
}

func TestOffloadRoundTripsEveryAttributeType(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			// Each pointer is about 180 bytes: eight fit in 2 KB.
			off := newOffloader(t, st, func(o *blobstore.OffloadOptions) { o.Threshold = 2048 })
			big := strings.Repeat("0123456789", 300)
			var ss, ns []string
			var bs [][]byte
			for i := range 300 {
				ss = append(ss, fmt.Sprintf("member-%03d", i))
				ns = append(ns, fmt.Sprintf("%d.5", 1000000+i))
				bs = append(bs, []byte{byte(i), byte(i >> 8), 0xff})
			}
			item := table.Item{
				"id":       s("r1"),
				"S":        s(big + "ü日本"),
				"B":        &types.AttributeValueMemberB{Value: bytes.Repeat([]byte{0, 1, 2, 0xfe}, 800)},
				"M":        &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"text": s(big), "n": &types.AttributeValueMemberN{Value: "-1.5e10"}, "nested": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"ok": &types.AttributeValueMemberBOOL{Value: true}, "nil": &types.AttributeValueMemberNULL{Value: true}}}}},
				"L":        &types.AttributeValueMemberL{Value: []types.AttributeValue{s(big), &types.AttributeValueMemberN{Value: "42"}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}},
				"SS":       &types.AttributeValueMemberSS{Value: ss},
				"NS":       &types.AttributeValueMemberNS{Value: ns},
				"BS":       &types.AttributeValueMemberBS{Value: bs},
				"a/b ../ü": s(big), // a name that is no valid path segment
				"small":    &types.AttributeValueMemberN{Value: "7"},
			}
			out, err := off.Offload(t.Context(), "items/r1", item)
			require.NoError(t, err)
			assert.LessOrEqual(t, table.ItemSize(out), 2048, "offloaded item size")
			assert.Len(t, blobstore.Pointers(out), 8, "the 8 large attributes are offloaded")
			_, ok := item["S"].(*types.AttributeValueMemberS)
			assert.True(t, ok, "Offload modified its input item")
			back, err := off.Restore(t.Context(), out)
			require.NoError(t, err)
			for k := range item {
				assert.Equal(t, item[k], back[k], "attribute %q after Restore", k)
			}
			assert.Len(t, back, len(item))
		})
	}
}

func TestOffloadIsDeterministic(t *testing.T) {
	st := blobstore.NewMemory()
	off := newOffloader(t, st)
	item := table.Item{"id": s("x"), "body": s(strings.Repeat("z", 200_000))}
	a, err := off.Offload(t.Context(), "x", item)
	require.NoError(t, err)
	b, err := off.Offload(t.Context(), "x", item)
	require.NoError(t, err)
	assert.Equal(t, a, b, "offloading the same item twice gives the same pointers")
	assert.Len(t, objectKeys(t, st), 1)
	changed := table.Item{"id": s("x"), "body": s(strings.Repeat("y", 200_000))}
	c, err := off.Offload(t.Context(), "x", changed)
	require.NoError(t, err)
	assert.NotEqual(t, blobstore.Pointers(a)["body"].Key, blobstore.Pointers(c)["body"].Key,
		"new content was written over the object the old item points at")
}

func TestOffloadPutKeepsKeyAttributes(t *testing.T) {
	_, tb := newReportsTable(t)
	off := newOffloader(t, blobstore.NewMemory(), func(o *blobstore.OffloadOptions) { o.Threshold = 1500 })
	// GSI1SK is the largest attribute but an index key: it must stay.
	record := table.Item{"PK": s("P"), "SK": s("S"), "GSI1PK": s("G"), "GSI1SK": s(strings.Repeat("k", 1000)), "body": s(strings.Repeat("b", 900))}
	require.NoError(t, off.Put(t.Context(), tb, "P/S", record))
	stored := rawItem(t, tb, "P", "S")
	_, ok := stored["GSI1SK"].(*types.AttributeValueMemberS)
	assert.True(t, ok, "the index key GSI1SK was offloaded")
	_, ok = blobstore.PointerOf(stored["body"])
	assert.True(t, ok, "body was not offloaded")
}

func TestOffloadSmallItemWritesNothing(t *testing.T) {
	st := blobstore.NewMemory()
	off := newOffloader(t, st)
	item := table.Item{"id": s("small"), "body": s("short")}
	out, err := off.Offload(t.Context(), "small", item)
	require.NoError(t, err)
	assert.Equal(t, item, out)
	assert.Empty(t, objectKeys(t, st))
}

func TestOffloadRefusesWhatCannotFitBeforeWriting(t *testing.T) {
	st := blobstore.NewMemory()
	off := newOffloader(t, st, func(o *blobstore.OffloadOptions) { o.Threshold = 1024 })
	many := table.Item{"body": s(strings.Repeat("b", 5000))}
	for i := range 200 {
		many[fmt.Sprintf("a%03d", i)] = s("tiny")
	}
	_, err := off.Offload(t.Context(), "many", many)
	var oe *blobstore.OffloadError
	assert.ErrorAs(t, err, &oe, "200 tiny attributes over a 1 KB threshold")
	assert.ErrorIs(t, err, table.ErrItemTooLarge)
	for _, key := range []string{"", "ends/", "bad\xff", "../escape", "/abs"} {
		_, err := off.Offload(t.Context(), key, table.Item{"b": s(strings.Repeat("b", 5000))})
		assert.ErrorIs(t, err, blobstore.ErrInvalidKey, "object key %q", key)
	}
	_, err = off.Offload(t.Context(), "empty", table.Item{})
	assert.ErrorIs(t, err, table.ErrInvalidInput, "an empty item")
	assert.Empty(t, objectKeys(t, st), "refused offloads wrote objects")
}

func TestRestoreVerifiesChecksumAndReportsMissingObject(t *testing.T) {
	st := blobstore.NewMemory()
	off := newOffloader(t, st)
	out, err := off.Offload(t.Context(), "r", table.Item{"id": s("r"), "body": s(strings.Repeat("q", 200_000))})
	require.NoError(t, err)
	key := blobstore.Pointers(out)["body"].Key
	require.NoError(t, st.Put(t.Context(), key, strings.NewReader(strings.Repeat("Q", 200_000))))
	_, err = off.Restore(t.Context(), out)
	require.ErrorIs(t, err, blobstore.ErrChecksumMismatch, "a tampered object")
	assert.Contains(t, err.Error(), `"body"`, "the error names the attribute")
	require.NoError(t, st.Delete(t.Context(), key))
	_, err = off.Restore(t.Context(), out)
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "the object gone")
}
