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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// The behaviour suite runs the same cases against every backend: DynamoDB
// Local (integration_test.go) and dynamotest's in-memory fake. A backend is
// a function that returns an API and a unique table name for one test.
type backend func(t *testing.T) (db table.API, tableName string)

// jobsSchema is shaped like the jobs design's jobs table: string keys, a GSI per
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
	require.NoError(t, s.EnsureTable(ctx, db), "EnsureTable")
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
		{"FailedTxCheckReturnsCurrentItemWhenAsked", testFailedTxCheckReturnsCurrentItem},
		{"CreateWithConditionTellsWhichPartFailed", testCreateWithConditionTellsWhichPartFailed},
		{"UpdateIfExistsOnMissingItemIsNotFound", testUpdateIfExistsOnMissingItem},
		{"UpdateCountsAndReturnsImages", testUpdateCountsAndReturnsImages},
		{"OptimisticLockingRejectsStaleVersion", testOptimisticLocking},
		{"DeleteReturnsOldAndIfExists", testDeleteReturnsOldAndIfExists},
		{"QuerySortConditionsSelectTheRightItems", testQuerySortConditions},
		{"QueryPagesWithFilterNeverEndOnEmptyPage", testQueryPagesWithFilter},
		{"QueryPagesCoverPartitionExactlyOnce", testQueryPagesCoverPartition},
		{"QueryIndexWithProjection", testQueryIndexWithProjection},
		{"QueryCountCountsWhatTheQueryReads", testQueryCount},
		{"QueryTiesPageExactlyOnceInTotalOrder", testQueryTiesPageExactlyOnce},
		{"QueryTiesResumeInsideRunsUnderEverySortCondition", testQueryTiesUnderSortConditions},
		{"QueryTiesAcrossTablePartitionsBreakByTheWholeTableKey", testQueryTiesAcrossPartitions},
		{"QueryKeepNeverEndsAPageWithACursorToNothing", testQueryKeep},
		{"ExpiredMeansOneThingInGoInConditionsAndInText", testExpiredMeansOneThing},
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
	require.NoError(t, tbl.Put(ctx, in))
	var out job
	require.NoError(t, tbl.Get(ctx, tbl.Key("USER#1", "JOB#1"), &out, table.Consistent()))
	require.Equal(t, in, out)
	var raw table.Item
	require.NoError(t, tbl.Get(ctx, tbl.Key("USER#1", "JOB#1"), &raw, table.Project("status")))
	require.NotContains(t, raw, "version", "projection returned %v, want status only (and keys)", raw)
	require.NotNil(t, raw["status"], "projection returned %v, want status only (and keys)", raw)
}

func testGetMissingIsNotFound(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	var out job
	err := tbl.Get(context.Background(), tbl.Key("USER#1", "JOB#404"), &out)
	require.ErrorIs(t, err, table.ErrNotFound)
	assert.ErrorContains(t, err, `JOB#404`, "message does not name the key")
}

func testCreateTwiceIsAlreadyExists(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	j := job{PK: "USER#1", SK: "JOB#1", Status: "queued"}
	require.NoError(t, tbl.Put(ctx, j, table.IfNotExists()))
	j.Status = "overwritten"
	err := tbl.Put(ctx, j, table.IfNotExists())
	require.ErrorIs(t, err, table.ErrAlreadyExists)
	require.ErrorIs(t, err, table.ErrConditionFailed)
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf)
	var got job
	require.NoError(t, tbl.Get(ctx, tbl.Key("USER#1", "JOB#1"), &got, table.Consistent()), "item after failed create")
	require.Equal(t, "queued", got.Status, "item after failed create = %+v; want it unchanged", got)
}

