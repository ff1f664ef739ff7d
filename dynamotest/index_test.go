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

// jobs is a table with three indexes over the same attributes: status and
// updated (N), projected ALL, KEYS_ONLY and INCLUDE(owner).
var jobs = tableSpec{
	name: "jobs", pk: "pk", pkType: "S", sk: "sk", skType: "S",
	gsis: []types.GlobalSecondaryIndex{
		gsi("all", "status", "updated", types.ProjectionTypeAll),
		gsi("keys", "status", "updated", types.ProjectionTypeKeysOnly),
		gsi("include", "status", "updated", types.ProjectionTypeInclude, "owner"),
	},
	extraAttrDefs: []types.AttributeDefinition{attrDef("status", "S"), attrDef("updated", "N")},
}

func job(id, status string, updated int) item {
	it := item{"pk": S("JOB#" + id), "sk": S("META"), "owner": S("ann"), "body": S("payload")}
	if status != "" {
		it["status"] = S(status)
		it["updated"] = N(fmt.Sprint(updated))
	}
	return it
}

func queryIndex(t testing.TB, db *dynamotest.DB, index, status string, limit int32) *dynamodb.QueryOutput {
	t.Helper()
	in := &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String(index),
		KeyConditionExpression:    aws.String("#s = :s"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: item{":s": S(status)}}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	return query(t, db, in)
}

func TestIndexIsSparseAndFollowsWrites(t *testing.T) {
	db := newDB(t, jobs)
	put(t, db, "jobs", job("1", "queued", 10))
	put(t, db, "jobs", job("2", "queued", 5))
	put(t, db, "jobs", job("3", "", 0)) // no status: not in the indexes
	got := sortKeys(t, queryIndex(t, db, "all", "queued", 0).Items, "updated")
	assert.EqualValuesf(t, "5,10", got, "queued: %s", got)
	// Moving job 1 to running moves it between index partitions.
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"),
		Key: item{"pk": S("JOB#1"), "sk": S("META")}, UpdateExpression: aws.String("SET #s = :r"),
		ExpressionAttributeNames: map[string]string{"#s": "status"}, ExpressionAttributeValues: item{":r": S("running")}})
	require.NoError(t, err)
	got = sortKeys(t, queryIndex(t, db, "all", "queued", 0).Items, "updated")
	assert.EqualValuesf(t, "5", got, "queued after move: %s", got)
	got = sortKeys(t, queryIndex(t, db, "keys", "running", 0).Items, "updated")
	assert.EqualValuesf(t, "10", got, "running after move: %s", got)
	// Removing the index key takes the item out; deleting it too.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"),
		Key: item{"pk": S("JOB#1"), "sk": S("META")}, UpdateExpression: aws.String("REMOVE updated")})
	require.NoError(t, err)
	out := queryIndex(t, db, "all", "running", 0)
	assert.EqualValuesf(t, 0, out.Count, "item without its index sort key still indexed: %v", out.Items)
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("jobs"), Key: item{"pk": S("JOB#2"), "sk": S("META")}})
	require.NoError(t, err)
	out = queryIndex(t, db, "include", "queued", 0)
	assert.EqualValuesf(t, 0, out.Count, "deleted item still indexed: %v", out.Items)
	d, _ := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("jobs")})
	for _, g := range d.Table.GlobalSecondaryIndexes {
		assert.EqualValuesf(t, 0, aws.ToInt64(g.ItemCount), "index %s counts %d items", aws.ToString(g.IndexName), aws.ToInt64(g.ItemCount))
	}
}

func TestIndexProjections(t *testing.T) {
	db := newDB(t, jobs)
	put(t, db, "jobs", job("1", "queued", 10))
	attrs := func(index string) int { return len(queryIndex(t, db, index, "queued", 0).Items[0]) }
	// ALL: every attribute. KEYS_ONLY: table and index keys. INCLUDE: those plus owner.
	n := attrs("all")
	assert.EqualValuesf(t, 6, n, "ALL projection has %d attributes", n)
	n = attrs("keys")
	assert.EqualValuesf(t, 4, n, "KEYS_ONLY projection has %d attributes", n)
	it := queryIndex(t, db, "include", "queued", 0).Items[0]
	assert.Falsef(t, len(it) != 5 || str(t, it, "owner") != "ann", "INCLUDE projection %v", it)
}

func TestIndexPagesCarryIndexAndTableKeys(t *testing.T) {
	db := newDB(t, jobs)
	// Many items share one index key: the table key orders them and makes
	// the page boundary exact.
	for i := 0; i < 7; i++ {
		put(t, db, "jobs", job(fmt.Sprint(i), "queued", 1))
	}
	out := queryIndex(t, db, "keys", "queued", 3)
	lek := out.LastEvaluatedKey
	require.Falsef(t, len(lek) != 4 || str(t, lek, "status") != "queued" || num(t, lek, "updated") != "1" || str(t, lek, "sk") != "META", "LastEvaluatedKey %v", lek)
	seen := map[string]bool{}
	pages := 0
	in := &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("keys"),
		KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: item{":s": S("queued")}, Limit: aws.Int32(3)}
	for {
		out := query(t, db, in)
		pages++
		for _, it := range out.Items {
			id := str(t, it, "pk")
			assert.Falsef(t, seen[id], "%s returned twice", id)
			seen[id] = true
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	assert.Falsef(t, len(seen) != 7 || pages != 3, "%d items in %d pages", len(seen), pages)
}

func TestIndexKeyOfWrongTypeIsRejected(t *testing.T) {
	db := newDB(t, jobs)
	it := job("1", "queued", 1)
	it["updated"] = S("yesterday")
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: it})
	wantValidation(t, err, "One or more parameter values were invalid: Type mismatch for Index Key updated Expected: N Actual: S IndexName: all")
	it["updated"] = N("1")
	it["status"] = S("")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: it})
	wantValidation(t, err, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: all, IndexKey: status")
}

func TestScanIndexReturnsIndexedItemsOnly(t *testing.T) {
	db := newDB(t, jobs)
	put(t, db, "jobs", job("1", "queued", 1))
	put(t, db, "jobs", job("2", "", 0))
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("jobs"), IndexName: aws.String("keys")})
	require.NoError(t, err)
	assert.Falsef(t, out.Count != 1 || str(t, out.Items[0], "pk") != "JOB#1", "index scan %v", out.Items)
}

func TestProjectionOfUnprojectedAttributeIsRejected(t *testing.T) {
	db := newDB(t, jobs)
	_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("include"),
		KeyConditionExpression: aws.String("#s = :s"), ProjectionExpression: aws.String("#o, body"),
		ExpressionAttributeNames: map[string]string{"#s": "status", "#o": "owner"}, ExpressionAttributeValues: item{":s": S("queued")}})
	wantValidation(t, err, "One or more parameter values were invalid: Global secondary index include does not project [body]")
}
