package table_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// The behaviour suite runs the same cases against every backend: DynamoDB
// Local (integration_test.go) and dynamotest's in-memory fake. A backend is
// a function that returns an API and a unique table name for one test.
type backend func(t *testing.T) (db table.API, tableName string)

// jobsSchema is shaped like seed 001's jobs table: string keys, a GSI per
// user, a TTL attribute.
func jobsSchema(name string) table.Schema {
	return table.Schema{
		Name:         name,
		PartitionKey: table.Attribute{Name: "PK", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeS},
		Indexes: []table.Index{{
			Name:         "GSI1",
			PartitionKey: table.Attribute{Name: "GSI1PK", Type: types.ScalarAttributeTypeS},
			SortKey:      table.Attribute{Name: "GSI1SK", Type: types.ScalarAttributeTypeS},
		}},
		TTLAttribute: "expiresAt",
	}
}

type job struct {
	PK      string `dynamodbav:"PK"`
	SK      string `dynamodbav:"SK"`
	GSI1PK  string `dynamodbav:"GSI1PK,omitempty"`
	GSI1SK  string `dynamodbav:"GSI1SK,omitempty"`
	Status  string `dynamodbav:"status"`
	Version int    `dynamodbav:"version"`
	Count   int    `dynamodbav:"count"`
}

// newJobs creates a fresh table on the backend.
func newJobs(t *testing.T, be backend) *table.Table {
	t.Helper()
	db, name := be(t)
	s := jobsSchema(name)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.EnsureTable(ctx, db); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return table.New(db, s, func(o *table.Options) {
		o.Backoff = table.Backoff{Initial: time.Millisecond, Max: 20 * time.Millisecond}
	})
}

// runBehaviour runs every case except those named in skip.
func runBehaviour(t *testing.T, be backend, skip ...string) {
	cases := []struct {
		name string
		fn   func(*testing.T, backend)
	}{
		{"PutThenGetRoundTrips", testPutThenGetRoundTrips},
		{"GetMissingIsNotFound", testGetMissingIsNotFound},
		{"CreateTwiceIsAlreadyExists", testCreateTwiceIsAlreadyExists},
		{"FailedConditionReturnsCurrentItemWhenAsked", testFailedConditionReturnsCurrentItem},
		{"CreateWithConditionTellsWhichPartFailed", testCreateWithConditionTellsWhichPartFailed},
		{"UpdateIfExistsOnMissingItemIsNotFound", testUpdateIfExistsOnMissingItem},
		{"UpdateCountsAndReturnsImages", testUpdateCountsAndReturnsImages},
		{"OptimisticLockingRejectsStaleVersion", testOptimisticLocking},
		{"DeleteReturnsOldAndIfExists", testDeleteReturnsOldAndIfExists},
		{"QuerySortConditionsSelectTheRightItems", testQuerySortConditions},
		{"QueryPagesWithFilterNeverEndOnEmptyPage", testQueryPagesWithFilter},
		{"QueryPagesCoverPartitionExactlyOnce", testQueryPagesCoverPartition},
		{"QueryIndexWithProjection", testQueryIndexWithProjection},
		{"QueryTiesPageExactlyOnceInTotalOrder", testQueryTiesPageExactlyOnce},
		{"QueryTiesResumeInsideRunsUnderEverySortCondition", testQueryTiesUnderSortConditions},
		{"AlteredOrForeignCursorIsInvalid", testAlteredOrForeignCursor},
		{"ScanAndParallelScanSeeEveryItem", testScanAndParallelScan},
		{"BatchWriteThenBatchGetInKeyOrder", testBatchWriteThenBatchGet},
		{"WriteTxAppliesAllOrNothing", testWriteTxAllOrNothing},
		{"WriteTxSpansTablesAllOrNothing", testWriteTxSpansTables},
		{"WriteTxErrorNamesFailedAction", testWriteTxErrorNamesFailedAction},
		{"GetTxReadsSnapshot", testGetTx},
		{"EnsureTableAcceptsMatchingAndRejectsOtherKeys", testEnsureTable},
		{"ItemTooLargeIsRejected", testItemTooLarge},
		{"ItemSizeMatchesServiceAtLimit", testItemSizeMatchesServiceAtLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if slices.Contains(skip, c.name) {
				t.Skip("not run on this backend")
			}
			c.fn(t, be)
		})
	}
}

