package table_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

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
	if err := s.EnsureTable(context.Background(), db); err != nil {
		t.Fatal(err)
	}
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
	if err := tbl.BatchWrite(ctx, puts, nil); err != nil {
		t.Fatal(err)
	}
	db.ClearFaults()
	if calls := db.Calls("BatchWriteItem"); calls < 80 {
		t.Fatalf("%d BatchWriteItem calls: with half of each batch unprocessed 1,000 items need at least 80", calls)
	}
	n := 0
	for j, err := range table.ScanAll[job](ctx, tbl, table.Scan{}) {
		if err != nil {
			t.Fatal(err)
		}
		if j.SK != fmt.Sprintf("JOB#%04d", j.Version) {
			t.Fatalf("item %+v corrupted", j)
		}
		n++
	}
	if n != 1000 {
		t.Fatalf("%d items stored, want 1000", n)
	}
	// And read back through BatchGet, also half unprocessed.
	db.Inject(dynamotest.UnprocessedFraction("BatchGetItem", 0.5))
	var keys []table.Key
	for _, p := range puts {
		keys = append(keys, tbl.Key(p.(job).PK, p.(job).SK))
	}
	got, err := table.BatchGet[job](ctx, tbl, keys)
	if err != nil || len(got) != 1000 {
		t.Fatalf("BatchGet: %d items, %v", len(got), err)
	}
	for i, j := range got {
		if j.Version != i {
			t.Fatalf("BatchGet item %d has version %d: not in key order", i, j.Version)
		}
	}
}

func TestFakeCanceledContextStopsBatchRetriesWithItsError(t *testing.T) {
	db, tbl := fakeJobs(t)
	db.Inject(dynamotest.Throttle("BatchWriteItem", 0))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := tbl.BatchWrite(ctx, []any{job{PK: "U", SK: "J"}}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	var te *table.Error
	if !errors.As(err, &te) || len(te.Unprocessed) != 1 {
		t.Fatalf("err = %#v, want the unwritten key listed", err)
	}

	db.ClearFaults()
	db.Inject(dynamotest.UnprocessedFraction("BatchGetItem", 1))
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = table.BatchGet[job](ctx2, tbl, []table.Key{tbl.Key("U", "J")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BatchGet err = %v, want context.Canceled", err)
	}
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
	if err := tbl.BatchWrite(ctx, puts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := table.QueryPage[job](ctx, tbl, table.Query{Partition: "A", Limit: 2}, "")
	if err != nil || p.Next == "" {
		t.Fatalf("first page %+v, %v", p, err)
	}
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
		if !errors.Is(err, table.ErrInvalidCursor) || len(page.Items) != 0 {
			t.Errorf("%s: %d items, err %v; want none and ErrInvalidCursor", name, len(page.Items), err)
		}
	}
	if n := db.Calls("Query"); n != 0 {
		t.Fatalf("%d Query calls with invalid cursors, want 0", n)
	}
}

func TestFakeTransactionRetriesThrottlingUnderOneToken(t *testing.T) {
	db, tbl := fakeJobs(t)
	ctx := context.Background()
	db.Inject(dynamotest.Throttle("TransactWriteItems", 2))
	err := tbl.WriteTx().
		Create(job{PK: "U", SK: "J", Status: "queued"}).
		Put(job{PK: "U", SK: "COUNTER", Count: 1}).
		Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := db.Calls("TransactWriteItems"); n != 3 {
		t.Fatalf("%d TransactWriteItems calls, want 3 (two throttled)", n)
	}
	var j job
	if err := tbl.Get(ctx, tbl.Key("U", "J"), &j); err != nil || j.Status != "queued" {
		t.Fatalf("%+v, %v", j, err)
	}
}

// The fake's HTTP server speaks DynamoDB's protocol: the suite's
// cornerstone cases hold over the wire through the real SDK client too.
func TestFakeOverHTTPWithRealClient(t *testing.T) {
	srv := dynamotest.NewServer()
	defer srv.Close()
	var client table.API = srv.Client()
	if _, ok := client.(*dynamodb.Client); !ok {
		t.Fatal("Server.Client is not a *dynamodb.Client")
	}
	var n atomic.Int64
	// The size boundary case sends 32 items of 400 KB; over HTTP it would
	// only test the wire, and the in-process run covers the fake's sizes.
	runBehaviour(t, func(t *testing.T) (table.API, string) {
		return client, fmt.Sprintf("http-%d", n.Add(1))
	}, "ItemSizeMatchesServiceAtLimit")
}
