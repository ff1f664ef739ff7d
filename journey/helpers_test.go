package journey

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// ids hands out "PREFIX-1", "PREFIX-2", ... unless told the next id.
type ids struct {
	mu   sync.Mutex
	n    map[string]int
	next map[string][]string
}

func newIDs() *ids { return &ids{n: map[string]int{}, next: map[string][]string{}} }

func (g *ids) NewID(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if q := g.next[prefix]; len(q) > 0 {
		g.next[prefix] = q[1:]
		return q[0]
	}
	g.n[prefix]++
	return fmt.Sprintf("%s-%d", prefix, g.n[prefix])
}

// Queue makes the next ids with prefix be these.
func (g *ids) Queue(prefix string, idList ...string) {
	g.mu.Lock()
	g.next[prefix] = append(g.next[prefix], idList...)
	g.mu.Unlock()
}

var t0 = time.Date(2025, 11, 1, 20, 0, 0, 0, time.UTC)

type env struct {
	db      *dynamotest.DB
	logs    *blobstore.Memory
	reports *blobstore.Memory
	backups *blobstore.Memory
	ids     *ids
	store   *Store
}

// newEnv is a store on the fake with its table created, in-memory log and
// report stores, the fake's clock at 2025-11-01T20:00:00Z and counting ids.
func newEnv(t testing.TB, opts ...func(*Options)) *env {
	t.Helper()
	// Time comes from the fake, standing still at t0 until a test moves
	// it: its clock stamps items and expires TTLs alike.
	e := &env{db: dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } }), logs: blobstore.NewMemory(), reports: blobstore.NewMemory(), backups: blobstore.NewMemory(),
		ids: newIDs()}
	require.NoError(t, Schema("").Create(context.Background(), e.db))
	e.store = e.storeOn(t, e.db, opts...)
	e.db.ResetCalls()
	e.db.ResetConsumed()
	return e
}

// storeOn is a store like e's on api (e's fake behind a wrapper, say):
// the same blob stores, clock and ids.
func (e *env) storeOn(t testing.TB, api table.API, opts ...func(*Options)) *Store {
	t.Helper()
	return mustStore(t, api, e.logs, append([]func(*Options){func(o *Options) {
		o.Reports = e.reports
		o.Backups = e.backups
		if api != table.API(e.db) {
			// dynamotest's wrappers forward the fake's clock (table.ClockOf);
			// a test's own recorder is no table.Clock: the wrapped store is
			// given it.
			o.Clock = e.db.Now
		}
		o.NewID = e.ids.NewID
		o.Table = []func(*table.Options){func(to *table.Options) {
			to.Backoff = table.Backoff{Initial: time.Millisecond, Max: 10 * time.Millisecond}
		}}
	}}, opts...)...)
}

var allOps = []string{"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
	"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems"}

// calls is the number of DynamoDB requests of any kind since the last reset.
func (e *env) calls() int {
	n := 0
	for _, op := range allOps {
		n += e.db.Calls(op)
	}
	return n
}

// objects lists every key in a memory store.
func objects(t testing.TB, m blobstore.Store) []string {
	t.Helper()
	var keys []string
	for info, err := range m.List(context.Background(), "") {
		require.NoError(t, err)
		keys = append(keys, info.Key)
	}
	return keys
}

// newJourney creates the default journey "JRN-T" and returns it.
func (e *env) newJourney(t testing.TB) *Complete {
	t.Helper()
	c, err := e.store.Journeys().Create(context.Background(), NewJourney{ID: "JRN-T", Name: "Test journey",
		Configuration: Configuration{RetryAttempts: 5}})
	require.NoError(t, err)
	return c
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}

// inAnyOrder is Options.StagesInAnyOrder, for tests that run several
// stages of one journey at once.
func inAnyOrder(o *Options) { o.StagesInAnyOrder = true }

// mustStore is NewStore for a configuration the test knows to be good.
func mustStore(t testing.TB, db table.API, logs blobstore.Store, opts ...func(*Options)) *Store {
	t.Helper()
	s, err := NewStore(db, logs, opts...)
	require.NoError(t, err)
	return s
}

// collect gathers an iterator's items, stopping at its error.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// tableItems is every item of the store's table, strongly consistent,
// in a stable order: two calls compare equal exactly when nothing was
// written in between (on the fake and on DynamoDB Local alike).
func tableItems(t testing.TB, s *Store) []table.Item {
	t.Helper()
	var out []table.Item
	for item, err := range table.ScanAll[table.Item](context.Background(), s.t, table.Scan{Consistent: true}) {
		require.NoError(t, err)
		out = append(out, item)
	}
	slices.SortFunc(out, func(a, b table.Item) int {
		return cmp.Or(cmp.Compare(stringAttr(a, attrPK), stringAttr(b, attrPK)), cmp.Compare(stringAttr(a, attrSK), stringAttr(b, attrSK)))
	})
	return out
}
