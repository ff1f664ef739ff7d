package table

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pagedThings stores 10 items in partition "A" and 10 in "B", all on GSI1
// partition "G", and returns a table that counts calls.
func pagedThings(t *testing.T, opts ...func(*Options)) (*Table, *calls, *memDB) {
	t.Helper()
	db := newMemDB()
	for _, p := range []string{"A", "B"} {
		for i := range 10 {
			item, err := Marshal(thing{PK: p, SK: fmt.Sprintf("S#%02d", i), GSI1PK: "G", GSI1SK: p + fmt.Sprint(i)})
			require.NoError(t, err)
			db.put(item)
		}
	}
	c := newCalls(db)
	return New(c, thingsSchema, opts...), c, db
}

// firstCursor returns the cursor after the first page of 3 of partition A.
func firstCursor(t *testing.T, tbl *Table) string {
	t.Helper()
	p, err := QueryPage[thing](context.Background(), tbl, Query{Partition: "A", Limit: 3}, "")
	require.NoError(t, err)
	require.NotEmpty(t, p.Next, "the first page's cursor")
	return p.Next
}

func TestQueryPageRejectsAlteredOrForeignCursorsWithoutReading(t *testing.T) {
	tbl, c, _ := pagedThings(t)
	ctx := context.Background()
	cursor := firstCursor(t, tbl)
	raw, _ := base64.RawURLEncoding.DecodeString(cursor)

	flip := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 0x01
		return base64.RawURLEncoding.EncodeToString(b)
	}
	// Swap the key inside the cursor for another item's, keeping the MAC.
	forged := append(append([]byte(nil), raw[:1+cursorMACLen]...), []byte(`{"pk":["S","A"],"sk":["S","S#07"]}`)...)

	other := New(tbl.DB(), thingsSchema.WithName("Other"))
	otherCursor := firstCursor(t, other)
	rekeyed := New(tbl.DB(), thingsSchema, func(o *Options) { o.CursorKey = []byte("another secret") })

	cases := []struct {
		name   string
		tbl    *Table
		q      Query
		cursor string
	}{
		{"payload byte flipped", tbl, Query{Partition: "A", Limit: 3}, flip(len(raw) - 3)},
		{"MAC byte flipped", tbl, Query{Partition: "A", Limit: 3}, flip(3)},
		{"version changed", tbl, Query{Partition: "A", Limit: 3}, flip(0)},
		{"key swapped", tbl, Query{Partition: "A", Limit: 3}, base64.RawURLEncoding.EncodeToString(forged)},
		{"truncated", tbl, Query{Partition: "A", Limit: 3}, cursor[:len(cursor)/2]},
		{"not base64", tbl, Query{Partition: "A", Limit: 3}, "!!!not a cursor!!!"},
		{"padded", tbl, Query{Partition: "A", Limit: 3}, cursor + "=="},
		{"last character's spare bits set", tbl, Query{Partition: "A", Limit: 3}, spareBits(cursor)},
		{"empty JSON", tbl, Query{Partition: "A", Limit: 3}, base64.RawURLEncoding.EncodeToString([]byte("{}"))},
		{"other partition", tbl, Query{Partition: "B", Limit: 3}, cursor},
		{"other index", tbl, Query{Index: "GSI1", Partition: "A", Limit: 3}, cursor},
		{"other direction", tbl, Query{Partition: "A", Limit: 3, Descending: true}, cursor},
		{"other sort condition", tbl, Query{Partition: "A", Limit: 3, Sort: SortBeginsWith("S#")}, cursor},
		{"other table", tbl, Query{Partition: "A", Limit: 3}, otherCursor},
		{"other cursor key", rekeyed, Query{Partition: "A", Limit: 3}, cursor},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := c.count("Query")
			page, err := QueryPage[thing](ctx, tc.tbl, tc.q, tc.cursor)
			require.ErrorIs(t, err, ErrInvalidCursor)
			require.Empty(t, page.Items)
			require.Empty(t, page.Next)
			require.Zero(t, c.count("Query")-before, "Query calls made with an invalid cursor")
		})
	}
}

func TestScanPageRejectsCursorFromAnotherSegment(t *testing.T) {
	tbl, c, _ := pagedThings(t)
	ctx := context.Background()
	p, err := ScanPage[thing](ctx, tbl, Scan{Limit: 2, Segment: 0, TotalSegments: 2}, "")
	require.NoError(t, err, "first page")
	require.NotEmpty(t, p.Next, "first page")
	before := c.count("Scan")
	_, err = ScanPage[thing](ctx, tbl, Scan{Limit: 2, Segment: 1, TotalSegments: 2}, p.Next)
	require.ErrorIs(t, err, ErrInvalidCursor)
	_, err = QueryPage[thing](ctx, tbl, Query{Partition: "A"}, p.Next)
	require.ErrorIs(t, err, ErrInvalidCursor, "a scan cursor given to a query")
	require.Equal(t, before, c.count("Scan"), "Scan requests sent with an invalid cursor")
	require.Zero(t, c.count("Query"), "Query requests sent with an invalid cursor")
}

func TestCursorWorksAcrossTableValuesWithTheSameKey(t *testing.T) {
	// Two Table values for one table and CursorKey (two service instances
	// behind a load balancer) accept each other's cursors.
	tbl, _, db := pagedThings(t, func(o *Options) { o.CursorKey = []byte("shared") })
	cursor := firstCursor(t, tbl)
	twin := New(db, thingsSchema, func(o *Options) { o.CursorKey = []byte("shared") })
	p, err := QueryPage[thing](context.Background(), twin, Query{Partition: "A", Limit: 3}, cursor)
	require.NoError(t, err)
	require.Len(t, p.Items, 3)
	require.Equal(t, "S#03", p.Items[0].SK, "the page after the cursor")
}

func BenchmarkCursorRoundTrip(b *testing.B) {
	tbl := New(nil, thingsSchema)
	spec := cursorSpec{binding: "query\x00Things\x00\x00S:A\x00", attrs: tbl.keyAttrs()}
	item, _ := Marshal(thing{PK: "JOURNEY#01HZX3", SK: "STAGE#03#transform"})
	for b.Loop() {
		c, err := tbl.encodeCursor(spec, item)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tbl.decodeCursor(spec, c); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodeCursor: no input panics, and nothing but a cursor the table
// issued for the same query is accepted.
func FuzzDecodeCursor(f *testing.F) {
	tbl := New(nil, thingsSchema)
	spec := cursorSpec{binding: "query\x00Things\x00\x00S:A\x00", attrs: tbl.keyAttrs()}
	item, _ := Marshal(thing{PK: "A", SK: "S#01"})
	good, _ := tbl.encodeCursor(spec, item)
	f.Add(good)
	f.Add("")
	f.Add("AQ")
	f.Add(good[:len(good)-1])
	f.Fuzz(func(t *testing.T, cursor string) {
		key, err := tbl.decodeCursor(spec, cursor)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidCursor)
			return
		}
		again, err := tbl.encodeCursor(spec, key)
		require.NoError(t, err)
		require.Equal(t, cursor, again, "accepted a cursor the table never issued")
	})
}

// spareBits changes the unused low bits of the last base64 character, which
// a lenient decoder ignores: the result decodes to the same bytes but is not
// the cursor the table issued.
func spareBits(c string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	if len(c)%4 == 0 {
		return c + "A" // no spare bits: any extra character is an alteration
	}
	i := strings.IndexByte(alphabet, c[len(c)-1])
	return c[:len(c)-1] + string(alphabet[i^1])
}
