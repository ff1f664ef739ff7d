package dynamotest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

func query(t testing.TB, db *dynamotest.DB, in *dynamodb.QueryInput) *dynamodb.QueryOutput {
	t.Helper()
	out, err := db.Query(ctx, in)
	require.NoError(t, err, "Query")
	return out
}

func sortKeys(t testing.TB, items []item, name string) string {
	t.Helper()
	var out []string
	for _, it := range items {
		switch v := it[name].(type) {
		case *types.AttributeValueMemberN:
			out = append(out, v.Value)
		case *types.AttributeValueMemberS:
			out = append(out, v.Value)
		default:
			require.Failf(t, "item without the attribute", "%s: %v", name, it)
		}
	}
	return strings.Join(out, ",")
}

func TestQueryOrdersNumbersNumerically(t *testing.T) {
	db := newDB(t, numbered)
	for _, n := range []string{"10", "9", "-1", "100", "2.5", "0"} {
		put(t, db, "numbered", item{"pk": S("p"), "n": N(n)})
	}
	put(t, db, "numbered", item{"pk": S("other"), "n": N("5")})
	out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("p")}})
	got := sortKeys(t, out.Items, "n")
	assert.EqualValuesf(t, "-1,0,2.5,9,10,100", got, "ascending %s", got)
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p AND n BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: item{":p": S("p"), ":lo": N("0"), ":hi": N("10")},
		ScanIndexForward:          aws.Bool(false)})
	got = sortKeys(t, out.Items, "n")
	assert.EqualValuesf(t, "10,9,2.5,0", got, "descending between %s", got)
}

func TestQueryRangeOperators(t *testing.T) {
	db := newDB(t, simple)
	for _, sk := range []string{"A#1", "A#2", "A#3", "AB", "B#1", "B#2", "C"} {
		put(t, db, "simple", item{"pk": S("p"), "sk": S(sk)})
	}
	cases := []struct {
		cond    string
		v       string
		fwd     string
		reverse string
	}{
		{"sk = :v", "A#2", "A#2", "A#2"},
		{"sk < :v", "AB", "A#1,A#2,A#3", "A#3,A#2,A#1"},
		{"sk <= :v", "AB", "A#1,A#2,A#3,AB", "AB,A#3,A#2,A#1"},
		{"sk > :v", "AB", "B#1,B#2,C", "C,B#2,B#1"},
		{"sk >= :v", "AB", "AB,B#1,B#2,C", "C,B#2,B#1,AB"},
		{"begins_with(sk, :v)", "A#", "A#1,A#2,A#3", "A#3,A#2,A#1"},
		{"begins_with(sk, :v)", "B", "B#1,B#2", "B#2,B#1"},
		{"begins_with(sk, :v)", "D", "", ""},
	}
	for _, c := range cases {
		for _, forward := range []bool{true, false} {
			out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("simple"),
				KeyConditionExpression:    aws.String("pk = :p AND " + c.cond),
				ExpressionAttributeValues: item{":p": S("p"), ":v": S(c.v)},
				ScanIndexForward:          aws.Bool(forward)})
			want := c.fwd
			if !forward {
				want = c.reverse
			}
			got := sortKeys(t, out.Items, "sk")
			assert.EqualValuesf(t, want, got, "%s (%s) forward=%v: got %s, want %s", c.cond, c.v, forward, got, want)
		}
	}
}

// queryAll pages through a query with Limit per page and returns the sort
// keys in order and the number of pages.
func queryAll(t testing.TB, db *dynamotest.DB, in *dynamodb.QueryInput, sk string) (string, int) {
	t.Helper()
	var all []string
	pages := 0
	for {
		out := query(t, db, in)
		pages++
		if s := sortKeys(t, out.Items, sk); s != "" {
			all = append(all, s)
		}
		if out.LastEvaluatedKey == nil {
			return strings.Join(all, ","), pages
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		require.False(t, pages > 1000, "no end to the pages")
	}
}

func TestQueryPagesResumeAfterLastEvaluatedKey(t *testing.T) {
	db := newDB(t, numbered)
	fill(t, db, "numbered", "p", 10, 10)
	fill(t, db, "numbered", "q", 3, 10)
	for _, forward := range []bool{true, false} {
		got, pages := queryAll(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
			KeyConditionExpression:    aws.String("pk = :p AND n >= :lo"),
			ExpressionAttributeValues: item{":p": S("p"), ":lo": N("2")},
			Limit:                     aws.Int32(3), ScanIndexForward: aws.Bool(forward)}, "n")
		want := "2,3,4,5,6,7,8,9"
		if !forward {
			want = "9,8,7,6,5,4,3,2"
		}
		// Eight items in pages of three; the last page is short, so no key follows it.
		assert.Falsef(t, got != want || pages != 3, "forward=%v: %s in %d pages", forward, got, pages)
	}
	// A page that ends exactly at the last item still carries a
	// LastEvaluatedKey, as in DynamoDB; the next page is empty.
	got, pages := queryAll(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("q")}, Limit: aws.Int32(3)}, "n")
	assert.Falsef(t, got != "0,1,2" || pages != 2, "exact page: %s in %d pages", got, pages)
}

