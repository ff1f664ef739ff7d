package table_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// TestBehaviourInMemoryFake runs the behaviour suite against dynamotest,
// the fake that services test with: what passes on DynamoDB Local must
// pass there too.
func TestBehaviourInMemoryFake(t *testing.T) {
	db := dynamotest.New()
	var n atomic.Int64
	runBehaviour(t, func(t *testing.T) (table.API, string) {
		return db, fmt.Sprintf("behaviour-%d", n.Add(1))
	})
}

// fakeJobs is a fresh fake with the jobs table and quick backoff.
func fakeJobs(t *testing.T) (*dynamotest.DB, *table.Table) {
	t.Helper()
	db := dynamotest.New()
	s := jobsSchema("jobs")
	require.NoError(t, s.EnsureTable(context.Background(), db))
	return db, table.New(db, s, func(o *table.Options) {
		o.Backoff = table.Backoff{Initial: 50 * time.Microsecond, Max: time.Millisecond}
	})
}

func TestFakeBatchWriteStoresAllItemsWhenHalfOfEveryBatchIsUnprocessed(t *testing.T) {
	db, tbl := fakeJobs(t)
	ctx := context.Background()
	db.Inject(dynamotest.UnprocessedFraction("BatchWriteItem", 0.5))
	var puts []any
	for i := range 1000 {
		puts = append(puts, job{PK: fmt.Sprintf("USER#%d", i%10), SK: fmt.Sprintf("JOB#%04d", i), Version: i})
	}
	require.NoError(t, tbl.BatchWrite(ctx, puts, nil))
	db.ClearFaults()
	require.GreaterOrEqual(t, db.Calls("BatchWriteItem"), 80,
		"BatchWriteItem calls: with half of each batch unprocessed 1,000 items need at least 80")
	n := 0
	for j, err := range table.ScanAll[job](ctx, tbl, table.Scan{}) {
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("JOB#%04d", j.Version), j.SK, "item %+v corrupted", j)
		n++
	}
	require.Equal(t, 1000, n, "items stored")
	// And read back through BatchGet, also half unprocessed.
	db.Inject(dynamotest.UnprocessedFraction("BatchGetItem", 0.5))
	var keys []table.Key
	for _, p := range puts {
		keys = append(keys, tbl.Key(p.(job).PK, p.(job).SK))
	}
	got, err := table.BatchGet[job](ctx, tbl, keys)
	require.NoError(t, err, "BatchGet")
	require.Len(t, got, 1000, "BatchGet")
	for i, j := range got {
		require.Equal(t, i, j.Version, "BatchGet item %d: not in key order", i)
	}
}

func TestFakeCanceledContextStopsBatchRetriesWithItsError(t *testing.T) {
	db, tbl := fakeJobs(t)
	db.Inject(dynamotest.Throttle("BatchWriteItem", 0))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := tbl.BatchWrite(ctx, []any{job{PK: "U", SK: "J"}}, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var te *table.Error
	require.ErrorAs(t, err, &te)
	require.Len(t, te.Unprocessed, 1, "want the unwritten key listed")

	db.ClearFaults()
	db.Inject(dynamotest.UnprocessedFraction("BatchGetItem", 1))
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = table.BatchGet[job](ctx2, tbl, []table.Key{tbl.Key("U", "J")})
	require.ErrorIs(t, err, context.Canceled, "BatchGet")
}

func TestFakeInvalidCursorReadsNothing(t *testing.T) {
	db, tbl := fakeJobs(t)
	ctx := context.Background()
	var puts []any
	for _, u := range []string{"A", "B"} {
		for i := range 5 {
			puts = append(puts, job{PK: u, SK: fmt.Sprint(i), GSI1PK: u, GSI1SK: fmt.Sprint(i)})
		}
	}
	require.NoError(t, tbl.BatchWrite(ctx, puts, nil))
	p, err := table.QueryPage[job](ctx, tbl, table.Query{Partition: "A", Limit: 2}, "")
	require.NoError(t, err, "first page")
	require.NotEmpty(t, p.Next, "first page %+v", p)
	raw, _ := base64.RawURLEncoding.DecodeString(p.Next)
	raw[len(raw)-2] ^= 0x20
	altered := base64.RawURLEncoding.EncodeToString(raw)
	db.ResetCalls()
	for name, c := range map[string]struct {
		q      table.Query
		cursor string
	}{
		"altered":         {table.Query{Partition: "A", Limit: 2}, altered},
		"other partition": {table.Query{Partition: "B", Limit: 2}, p.Next},
		"other index":     {table.Query{Index: "GSI1", Partition: "A", Limit: 2}, p.Next},
	} {
		page, err := table.QueryPage[job](ctx, tbl, c.q, c.cursor)
		assert.ErrorIs(t, err, table.ErrInvalidCursor, name)
		assert.Empty(t, page.Items, name)
	}
	require.Zero(t, db.Calls("Query"), "Query calls with invalid cursors")
}

func TestFakeTransactionRetriesThrottlingUnderOneToken(t *testing.T) {
	db, tbl := fakeJobs(t)
	ctx := context.Background()
	db.Inject(dynamotest.Throttle("TransactWriteItems", 2))
	err := tbl.WriteTx().
		Create(job{PK: "U", SK: "J", Status: "queued"}).
		Put(job{PK: "U", SK: "COUNTER", Count: 1}).
		Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, db.Calls("TransactWriteItems"), "TransactWriteItems calls (two throttled)")
	var j job
	require.NoError(t, tbl.Get(ctx, tbl.Key("U", "J"), &j))
	require.Equal(t, "queued", j.Status, "%+v", j)
}

// The fake's HTTP server speaks DynamoDB's protocol: the suite's
// cornerstone cases hold over the wire through the real SDK client too.
func TestFakeOverHTTPWithRealClient(t *testing.T) {
	srv := dynamotest.NewServer()
	defer srv.Close()
	var client table.API = srv.Client()
	require.IsType(t, &dynamodb.Client{}, client, "Server.Client is not a *dynamodb.Client")
	var n atomic.Int64
	// The size boundary case sends 32 items of 400 KB; over HTTP it would
	// only test the wire, and the in-process run covers the fake's sizes.
	runBehaviour(t, func(t *testing.T) (table.API, string) {
		return client, fmt.Sprintf("http-%d", n.Add(1))
	}, "ItemSizeMatchesServiceAtLimit")
}
