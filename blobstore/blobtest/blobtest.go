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
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
)

// Options adjust the suite to what a backend's server can check.
type Options struct {
	// UnverifiedSignatures: the server behind the store accepts presigned
	// requests without verifying their SigV4 signature (s3rver, gofakes3).
	// The suite then checks what a URL signs (the headers it binds) but not
	// that the server refuses a request that breaks them.
	UnverifiedSignatures bool
}

// UnverifiedSignatures sets Options.UnverifiedSignatures.
func UnverifiedSignatures() func(*Options) {
	return func(o *Options) { o.UnverifiedSignatures = true }
}

// Run runs every conformance test against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) blobstore.Store, opts ...func(*Options)) {
	var o Options
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
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
		{"EveryStoreRefusesTheSameKeys", testPortableKeyRule},
		{"NilAndZeroInputsAreErrorsNotPanics", testNilInputs},
		{"PresignedPutBindsContentLength", func(t *testing.T, s blobstore.Store) { testPresignBindsLength(t, s, o) }},
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
	require.NoError(t, s.Put(ctx, key, bytes.NewReader(body), opts...), "Put(%q)", key)
}

func get(t *testing.T, s blobstore.Store, key string, opts ...func(*blobstore.GetOptions)) ([]byte, blobstore.Info) {
	t.Helper()
	rc, info, err := s.Get(ctx, key, opts...)
	require.NoError(t, err, "Get(%q)", key)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err, "Get(%q): reading body", key)
	return b, info
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
		require.NoError(t, err, "List(%q)", prefix)
		out = append(out, info.Key)
	}
	return out
}

func testRoundTrip(t *testing.T, s blobstore.Store) {
	body := []byte("hello, blobstore\x00\xff binary too")
	put(t, s, "logs/job-1/run.log", body, blobstore.WithContentType("text/plain"))
	got, info := get(t, s, "logs/job-1/run.log")
	assert.Equal(t, body, got)
	assert.Equal(t, "logs/job-1/run.log", info.Key)
	assert.Equal(t, int64(len(body)), info.Size)
	assert.Equal(t, "text/plain", info.ContentType)
}

func testEmptyBody(t *testing.T, s blobstore.Store) {
	put(t, s, "empty", nil)
	got, info := get(t, s, "empty")
	assert.Empty(t, got)
	assert.Zero(t, info.Size)
}

func testReplace(t *testing.T, s blobstore.Store) {
	put(t, s, "k", []byte("first version"), blobstore.WithMetadata(map[string]string{"v": "1"}))
	before, err := s.Head(ctx, "k")
	require.NoError(t, err)
	put(t, s, "k", []byte("second"), blobstore.WithContentType("text/csv"))
	got, info := get(t, s, "k")
	assert.Equal(t, "second", string(got))
	assert.Equal(t, "text/csv", info.ContentType)
	assert.Empty(t, info.Metadata, "a replace does not keep the old metadata")
	assert.NotEqual(t, before.ETag, info.ETag, "ETag changes with the content")
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
		assert.Equal(t, c.want, string(got), "range(%d,%d)", c.off, c.n)
		assert.Equal(t, int64(len(body)), info.Size, "range(%d,%d): Info.Size is the whole object's", c.off, c.n)
	}
	got, _ := get(t, s, "r", blobstore.WithRange(int64(len(body)), 0))
	assert.Empty(t, got, "a range at the end reads nothing")
}

func testRangeInvalid(t *testing.T, s blobstore.Store) {
	put(t, s, "r", []byte("0123456789"))
	for _, r := range []blobstore.Range{{Offset: 11}, {Offset: -1}, {Offset: 0, Length: -2}} {
		_, _, err := s.Get(ctx, "r", blobstore.WithRange(r.Offset, r.Length))
		assert.ErrorIs(t, err, blobstore.ErrInvalidRange, "range %+v", r)
	}
	_, _, err := s.Get(ctx, "missing", blobstore.WithRange(0, 1))
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "range of a missing key")
}