func testPutThenGetRoundTrips(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	in := job{PK: "USER#1", SK: "JOB#1", Status: "queued", Version: 1}
	if err := tbl.Put(ctx, in); err != nil {
		t.Fatal(err)
	}
	var out job
	if err := tbl.Get(ctx, tbl.Key("USER#1", "JOB#1"), &out, table.Consistent()); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Fatalf("got %+v, want %+v", out, in)
	}
	var raw table.Item
	if err := tbl.Get(ctx, tbl.Key("USER#1", "JOB#1"), &raw, table.Project("status")); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["version"]; ok || raw["status"] == nil {
		t.Fatalf("projection returned %v, want status only (and keys)", raw)
	}
}

func testGetMissingIsNotFound(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	var out job
	err := tbl.Get(context.Background(), tbl.Key("USER#1", "JOB#404"), &out)
	if !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), `JOB#404`) {
		t.Errorf("message %q does not name the key", err)
	}
}

func testCreateTwiceIsAlreadyExists(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	j := job{PK: "USER#1", SK: "JOB#1", Status: "queued"}
	if err := tbl.Put(ctx, j, table.IfNotExists()); err != nil {
		t.Fatal(err)
	}
	j.Status = "overwritten"
	err := tbl.Put(ctx, j, table.IfNotExists())
	if !errors.Is(err, table.ErrAlreadyExists) || !errors.Is(err, table.ErrConditionFailed) {
		t.Fatalf("err = %v, want ErrAlreadyExists (and ErrConditionFailed)", err)
	}
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("err = %v does not reach *ConditionalCheckFailedException", err)
	}
	var got job
	if err := tbl.Get(ctx, tbl.Key("USER#1", "JOB#1"), &got, table.Consistent()); err != nil || got.Status != "queued" {
		t.Fatalf("item after failed create = %+v, %v; want it unchanged", got, err)
	}
}