func testFailedConditionReturnsCurrentItem(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "J", Status: "running"}))
	cond := expression.Name("status").Equal(expression.Value("queued"))
	err := tbl.Put(ctx, job{PK: "U", SK: "J", Status: "done"}, table.If(cond), table.ItemOnConditionFailure())
	var te *table.Error
	require.ErrorAs(t, err, &te)
	require.ErrorIs(t, err, table.ErrConditionFailed)
	require.NotErrorIs(t, err, table.ErrAlreadyExists, "a plain failed condition matched an existence sentinel")
	require.NotErrorIs(t, err, table.ErrNotFound, "a plain failed condition matched an existence sentinel")
	var cur job
	require.NoError(t, table.Unmarshal(te.Item, &cur), "current item")
	require.Equal(t, "running", cur.Status, "current item = %+v", cur)
	// Without asking, no item rides along.
	err = tbl.Put(ctx, job{PK: "U", SK: "J", Status: "done"}, table.If(cond))
	require.ErrorAs(t, err, &te)
	require.Nil(t, te.Item, "item returned without ItemOnConditionFailure")
}

// A transaction's condition check returns the item as it was with its
// refusal when asked (ReturnValuesOnConditionCheckFailure ALL_OLD, no
// extra read), so a caller can say why without reading after the fact.
func testFailedTxCheckReturnsCurrentItem(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "J", Status: "running"}))
	cond := expression.Name("status").Equal(expression.Value("queued"))
	for _, ask := range []bool{true, false} {
		var opts []func(*table.WriteOptions)
		if ask {
			opts = append(opts, table.ItemOnConditionFailure())
		}
		err := tbl.WriteTx().Check(tbl.Key("U", "J"), cond, opts...).Put(job{PK: "U", SK: "J2", Status: "new"}).Run(ctx)
		var txe *table.TxError
		require.ErrorAs(t, err, &txe)
		require.ErrorIs(t, err, table.ErrConditionFailed)
		require.Len(t, txe.Reasons, 1)
		r := txe.Reasons[0]
		assert.Equal(t, "Check", r.Action)
		if !ask {
			assert.Nil(t, r.Item, "item returned without ItemOnConditionFailure")
			continue
		}
		var cur job
		require.NoError(t, table.Unmarshal(r.Item, &cur), "current item")
		assert.Equal(t, "running", cur.Status, "current item = %+v", cur)
	}
	var it table.Item
	require.ErrorIs(t, tbl.Get(ctx, tbl.Key("U", "J2"), &it, table.Consistent()), table.ErrNotFound, "the refused transaction wrote nothing")
}

func testCreateWithConditionTellsWhichPartFailed(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	never := expression.AttributeNotExists(expression.Name("status")).And(expression.Name("version").Equal(expression.Value(-1)))
	err := tbl.Put(ctx, job{PK: "U", SK: "J"}, table.IfNotExists(), table.If(never))
	require.ErrorIs(t, err, table.ErrConditionFailed)
	require.NotErrorIs(t, err, table.ErrAlreadyExists, "want ErrConditionFailed only (the item does not exist)")
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "J"}))
	err = tbl.Put(ctx, job{PK: "U", SK: "J"}, table.IfNotExists(), table.If(expression.Name("version").Equal(expression.Value(0))))
	require.ErrorIs(t, err, table.ErrAlreadyExists)
}

func testUpdateIfExistsOnMissingItem(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	u := expression.Set(expression.Name("status"), expression.Value("running"))
	err := tbl.Update(ctx, tbl.Key("U", "missing"), u, table.IfExists())
	require.ErrorIs(t, err, table.ErrNotFound)
	var got table.Item
	require.ErrorIs(t, tbl.Get(ctx, tbl.Key("U", "missing"), &got, table.Consistent()), table.ErrNotFound,
		"Update IfExists created the item: %v", got)
}

func testUpdateCountsAndReturnsImages(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	add := expression.Add(expression.Name("count"), expression.Value(1))
	var old, cur job
	for range 3 {
		require.NoError(t, tbl.Update(ctx, tbl.Key("U", "C"), add, table.ReturnNew(&cur)))
	}
	require.Equal(t, 3, cur.Count, "new image = %+v", cur)
	require.Equal(t, "U", cur.PK, "new image = %+v", cur)
	require.NoError(t, tbl.Update(ctx, tbl.Key("U", "C"), add, table.ReturnOld(&old)))
	require.Equal(t, 3, old.Count, "old image = %+v", old)
}

