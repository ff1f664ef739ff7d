package blobstore_test

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/aws"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	if err := reportsSchema.Create(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	return db, table.New(db, reportsSchema)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// stores returns one of each Store implementation, empty.
func stores(t *testing.T) map[string]blobstore.Store {
	return map[string]blobstore.Store{
		"Memory": blobstore.NewMemory(),
		"Dir":    newDir(t),
		"S3":     newFakeS3(t).store(t),
	}
}

func objectKeys(t *testing.T, st blobstore.Store) []string {
	t.Helper()
	var keys []string
	for info, err := range st.List(t.Context(), "") {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, info.Key)
	}
	return keys
}

func rawItem(t *testing.T, tb *table.Table, pk, sk string) table.Item {
	t.Helper()
	var item table.Item
	if err := tb.Get(t.Context(), table.Key{"PK": s(pk), "SK": s(sk)}, &item); err != nil {
		t.Fatal(err)
	}
	return item
}

func TestOffloadOneMegabyteAttributeIsSmallItemPlusOneObject(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			_, tb := newReportsTable(t)
			off := blobstore.NewOffloader(st, func(o *blobstore.OffloadOptions) { o.Prefix = "attrs/" })
			body := strings.Repeat("log line with some text\n", (1<<20)/24+1)[:1<<20]
			record := table.Item{
				"PK": s("JOB#1"), "SK": s("REPORT"), "GSI1PK": s("STAGE#a"), "GSI1SK": s("JOB#1"),
				"title": s("nightly"), "body": s(body),
			}
			if err := off.Put(t.Context(), tb, "JOB#1/REPORT", record); err != nil {
				t.Fatal(err)
			}

			stored := rawItem(t, tb, "JOB#1", "REPORT")
			if size := table.ItemSize(stored); size > blobstore.DefaultOffloadThreshold {
				t.Fatalf("stored item is %d bytes, over the %d threshold", size, blobstore.DefaultOffloadThreshold)
			}
			p, ok := blobstore.PointerOf(stored["body"])
			if !ok {
				t.Fatalf("body was not replaced by a pointer: %T", stored["body"])
			}
			if p.Size != 1<<20 || p.Type != "S" || !strings.HasPrefix(p.Key, "attrs/JOB#1/REPORT/body/") {
				t.Fatalf("pointer = %+v", p)
			}
			if _, isPtr := blobstore.PointerOf(stored["title"]); isPtr {
				t.Fatal("the small title attribute was offloaded too")
			}
			if keys := objectKeys(t, st); len(keys) != 1 || keys[0] != p.Key {
				t.Fatalf("objects = %q, want exactly the pointer's %q", keys, p.Key)
			}

			got, err := off.Get(t.Context(), tb, table.Key{"PK": s("JOB#1"), "SK": s("REPORT")})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, record) {
				t.Fatal("record read back differs from the one written")
			}
		})
	}
}

func TestOffloadFailedDynamoDBWriteLeavesNoItemAndListsOrphan(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			db, tb := newReportsTable(t)
			off := blobstore.NewOffloader(st, func(o *blobstore.OffloadOptions) {
				o.Prefix = "attrs/"
				o.OrphanMinAge = 0
			})
			db.Inject(dynamotest.FailNth("PutItem", 1, &types.InternalServerError{Message: aws.String("injected failure")}))
			record := table.Item{"PK": s("JOB#2"), "SK": s("REPORT"), "body": s(strings.Repeat("x", 1<<20))}
			err := off.Put(t.Context(), tb, "JOB#2/REPORT", record)
			var ise *types.InternalServerError
			if !errors.As(err, &ise) {
				t.Fatalf("Put with a failing PutItem: %v, want the InternalServerError", err)
			}
			var item table.Item
			if err := tb.Get(t.Context(), table.Key{"PK": s("JOB#2"), "SK": s("REPORT")}, &item); !errors.Is(err, table.ErrNotFound) {
				t.Fatalf("item after the failed write: %v, want ErrNotFound", err)
			}
			objects := objectKeys(t, st)
			if len(objects) != 1 {
				t.Fatalf("objects after the failed write: %q, want the one orphan", objects)
			}
			var orphans []string
			for k, err := range off.Orphans(t.Context(), tb, "") {
				if err != nil {
					t.Fatal(err)
				}
				orphans = append(orphans, k)
			}
			if len(orphans) != 1 || orphans[0] != objects[0] {
				t.Fatalf("Orphans = %q, want %q", orphans, objects)
			}
			removed, err := off.RemoveOrphans(t.Context(), tb, "")
			if err != nil || len(removed) != 1 {
				t.Fatalf("RemoveOrphans = %q, %v", removed, err)
			}
			if left := objectKeys(t, st); len(left) != 0 {
				t.Fatalf("objects after RemoveOrphans: %q", left)
			}

			// The retry succeeds and leaves no orphan.
			if err := off.Put(t.Context(), tb, "JOB#2/REPORT", record); err != nil {
				t.Fatal(err)
			}
			for k, err := range off.Orphans(t.Context(), tb, "") {
				t.Fatalf("orphan %q (%v) after a successful Put", k, err)
			}
		})
	}
}

