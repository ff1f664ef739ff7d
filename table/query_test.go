package table

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allPages follows cursors from the first page to the last.
func allPages(t *testing.T, tbl *Table, q Query) (pages [][]string) {
	t.Helper()
	cursor := ""
	for range 100 {
		p, err := QueryPage[thing](context.Background(), tbl, q, cursor)
		require.NoError(t, err)
		var sks []string
		for _, it := range p.Items {
			sks = append(sks, it.SK)
		}
		pages = append(pages, sks)
		if p.Next == "" {
			return pages
		}
		cursor = p.Next
	}
	require.FailNow(t, "more than 100 pages")
	return nil
}

func TestQueryPageNextIsEmptyExactlyWhenNothingFollows(t *testing.T) {
	tbl, _, _ := pagedThings(t)
	cases := []struct {
		limit int32
		want  string
	}{
		{3, "[[S#00 S#01 S#02] [S#03 S#04 S#05] [S#06 S#07 S#08] [S#09]]"},
		// 10 items in pages of 5 and of 10: no trailing empty page.
		{5, "[[S#00 S#01 S#02 S#03 S#04] [S#05 S#06 S#07 S#08 S#09]]"},
		{10, "[[S#00 S#01 S#02 S#03 S#04 S#05 S#06 S#07 S#08 S#09]]"},
		{50, "[[S#00 S#01 S#02 S#03 S#04 S#05 S#06 S#07 S#08 S#09]]"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint("limit ", c.limit), func(t *testing.T) {
			require.Equal(t, c.want, fmt.Sprint(allPages(t, tbl, Query{Partition: "A", Limit: c.limit})), "pages")
		})
	}
}

func TestQueryPageDescending(t *testing.T) {
	tbl, _, _ := pagedThings(t)
	got := fmt.Sprint(allPages(t, tbl, Query{Partition: "B", Limit: 4, Descending: true}))
	require.Equal(t, "[[S#09 S#08 S#07 S#06] [S#05 S#04 S#03 S#02] [S#01 S#00]]", got, "pages")
}

func TestQueryPageWithoutLimitLooksAheadPastAFinalLastEvaluatedKey(t *testing.T) {
	// DynamoDB returns LastEvaluatedKey when a 1 MB page ends exactly at the
	// end of the partition; the page must still say nothing follows.
	tbl, _, db := pagedThings(t)
	db.pageEndKey = true
	p, err := QueryPage[thing](context.Background(), tbl, Query{Partition: "A"}, "")
	require.NoError(t, err)
	require.Len(t, p.Items, 10)
	require.Empty(t, p.Next, "no cursor after the last page")
	got := fmt.Sprint(allPages(t, tbl, Query{Partition: "A", Limit: 10}))
	require.Equal(t, "[[S#00 S#01 S#02 S#03 S#04 S#05 S#06 S#07 S#08 S#09]]", got, "pages")
}

func TestQueryPageOnIndexCarriesIndexKeysInCursor(t *testing.T) {
	tbl, _, _ := pagedThings(t)
	pages := allPages(t, tbl, Query{Index: "GSI1", Partition: "G", Limit: 7})
	n := 0
	for _, p := range pages {
		n += len(p)
	}
	require.Len(t, pages, 3, "pages %v", pages)
	require.Equal(t, 20, n, "items in pages %v", pages)
}

func TestQueryAllYieldsEveryItemOnce(t *testing.T) {
	tbl, c, _ := pagedThings(t)
	var sks []string
	for it, err := range QueryAll[thing](context.Background(), tbl, Query{Partition: "A", Limit: 4}) {
		require.NoError(t, err)
		sks = append(sks, it.SK)
	}
	require.Equal(t, "[S#00 S#01 S#02 S#03 S#04 S#05 S#06 S#07 S#08 S#09]", fmt.Sprint(sks), "items")
	assert.Equal(t, 3, c.count("Query"), "Query calls for 10 items in requests of 4")
}

func TestQueryAllStopsWhenTheLoopBreaks(t *testing.T) {
	tbl, c, _ := pagedThings(t)
	for range QueryAll[Item](context.Background(), tbl, Query{Partition: "A", Limit: 2}) {
		break
	}
	require.Equal(t, 1, c.count("Query"), "Query calls after breaking out of the first item")
}