func testHead(t *testing.T, s blobstore.Store) {
	start := time.Now().Add(-time.Minute)
	put(t, s, "h/report.json", []byte(`{"ok":true}`),
		blobstore.WithContentType("application/json"),
		blobstore.WithMetadata(map[string]string{"job-id": "42", "stage": "raw_analysis"}))
	info, err := s.Head(ctx, "h/report.json")
	require.NoError(t, err)
	assert.Equal(t, "h/report.json", info.Key)
	assert.Equal(t, int64(11), info.Size)
	assert.Equal(t, "application/json", info.ContentType)
	assert.Equal(t, map[string]string{"job-id": "42", "stage": "raw_analysis"}, info.Metadata)
	assert.NotEmpty(t, info.ETag)
	assert.False(t, info.LastModified.Before(start), "LastModified %v is before the Put", info.LastModified)
	_, gi := get(t, s, "h/report.json")
	assert.Equal(t, info.ETag, gi.ETag, "Get and Head agree")
	assert.Equal(t, info.ContentType, gi.ContentType, "Get and Head agree")
	assert.Equal(t, "42", gi.Metadata["job-id"], "Get and Head agree")
}

func testDefaultContentType(t *testing.T, s blobstore.Store) {
	put(t, s, "d", []byte("x"))
	info, err := s.Head(ctx, "d")
	require.NoError(t, err)
	assert.Equal(t, blobstore.DefaultContentType, info.ContentType)
}

func testMetadata(t *testing.T, s blobstore.Store) {
	md := map[string]string{"Owner": "Ana", "X-Trace": "a b c"}
	put(t, s, "m", []byte("x"), blobstore.WithMetadata(md))
	md["Owner"] = "changed after Put"
	info, err := s.Head(ctx, "m")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"owner": "Ana", "x-trace": "a b c"}, info.Metadata)
	info.Metadata["owner"] = "changed by reader"
	again, err := s.Head(ctx, "m")
	require.NoError(t, err)
	assert.Equal(t, "Ana", again.Metadata["owner"], "changing a returned Info's metadata changed the stored object")
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
		assert.ErrorIs(t, err, blobstore.ErrInvalidMetadata, "metadata %q", md)
	}
	_, err := s.Head(ctx, "bad-md")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "object after refused puts")
}

func testNotFound(t *testing.T, s blobstore.Store) {
	_, _, err := s.Get(ctx, "nope/missing")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "Get")
	_, err = s.Head(ctx, "nope/missing")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "Head")
	put(t, s, "nope/other", []byte("x"))
	_, err = s.Head(ctx, "nope")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "Head of a prefix of a key")
}

func testDelete(t *testing.T, s blobstore.Store) {
	put(t, s, "del/a", []byte("x"))
	put(t, s, "del/b", []byte("y"))
	require.NoError(t, s.Delete(ctx, "del/a"))
	_, err := s.Head(ctx, "del/a")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "Head after Delete")
	assert.NoError(t, s.Delete(ctx, "del/a"), "a second Delete succeeds")
	assert.Equal(t, []string{"del/b"}, keys(t, s, "del/"))
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
		assert.Equal(t, w, keys(t, s, prefix), "List(%q)", prefix)
	}
	for info, err := range s.List(ctx, "b/") {
		require.NoError(t, err)
		assert.Equal(t, "b/x", info.Key)
		assert.Equal(t, int64(7), info.Size)
		assert.NotEmpty(t, info.ETag)
		assert.False(t, info.LastModified.IsZero(), "LastModified")
		assert.Empty(t, info.ContentType, "List does not report content type (S3 does not list it)")
		assert.Nil(t, info.Metadata, "List does not report metadata (S3 does not list it)")
	}
}

func testListBreak(t *testing.T, s blobstore.Store) {
	for i := range 5 {
		put(t, s, fmt.Sprintf("p/%d", i), []byte("x"))
	}
	n := 0
	for _, err := range s.List(ctx, "p/") {
		require.NoError(t, err)
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n, "List stops when the caller breaks")
}

// assertKeyError checks err is a *KeyError wrapping ErrInvalidKey.
func assertKeyError(t *testing.T, err error, msgAndArgs ...any) {
	t.Helper()
	var ke *blobstore.KeyError
	assert.ErrorAs(t, err, &ke, msgAndArgs...)
	assert.ErrorIs(t, err, blobstore.ErrInvalidKey, msgAndArgs...)
}