func TestOrphansSparesReferencedYoungAndForeignObjects(t *testing.T) {
	st := blobstore.NewMemory()
	_, tb := newReportsTable(t)
	now := time.Now()
	clock := &now
	off := blobstore.NewOffloader(st, func(o *blobstore.OffloadOptions) {
		o.Prefix = "attrs/"
		o.OrphanMinAge = time.Hour
		o.Clock = func() time.Time { return *clock }
	})
	put := func(pk, body string) {
		t.Helper()
		item := table.Item{"PK": s(pk), "SK": s("R"), "body": s(strings.Repeat(body, 200_000))}
		if err := off.Put(t.Context(), tb, pk, item); err != nil {
			t.Fatal(err)
		}
	}
	put("A", "a")
	put("B", "b")
	old := blobstore.Pointers(rawItem(t, tb, "A", "R"))["body"].Key
	put("A", "c") // replaces A's body: its first object is now unreferenced
	if err := st.Put(t.Context(), "attrs/A/notes.txt", strings.NewReader("not ours")); err != nil {
		t.Fatal(err)
	}
	orphans := func() []string {
		var out []string
		for k, err := range off.Orphans(t.Context(), tb, "") {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k)
		}
		return out
	}
	if got := orphans(); len(got) != 0 {
		t.Fatalf("Orphans within OrphanMinAge = %q, want none (a Put may be in flight)", got)
	}
	later := now.Add(2 * time.Hour)
	clock = &later
	if got := orphans(); len(got) != 1 || got[0] != old {
		t.Fatalf("Orphans = %q, want only the replaced body %q", got, old)
	}
	if _, err := off.RemoveOrphans(t.Context(), tb, ""); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"A", "B"} {
		if _, err := off.Get(t.Context(), tb, table.Key{"PK": s(pk), "SK": s("R")}); err != nil {
			t.Fatalf("record %s after RemoveOrphans: %v", pk, err)
		}
	}
	if _, err := st.Head(t.Context(), "attrs/A/notes.txt"); err != nil {
		t.Fatalf("RemoveOrphans deleted an object it did not write: %v", err)
	}
}

func TestOffloadRoundTripsEveryAttributeType(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			// Each pointer is about 180 bytes: eight fit in 2 KB.
			off := blobstore.NewOffloader(st, func(o *blobstore.OffloadOptions) { o.Threshold = 2048 })
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
			if err != nil {
				t.Fatal(err)
			}
			if n := table.ItemSize(out); n > 2048 {
				t.Fatalf("offloaded item is %d bytes, over 2048", n)
			}
			if got := len(blobstore.Pointers(out)); got != 8 {
				t.Fatalf("%d attributes offloaded, want the 8 large ones", got)
			}
			if _, ok := item["S"].(*types.AttributeValueMemberS); !ok {
				t.Fatal("Offload modified its input item")
			}
			back, err := off.Restore(t.Context(), out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, item) {
				for k := range item {
					if !reflect.DeepEqual(back[k], item[k]) {
						t.Errorf("attribute %q differs after Restore", k)
					}
				}
			}
		})
	}
}