func testFailedConditionReturnsCurrentItem(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	if err := tbl.Put(ctx, job{PK: "U", SK: "J", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	cond := expression.Name("status").Equal(expression.Value("queued"))
	err := tbl.Put(ctx, job{PK: "U", SK: "J", Status: "done"}, table.If(cond), table.ItemOnConditionFailure())
	var te *table.Error
	if !errors.As(err, &te) || !errors.Is(err, table.ErrConditionFailed) {
		t.Fatalf("err = %v, want *Error with ErrConditionFailed", err)
	}
	if errors.Is(err, table.ErrAlreadyExists) || errors.Is(err, table.ErrNotFound) {
		t.Fatalf("a plain failed condition matched an existence sentinel: %v", err)
	}
	var cur job
	if err := table.Unmarshal(te.Item, &cur); err != nil || cur.Status != "running" {
		t.Fatalf("current item = %+v (%v), want status running", cur, err)
	}
	// Without asking, no item rides along.
	err = tbl.Put(ctx, job{PK: "U", SK: "J", Status: "done"}, table.If(cond))
	if errors.As(err, &te); te.Item != nil {
		t.Fatalf("item returned without ItemOnConditionFailure: %v", te.Item)
	}
}

func testCreateWithConditionTellsWhichPartFailed(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	never := expression.AttributeNotExists(expression.Name("status")).And(expression.Name("version").Equal(expression.Value(-1)))
	err := tbl.Put(ctx, job{PK: "U", SK: "J"}, table.IfNotExists(), table.If(never))
	if !errors.Is(err, table.ErrConditionFailed) || errors.Is(err, table.ErrAlreadyExists) {
		t.Fatalf("err = %v, want ErrConditionFailed only (the item does not exist)", err)
	}
	if err := tbl.Put(ctx, job{PK: "U", SK: "J"}); err != nil {
		t.Fatal(err)
	}
	err = tbl.Put(ctx, job{PK: "U", SK: "J"}, table.IfNotExists(), table.If(expression.Name("version").Equal(expression.Value(0))))
	if !errors.Is(err, table.ErrAlreadyExists) {
		t.Fatalf("err = %v, want ErrAlreadyExists", err)
	}
}

func testUpdateIfExistsOnMissingItem(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	u := expression.Set(expression.Name("status"), expression.Value("running"))
	err := tbl.Update(ctx, tbl.Key("U", "missing"), u, table.IfExists())
	if !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	var got table.Item
	if err := tbl.Get(ctx, tbl.Key("U", "missing"), &got, table.Consistent()); !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("Update IfExists created the item: %v", got)
	}
}

func testUpdateCountsAndReturnsImages(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	add := expression.Add(expression.Name("count"), expression.Value(1))
	var old, cur job
	for range 3 {
		if err := tbl.Update(ctx, tbl.Key("U", "C"), add, table.ReturnNew(&cur)); err != nil {
			t.Fatal(err)
		}
	}
	if cur.Count != 3 || cur.PK != "U" {
		t.Fatalf("new image = %+v, want count 3", cur)
	}
	if err := tbl.Update(ctx, tbl.Key("U", "C"), add, table.ReturnOld(&old)); err != nil {
		t.Fatal(err)
	}
	if old.Count != 3 {
		t.Fatalf("old image = %+v, want count 3", old)
	}
}

func testOptimisticLocking(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	if err := tbl.Put(ctx, job{PK: "U", SK: "V", Version: 1}); err != nil {
		t.Fatal(err)
	}
	bump := func(from int) error {
		return tbl.Put(ctx, job{PK: "U", SK: "V", Version: from + 1},
			table.If(expression.Name("version").Equal(expression.Value(from))))
	}
	if err := bump(1); err != nil {
		t.Fatal(err)
	}
	if err := bump(1); !errors.Is(err, table.ErrConditionFailed) {
		t.Fatalf("stale write: err = %v, want ErrConditionFailed", err)
	}
}

func testDeleteReturnsOldAndIfExists(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	if err := tbl.Put(ctx, job{PK: "U", SK: "D", Status: "done"}); err != nil {
		t.Fatal(err)
	}
	var old job
	if err := tbl.Delete(ctx, tbl.Key("U", "D"), table.ReturnOld(&old)); err != nil {
		t.Fatal(err)
	}
	if old.Status != "done" {
		t.Fatalf("old = %+v", old)
	}
	if err := tbl.Delete(ctx, tbl.Key("U", "D")); err != nil {
		t.Fatalf("deleting a missing item: %v, want success as in DynamoDB", err)
	}
	if err := tbl.Delete(ctx, tbl.Key("U", "D"), table.IfExists()); !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

// seedStages writes STAGE#00..STAGE#09 and RULE#a, RULE#b in partition P.
func seedStages(t *testing.T, tbl *table.Table, partition string) {
	t.Helper()
	var puts []any
	for i := range 10 {
		status := "pending"
		if i%4 == 0 {
			status = "done"
		}
		puts = append(puts, job{PK: partition, SK: fmt.Sprintf("STAGE#%02d", i), Status: status, Version: i,
			GSI1PK: "STATUS#" + status, GSI1SK: fmt.Sprintf("%s#%02d", partition, i)})
	}
	puts = append(puts, job{PK: partition, SK: "RULE#a"}, job{PK: partition, SK: "RULE#b"})
	if err := tbl.BatchWrite(context.Background(), puts, nil); err != nil {
		t.Fatal(err)
	}
}

func sks(t *testing.T, tbl *table.Table, q table.Query) []string {
	t.Helper()
	var out []string
	for j, err := range table.QueryAll[job](context.Background(), tbl, q) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, j.SK)
	}
	return out
}