// refusedEverywhere checks every operation refuses key before any I/O and
// that nothing was stored.
func refusedEverywhere(t *testing.T, s blobstore.Store, name, key string) {
	t.Helper()
	assertKeyError(t, s.Put(ctx, key, strings.NewReader("x")), "Put with %s key %q", name, key)
	_, _, err := s.Get(ctx, key)
	assertKeyError(t, err, "Get with %s key %q", name, key)
	_, err = s.Head(ctx, key)
	assertKeyError(t, err, "Head with %s key %q", name, key)
	assertKeyError(t, s.Delete(ctx, key), "Delete with %s key %q", name, key)
	_, err = s.PresignGet(ctx, key, time.Minute)
	assertKeyError(t, err, "PresignGet with %s key %q", name, key)
	_, err = s.PresignPut(ctx, key, time.Minute, blobstore.WithSize(1))
	assertKeyError(t, err, "PresignPut with %s key %q", name, key)
}

func testBadKeys(t *testing.T, s blobstore.Store) {
	bad := map[string]string{
		"empty":           "",
		"invalid UTF-8":   "logs/\xff\xfe",
		"over 1024 bytes": strings.Repeat("k/", 512) + "x",
	}
	for name, key := range bad {
		refusedEverywhere(t, s, name, key)
	}
	assert.Empty(t, keys(t, s, ""), "refused puts stored something")
}

// testPortableKeyRule: one key rule for every store (blobstore.ValidateKey).
// A key a directory store cannot hold as a path is refused by S3 and Memory
// too, so code tested on Memory cannot write a key that Dir, or a later
// copy to disk, would read as another path.
func testPortableKeyRule(t *testing.T, s blobstore.Store) {
	bad := map[string]string{
		"parent segment":       "../escape",
		"inner parent segment": "a/../../x",
		"lone parent":          "..",
		"dot segment":          "a/./b",
		"absolute path":        "/etc/passwd",
		"empty segment":        "a//b",
		"trailing slash":       "dir/",
		"backslash":            `..\x`,
		"NUL byte":             "a\x00b",
		"control character":    "line\nbreak",
		"DEL":                  "a\x7fb",
		"reserved segment":     ".blobstore/meta/x",
		"256-byte segment":     strings.Repeat("n", 256),
	}
	for name, key := range bad {
		refusedEverywhere(t, s, name, key)
		assert.ErrorIs(t, blobstore.ValidateKey(key), blobstore.ErrInvalidKey, "ValidateKey(%q) agrees with the store", key)
	}
	for _, prefix := range []string{"../", "/etc", "a//", "a\x00", ".blobstore/"} {
		for _, err := range s.List(ctx, prefix) {
			assertKeyError(t, err, "List(%q)", prefix)
		}
	}
	assert.Empty(t, keys(t, s, ""), "refused puts stored something")
	// What the rule allows: dots inside a segment, long segments, and a
	// '.blobstore' that is not the first segment. (A 255-byte segment is
	// valid, but s3rver, which keeps "<key>._S3rver_object" files, cannot
	// store one: the suite stores 200.)
	require.NoError(t, blobstore.ValidateKey(strings.Repeat("n", blobstore.MaxSegmentLength)))
	for _, key := range []string{"a/.hidden", "a/..b", "v1.2/x..y", strings.Repeat("n", 200), "x/.blobstore"} {
		require.NoError(t, blobstore.ValidateKey(key), key)
		put(t, s, key, []byte(key))
		got, _ := get(t, s, key)
		assert.Equal(t, key, string(got))
	}
}