func TestQueryRejectsBadInputBeforeSending(t *testing.T) {
	f := expression.Name("x").Equal(expression.Value(1))
	cases := map[string]Query{
		"nil partition":               {},
		"empty partition":             {Partition: ""},
		"numeric partition":           {Partition: 12},
		"unknown index":               {Index: "Nope", Partition: "A"},
		"negative limit":              {Partition: "A", Limit: -1},
		"consistent read on index":    {Index: "GSI1", Partition: "G", Consistent: true},
		"sort value of wrong type":    {Partition: "A", Sort: SortGreater(3)},
		"empty begins_with":           {Partition: "A", Sort: SortBeginsWith("")},
		"empty between bound":         {Partition: "A", Sort: SortBetween("", "z")},
		"unmarshalable partition":     {Partition: func() {}},
		"invalid filter":              {Partition: "A", Filter: &expression.ConditionBuilder{}},
		"invalid projection":          {Partition: "A", Projection: &expression.ProjectionBuilder{}},
		"valid filter, bad partition": {Partition: nil, Filter: &f},
	}
	for name, q := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCalls(nil)
			tbl := New(c, thingsSchema)
			_, err := QueryPage[thing](context.Background(), tbl, q, "")
			mustInputError(t, err)
			for _, err := range QueryAll[thing](context.Background(), tbl, q) {
				mustInputError(t, err)
			}
			require.Zero(t, c.total(), "calls sent for bad input")
		})
	}
	noSort := Schema{Name: "NoSort", PartitionKey: Attribute{Name: "pk", Type: types.ScalarAttributeTypeS}}
	c := newCalls(nil)
	_, err := QueryPage[Item](context.Background(), New(c, noSort), Query{Partition: "A", Sort: SortEquals("x")}, "")
	mustInputError(t, err)
}

func TestQueryBuildsKeyConditionFromSchemaNames(t *testing.T) {
	cases := []struct {
		sort SortCondition
		want string
	}{
		{SortCondition{}, "#0 = :0"},
		{SortEquals("x"), "(#0 = :0) AND (#1 = :1)"},
		{SortBeginsWith("STAGE#"), "(#0 = :0) AND (begins_with (#1, :1))"},
		{SortBetween("a", "b"), "(#0 = :0) AND (#1 BETWEEN :1 AND :2)"},
		{SortLess("x"), "(#0 = :0) AND (#1 < :1)"},
		{SortLessOrEqual("x"), "(#0 = :0) AND (#1 <= :1)"},
		{SortGreater("x"), "(#0 = :0) AND (#1 > :1)"},
		{SortGreaterOrEqual("x"), "(#0 = :0) AND (#1 >= :1)"},
	}
	for _, c := range cases {
		in := sentQuery(t, Query{Index: "GSI1", Partition: "G", Sort: c.sort})
		assert.Equal(t, c.want, *in.KeyConditionExpression, "key condition")
		assert.Equal(t, "gsi1pk", in.ExpressionAttributeNames["#0"], "the index's key names")
		if c.sort.IsSet() {
			assert.Equal(t, "gsi1sk", in.ExpressionAttributeNames["#1"], "the index's key names")
		}
		assert.Equal(t, "GSI1", *in.IndexName)
	}
}

func TestQueryProjectionAlwaysReadsKeyAttributes(t *testing.T) {
	p := expression.NamesList(expression.Name("name"), expression.Name("pk"))
	in := sentQuery(t, Query{Index: "GSI1", Partition: "G", Projection: &p})
	projected := map[string]int{}
	for _, n := range in.ExpressionAttributeNames {
		projected[n]++
	}
	for _, n := range []string{"name", "pk", "sk", "gsi1pk", "gsi1sk"} {
		assert.Equal(t, 1, projected[n], "attribute %s named in %v (projection %q)", n, in.ExpressionAttributeNames, *in.ProjectionExpression)
	}
}

// queryRecorder keeps the last Query request and returns no items.
type queryRecorder struct {
	API
	last *dynamodb.QueryInput
}

func (r *queryRecorder) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.last = in
	return &dynamodb.QueryOutput{}, nil
}

// sentQuery runs q and returns the request it sent.
func sentQuery(t *testing.T, q Query) *dynamodb.QueryInput {
	t.Helper()
	rec := &queryRecorder{}
	_, err := QueryPage[Item](context.Background(), New(rec, thingsSchema), q, "")
	require.NoError(t, err)
	require.NotNil(t, rec.last, "a Query sent")
	return rec.last
}
