package dynamotest_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	if got := sortKeys(t, queryIndex(t, db, "all", "queued", 0).Items, "updated"); got != "5,10" {
		t.Errorf("queued: %s", got)
	}
	// Moving job 1 to running moves it between index partitions.
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"),
		Key: item{"pk": S("JOB#1"), "sk": S("META")}, UpdateExpression: aws.String("SET #s = :r"),
		ExpressionAttributeNames: map[string]string{"#s": "status"}, ExpressionAttributeValues: item{":r": S("running")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := sortKeys(t, queryIndex(t, db, "all", "queued", 0).Items, "updated"); got != "5" {
		t.Errorf("queued after move: %s", got)
	}
	if got := sortKeys(t, queryIndex(t, db, "keys", "running", 0).Items, "updated"); got != "10" {
		t.Errorf("running after move: %s", got)
	}
	// Removing the index key takes the item out; deleting it too.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("jobs"),
		Key: item{"pk": S("JOB#1"), "sk": S("META")}, UpdateExpression: aws.String("REMOVE updated")})
	if err != nil {
		t.Fatal(err)
	}
	if out := queryIndex(t, db, "all", "running", 0); out.Count != 0 {
		t.Errorf("item without its index sort key still indexed: %v", out.Items)
	}
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("jobs"), Key: item{"pk": S("JOB#2"), "sk": S("META")}})
	if err != nil {
		t.Fatal(err)
	}
	if out := queryIndex(t, db, "include", "queued", 0); out.Count != 0 {
		t.Errorf("deleted item still indexed: %v", out.Items)
	}
	d, _ := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("jobs")})
	for _, g := range d.Table.GlobalSecondaryIndexes {
		if aws.ToInt64(g.ItemCount) != 0 {
			t.Errorf("index %s counts %d items", aws.ToString(g.IndexName), aws.ToInt64(g.ItemCount))
		}
	}
}

func TestIndexProjections(t *testing.T) {
	db := newDB(t, jobs)
	put(t, db, "jobs", job("1", "queued", 10))
	attrs := func(index string) int { return len(queryIndex(t, db, index, "queued", 0).Items[0]) }
	// ALL: every attribute. KEYS_ONLY: table and index keys. INCLUDE: those plus owner.
	if n := attrs("all"); n != 6 {
		t.Errorf("ALL projection has %d attributes", n)
	}
	if n := attrs("keys"); n != 4 {
		t.Errorf("KEYS_ONLY projection has %d attributes", n)
	}
	it := queryIndex(t, db, "include", "queued", 0).Items[0]
	if len(it) != 5 || str(t, it, "owner") != "ann" {
		t.Errorf("INCLUDE projection %v", it)
	}
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
	if len(lek) != 4 || str(t, lek, "status") != "queued" || num(t, lek, "updated") != "1" || str(t, lek, "sk") != "META" {
		t.Fatalf("LastEvaluatedKey %v", lek)
	}
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
			if seen[id] {
				t.Errorf("%s returned twice", id)
			}
			seen[id] = true
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if len(seen) != 7 || pages != 3 {
		t.Errorf("%d items in %d pages", len(seen), pages)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 || str(t, out.Items[0], "pk") != "JOB#1" {
		t.Errorf("index scan %v", out.Items)
	}
}

func TestProjectionOfUnprojectedAttributeIsRejected(t *testing.T) {
	db := newDB(t, jobs)
	_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("include"),
		KeyConditionExpression: aws.String("#s = :s"), ProjectionExpression: aws.String("#o, body"),
		ExpressionAttributeNames: map[string]string{"#s": "status", "#o": "owner"}, ExpressionAttributeValues: item{":s": S("queued")}})
	wantValidation(t, err, "One or more parameter values were invalid: Global secondary index include does not project [body]")
}