// testNilInputs: bad input is a typed error, never a panic.
func testNilInputs(t *testing.T, s blobstore.Store) {
	err := s.Put(ctx, "nil-body", nil)
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "Put with a nil body")
	var nilCtx context.Context
	assert.ErrorIs(t, s.Put(nilCtx, "nil-ctx", strings.NewReader("x")), blobstore.ErrInvalidInput, "Put with a nil context")
	_, _, err = s.Get(nilCtx, "k")
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "Get with a nil context")
	_, err = s.Head(nilCtx, "k")
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "Head with a nil context")
	assert.ErrorIs(t, s.Delete(nilCtx, "k"), blobstore.ErrInvalidInput, "Delete with a nil context")
	for _, err := range s.List(nilCtx, "") {
		assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "List with a nil context")
	}
	_, err = s.PresignGet(nilCtx, "k", time.Minute)
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "PresignGet with a nil context")
	_, err = s.PresignPut(nilCtx, "k", time.Minute)
	assert.ErrorIs(t, err, blobstore.ErrInvalidInput, "PresignPut with a nil context")
	_, err = s.Head(ctx, "nil-body")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "a refused Put stored the object")

	// A nil option is skipped, as the AWS SDK does.
	require.NoError(t, s.Put(ctx, "nil-option", strings.NewReader("x"), nil))
	rc, _, err := s.Get(ctx, "nil-option", nil)
	require.NoError(t, err)
	rc.Close()
	_, err = blobstore.PutHeaders(nil)
	assert.NoError(t, err)

	err = s.Put(ctx, "too-big", strings.NewReader("x"), blobstore.WithSize(blobstore.MaxObjectSize+1))
	assert.ErrorIs(t, err, blobstore.ErrSizeMismatch, "a declared size over S3's 5 TiB")
}

func testGoodKeys(t *testing.T, s blobstore.Store) {
	long := strings.Repeat(strings.Repeat("x", 99)+"/", 10) + strings.Repeat("y", 14) // 1024 bytes
	for _, key := range []string{"données/été ü 日本.txt", "with space/and+plus=eq&amp", long} {
		put(t, s, key, []byte(key))
		got, info := get(t, s, key)
		assert.Equal(t, key, string(got))
		assert.Equal(t, key, info.Key)
		assert.Equal(t, []string{key}, keys(t, s, key), "List(%q)", key)
	}
}

func testSizeMismatch(t *testing.T, s blobstore.Store) {
	put(t, s, "sized", []byte("original"))
	for _, declared := range []int64{3, 100} {
		err := s.Put(ctx, "sized", strings.NewReader("ten bytes!"), blobstore.WithSize(declared))
		assert.ErrorIs(t, err, blobstore.ErrSizeMismatch, "10-byte body declared as %d", declared)
	}
	got, _ := get(t, s, "sized")
	assert.Equal(t, "original", string(got), "refused puts keep the object")
	put(t, s, "sized", []byte("ten bytes!"), blobstore.WithSize(10))
	got, _ = get(t, s, "sized")
	assert.Equal(t, "ten bytes!", string(got))
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
	require.Error(t, s.Put(ctx, "fb", &failingReader{n: 1000}), "Put with a failing body")
	got, _ := get(t, s, "fb")
	assert.Equal(t, "kept", string(got), "a failed Put keeps the previous object")
	require.Error(t, s.Put(ctx, "fb-new", &failingReader{n: 10}), "Put with a failing body")
	_, err := s.Head(ctx, "fb-new")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "object after a failed first Put")
}

func testCanceled(t *testing.T, s blobstore.Store) {
	c, cancel := context.WithCancel(ctx)
	cancel()
	err := s.Put(c, "canceled", strings.NewReader("x"))
	assert.ErrorIs(t, err, context.Canceled, "Put with a canceled context")
	_, err = s.Head(ctx, "canceled")
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "object after a canceled Put")
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
		require.NoError(t, err)
	}
	for i := range writers {
		got, _ := get(t, s, fmt.Sprintf("conc/own-%d", i))
		assert.True(t, bytes.Equal(got, bodies[i]), "conc/own-%d holds %d bytes not its writer's", i, len(got))
	}
	shared, _ := get(t, s, "conc/shared")
	whole := false
	for _, b := range bodies {
		whole = whole || bytes.Equal(shared, b)
	}
	assert.True(t, whole, "conc/shared holds a mix of writers' bodies, want exactly one")
	assert.Len(t, keys(t, s, "conc/"), writers+1)
}

