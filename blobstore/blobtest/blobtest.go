// Package blobtest is the conformance suite every blobstore.Store passes.
// A new backend (or a wrapper around one) runs it from its own tests:
//
//	func TestMyStore(t *testing.T) {
//		blobtest.Run(t, func(t *testing.T) blobstore.Store { return newMyStore(t) })
//	}
//
// newStore must return an empty store each time it is called; the suite
// calls it once per subtest, and subtests run in parallel. The suite uses
// only keys every store accepts (no key is also a "directory" of another),
// and skips the presign round trip when the store returns ErrUnsupported.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/blobstore"
)

// Run runs every conformance test against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) blobstore.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s blobstore.Store)
	}{
		{"PutThenGetReturnsSameBytes", testRoundTrip},
		{"EmptyBodyRoundTrips", testEmptyBody},
		{"PutReplacesExistingObject", testReplace},
		{"GetRangeReturnsSlice", testRange},
		{"GetRangeOutOfBoundsIsInvalidRange", testRangeInvalid},
		{"HeadReportsSizeTypeMetadata", testHead},
		{"ContentTypeDefaultsToOctetStream", testDefaultContentType},
		{"MetadataKeysAreLowerCasedAndCopied", testMetadata},
		{"InvalidMetadataStoresNothing", testInvalidMetadata},
		{"MissingKeyIsNotFound", testNotFound},
		{"DeleteRemovesAndIsIdempotent", testDelete},
		{"ListByPrefixInKeyOrder", testList},
		{"ListStopsWhenCallerBreaks", testListBreak},
		{"BadKeysAreRefusedBeforeAnyWrite", testBadKeys},
		{"UnicodeAndMaxLengthKeysWork", testGoodKeys},
		{"SizeMismatchStoresNothing", testSizeMismatch},
		{"FailingBodyKeepsPreviousObject", testFailingBody},
		{"CanceledContextStoresNothing", testCanceled},
		{"ConcurrentPutsAllLand", testConcurrentPuts},
		{"OneMegabyteRoundTrips", testLarge},
		{"PresignedPutThenGetOverHTTP", testPresign},
		{"PresignExpiryIsBounded", testPresignExpiry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

var ctx = context.Background()

func put(t *testing.T, s blobstore.Store, key string, body []byte, opts ...func(*blobstore.PutOptions)) {
	t.Helper()
	if err := s.Put(ctx, key, bytes.NewReader(body), opts...); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func get(t *testing.T, s blobstore.Store, key string, opts ...func(*blobstore.GetOptions)) ([]byte, blobstore.Info) {
	t.Helper()
	rc, info, err := s.Get(ctx, key, opts...)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): reading body: %v", key, err)
	}
	return b, info
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

func keys(t *testing.T, s blobstore.Store, prefix string) []string {
	t.Helper()
	var out []string
	for info, err := range s.List(ctx, prefix) {
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		out = append(out, info.Key)
	}
	return out
}

func testRoundTrip(t *testing.T, s blobstore.Store) {
	body := []byte("hello, blobstore\x00\xff binary too")
	put(t, s, "logs/job-1/run.log", body, blobstore.WithContentType("text/plain"))
	got, info := get(t, s, "logs/job-1/run.log")
	if !bytes.Equal(got, body) {
		t.Fatalf("Get returned %q, want %q", got, body)
	}
	if info.Key != "logs/job-1/run.log" || info.Size != int64(len(body)) || info.ContentType != "text/plain" {
		t.Fatalf("Get info = %+v", info)
	}
}

func testEmptyBody(t *testing.T, s blobstore.Store) {
	put(t, s, "empty", nil)
	got, info := get(t, s, "empty")
	if len(got) != 0 || info.Size != 0 {
		t.Fatalf("empty object: got %d bytes, Size %d", len(got), info.Size)
	}
}

func testReplace(t *testing.T, s blobstore.Store) {
	put(t, s, "k", []byte("first version"), blobstore.WithMetadata(map[string]string{"v": "1"}))
	before, err := s.Head(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "k", []byte("second"), blobstore.WithContentType("text/csv"))
	got, info := get(t, s, "k")
	if string(got) != "second" || info.ContentType != "text/csv" || len(info.Metadata) != 0 {
		t.Fatalf("after replace: %q %+v", got, info)
	}
	if info.ETag == before.ETag {
		t.Fatalf("ETag %s did not change with the content", info.ETag)
	}
}

func testRange(t *testing.T, s blobstore.Store) {
	body := []byte("0123456789abcdefghij")
	put(t, s, "r", body)
	cases := []struct {
		off, n int64
		want   string
	}{
		{0, 5, "01234"},
		{5, 5, "56789"},
		{15, 0, "fghij"},     // to the end
		{18, 10, "ij"},       // cut short at the end
		{0, 0, string(body)}, // whole object
	}
	for _, c := range cases {
		got, info := get(t, s, "r", blobstore.WithRange(c.off, c.n))
		if string(got) != c.want {
			t.Errorf("range(%d,%d) = %q, want %q", c.off, c.n, got, c.want)
		}
		if info.Size != int64(len(body)) {
			t.Errorf("range(%d,%d): Info.Size = %d, want the whole object's %d", c.off, c.n, info.Size, len(body))
		}
	}
	got, _ := get(t, s, "r", blobstore.WithRange(int64(len(body)), 0))
	if len(got) != 0 {
		t.Errorf("range at the end returned %q, want nothing", got)
	}
}

func testRangeInvalid(t *testing.T, s blobstore.Store) {
	put(t, s, "r", []byte("0123456789"))
	for _, r := range []blobstore.Range{{Offset: 11}, {Offset: -1}, {Offset: 0, Length: -2}} {
		_, _, err := s.Get(ctx, "r", blobstore.WithRange(r.Offset, r.Length))
		wantErr(t, fmt.Sprintf("range %+v", r), err, blobstore.ErrInvalidRange)
	}
	_, _, err := s.Get(ctx, "missing", blobstore.WithRange(0, 1))
	wantErr(t, "range of a missing key", err, blobstore.ErrNotFound)
}

func testHead(t *testing.T, s blobstore.Store) {
	start := time.Now().Add(-time.Minute)
	put(t, s, "h/report.json", []byte(`{"ok":true}`),
		blobstore.WithContentType("application/json"),
		blobstore.WithMetadata(map[string]string{"job-id": "42", "stage": "raw_analysis"}))
	info, err := s.Head(ctx, "h/report.json")
	if err != nil {
		t.Fatal(err)
	}
	if info.Key != "h/report.json" || info.Size != 11 || info.ContentType != "application/json" {
		t.Fatalf("Head = %+v", info)
	}
	if info.Metadata["job-id"] != "42" || info.Metadata["stage"] != "raw_analysis" || len(info.Metadata) != 2 {
		t.Fatalf("Head metadata = %v", info.Metadata)
	}
	if info.ETag == "" {
		t.Fatal("Head: empty ETag")
	}
	if info.LastModified.Before(start) {
		t.Fatalf("Head: LastModified %v is before the Put", info.LastModified)
	}
	_, gi := get(t, s, "h/report.json")
	if gi.ETag != info.ETag || gi.ContentType != info.ContentType || gi.Metadata["job-id"] != "42" {
		t.Fatalf("Get info %+v differs from Head %+v", gi, info)
	}
}

func testDefaultContentType(t *testing.T, s blobstore.Store) {
	put(t, s, "d", []byte("x"))
	info, err := s.Head(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if info.ContentType != blobstore.DefaultContentType {
		t.Fatalf("ContentType = %q, want %q", info.ContentType, blobstore.DefaultContentType)
	}
}

func testMetadata(t *testing.T, s blobstore.Store) {
	md := map[string]string{"Owner": "Ana", "X-Trace": "a b c"}
	put(t, s, "m", []byte("x"), blobstore.WithMetadata(md))
	md["Owner"] = "changed after Put"
	info, err := s.Head(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	if info.Metadata["owner"] != "Ana" || info.Metadata["x-trace"] != "a b c" || len(info.Metadata) != 2 {
		t.Fatalf("metadata = %v, want owner=Ana x-trace=a b c", info.Metadata)
	}
	info.Metadata["owner"] = "changed by reader"
	again, _ := s.Head(ctx, "m")
	if again.Metadata["owner"] != "Ana" {
		t.Fatal("changing a returned Info's metadata changed the stored object")
	}
}

func testInvalidMetadata(t *testing.T, s blobstore.Store) {
	bad := []map[string]string{
		{"": "v"},
		{"has space": "v"},
		{"under_score": "v"},
		{"k": "line\nbreak"},
		{"k": "naïve"},
		{"k": strings.Repeat("v", blobstore.MaxMetadataSize)},
		{"a": "1", "A": "2"},
	}
	for _, md := range bad {
		err := s.Put(ctx, "bad-md", strings.NewReader("x"), blobstore.WithMetadata(md))
		wantErr(t, fmt.Sprintf("metadata %q", md), err, blobstore.ErrInvalidMetadata)
	}
	_, err := s.Head(ctx, "bad-md")
	wantErr(t, "object after refused puts", err, blobstore.ErrNotFound)
}

func testNotFound(t *testing.T, s blobstore.Store) {
	_, _, err := s.Get(ctx, "nope/missing")
	wantErr(t, "Get", err, blobstore.ErrNotFound)
	_, err = s.Head(ctx, "nope/missing")
	wantErr(t, "Head", err, blobstore.ErrNotFound)
	put(t, s, "nope/other", []byte("x"))
	_, err = s.Head(ctx, "nope")
	wantErr(t, "Head of a prefix of a key", err, blobstore.ErrNotFound)
}

func testDelete(t *testing.T, s blobstore.Store) {
	put(t, s, "del/a", []byte("x"))
	put(t, s, "del/b", []byte("y"))
	if err := s.Delete(ctx, "del/a"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Head(ctx, "del/a")
	wantErr(t, "Head after Delete", err, blobstore.ErrNotFound)
	if err := s.Delete(ctx, "del/a"); err != nil {
		t.Fatalf("second Delete: %v, want nil", err)
	}
	if got := keys(t, s, "del/"); len(got) != 1 || got[0] != "del/b" {
		t.Fatalf("after Delete, List = %q, want [del/b]", got)
	}
}

func testList(t *testing.T, s blobstore.Store) {
	// '-' and '.' sort before '/', so a store that walks directories
	// depth-first would list a/b/c before a/b-c. No key is also a prefix
	// directory of another ("k" and "k/x"): a directory store cannot hold both.
	all := []string{"a/b/c", "a/b-c", "a/b.txt", "a/b/d/e", "a/ba", "a0", "b/x"}
	for i, k := range all {
		put(t, s, k, bytes.Repeat([]byte("z"), i+1), blobstore.WithContentType("text/plain"))
	}
	under := []string{"a/b-c", "a/b.txt", "a/b/c", "a/b/d/e", "a/ba"}
	want := map[string][]string{
		"":      append(append([]string{}, under...), "a0", "b/x"),
		"a/":    under,
		"a/b":   under,
		"a/b/":  {"a/b/c", "a/b/d/e"},
		"a":     append(append([]string{}, under...), "a0"),
		"c":     nil,
		"a/b/c": {"a/b/c"},
		"a/b/d": {"a/b/d/e"},
		"a/b.":  {"a/b.txt"},
	}
	for prefix, w := range want {
		got := keys(t, s, prefix)
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("List(%q) = %q, want %q", prefix, got, w)
		}
	}
	for info, err := range s.List(ctx, "b/") {
		if err != nil {
			t.Fatal(err)
		}
		if info.Key != "b/x" || info.Size != 7 || info.ETag == "" || info.LastModified.IsZero() {
			t.Errorf("listed %+v, want key, size, ETag and LastModified", info)
		}
		if info.ContentType != "" || info.Metadata != nil {
			t.Errorf("listed %+v: List must not report content type or metadata (S3 does not list them)", info)
		}
	}
}

func testListBreak(t *testing.T, s blobstore.Store) {
	for i := range 5 {
		put(t, s, fmt.Sprintf("p/%d", i), []byte("x"))
	}
	n := 0
	for _, err := range s.List(ctx, "p/") {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("saw %d items, want to stop at 2", n)
	}
}

func testBadKeys(t *testing.T, s blobstore.Store) {
	bad := map[string]string{
		"empty":           "",
		"invalid UTF-8":   "logs/\xff\xfe",
		"over 1024 bytes": strings.Repeat("k/", 512) + "x",
	}
	for name, key := range bad {
		checkKeyError := func(op string, err error) {
			t.Helper()
			var ke *blobstore.KeyError
			if !errors.As(err, &ke) || !errors.Is(err, blobstore.ErrInvalidKey) {
				t.Errorf("%s with %s key: got %v, want *KeyError wrapping ErrInvalidKey", op, name, err)
			}
		}
		checkKeyError("Put", s.Put(ctx, key, strings.NewReader("x")))
		_, _, err := s.Get(ctx, key)
		checkKeyError("Get", err)
		_, err = s.Head(ctx, key)
		checkKeyError("Head", err)
		checkKeyError("Delete", s.Delete(ctx, key))
		_, err = s.PresignGet(ctx, key, time.Minute)
		checkKeyError("PresignGet", err)
		_, err = s.PresignPut(ctx, key, time.Minute)
		checkKeyError("PresignPut", err)
	}
	if got := keys(t, s, ""); len(got) != 0 {
		t.Fatalf("refused puts stored %q", got)
	}
}

func testGoodKeys(t *testing.T, s blobstore.Store) {
	long := strings.Repeat(strings.Repeat("x", 99)+"/", 10) + strings.Repeat("y", 14) // 1024 bytes
	for _, key := range []string{"données/été ü 日本.txt", "with space/and+plus=eq&amp", long} {
		put(t, s, key, []byte(key))
		got, info := get(t, s, key)
		if string(got) != key || info.Key != key {
			t.Errorf("key %q: got body %q info key %q", key, got, info.Key)
		}
		if ks := keys(t, s, key); len(ks) != 1 || ks[0] != key {
			t.Errorf("List(%q) = %q", key, ks)
		}
	}
}

func testSizeMismatch(t *testing.T, s blobstore.Store) {
	put(t, s, "sized", []byte("original"))
	for _, declared := range []int64{3, 100} {
		err := s.Put(ctx, "sized", strings.NewReader("ten bytes!"), blobstore.WithSize(declared))
		wantErr(t, fmt.Sprintf("10-byte body declared as %d", declared), err, blobstore.ErrSizeMismatch)
	}
	if got, _ := get(t, s, "sized"); string(got) != "original" {
		t.Fatalf("after refused puts the object is %q, want the original", got)
	}
	put(t, s, "sized", []byte("ten bytes!"), blobstore.WithSize(10))
	if got, _ := get(t, s, "sized"); string(got) != "ten bytes!" {
		t.Fatalf("put with the right size stored %q", got)
	}
}

type failingReader struct{ n int }

var errBodyBroke = errors.New("body broke")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errBodyBroke
	}
	n := min(len(p), f.n)
	for i := range n {
		p[i] = 'x'
	}
	f.n -= n
	return n, nil
}

func testFailingBody(t *testing.T, s blobstore.Store) {
	put(t, s, "fb", []byte("kept"))
	if err := s.Put(ctx, "fb", &failingReader{n: 1000}); err == nil {
		t.Fatal("Put with a failing body returned nil")
	}
	if got, _ := get(t, s, "fb"); string(got) != "kept" {
		t.Fatalf("failed Put left %q, want the previous object", got)
	}
	if err := s.Put(ctx, "fb-new", &failingReader{n: 10}); err == nil {
		t.Fatal("Put with a failing body returned nil")
	}
	_, err := s.Head(ctx, "fb-new")
	wantErr(t, "object after a failed first Put", err, blobstore.ErrNotFound)
}

func testCanceled(t *testing.T, s blobstore.Store) {
	c, cancel := context.WithCancel(ctx)
	cancel()
	err := s.Put(c, "canceled", strings.NewReader("x"))
	wantErr(t, "Put with a canceled context", err, context.Canceled)
	_, err = s.Head(ctx, "canceled")
	wantErr(t, "object after a canceled Put", err, blobstore.ErrNotFound)
}

func testConcurrentPuts(t *testing.T, s blobstore.Store) {
	const writers = 8
	bodies := make([][]byte, writers)
	for i := range bodies {
		bodies[i] = bytes.Repeat([]byte{byte('a' + i)}, 64<<10)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for i := range writers {
		wg.Go(func() {
			errs <- s.Put(ctx, fmt.Sprintf("conc/own-%d", i), bytes.NewReader(bodies[i]))
			errs <- s.Put(ctx, "conc/shared", bytes.NewReader(bodies[i]))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range writers {
		if got, _ := get(t, s, fmt.Sprintf("conc/own-%d", i)); !bytes.Equal(got, bodies[i]) {
			t.Fatalf("conc/own-%d holds %d bytes not its writer's", i, len(got))
		}
	}
	shared, _ := get(t, s, "conc/shared")
	whole := false
	for _, b := range bodies {
		whole = whole || bytes.Equal(shared, b)
	}
	if !whole {
		t.Fatal("conc/shared holds a mix of writers' bodies, want exactly one")
	}
	if n := len(keys(t, s, "conc/")); n != writers+1 {
		t.Fatalf("List found %d objects, want %d", n, writers+1)
	}
}

func testLarge(t *testing.T, s blobstore.Store) {
	body := randomBytes(1 << 20)
	put(t, s, "large/1mb.bin", body, blobstore.WithSize(int64(len(body))))
	got, info := get(t, s, "large/1mb.bin")
	if !bytes.Equal(got, body) || info.Size != 1<<20 {
		t.Fatalf("1 MB body came back as %d bytes (equal=%v)", len(got), bytes.Equal(got, body))
	}
	part, _ := get(t, s, "large/1mb.bin", blobstore.WithRange(700_000, 1000))
	if !bytes.Equal(part, body[700_000:701_000]) {
		t.Fatal("range of the 1 MB body differs")
	}
}

func testPresign(t *testing.T, s blobstore.Store) {
	opts := []func(*blobstore.PutOptions){
		blobstore.WithContentType("text/plain"),
		blobstore.WithMetadata(map[string]string{"uploaded-by": "url"}),
	}
	putURL, err := s.PresignPut(ctx, "presigned/upload.txt", 5*time.Minute, opts...)
	if errors.Is(err, blobstore.ErrUnsupported) {
		t.Skipf("store does not presign: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	headers, err := blobstore.PutHeaders(opts...)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, putURL, strings.NewReader("uploaded by URL"))
	req.Header = headers
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned PUT: %s %s", resp.Status, msg)
	}
	got, info := get(t, s, "presigned/upload.txt")
	if string(got) != "uploaded by URL" || info.ContentType != "text/plain" || info.Metadata["uploaded-by"] != "url" {
		t.Fatalf("after presigned PUT: %q %+v", got, info)
	}

	getURL, err := s.PresignGet(ctx, "presigned/upload.txt", 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = http.Get(getURL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "uploaded by URL" {
		t.Fatalf("presigned GET: %s %q", resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain" {
		t.Fatalf("presigned GET: Content-Type %q, want text/plain", ct)
	}
}

func testPresignExpiry(t *testing.T, s blobstore.Store) {
	for _, d := range []time.Duration{0, -time.Second, blobstore.MaxPresignExpiry + time.Second} {
		_, err := s.PresignGet(ctx, "k", d)
		wantErr(t, fmt.Sprintf("PresignGet expiring in %v", d), err, blobstore.ErrInvalidExpiry)
		_, err = s.PresignPut(ctx, "k", d)
		wantErr(t, fmt.Sprintf("PresignPut expiring in %v", d), err, blobstore.ErrInvalidExpiry)
	}
}