func testOptimisticLocking(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "V", Version: 1}))
	bump := func(from int) error {
		return tbl.Put(ctx, job{PK: "U", SK: "V", Version: from + 1},
			table.If(expression.Name("version").Equal(expression.Value(from))))
	}
	require.NoError(t, bump(1))
	require.ErrorIs(t, bump(1), table.ErrConditionFailed, "stale write")
}

func testDeleteReturnsOldAndIfExists(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "D", Status: "done"}))
	var old job
	require.NoError(t, tbl.Delete(ctx, tbl.Key("U", "D"), table.ReturnOld(&old)))
	require.Equal(t, "done", old.Status, "old = %+v", old)
	require.NoError(t, tbl.Delete(ctx, tbl.Key("U", "D")), "deleting a missing item: want success as in DynamoDB")
	require.ErrorIs(t, tbl.Delete(ctx, tbl.Key("U", "D"), table.IfExists()), table.ErrNotFound)
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
	require.NoError(t, tbl.BatchWrite(context.Background(), puts, nil))
}

func sks(t *testing.T, tbl *table.Table, q table.Query) []string {
	t.Helper()
	var out []string
	for j, err := range table.QueryAll[job](context.Background(), tbl, q) {
		require.NoError(t, err)
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
		got := fmt.Sprint(sks(t, tbl, table.Query{Partition: "J", Sort: c.sort, Consistent: true}))
		assert.Equal(t, c.want, got, "sort %+v", c.sort)
	}
	got := fmt.Sprint(sks(t, tbl, table.Query{Partition: "J", Sort: table.SortBeginsWith("STAGE#0"), Descending: true, Limit: 4}))
	assert.Equal(t, "[STAGE#09 STAGE#08 STAGE#07 STAGE#06 STAGE#05 STAGE#04 STAGE#03 STAGE#02 STAGE#01 STAGE#00]", got, "descending")
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
			require.LessOrEqual(t, pages, 10, "too many pages")
			p, err := table.QueryPage[job](context.Background(), tbl, q, cursor)
			require.NoError(t, err)
			require.NotEmpty(t, p.Items, "limit %d: empty page (after %v): a cursor led to nothing", limit, all)
			require.LessOrEqual(t, len(p.Items), int(limit), "limit %d: page size", limit)
			for _, j := range p.Items {
				all = append(all, j.SK)
			}
			if p.Next == "" {
				break
			}
			cursor = p.Next
		}
		assert.Equal(t, "[STAGE#00 STAGE#04 STAGE#08]", fmt.Sprint(all), "limit %d", limit)
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
			require.NoError(t, err)
			for _, j := range p.Items {
				all = append(all, j.SK)
			}
			if p.Next == "" {
				break
			}
			require.NotEmpty(t, p.Items, "limit %d: empty page with a cursor", limit)
			cursor = p.Next
		}
		if assert.Len(t, all, 12, "limit %d: want all 12 items once", limit) {
			assert.Equal(t, "RULE#a", all[0], "limit %d: got %v, want all 12 items once", limit, all)
			assert.Equal(t, "STAGE#09", all[11], "limit %d: got %v, want all 12 items once", limit, all)
		}
	}
}