func TestOffloadIsDeterministic(t *testing.T) {
	st := blobstore.NewMemory()
	off := blobstore.NewOffloader(st)
	item := table.Item{"id": s("x"), "body": s(strings.Repeat("z", 200_000))}
	a, err := off.Offload(t.Context(), "x", item)
	if err != nil {
		t.Fatal(err)
	}
	b, err := off.Offload(t.Context(), "x", item)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || len(objectKeys(t, st)) != 1 {
		t.Fatalf("offloading the same item twice gave different pointers or %d objects", len(objectKeys(t, st)))
	}
	changed := table.Item{"id": s("x"), "body": s(strings.Repeat("y", 200_000))}
	c, err := off.Offload(t.Context(), "x", changed)
	if err != nil {
		t.Fatal(err)
	}
	if blobstore.Pointers(c)["body"].Key == blobstore.Pointers(a)["body"].Key {
		t.Fatal("new content was written over the object the old item points at")
	}
}

func TestOffloadPutKeepsKeyAttributes(t *testing.T) {
	_, tb := newReportsTable(t)
	off := blobstore.NewOffloader(blobstore.NewMemory(), func(o *blobstore.OffloadOptions) { o.Threshold = 1500 })
	// GSI1SK is the largest attribute but an index key: it must stay.
	record := table.Item{"PK": s("P"), "SK": s("S"), "GSI1PK": s("G"), "GSI1SK": s(strings.Repeat("k", 1000)), "body": s(strings.Repeat("b", 900))}
	if err := off.Put(t.Context(), tb, "P/S", record); err != nil {
		t.Fatal(err)
	}
	stored := rawItem(t, tb, "P", "S")
	if _, ok := stored["GSI1SK"].(*types.AttributeValueMemberS); !ok {
		t.Fatal("the index key GSI1SK was offloaded")
	}
	if _, ok := blobstore.PointerOf(stored["body"]); !ok {
		t.Fatal("body was not offloaded")
	}
}

func TestOffloadSmallItemWritesNothing(t *testing.T) {
	st := blobstore.NewMemory()
	off := blobstore.NewOffloader(st)
	item := table.Item{"id": s("small"), "body": s("short")}
	out, err := off.Offload(t.Context(), "small", item)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, item) || len(objectKeys(t, st)) != 0 {
		t.Fatal("an item under the threshold was changed or wrote objects")
	}
}

func TestOffloadRefusesWhatCannotFitBeforeWriting(t *testing.T) {
	st := blobstore.NewMemory()
	off := blobstore.NewOffloader(st, func(o *blobstore.OffloadOptions) { o.Threshold = 1024 })
	many := table.Item{"body": s(strings.Repeat("b", 5000))}
	for i := range 200 {
		many[fmt.Sprintf("a%03d", i)] = s("tiny")
	}
	_, err := off.Offload(t.Context(), "many", many)
	var oe *blobstore.OffloadError
	if !errors.As(err, &oe) || !errors.Is(err, table.ErrItemTooLarge) {
		t.Fatalf("Offload of 200 tiny attributes over a 1 KB threshold: %v, want *OffloadError wrapping table.ErrItemTooLarge", err)
	}
	for _, key := range []string{"", "ends/", "bad\xff"} {
		if _, err := off.Offload(t.Context(), key, table.Item{"b": s(strings.Repeat("b", 5000))}); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Offload with object key %q: %v, want ErrInvalidKey", key, err)
		}
	}
	if _, err := off.Offload(t.Context(), "empty", table.Item{}); !errors.Is(err, table.ErrInvalidInput) {
		t.Errorf("Offload of an empty item: %v, want table.ErrInvalidInput", err)
	}
	if keys := objectKeys(t, st); len(keys) != 0 {
		t.Fatalf("refused offloads wrote %q", keys)
	}
}

func TestRestoreVerifiesChecksumAndReportsMissingObject(t *testing.T) {
	st := blobstore.NewMemory()
	off := blobstore.NewOffloader(st)
	out, err := off.Offload(t.Context(), "r", table.Item{"id": s("r"), "body": s(strings.Repeat("q", 200_000))})
	if err != nil {
		t.Fatal(err)
	}
	key := blobstore.Pointers(out)["body"].Key
	if err := st.Put(t.Context(), key, strings.NewReader(strings.Repeat("Q", 200_000))); err != nil {
		t.Fatal(err)
	}
	if _, err := off.Restore(t.Context(), out); !errors.Is(err, blobstore.ErrChecksumMismatch) || !strings.Contains(err.Error(), `"body"`) {
		t.Fatalf("Restore of a tampered object: %v, want ErrChecksumMismatch naming the attribute", err)
	}
	if err := st.Delete(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	if _, err := off.Restore(t.Context(), out); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Restore with the object gone: %v, want ErrNotFound", err)
	}
}
