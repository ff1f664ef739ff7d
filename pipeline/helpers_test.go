package pipeline_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// start is where the fake's clock stands when a test begins: the seed's
// example time. It stands still until a test moves it with db.Advance.
var start = time.Date(2022, 8, 10, 23, 55, 20, 322_000_000, time.UTC)

// env is a store on the in-memory fake, with an in-memory blob store served
// over httptest so presigned URLs work. The store's clock is the fake's
// (db.Now), which a test moves with db.Advance.
type env struct {
	store *pipeline.Store
	db    *dynamotest.DB
	blobs *blobstore.Memory
	srv   *httptest.Server
}

func newEnv(t testing.TB, opts ...func(*pipeline.Options)) *env {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	blobs := blobstore.NewMemory()
	srv := httptest.NewServer(blobs)
	t.Cleanup(srv.Close)
	require.NoError(t, blobs.EnablePresign(srv.URL))
	// No Clock: the store reads the fake's (table.ClockOf).
	s := newStore(t, db, blobs, opts...)
	require.NoError(t, s.EnsureTable(context.Background()))
	return &env{store: s, db: db, blobs: blobs, srv: srv}
}

// writeCalls counts the requests that write to DynamoDB.
func (e *env) writeCalls() int {
	n := 0
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"} {
		n += e.db.Calls(op)
	}
	return n
}

// calls counts every item request sent to DynamoDB.
func (e *env) calls() int {
	n := e.writeCalls()
	for _, op := range []string{"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"} {
		n += e.db.Calls(op)
	}
	return n
}

// snapshot is every item of the table rendered as text, keyed by pk and
// sk, for "nothing was written" checks.
func (e *env) snapshot(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for it, err := range table.ScanAll[map[string]any](context.Background(), e.store.Table(), table.Scan{}) {
		require.NoError(t, err)
		out[fmt.Sprint(it["pk"], "|", it["sk"])] = fmt.Sprint(it)
	}
	return out
}

func sortedIDs(ps []*pipeline.Pipeline) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	sort.Strings(ids)
	return ids
}

// newHTTPServer serves h for the test and returns its URL.
func newHTTPServer(t testing.TB, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// storedCounts is every tag aggregate in the table, zero counts included
// (the listings hide those), read with a scan.
func storedCounts(t testing.TB, e *env) map[string]int {
	t.Helper()
	out := map[string]int{}
	for it, err := range table.ScanAll[map[string]any](context.Background(), e.store.Table(), table.Scan{}) {
		require.NoError(t, err)
		pk, _ := it["pk"].(string)
		if key, ok := strings.CutPrefix(pk, "TA:"); ok {
			out[key+"="+strings.TrimPrefix(it["sk"].(string), "TA:")] = int(it["count"].(float64))
		}
	}
	return out
}

// newStore is pipeline.NewStore for arguments that must be valid.
func newStore(t testing.TB, db table.API, blobs blobstore.Store, opts ...func(*pipeline.Options)) *pipeline.Store {
	t.Helper()
	s, err := pipeline.NewStore(db, blobs, opts...)
	require.NoError(t, err)
	return s
}