// QueryCount counts what the query would return (Select COUNT), across
// pages: the big items make the whole partition more than DynamoDB's 1 MB
// page.
func testQueryCount(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	big := strings.Repeat("x", 100*1024)
	var puts []any
	for i := range 14 {
		puts = append(puts, job{PK: "BIG", SK: fmt.Sprintf("ITEM#%02d", i), Status: big})
	}
	require.NoError(t, tbl.BatchWrite(ctx, puts, nil))
	done := expression.Name("status").Equal(expression.Value("done"))
	proj := expression.NamesList(expression.Name("status"))
	for name, q := range map[string]table.Query{
		"partition":          {Partition: "J", Consistent: true},
		"sort condition":     {Partition: "J", Sort: table.SortBeginsWith("STAGE#"), Consistent: true},
		"sort range":         {Partition: "J", Sort: table.SortLessOrEqual("STAGE#04")},
		"filter":             {Partition: "J", Filter: &done, Consistent: true},
		"index, projection":  {Index: "GSI1", Partition: "STATUS#done", Projection: &proj, Limit: 1},
		"tie break, limit":   {Index: "GSI1", Partition: "STATUS#pending", TieBreak: []string{"SK"}, Limit: 2},
		"over one 1 MB page": {Partition: "BIG", Consistent: true},
		"empty":              {Partition: "NONE"},
	} {
		var want int64
		for _, err := range table.QueryAll[table.Item](ctx, tbl, q) {
			require.NoError(t, err, name)
			want++
		}
		got, err := table.QueryCount(ctx, tbl, q)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	_, err := table.QueryCount(ctx, tbl, table.Query{Index: "GSI1", Partition: "STATUS#done", Consistent: true})
	require.ErrorIs(t, err, table.ErrInvalidInput, "a consistent read of an index is refused before any request")
	_, err = table.QueryCount(ctx, tbl, table.Query{Partition: "J", Keep: func(table.Item) bool { return false }})
	require.ErrorIs(t, err, table.ErrInvalidInput, "a Go filter cannot judge items DynamoDB only counts")
	// Fields that change no count are still checked as QueryPage checks
	// them: the same query fails the same way on both paths.
	for name, q := range map[string]table.Query{
		"negative limit":        {Partition: "J", Limit: -1},
		"tie break named twice": {Partition: "J", TieBreak: []string{"status", "status"}},
		"empty tie break":       {Partition: "J", TieBreak: []string{""}},
	} {
		_, perr := table.QueryPage[table.Item](ctx, tbl, q, "")
		require.ErrorIs(t, perr, table.ErrInvalidInput, "%s: QueryPage", name)
		_, err := table.QueryCount(ctx, tbl, q)
		assert.ErrorIs(t, err, table.ErrInvalidInput, "%s: QueryCount refuses what QueryPage refuses", name)
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
		require.NoError(t, err)
		for _, it := range p.Items {
			require.NotContains(t, it, "version", "unprojected attribute returned: %v", it)
			var j job
			require.NoError(t, table.Unmarshal(it, &j))
			got = append(got, j.GSI1SK)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	require.Equal(t, "[J#00 J#04 J#08 K#00 K#04 K#08]", fmt.Sprint(got))
}

func testAlteredOrForeignCursor(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	ctx := context.Background()
	p, err := table.QueryPage[job](ctx, tbl, table.Query{Partition: "J", Limit: 3}, "")
	require.NoError(t, err, "first page")
	require.NotEmpty(t, p.Next, "first page: %v", p)
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
		assert.ErrorIs(t, err, table.ErrInvalidCursor, name)
		assert.Empty(t, page.Items, name)
	}
}

func testScanAndParallelScan(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	seedStages(t, tbl, "J")
	seedStages(t, tbl, "K")
	n := 0
	for _, err := range table.ScanAll[job](context.Background(), tbl, table.Scan{Limit: 5}) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 24, n, "items ScanAll saw")
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
	require.NoError(t, err)
	require.Len(t, seen, 24, "distinct items ParallelScan saw")
	for k, c := range seen {
		require.Equal(t, 1, c, "times %s seen", k)
	}
	stop := errors.New("stop")
	var calls atomic.Int32
	err = table.ParallelScan(context.Background(), tbl, 3, func(context.Context, int, table.Item) error {
		calls.Add(1)
		return stop
	})
	require.ErrorIs(t, err, stop, "want the callback's error")
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
	require.NoError(t, tbl.BatchWrite(ctx, puts, nil))
	for i := range 120 {
		j := puts[119-i].(job)
		keys[i] = tbl.Key(j.PK, j.SK)
	}
	keys = append(keys, tbl.Key("U#0", "J#999"))
	got, err := table.BatchGet[job](ctx, tbl, keys, table.Consistent())
	require.NoError(t, err)
	require.Len(t, got, 120)
	for i, j := range got {
		require.Equal(t, 119-i, j.Version, "item %d version (key order)", i)
	}
	var dels []table.Key
	for _, p := range puts[:100] {
		dels = append(dels, tbl.Key(p.(job).PK, p.(job).SK))
	}
	require.NoError(t, tbl.BatchWrite(ctx, nil, dels))
	left, err := table.BatchGet[job](ctx, tbl, keys, table.Consistent())
	require.NoError(t, err, "after deleting 100")
	require.Len(t, left, 20, "after deleting 100")
}

func testWriteTxAllOrNothing(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "COUNTER", Count: 1}))
	err := tbl.WriteTx().
		Create(job{PK: "U", SK: "JOB#1", Status: "queued"}).
		Update(tbl.Key("U", "COUNTER"), expression.Add(expression.Name("count"), expression.Value(1))).
		Check(tbl.Key("U", "COUNTER"), expression.Name("count").Equal(expression.Value(1))).
		Run(ctx)
	require.ErrorContains(t, err, "one action per item", "want the one-action-per-item rule")
	require.NoError(t, tbl.WriteTx().
		Create(job{PK: "U", SK: "JOB#1", Status: "queued"}).
		Update(tbl.Key("U", "COUNTER"), expression.Add(expression.Name("count"), expression.Value(1)), table.IfExists()).
		Run(ctx))
	// The create fails now, so the counter must not move either.
	err = tbl.WriteTx().
		Update(tbl.Key("U", "COUNTER"), expression.Add(expression.Name("count"), expression.Value(1))).
		Create(job{PK: "U", SK: "JOB#1", Status: "again"}).
		Run(ctx)
	require.ErrorIs(t, err, table.ErrTransactionCanceled)
	require.ErrorIs(t, err, table.ErrAlreadyExists)
	var c job
	require.NoError(t, tbl.Get(ctx, tbl.Key("U", "COUNTER"), &c, table.Consistent()), "counter")
	require.Equal(t, 2, c.Count, "counter: the canceled transaction was applied in part")
}

