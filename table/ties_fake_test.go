package table_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

func TestQueryTieBreakOnTheSortKeyIsRefusedBeforeAnyCall(t *testing.T) {
	_, tbl := fakeJobs(t)
	_, err := table.QueryPage[job](context.Background(), tbl, table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"GSI1SK"}}, "")
	var ie *table.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "query.TieBreak", ie.Field)
}

func TestQueryTieBreakMissingOrDuplicateFailsTheRead(t *testing.T) {
	_, tbl := fakeJobs(t)
	ctx := context.Background()
	// status is not unique among the ties, and one item lacks it.
	require.NoError(t, tbl.BatchWrite(ctx, []any{
		job{PK: "P", SK: "A", GSI1PK: "G", GSI1SK: "T", Status: "done"},
		job{PK: "P", SK: "B", GSI1PK: "G", GSI1SK: "T", Status: "done"},
	}, nil))
	q := table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"status"}, Limit: 5}
	_, err := table.QueryPage[job](ctx, tbl, q, "")
	assert.ErrorIs(t, err, table.ErrBadTieBreak, "duplicate tie-break values")
	for _, err := range table.QueryAll[job](ctx, tbl, q) {
		assert.ErrorIs(t, err, table.ErrBadTieBreak, "QueryAll")
	}

	q.TieBreak = []string{"owner"}
	_, err = table.QueryPage[job](ctx, tbl, q, "")
	assert.ErrorIs(t, err, table.ErrBadTieBreak, "missing tie-break attribute")
}

func TestQueryTieBreakOnANumberAttributeOrdersByValue(t *testing.T) {
	_, tbl := fakeJobs(t)
	ctx := context.Background()
	var puts []any
	for _, v := range []int{10, 9, 100, 1, 20} {
		puts = append(puts, job{PK: "P", SK: fmt.Sprintf("S%d", v), GSI1PK: "G", GSI1SK: "T", Version: v})
	}
	require.NoError(t, tbl.BatchWrite(ctx, puts, nil))
	q := table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"version"}, Limit: 2}
	var got []int
	cursor := ""
	for {
		page, err := table.QueryPage[job](ctx, tbl, q, cursor)
		require.NoError(t, err)
		for _, j := range page.Items {
			got = append(got, j.Version)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, []int{1, 9, 10, 20, 100}, got)
}

func TestQueryTieCursorIsBoundToItsQuery(t *testing.T) {
	_, tbl := fakeJobs(t)
	ctx := context.Background()
	var puts []any
	for i := range 5 {
		puts = append(puts, job{PK: "P", SK: fmt.Sprintf("S%d", i), GSI1PK: "G", GSI1SK: "T"})
	}
	require.NoError(t, tbl.BatchWrite(ctx, puts, nil))
	tied := table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"SK"}, Limit: 2}
	page, err := table.QueryPage[job](ctx, tbl, tied, "")
	require.NoError(t, err)
	require.NotEmpty(t, page.Next)

	plain := tied
	plain.TieBreak = nil
	_, err = table.QueryPage[job](ctx, tbl, plain, page.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a tie cursor on the query without TieBreak")
	other := tied
	other.TieBreak = []string{"PK"}
	_, err = table.QueryPage[job](ctx, tbl, other, page.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a tie cursor on another tie-break")
	desc := tied
	desc.Descending = true
	_, err = table.QueryPage[job](ctx, tbl, desc, page.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a tie cursor on the other direction")

	plainPage, err := table.QueryPage[job](ctx, tbl, plain, "")
	require.NoError(t, err)
	_, err = table.QueryPage[job](ctx, tbl, tied, plainPage.Next)
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "a plain cursor on the tie-broken query")

	altered := []byte(page.Next)
	altered[len(altered)-3] ^= 1
	_, err = table.QueryPage[job](ctx, tbl, tied, string(altered))
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "an altered cursor")
}

func TestQueryTieRunOverMaxTieRunFailsInsteadOfGrowing(t *testing.T) {
	db, tbl := fakeJobs(t)
	ctx := context.Background()
	// Written straight to the fake, in one go: 10,001 items through
	// BatchWrite would only test batching.
	for i := range table.MaxTieRun + 1 {
		_, err := db.PutItem(ctx, putInput(tbl.Name(), fmt.Sprintf("S%05d", i)))
		require.NoError(t, err)
	}
	q := table.Query{Index: "GSI1", Partition: "G", TieBreak: []string{"SK"}, Limit: 10}
	_, err := table.QueryPage[job](ctx, tbl, q, "")
	assert.ErrorIs(t, err, table.ErrTooManyTies)
	q.TieBreak = nil
	page, err := table.QueryPage[job](ctx, tbl, q, "")
	require.NoError(t, err, "without a TieBreak nothing is bounded")
	assert.Len(t, page.Items, 10)
}

func putInput(tableName, sk string) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{TableName: &tableName, Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "P"}, "SK": &types.AttributeValueMemberS{Value: sk},
		"GSI1PK": &types.AttributeValueMemberS{Value: "G"}, "GSI1SK": &types.AttributeValueMemberS{Value: "T"},
	}}
}