func testLarge(t *testing.T, s blobstore.Store) {
	body := randomBytes(1 << 20)
	put(t, s, "large/1mb.bin", body, blobstore.WithSize(int64(len(body))))
	got, info := get(t, s, "large/1mb.bin")
	assert.True(t, bytes.Equal(got, body), "1 MB body came back as %d different bytes", len(got))
	assert.Equal(t, int64(1<<20), info.Size)
	part, _ := get(t, s, "large/1mb.bin", blobstore.WithRange(700_000, 1000))
	assert.True(t, bytes.Equal(part, body[700_000:701_000]), "range of the 1 MB body differs")
}

// send makes one HTTP request and returns its status and body.
func send(t *testing.T, method, u string, body io.Reader, length int64, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.ContentLength = length
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
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
	require.NoError(t, err)
	headers, err := blobstore.PutHeaders(opts...)
	require.NoError(t, err)
	const body = "uploaded by URL"
	status, msg := send(t, http.MethodPut, putURL, strings.NewReader(body), int64(len(body)), headers)
	require.Equal(t, http.StatusOK, status, "presigned PUT: %s", msg)
	got, info := get(t, s, "presigned/upload.txt")
	assert.Equal(t, body, string(got))
	assert.Equal(t, "text/plain", info.ContentType)
	assert.Equal(t, "url", info.Metadata["uploaded-by"])

	getURL, err := s.PresignGet(ctx, "presigned/upload.txt", 5*time.Minute)
	require.NoError(t, err)
	resp, err := http.Get(getURL)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "presigned GET")
	assert.Equal(t, body, string(b), "presigned GET")
	assert.Equal(t, "text/plain", resp.Header.Get("Content-Type"), "presigned GET")
}

// testPresignBindsLength: a presigned PUT made with WithSize accepts a
// body of exactly that length and nothing else, so a URL handed to a
// client cannot store more than was agreed.
func testPresignBindsLength(t *testing.T, s blobstore.Store, o Options) {
	opts := []func(*blobstore.PutOptions){blobstore.WithContentType("text/plain"), blobstore.WithSize(5)}
	u, err := s.PresignPut(ctx, "bound/five.txt", 5*time.Minute, opts...)
	if errors.Is(err, blobstore.ErrUnsupported) {
		t.Skipf("store does not presign: %v", err)
	}
	require.NoError(t, err)
	h, err := blobstore.PutHeaders(opts...)
	require.NoError(t, err)
	assert.Equal(t, "5", h.Get("Content-Length"), "PutHeaders names the bound length")
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	if signed := parsed.Query().Get("X-Amz-SignedHeaders"); signed != "" {
		assert.Contains(t, strings.Split(signed, ";"), "content-length", "a SigV4 URL signs the length")
	}
	if !o.UnverifiedSignatures {
		for _, body := range []string{"four", "six..!", strings.Repeat("x", 64<<10)} {
			status, _ := send(t, http.MethodPut, u, strings.NewReader(body), int64(len(body)), h)
			assert.Equal(t, http.StatusForbidden, status, "PUT of %d bytes with a URL bound to 5", len(body))
		}
		_, err = s.Head(ctx, "bound/five.txt")
		assert.ErrorIs(t, err, blobstore.ErrNotFound, "a refused PUT stored the object")
	}
	status, msg := send(t, http.MethodPut, u, strings.NewReader("five!"), 5, h)
	require.Equal(t, http.StatusOK, status, "PUT of the bound length: %s", msg)
	got, _ := get(t, s, "bound/five.txt")
	assert.Equal(t, "five!", string(got))
}

func testPresignExpiry(t *testing.T, s blobstore.Store) {
	for _, d := range []time.Duration{0, -time.Second, blobstore.MaxPresignExpiry + time.Second} {
		_, err := s.PresignGet(ctx, "k", d)
		assert.ErrorIs(t, err, blobstore.ErrInvalidExpiry, "PresignGet expiring in %v", d)
		_, err = s.PresignPut(ctx, "k", d)
		assert.ErrorIs(t, err, blobstore.ErrInvalidExpiry, "PresignPut expiring in %v", d)
	}
}