func testWriteTxErrorNamesFailedAction(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "A", Status: "running"}))
	err := tbl.WriteTx().
		Put(job{PK: "U", SK: "B"}).
		Check(tbl.Key("U", "A"), expression.Name("status").Equal(expression.Value("queued"))).
		Delete(tbl.Key("U", "C")).
		Run(ctx)
	var txe *table.TxError
	require.ErrorAs(t, err, &txe, "err (%T), want *TxError", err)
	require.Len(t, txe.Reasons, 1, "want exactly the Check")
	r := txe.Reasons[0]
	require.Equal(t, 1, r.Index, "reason = %+v", r)
	require.Equal(t, "Check", r.Action, "reason = %+v", r)
	require.Equal(t, "ConditionalCheckFailed", r.Code, "reason = %+v", r)
	require.Contains(t, r.Key, `SK="A"`, "reason = %+v", r)
	require.ErrorIs(t, err, table.ErrConditionFailed)
	require.NotErrorIs(t, err, table.ErrAlreadyExists)
	assert.ErrorContains(t, err, `action 1 Check (PK="U", SK="A"): ConditionalCheckFailed`, "message does not name the failed action")
	var b job
	require.ErrorIs(t, tbl.Get(ctx, tbl.Key("U", "B"), &b, table.Consistent()), table.ErrNotFound,
		"the Put of a canceled transaction was applied")
}

