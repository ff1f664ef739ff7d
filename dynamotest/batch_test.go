package dynamotest_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

func keysFor(n int) []item {
	var keys []item
	for i := 0; i < n; i++ {
		keys = append(keys, item{"pk": S("p"), "n": N(fmt.Sprint(i))})
	}
	return keys
}

func TestBatchGetReturnsFoundItemsFromSeveralTables(t *testing.T) {
	db := newDB(t, numbered, simple)
	fill(t, db, "numbered", "p", 5, 1)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"numbered": {Keys: append(keysFor(5), item{"pk": S("p"), "n": N("99")}), ProjectionExpression: aws.String("n")},
		"simple":   {Keys: []item{{"pk": S("a"), "sk": S("b")}}, ConsistentRead: aws.Bool(true)},
	}})
	require.NoError(t, err)
	require.Falsef(t, len(out.Responses["numbered"]) != 5 || len(out.Responses["simple"]) != 1 || len(out.UnprocessedKeys) != 0, "responses %v unprocessed %v", out.Responses, out.UnprocessedKeys)
	assert.Lenf(t, out.Responses["numbered"][0], 1, "projection ignored: %v", out.Responses["numbered"][0])
}

func TestBatchLimits(t *testing.T) {
	db := newDB(t, numbered)
	// More than 100 keys for one table break the Keys member's constraint;
	// more than 100 over several tables are the call's own limit
	// (dynalite's AWS-written "when fetching more than 100 keys" tests).
	_, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"numbered": {Keys: keysFor(101)}}})
	wantValidation(t, err, "1 validation error detected: Value '[101 keys]' at 'requestItems.numbered.member.keys' failed to satisfy constraint: Member must have length less than or equal to 100")
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"numbered": {Keys: keysFor(100)}, "other": {Keys: keysFor(1)}}})
	wantValidation(t, err, "Too many items requested for the BatchGetItem call")
	dup := append(keysFor(2), keysFor(1)...)
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"numbered": {Keys: dup}}})
	wantValidation(t, err, "Provided list of item keys contains duplicates")

	var writes []types.WriteRequest
	for _, k := range keysFor(26) {
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: k}})
	}
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"numbered": writes}})
	wantValidation(t, err, "")
	writes = writes[:2]
	writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: keysFor(1)[0]}})
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"numbered": writes}})
	wantValidation(t, err, "Provided list of item keys contains duplicates")
	// One bad item rejects the whole batch before anything is written.
	writes = []types.WriteRequest{{PutRequest: &types.PutRequest{Item: keysFor(1)[0]}}, {PutRequest: &types.PutRequest{Item: item{"pk": S("p")}}}}
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"numbered": writes}})
	wantValidation(t, err, "One or more parameter values were invalid: Missing the key n in the item")
	it := get(t, db, "numbered", keysFor(1)[0])
	assert.Nilf(t, it, "rejected batch wrote %v", it)
}

func TestBatchWritePutsAndDeletes(t *testing.T) {
	db := newDB(t, numbered)
	fill(t, db, "numbered", "p", 3, 1)
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"numbered": {
		{DeleteRequest: &types.DeleteRequest{Key: item{"pk": S("p"), "n": N("0")}}},
		{PutRequest: &types.PutRequest{Item: item{"pk": S("p"), "n": N("7"), "v": S("new")}}},
	}}})
	require.Falsef(t, err != nil || len(out.UnprocessedItems) != 0, "%v %v", out, err)
	assert.False(t, get(t, db, "numbered", item{"pk": S("p"), "n": N("0")}) != nil || get(t, db, "numbered", item{"pk": S("p"), "n": N("7")}) == nil, "batch write not applied")
}

// batchWriteUntilDone retries UnprocessedItems as a client would and
// returns the number of calls it took.
func batchWriteUntilDone(t *testing.T, db *dynamotest.DB, req map[string][]types.WriteRequest) int {
	calls := 0
	for len(req) > 0 {
		calls++
		out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
		require.NoError(t, err)
		req = out.UnprocessedItems
		require.False(t, calls > 100, "no progress")
	}
	return calls
}

func TestUnprocessedFractionLeavesItemsForRetry(t *testing.T) {
	db := newDB(t, numbered)
	db.Inject(dynamotest.UnprocessedFraction("BatchWriteItem", 0.5))
	var writes []types.WriteRequest
	for _, k := range keysFor(20) {
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: k}})
	}
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"numbered": writes}})
	require.NoError(t, err)
	n := len(out.UnprocessedItems["numbered"])
	require.EqualValuesf(t, 10, n, "%d unprocessed, want 10", n)
	// The unprocessed ones were not written; the others were.
	assert.False(t, get(t, db, "numbered", keysFor(20)[19]) != nil || get(t, db, "numbered", keysFor(1)[0]) == nil, "unprocessed items were written, or processed ones were not")
	calls := batchWriteUntilDone(t, db, out.UnprocessedItems)
	assert.Falsef(t, calls < 2, "retries took %d calls", calls)
	scan, _ := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("numbered")})
	assert.EqualValuesf(t, 20, scan.Count, "%d items after retries, want 20", scan.Count)

	db.Inject(dynamotest.UnprocessedFraction("BatchGetItem", 1))
	got, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"numbered": {Keys: keysFor(4), ConsistentRead: aws.Bool(true)}}})
	require.NoError(t, err)
	assert.Falsef(t, len(got.Responses["numbered"]) != 0 || len(got.UnprocessedKeys["numbered"].Keys) != 4 || !aws.ToBool(got.UnprocessedKeys["numbered"].ConsistentRead), "responses %v unprocessed %+v", got.Responses, got.UnprocessedKeys)
	db.ClearFaults()
	got, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"numbered": {Keys: keysFor(4)}}})
	assert.Falsef(t, err != nil || len(got.Responses["numbered"]) != 4, "after ClearFaults: %v %v", got.Responses, err)
}

func TestBatchThrottledEntirely(t *testing.T) {
	db := newDB(t, numbered)
	db.Inject(dynamotest.Throttle("BatchGetItem", 1))
	_, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"numbered": {Keys: keysFor(1)}}})
	var pte *types.ProvisionedThroughputExceededException
	require.ErrorAsf(t, err, &pte, "want ProvisionedThroughputExceededException, got %v", err)
}

func TestBatchGetStopsBeforeSixteenMegabytes(t *testing.T) {
	db := newDB(t, simple)
	var keys []item
	for i := 0; i < 50; i++ {
		it := sized(fmt.Sprintf("%02d", i), 390*1024)
		put(t, db, "simple", it)
		keys = append(keys, item{"pk": it["pk"], "sk": it["sk"]})
	}
	out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"simple": {Keys: keys}}})
	require.NoError(t, err)
	got, left := len(out.Responses["simple"]), len(out.UnprocessedKeys["simple"].Keys)
	assert.Falsef(t, got != 42 || left != 8, "%d items returned, %d unprocessed; want 42 (16 MB of 390 KB items) and 8", got, left)
}