func testQuerySortConditions(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	cases := []struct {
		sort table.SortCondition
		want string
	}{
		{table.SortCondition{}, "[RULE#a RULE#b STAGE#00 STAGE#01 STAGE#02 STAGE#03 STAGE#04 STAGE#05 STAGE#06 STAGE#07 STAGE#08 STAGE#09]"},
		{table.SortEquals("STAGE#03"), "[STAGE#03]"},
		{table.SortBeginsWith("RULE#"), "[RULE#a RULE#b]"},
		{table.SortBetween("STAGE#02", "STAGE#04"), "[STAGE#02 STAGE#03 STAGE#04]"},
		{table.SortLess("STAGE#01"), "[RULE#a RULE#b STAGE#00]"},
		{table.SortLessOrEqual("RULE#b"), "[RULE#a RULE#b]"},
		{table.SortGreater("STAGE#08"), "[STAGE#09]"},
		{table.SortGreaterOrEqual("STAGE#08"), "[STAGE#08 STAGE#09]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(sks(t, tbl, table.Query{Partition: "J", Sort: c.sort, Consistent: true})); got != c.want {
			t.Errorf("sort %+v: got %s, want %s", c.sort, got, c.want)
		}
	}
	got := fmt.Sprint(sks(t, tbl, table.Query{Partition: "J", Sort: table.SortBeginsWith("STAGE#0"), Descending: true, Limit: 4}))
	if want := "[STAGE#09 STAGE#08 STAGE#07 STAGE#06 STAGE#05 STAGE#04 STAGE#03 STAGE#02 STAGE#01 STAGE#00]"; got != want {
		t.Errorf("descending: got %s, want %s", got, want)
	}
}

func testQueryPagesWithFilter(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	done := expression.Name("status").Equal(expression.Value("done")) // STAGE#00, #04, #08
	for _, limit := range []int32{1, 2, 3, 5} {
		q := table.Query{Partition: "J", Sort: table.SortBeginsWith("STAGE#"), Filter: &done, Limit: limit, Consistent: true}
		var all []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatal("too many pages")
			}
			p, err := table.QueryPage[job](context.Background(), tbl, q, cursor)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) == 0 {
				t.Fatalf("limit %d: empty page (after %v): a cursor led to nothing", limit, all)
			}
			if len(p.Items) > int(limit) {
				t.Fatalf("limit %d: page of %d", limit, len(p.Items))
			}
			for _, j := range p.Items {
				all = append(all, j.SK)
			}
			if p.Next == "" {
				break
			}
			cursor = p.Next
		}
		if got := fmt.Sprint(all); got != "[STAGE#00 STAGE#04 STAGE#08]" {
			t.Errorf("limit %d: got %s", limit, got)
		}
	}
}