func testGetTx(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "A", Version: 1}))
	require.NoError(t, tbl.Put(ctx, job{PK: "U", SK: "B", Version: 2}))
	var a, b, c job
	require.NoError(t, tbl.GetTx().Get(tbl.Key("U", "A"), &a).Get(tbl.Key("U", "B"), &b).Run(ctx))
	require.Equal(t, 1, a.Version, "a = %+v", a)
	require.Equal(t, 2, b.Version, "b = %+v", b)
	err := tbl.GetTx().Get(tbl.Key("U", "A"), &a).Get(tbl.Key("U", "Z"), &c).Run(ctx)
	require.ErrorIs(t, err, table.ErrNotFound)
	require.ErrorContains(t, err, `SK="Z"`)
}

func testEnsureTable(t *testing.T, be backend) {
	db, name := be(t)
	ctx := context.Background()
	s := jobsSchema(name)
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	require.NoError(t, s.EnsureTable(ctx, db))
	require.NoError(t, s.EnsureTable(ctx, db), "second EnsureTable")
	require.ErrorIs(t, s.Create(ctx, db), table.ErrAlreadyExists, "Create of an existing table")
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	require.NoError(t, err)
	d := ttl.TimeToLiveDescription
	require.NotNil(t, d, "TTL: want enabled on expiresAt")
	require.Equal(t, "expiresAt", aws.ToString(d.AttributeName), "TTL = %+v", d)
	require.Contains(t, []types.TimeToLiveStatus{types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling}, d.TimeToLiveStatus,
		"TTL = %+v, want enabled", d)
	other := s
	other.SortKey = table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeN}
	require.ErrorIs(t, other.EnsureTable(ctx, db), table.ErrSchemaMismatch, "EnsureTable with other keys")
	missingIndex := s
	missingIndex.Indexes = append(missingIndex.Indexes, table.Index{Name: "GSI2",
		PartitionKey: table.Attribute{Name: "GSI2PK", Type: types.ScalarAttributeTypeS}})
	err = missingIndex.EnsureTable(ctx, db)
	require.ErrorIs(t, err, table.ErrSchemaMismatch, "EnsureTable with an index the table lacks")
	require.ErrorContains(t, err, "GSI2", "EnsureTable with an index the table lacks")
}

func testItemTooLarge(t *testing.T, be backend) {
	tbl := newJobs(t, be)
	ctx := context.Background()
	item := table.Item{
		"PK":   &types.AttributeValueMemberS{Value: "U"},
		"SK":   &types.AttributeValueMemberS{Value: "BIG"},
		"body": &types.AttributeValueMemberB{Value: make([]byte, table.MaxItemSize)},
	}
	err := tbl.Put(ctx, item)
	require.ErrorIs(t, err, table.ErrItemTooLarge, "want ErrItemTooLarge before sending")
	require.ErrorIs(t, err, table.ErrInvalidInput, "want ErrItemTooLarge before sending")
	// At the boundary our count agrees with the service: an item of exactly
	// 400 KB by ItemSize is stored, one byte more is refused by DynamoDB
	// itself (sent raw, past tablekit's check) as ErrItemTooLarge.
	item["body"] = &types.AttributeValueMemberB{Value: make([]byte, table.MaxItemSize-(2+1+2+3+4))}
	require.Equal(t, table.MaxItemSize, table.ItemSize(item), "test item size")
	require.NoError(t, tbl.Put(ctx, item), "item of exactly %d bytes rejected", table.MaxItemSize)
	item["body"] = &types.AttributeValueMemberB{Value: make([]byte, table.MaxItemSize-(2+1+2+3+4)+1)}
	_, err = tbl.DB().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl.Name()), Item: item})
	require.ErrorIs(t, table.WrapError("put", err), table.ErrItemTooLarge, "DynamoDB on an item of %d bytes", table.ItemSize(item))
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
			if extra == 0 {
				assert.NoError(t, err, "%s: item of exactly %d bytes by ItemSize refused", name, table.ItemSize(item))
			} else {
				assert.ErrorIs(t, err, table.ErrItemTooLarge, "%s: item of %d bytes by ItemSize", name, table.ItemSize(item))
			}
		}
	}
}