func TestQueryStopsAtOneMegabyte(t *testing.T) {
	db := newDB(t, numbered)
	fill(t, db, "numbered", "p", 300, 10*1024) // 3 MB in 10 KB items
	out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("p")}})
	assert.Falsef(t, out.Count < 100 || out.Count > 103 || out.LastEvaluatedKey == nil, "first page: %d items, LastEvaluatedKey %v", out.Count, out.LastEvaluatedKey)
	got, pages := queryAll(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("p")}}, "n")
	assert.Falsef(t, strings.Count(got, ",") != 299 || pages != 3, "%d items in %d pages", strings.Count(got, ",")+1, pages)
}

func TestQueryFilterCountsScannedItems(t *testing.T) {
	db := newDB(t, numbered)
	for i := 0; i < 10; i++ {
		put(t, db, "numbered", item{"pk": S("p"), "n": N(fmt.Sprint(i)), "even": &types.AttributeValueMemberBOOL{Value: i%2 == 0}})
	}
	out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p"),
		FilterExpression:          aws.String("even = :t"),
		ExpressionAttributeValues: item{":p": S("p"), ":t": &types.AttributeValueMemberBOOL{Value: true}},
		Limit:                     aws.Int32(5)})
	// Limit counts items read, before the filter.
	assert.Falsef(t, out.ScannedCount != 5 || out.Count != 3 || sortKeys(t, out.Items, "n") != "0,2,4" || out.LastEvaluatedKey == nil, "scanned %d, count %d, items %v", out.ScannedCount, out.Count, out.Items)
	out = query(t, db, &dynamodb.QueryInput{TableName: aws.String("numbered"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("p")},
		Select:                    types.SelectCount})
	assert.Falsef(t, out.Count != 10 || out.Items != nil, "COUNT: %d items %v", out.Count, out.Items)
}

func TestQueryProjection(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("p"), "sk": S("1"), "a": S("x"), "b": S("y")})
	out := query(t, db, &dynamodb.QueryInput{TableName: aws.String("simple"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ProjectionExpression:      aws.String("a, sk"),
		ExpressionAttributeValues: item{":p": S("p")}})
	assert.Falsef(t, len(out.Items) != 1 || len(out.Items[0]) != 2 || str(t, out.Items[0], "a") != "x", "items %v", out.Items)
}

func TestQueryRejects(t *testing.T) {
	spec := numbered
	spec.gsis = []types.GlobalSecondaryIndex{gsi("byKind", "kind", "", types.ProjectionTypeKeysOnly)}
	spec.extraAttrDefs = []types.AttributeDefinition{attrDef("kind", "S")}
	db := newDB(t, spec)
	fill(t, db, "numbered", "p", 3, 1)
	cases := []struct {
		name string
		in   dynamodb.QueryInput
		msg  string
	}{
		{"wrong hash type", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": N("1")}},
			"One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"wrong range type", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND n > :n"), ExpressionAttributeValues: item{":p": S("p"), ":n": S("1")}},
			"One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"empty hash", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("")}},
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"no key condition", dynamodb.QueryInput{},
			"Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{"zero limit", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p")}, Limit: aws.Int32(0)},
			"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"missing index", dynamodb.QueryInput{IndexName: aws.String("nope"), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p")}},
			"The table does not have the specified index: nope"},
		{"consistent read on GSI", dynamodb.QueryInput{IndexName: aws.String("byKind"), ConsistentRead: aws.Bool(true), KeyConditionExpression: aws.String("kind = :k"), ExpressionAttributeValues: item{":k": S("k")}},
			"Consistent reads are not supported on global secondary indexes"},
		{"all attributes from keys-only GSI", dynamodb.QueryInput{IndexName: aws.String("byKind"), Select: types.SelectAllAttributes, KeyConditionExpression: aws.String("kind = :k"), ExpressionAttributeValues: item{":k": S("k")}},
			"One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index byKind because its projection type is not ALL"},
		{"filter on key", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("n > :n"), ExpressionAttributeValues: item{":p": S("p"), ":n": N("1")}},
			"Filter Expression can only contain non-primary key attributes: Primary key attribute: n"},
		{"start key of other partition", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p")}, ExclusiveStartKey: item{"pk": S("q"), "n": N("1")}},
			"The provided starting key is outside query boundaries based on provided conditions"},
		{"start key outside range", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND n > :n"), ExpressionAttributeValues: item{":p": S("p"), ":n": N("5")}, ExclusiveStartKey: item{"pk": S("p"), "n": N("1")}},
			"The provided starting key does not match the range key predicate"},
		{"start key missing attribute", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p")}, ExclusiveStartKey: item{"pk": S("p")}},
			"The provided starting key is invalid"},
		{"start key wrong type", dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": S("p")}, ExclusiveStartKey: item{"pk": S("p"), "n": S("1")}},
			"The provided starting key is invalid: The provided key element does not match the schema"},
		{"index start key without index keys", dynamodb.QueryInput{IndexName: aws.String("byKind"), KeyConditionExpression: aws.String("kind = :k"), ExpressionAttributeValues: item{":k": S("k")}, ExclusiveStartKey: item{"pk": S("p"), "n": N("1")}},
			"The provided starting key is invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.TableName = aws.String("numbered")
			_, err := db.Query(ctx, &in)
			wantValidation(t, err, c.msg)
		})
	}
}