func testQueryPagesCoverPartition(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	for _, limit := range []int32{0, 1, 4, 6, 12, 13} {
		var all []string
		cursor := ""
		for {
			p, err := table.QueryPage[job](context.Background(), tbl, table.Query{Partition: "J", Limit: limit, Consistent: true}, cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range p.Items {
				all = append(all, j.SK)
			}
			if p.Next == "" {
				break
			}
			if len(p.Items) == 0 {
				t.Fatalf("limit %d: empty page with a cursor", limit)
			}
			cursor = p.Next
		}
		if len(all) != 12 || all[0] != "RULE#a" || all[11] != "STAGE#09" {
			t.Errorf("limit %d: got %v, want all 12 items once", limit, all)
		}
	}
}

func testQueryIndexWithProjection(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	proj := expression.NamesList(expression.Name("status"))
	q := table.Query{Index: "GSI1", Partition: "STATUS#done", Limit: 2, Projection: &proj}
	var got []string
	cursor := ""
	for {
		p, err := table.QueryPage[table.Item](context.Background(), tbl, q, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			if _, ok := it["version"]; ok {
				t.Fatalf("unprojected attribute returned: %v", it)
			}
			var j job
			if err := table.Unmarshal(it, &j); err != nil {
				t.Fatal(err)
			}
			got = append(got, j.GSI1SK)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if want := "[J#00 J#04 J#08 K#00 K#04 K#08]"; fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

func testAlteredOrForeignCursor(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	ctx := context.Background()
	p, err := table.QueryPage[job](ctx, tbl, table.Query{Partition: "J", Limit: 3}, "")
	if err != nil || p.Next == "" {
		t.Fatalf("first page: %v, %v", p, err)
	}
	altered := []byte(p.Next)
	i := len(altered) / 2
	if altered[i] == 'A' {
		altered[i] = 'B'
	} else {
		altered[i] = 'A'
	}
	for name, c := range map[string]struct {
		q      table.Query
		cursor string
	}{
		"altered":         {table.Query{Partition: "J", Limit: 3}, string(altered)},
		"other partition": {table.Query{Partition: "K", Limit: 3}, p.Next},
		"other index":     {table.Query{Index: "GSI1", Partition: "J", Limit: 3}, p.Next},
	} {
		page, err := table.QueryPage[job](ctx, tbl, c.q, c.cursor)
		if !errors.Is(err, table.ErrInvalidCursor) || len(page.Items) != 0 {
			t.Errorf("%s: %d items, err %v; want none and ErrInvalidCursor", name, len(page.Items), err)
		}
	}
}

func testScanAndParallelScan(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	n := 0
	for _, err := range table.ScanAll[job](context.Background(), tbl, table.Scan{Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 24 {
		t.Fatalf("ScanAll saw %d items, want 24", n)
	}
	var (
		mu   sync.Mutex
		seen = map[string]int{}
	)
	err := table.ParallelScan(context.Background(), tbl, 4, func(_ context.Context, _ int, it table.Item) error {
		var j job
		if err := table.Unmarshal(it, &j); err != nil {
			return err
		}
		mu.Lock()
		seen[j.PK+j.SK]++
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 24 {
		t.Fatalf("ParallelScan saw %d distinct items, want 24", len(seen))
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("%s seen %d times", k, c)
		}
	}
	stop := errors.New("stop")
	var calls atomic.Int32
	err = table.ParallelScan(context.Background(), tbl, 3, func(context.Context, int, table.Item) error {
		calls.Add(1)
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's error", err)
	}
}

func testBatchWriteThenBatchGet(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	var puts []any
	var keys []table.Key
	for i := range 120 {
		puts = append(puts, job{PK: fmt.Sprintf("U#%d", i%3), SK: fmt.Sprintf("J#%03d", i), Version: i})
		keys = append(keys, table.Key{}) // filled below in reverse
	}
	if err := tbl.BatchWrite(ctx, puts, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		j := puts[119-i].(job)
		keys[i] = tbl.Key(j.PK, j.SK)
	}
	keys = append(keys, tbl.Key("U#0", "J#999"))
	got, err := table.BatchGet[job](ctx, tbl, keys, table.Consistent())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 120 {
		t.Fatalf("got %d items, want 120", len(got))
	}
	for i, j := range got {
		if j.Version != 119-i {
			t.Fatalf("item %d has version %d, want %d (key order)", i, j.Version, 119-i)
		}
	}
	var dels []table.Key
	for _, p := range puts[:100] {
		dels = append(dels, tbl.Key(p.(job).PK, p.(job).SK))
	}
	if err := tbl.BatchWrite(ctx, nil, dels); err != nil {
		t.Fatal(err)
	}
	left, err := table.BatchGet[job](ctx, tbl, keys, table.Consistent())
	if err != nil || len(left) != 20 {
		t.Fatalf("after deleting 100: %d items, %v; want 20", len(left), err)
	}
}

func testWriteTxAllOrNothing(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	if err := tbl.Put(ctx, job{PK: "U", SK: "COUNTER", Count: 1}); err != nil {
		t.Fatal(err)
	}
	err := tbl.WriteTx().
		Create(job{PK: "U", SK: "JOB#1", Status: "queued"}).
		Update(tbl.Key("U", "COUNTER"), expression.Add(expression.Name("count"), expression.Value(1))).
		Check(tbl.Key("U", "COUNTER"), expression.Name("count").Equal(expression.Value(1))).
		Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "one action per item") {
		t.Fatalf("err = %v, want the one-action-per-item rule", err)
	}
	if err := tbl.WriteTx().
		Create(job{PK: "U", SK: "JOB#1", Status: "queued"}).
		Update(tbl.Key("U", "COUNTER"), expression.Add(expression.Name("count"), expression.Value(1)), table.IfExists()).
		Run(ctx); err != nil {
		t.Fatal(err)
	}
	// The create fails now, so the counter must not move either.
	err = tbl.WriteTx().
		Update(tbl.Key("U", "COUNTER"), expression.Add(expression.Name("count"), expression.Value(1))).
		Create(job{PK: "U", SK: "JOB#1", Status: "again"}).
		Run(ctx)
	if !errors.Is(err, table.ErrTransactionCanceled) || !errors.Is(err, table.ErrAlreadyExists) {
		t.Fatalf("err = %v, want ErrTransactionCanceled and ErrAlreadyExists", err)
	}
	var c job
	if err := tbl.Get(ctx, tbl.Key("U", "COUNTER"), &c, table.Consistent()); err != nil || c.Count != 2 {
		t.Fatalf("counter = %d (%v), want 2: the canceled transaction was applied in part", c.Count, err)
	}
}

func testWriteTxErrorNamesFailedAction(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	if err := tbl.Put(ctx, job{PK: "U", SK: "A", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	err := tbl.WriteTx().
		Put(job{PK: "U", SK: "B"}).
		Check(tbl.Key("U", "A"), expression.Name("status").Equal(expression.Value("queued"))).
		Delete(tbl.Key("U", "C")).
		Run(ctx)
	var txe *table.TxError
	if !errors.As(err, &txe) {
		t.Fatalf("err = %v (%T), want *TxError", err, err)
	}
	if len(txe.Reasons) != 1 {
		t.Fatalf("reasons = %+v, want exactly the Check", txe.Reasons)
	}
	r := txe.Reasons[0]
	if r.Index != 1 || r.Action != "Check" || r.Code != "ConditionalCheckFailed" || !strings.Contains(r.Key, `SK="A"`) {
		t.Fatalf("reason = %+v, want action 1, Check, ConditionalCheckFailed, key SK=\"A\"", r)
	}
	if !errors.Is(err, table.ErrConditionFailed) || errors.Is(err, table.ErrAlreadyExists) {
		t.Fatalf("sentinels of %v are wrong", err)
	}
	if !strings.Contains(err.Error(), `action 1 Check (PK="U", SK="A"): ConditionalCheckFailed`) {
		t.Errorf("message %q does not name the failed action", err)
	}
	var b job
	if err := tbl.Get(ctx, tbl.Key("U", "B"), &b, table.Consistent()); !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("the Put of a canceled transaction was applied: %v", err)
	}
}

func testGetTx(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	if err := tbl.Put(ctx, job{PK: "U", SK: "A", Version: 1}); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Put(ctx, job{PK: "U", SK: "B", Version: 2}); err != nil {
		t.Fatal(err)
	}
	var a, b, c job
	if err := tbl.GetTx().Get(tbl.Key("U", "A"), &a).Get(tbl.Key("U", "B"), &b).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Version != 1 || b.Version != 2 {
		t.Fatalf("a = %+v, b = %+v", a, b)
	}
	err := tbl.GetTx().Get(tbl.Key("U", "A"), &a).Get(tbl.Key("U", "Z"), &c).Run(ctx)
	if !errors.Is(err, table.ErrNotFound) || !strings.Contains(err.Error(), `SK="Z"`) {
		t.Fatalf("err = %v, want ErrNotFound naming SK=\"Z\"", err)
	}
}

func testEnsureTable(t *testing.T, be backend) {
	db, name := be(t)
	ctx := context.Background()
	s := jobsSchema(name)
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	if err := s.EnsureTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureTable(ctx, db); err != nil {
		t.Fatalf("second EnsureTable: %v", err)
	}
	if err := s.Create(ctx, db); !errors.Is(err, table.ErrAlreadyExists) {
		t.Fatalf("Create of an existing table: %v, want ErrAlreadyExists", err)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d == nil || aws.ToString(d.AttributeName) != "expiresAt" ||
		(d.TimeToLiveStatus != types.TimeToLiveStatusEnabled && d.TimeToLiveStatus != types.TimeToLiveStatusEnabling) {
		t.Fatalf("TTL = %+v, want enabled on expiresAt", ttl.TimeToLiveDescription)
	}
	other := s
	other.SortKey = table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeN}
	if err := other.EnsureTable(ctx, db); !errors.Is(err, table.ErrSchemaMismatch) {
		t.Fatalf("EnsureTable with other keys: %v, want ErrSchemaMismatch", err)
	}
	missingIndex := s
	missingIndex.Indexes = append(missingIndex.Indexes, table.Index{Name: "GSI2",
		PartitionKey: table.Attribute{Name: "GSI2PK", Type: types.ScalarAttributeTypeS}})
	if err := missingIndex.EnsureTable(ctx, db); !errors.Is(err, table.ErrSchemaMismatch) || !strings.Contains(err.Error(), "GSI2") {
		t.Fatalf("EnsureTable with an index the table lacks: %v, want ErrSchemaMismatch naming GSI2", err)
	}
}

func testItemTooLarge(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	item := table.Item{
		"PK":   &types.AttributeValueMemberS{Value: "U"},
		"SK":   &types.AttributeValueMemberS{Value: "BIG"},
		"body": &types.AttributeValueMemberB{Value: make([]byte, table.MaxItemSize)},
	}
	if err := tbl.Put(ctx, item); !errors.Is(err, table.ErrItemTooLarge) || !errors.Is(err, table.ErrInvalidInput) {
		t.Fatalf("err = %v, want ErrItemTooLarge before sending", err)
	}
	// At the boundary our count agrees with the service: an item of exactly
	// 400 KB by ItemSize is stored, one byte more is refused by DynamoDB
	// itself (sent raw, past tablekit's check) as ErrItemTooLarge.
	item["body"] = &types.AttributeValueMemberB{Value: make([]byte, table.MaxItemSize-(2+1+2+3+4))}
	if size := table.ItemSize(item); size != table.MaxItemSize {
		t.Fatalf("test item is %d bytes, want %d", size, table.MaxItemSize)
	}
	if err := tbl.Put(ctx, item); err != nil {
		t.Fatalf("item of exactly %d bytes rejected: %v", table.MaxItemSize, err)
	}
	item["body"] = &types.AttributeValueMemberB{Value: make([]byte, table.MaxItemSize-(2+1+2+3+4)+1)}
	_, err := tbl.DB().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: item})
	if err := table.WrapError("put", err); !errors.Is(err, table.ErrItemTooLarge) {
		t.Fatalf("DynamoDB on an item of %d bytes: %v, want ErrItemTooLarge", table.ItemSize(item), err)
	}
}

// testItemSizeMatchesServiceAtLimit puts, for each kind of value, an item of
// exactly MaxItemSize by ItemSize (must be stored) and one a byte larger
// (must be refused by the service itself, sent past tablekit's check).
func testItemSizeMatchesServiceAtLimit(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	values := map[string]types.AttributeValue{
		"string":     &types.AttributeValueMemberS{Value: "héllo"},
		"number":     &types.AttributeValueMemberN{Value: "12345"},
		"negative":   &types.AttributeValueMemberN{Value: "-12345"},
		"fraction":   &types.AttributeValueMemberN{Value: "1.5"},
		"small":      &types.AttributeValueMemberN{Value: "0.012"},
		"zero":       &types.AttributeValueMemberN{Value: "0"},
		"trailing":   &types.AttributeValueMemberN{Value: "1000000"},
		"38 digits":  &types.AttributeValueMemberN{Value: "12345678901234567890123456789012345678"},
		"bool":       &types.AttributeValueMemberBOOL{Value: true},
		"null":       &types.AttributeValueMemberNULL{Value: true},
		"empty map":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"map":        &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"ab": &types.AttributeValueMemberS{Value: "xyz"}, "n": &types.AttributeValueMemberN{Value: "-1.5"}}},
		"list":       &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "ab"}, &types.AttributeValueMemberL{}}},
		"string set": &types.AttributeValueMemberSS{Value: []string{"a", "bcd"}},
		"number set": &types.AttributeValueMemberNS{Value: []string{"1", "-12.5"}},
		"binary set": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
	}
	for name, v := range values {
		item := table.Item{
			"PK": &types.AttributeValueMemberS{Value: "SIZE"},
			"SK": &types.AttributeValueMemberS{Value: name},
			"v":  v,
			"b":  &types.AttributeValueMemberB{},
		}
		pad := table.MaxItemSize - table.ItemSize(item)
		for _, extra := range []int{0, 1} {
			item["b"] = &types.AttributeValueMemberB{Value: make([]byte, pad+extra)}
			_, err := tbl.DB().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: item})
			err = table.WrapError("put", err)
			switch {
			case extra == 0 && err != nil:
				t.Errorf("%s: item of exactly %d bytes by ItemSize refused: %v", name, table.ItemSize(item), err)
			case extra == 1 && !errors.Is(err, table.ErrItemTooLarge):
				t.Errorf("%s: item of %d bytes by ItemSize: %v, want ErrItemTooLarge", name, table.ItemSize(item), err)
			}
		}
	}
}
