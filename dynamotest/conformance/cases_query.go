package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// numbered is partition "p" of a PKNum table with sort keys that order
// differently as numbers and as text, plus another partition.
func numbered() []Item {
	return Items(
		I("pk", "p", "sk", N("10"), "v", "ten"),
		I("pk", "p", "sk", N("-1.5"), "v", "minus one and a half"),
		I("pk", "p", "sk", N("2"), "v", "two"),
		I("pk", "p", "sk", N("100"), "v", "hundred"),
		I("pk", "p", "sk", N("-10"), "v", "minus ten"),
		I("pk", "p", "sk", N("0"), "v", "zero"),
		I("pk", "p", "sk", N("0.5"), "v", "half"),
		I("pk", "other", "sk", N("1"), "v", "other partition"),
	)
}

func numberedSorted() []Item {
	s := numbered()
	return Items(s[4], s[1], s[5], s[6], s[2], s[0], s[3])
}

// texts is partition "p" of a PKSK table whose sort keys order by UTF-8
// bytes: digits, upper case, lower case, then non-ASCII (and U+FF61 before
// U+1F600, though UTF-16 would order them the other way round).
func texts() []Item {
	return Items(
		I("pk", "p", "sk", "b"),
		I("pk", "p", "sk", "a"),
		I("pk", "p", "sk", "B"),
		I("pk", "p", "sk", "aa"),
		I("pk", "p", "sk", "0"),
		I("pk", "p", "sk", "é"),
		I("pk", "p", "sk", "\U0001F600"),
		I("pk", "p", "sk", "\uFF61"),
		I("pk", "p", "sk", "~"),
		I("pk", "q", "sk", "a"),
	)
}

func textsSorted() []Item {
	s := texts()
	return Items(s[4], s[2], s[1], s[3], s[0], s[8], s[5], s[7], s[6])
}

// binaries is partition 0x01 of a PKBin table: sort keys order as unsigned bytes.
func binaries() []Item {
	return Items(
		I("pk", B(1), "sk", B(0x80)),
		I("pk", B(1), "sk", B(0x00)),
		I("pk", B(1), "sk", B(0xff)),
		I("pk", B(1), "sk", B(0x00, 0x00)),
		I("pk", B(1), "sk", B(0x7f)),
		I("pk", B(1), "sk", B(0x01)),
		I("pk", B(2), "sk", B(0x00)),
	)
}

func binariesSorted() []Item {
	s := binaries()
	return Items(s[1], s[3], s[5], s[4], s[0], s[2])
}

// pages is partition "p" with sort keys k1..k5 and attribute n = 1..5.
func pages() []Item {
	return Items(
		I("pk", "p", "sk", "k1", "n", 1, "even", false),
		I("pk", "p", "sk", "k2", "n", 2, "even", true),
		I("pk", "p", "sk", "k3", "n", 3, "even", false),
		I("pk", "p", "sk", "k4", "n", 4, "even", true),
		I("pk", "p", "sk", "k5", "n", 5, "even", false),
		I("pk", "x", "sk", "k1", "n", 9, "even", false),
	)
}

func kc(expr string, vals map[string]types.AttributeValue) dynamodb.QueryInput {
	return dynamodb.QueryInput{KeyConditionExpression: aws.String(expr), ExpressionAttributeValues: vals}
}

func queryCases() []Case {
	v := Vals
	num := numberedSorted()
	txt := textsSorted()
	bin := binariesSorted()
	pg := pages()
	desc := func(in dynamodb.QueryInput) dynamodb.QueryInput {
		in.ScanIndexForward = aws.Bool(false)
		return in
	}
	limit := func(in dynamodb.QueryInput, n int32) dynamodb.QueryInput {
		in.Limit = aws.Int32(n)
		return in
	}
	start := func(in dynamodb.QueryInput, key Item) dynamodb.QueryInput {
		in.ExclusiveStartKey = key
		return in
	}
	reversed := func(items []Item) []Item {
		out := make([]Item, len(items))
		for i, it := range items {
			out[len(items)-1-i] = it
		}
		return out
	}
	key := func(it Item) Item { return I("pk", it["pk"], "sk", it["sk"]) }
	return []Case{
		// Ordering: N by number, S by UTF-8 bytes, B by unsigned bytes.
		QueryCase("query/number-sort-key-orders-numerically", PKNum, numbered(), kc("pk = :p", v(":p", "p")), Want{Items: num}),
		QueryCase("query/number-sort-key-descending", PKNum, numbered(), desc(kc("pk = :p", v(":p", "p"))), Want{Items: reversed(num)}),
		QueryCase("query/string-sort-key-orders-by-utf8-bytes", PKSK, texts(), kc("pk = :p", v(":p", "p")), Want{Items: txt}),
		QueryCase("query/string-sort-key-descending", PKSK, texts(), desc(kc("pk = :p", v(":p", "p"))), Want{Items: reversed(txt)}),
		QueryCase("query/binary-sort-key-orders-unsigned", PKBin, binaries(), kc("pk = :p", v(":p", B(1))), Want{Items: bin}),
		QueryCase("query/binary-sort-key-descending", PKBin, binaries(), desc(kc("pk = :p", v(":p", B(1)))), Want{Items: reversed(bin)}),
		QueryCase("query/missing-partition-is-empty", PKNum, numbered(), kc("pk = :p", v(":p", "nope")), Want{Items: Items()}),
		QueryCase("query/hash-only-table", PK, Items(I("pk", "a", "v", 1), I("pk", "b", "v", 2)), kc("pk = :p", v(":p", "b")), Want{Items: Items(I("pk", "b", "v", 2))}),
		QueryCase("query/number-partition-key-canonical", NumPK, Items(I("pk", N("1.50"), "v", 1)), kc("pk = :p", v(":p", N("1.5"))), Want{Items: Items(I("pk", N("1.5"), "v", 1))}),

		// Sort-key conditions.
		QueryCase("query/sk-eq-number", PKNum, numbered(), kc("pk = :p AND sk = :s", v(":p", "p", ":s", N("2.0"))), Want{Items: Items(num[4])}),
		QueryCase("query/sk-lt-number", PKNum, numbered(), kc("pk = :p AND sk < :s", v(":p", "p", ":s", N("0"))), Want{Items: num[:2]}),
		QueryCase("query/sk-le-number", PKNum, numbered(), kc("pk = :p AND sk <= :s", v(":p", "p", ":s", N("0"))), Want{Items: num[:3]}),
		QueryCase("query/sk-gt-number", PKNum, numbered(), kc("pk = :p AND sk > :s", v(":p", "p", ":s", N("2"))), Want{Items: num[5:]}),
		QueryCase("query/sk-ge-number", PKNum, numbered(), kc("pk = :p AND sk >= :s", v(":p", "p", ":s", N("2"))), Want{Items: num[4:]}),
		QueryCase("query/sk-between-number", PKNum, numbered(), kc("pk = :p AND sk BETWEEN :a AND :b", v(":p", "p", ":a", N("-1.5"), ":b", N("10"))), Want{Items: num[1:6]}),
		QueryCase("query/sk-between-number-descending", PKNum, numbered(), desc(kc("pk = :p AND sk BETWEEN :a AND :b", v(":p", "p", ":a", N("-1.5"), ":b", N("10")))), Want{Items: reversed(num[1:6])}),
		QueryCase("query/sk-between-equal-bounds", PKNum, numbered(), kc("pk = :p AND sk BETWEEN :a AND :a", v(":p", "p", ":a", N("0"))), Want{Items: num[2:3]}),
		QueryCase("query/sk-begins-with-string", PKSK, pages(), kc("pk = :p AND begins_with(sk, :b)", v(":p", "p", ":b", "k")), Want{Items: pg[:5]}),
		QueryCase("query/sk-begins-with-exact", PKSK, pages(), kc("pk = :p AND begins_with(sk, :b)", v(":p", "p", ":b", "k3")), Want{Items: pg[2:3]}),
		QueryCase("query/sk-begins-with-none", PKSK, pages(), kc("pk = :p AND begins_with(sk, :b)", v(":p", "p", ":b", "k6")), Want{Items: Items()}),
		QueryCase("query/sk-begins-with-binary", PKBin, binaries(), kc("pk = :p AND begins_with(sk, :b)", v(":p", B(1), ":b", B(0))), Want{Items: bin[:2]}),
		QueryCase("query/sk-gt-string", PKSK, texts(), kc("pk = :p AND sk > :s", v(":p", "p", ":s", "a")), Want{Items: txt[3:]}),
		QueryCase("query/sk-lt-binary", PKBin, binaries(), kc("pk = :p AND sk < :s", v(":p", B(1), ":s", B(0x80))), Want{Items: bin[:4]}),
		QueryCase("query/key-condition-reversed-operands", PKNum, numbered(), kc(":p = pk AND :s < sk", v(":p", "p", ":s", N("10"))), Want{Items: num[6:]}),
		QueryCase("query/key-condition-names", PKNum, numbered(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("#h = :p AND #r = :s"), ExpressionAttributeNames: Names("#h", "pk", "#r", "sk"),
			ExpressionAttributeValues: v(":p", "p", ":s", N("100")),
		}, Want{Items: num[6:]}),
		QueryCase("query/key-condition-parenthesised", PKNum, numbered(), kc("(pk = :p) AND (sk >= :s)", v(":p", "p", ":s", N("100"))), Want{Items: num[6:]}),

		// Limit, LastEvaluatedKey, ExclusiveStartKey.
		QueryCase("query/limit-returns-last-key", PKSK, pages(), limit(kc("pk = :p", v(":p", "p")), 2), Want{Items: pg[:2], More: true, LastKey: key(pg[1])}),
		QueryCase("query/limit-equal-to-count-still-has-last-key", PKSK, pages(), limit(kc("pk = :p", v(":p", "p")), 5), Want{Items: pg[:5], More: true, LastKey: key(pg[4])}),
		QueryCase("query/limit-above-count-no-last-key", PKSK, pages(), limit(kc("pk = :p", v(":p", "p")), 6), Want{Items: pg[:5]}),
		QueryCase("query/start-key-continues", PKSK, pages(), start(limit(kc("pk = :p", v(":p", "p")), 2), key(pg[1])), Want{Items: pg[2:4], More: true, LastKey: key(pg[3])}),
		QueryCase("query/start-key-last-page", PKSK, pages(), start(kc("pk = :p", v(":p", "p")), key(pg[3])), Want{Items: pg[4:5]}),
		QueryCase("query/start-key-descending", PKSK, pages(), start(desc(kc("pk = :p", v(":p", "p"))), key(pg[2])), Want{Items: Items(pg[1], pg[0])}),
		QueryCase("query/start-key-of-deleted-item", PKSK, pages(), start(kc("pk = :p", v(":p", "p")), I("pk", "p", "sk", "k25")), Want{Items: pg[2:5]}),
		QueryCase("query/limit-counts-before-filter", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("even = :t"),
			ExpressionAttributeValues: v(":p", "p", ":t", true), Limit: aws.Int32(3),
		}, Want{Items: Items(pg[1]), Scanned: i32(3), More: true, LastKey: key(pg[2])}),
		QueryCase("query/filter-scanned-count", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("n > :n"),
			ExpressionAttributeValues: v(":p", "p", ":n", 3),
		}, Want{Items: pg[3:5], Scanned: i32(5)}),
		QueryCase("query/select-count", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectCount,
			ExpressionAttributeValues: v(":p", "p"),
		}, Want{Items: nil, Count: i32(5), Scanned: i32(5)}),
		QueryCase("query/select-count-with-filter", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectCount, FilterExpression: aws.String("even = :t"),
			ExpressionAttributeValues: v(":p", "p", ":t", true),
		}, Want{Items: nil, Count: i32(2), Scanned: i32(5)}),
		QueryCase("query/projection", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p AND sk = :s"), ProjectionExpression: aws.String("n"),
			ExpressionAttributeValues: v(":p", "p", ":s", "k2"),
		}, Want{Items: Items(I("n", 2))}),
		QueryCase("query/projection-with-limit-last-key-is-full-key", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), ProjectionExpression: aws.String("n"), Limit: aws.Int32(1),
			ExpressionAttributeValues: v(":p", "p"),
		}, Want{Items: Items(I("n", 1)), More: true, LastKey: key(pg[0])}),
		QueryCase("query/select-specific-attributes", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p AND sk = :s"), ProjectionExpression: aws.String("sk, even"), Select: types.SelectSpecificAttributes,
			ExpressionAttributeValues: v(":p", "p", ":s", "k2"),
		}, Want{Items: Items(I("sk", "k2", "even", true))}),
		QueryCase("query/consistent-read-on-table", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p AND sk = :s"), ConsistentRead: aws.Bool(true),
			ExpressionAttributeValues: v(":p", "p", ":s", "k5"),
		}, Want{Items: pg[4:5]}),

		// Rejected key conditions and inputs.
		QueryCase("query-error/begins-with-on-number-sort-key", PKNum, numbered(), kc("pk = :p AND begins_with(sk, :b)", v(":p", "p", ":b", N("1"))), Want{Err: "ValidationException"}),
		QueryCase("query-error/range-operator-on-partition-key", PKNum, numbered(), kc("pk > :p", v(":p", "p")), Want{Err: "ValidationException", Msg: "Query key condition not supported"}),
		QueryCase("query-error/sort-key-only", PKNum, numbered(), kc("sk = :s", v(":s", N("1"))), Want{Err: "ValidationException", Msg: "Query condition missed key schema element"}),
		QueryCase("query-error/or-in-key-condition", PKNum, numbered(), kc("pk = :p OR sk = :s", v(":p", "p", ":s", N("1"))), Want{Err: "ValidationException", Msg: "Invalid operator used in KeyConditionExpression: OR"}),
		QueryCase("query-error/not-in-key-condition", PKNum, numbered(), kc("pk = :p AND NOT sk = :s", v(":p", "p", ":s", N("1"))), Want{Err: "ValidationException"}),
		QueryCase("query-error/non-key-attribute", PKNum, numbered(), kc("pk = :p AND v = :s", v(":p", "p", ":s", "x")), Want{Err: "ValidationException"}),
		QueryCase("query-error/two-conditions-on-sort-key", PKNum, numbered(), kc("pk = :p AND sk > :a AND sk < :b", v(":p", "p", ":a", N("1"), ":b", N("5"))), Want{Err: "ValidationException"}),
		QueryCase("query-error/between-low-above-high", PKNum, numbered(), kc("pk = :p AND sk BETWEEN :a AND :b", v(":p", "p", ":a", N("5"), ":b", N("1"))), Want{Err: "ValidationException", Msg: "BETWEEN"}),
		QueryCase("query-error/value-type-mismatch", PKNum, numbered(), kc("pk = :p AND sk = :s", v(":p", "p", ":s", "1")), Want{Err: "ValidationException", Msg: "Condition parameter type does not match schema type"}),
		QueryCase("query-error/partition-value-type-mismatch", PKNum, numbered(), kc("pk = :p", v(":p", N("1"))), Want{Err: "ValidationException", Msg: "Condition parameter type does not match schema type"}),
		QueryCase("query-error/in-in-key-condition", PKNum, numbered(), kc("pk IN (:p)", v(":p", "p")), Want{Err: "ValidationException"}),
		QueryCase("query-error/ne-on-sort-key", PKNum, numbered(), kc("pk = :p AND sk <> :s", v(":p", "p", ":s", N("1"))), Want{Err: "ValidationException"}),
		QueryCase("query-error/missing-key-condition", PKNum, numbered(), dynamodb.QueryInput{}, Want{Err: "ValidationException"}),
		QueryCase("query-error/unused-value", PKNum, numbered(), kc("pk = :p", v(":p", "p", ":x", "y")), Want{Err: "ValidationException", Msg: "unused"}),
		QueryCase("query-error/reserved-word-in-key-condition", Schema{Hash: Key{"name", types.ScalarAttributeTypeS}}, Items(I("name", "a")), kc("name = :p", v(":p", "a")), Want{Err: "ValidationException", Msg: "reserved keyword"}),
		QueryCase("query-error/filter-on-key-attribute", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("sk = :s"),
			ExpressionAttributeValues: v(":p", "p", ":s", "k1"),
		}, Want{Err: "ValidationException", Msg: "Filter Expression can only contain non-primary key attributes"}),
		QueryCase("query-error/limit-zero", PKSK, pages(), limit(kc("pk = :p", v(":p", "p")), 0), Want{Err: "ValidationException"}),
		QueryCase("query-error/start-key-from-other-partition", PKSK, pages(), start(kc("pk = :p", v(":p", "p")), I("pk", "x", "sk", "k1")), Want{Err: "ValidationException"}),
		QueryCase("query-error/start-key-missing-sort-key", PKSK, pages(), start(kc("pk = :p", v(":p", "p")), I("pk", "p")), Want{Err: "ValidationException"}),
		QueryCase("query-error/unknown-index", PKSK, pages(), dynamodb.QueryInput{
			IndexName: aws.String("nosuch"), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: v(":p", "p"),
		}, Want{Err: "ValidationException"}),
		QueryCase("query-error/count-with-projection", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectCount, ProjectionExpression: aws.String("n"),
			ExpressionAttributeValues: v(":p", "p"),
		}, Want{Err: "ValidationException"}),
		QueryCase("query-error/specific-attributes-without-projection", PKSK, pages(), dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectSpecificAttributes,
			ExpressionAttributeValues: v(":p", "p"),
		}, Want{Err: "ValidationException"}),
		{Name: "query-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{
				TableName: aws.String(c.UniqueTableName("missing")), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: v(":p", "p"),
			})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "query/pagination-walks-every-item-once", Schema: PKSK, Seed: pages(), Run: func(c *C) {
			var got []Item
			var startKey Item
			for calls := 0; ; calls++ {
				if calls > 10 {
					c.Fatal("pagination did not end")
				}
				out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{
					TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
					ExpressionAttributeValues: v(":p", "p"), Limit: aws.Int32(2), ExclusiveStartKey: startKey,
				})
				c.OK(err)
				got = append(got, out.Items...)
				if len(out.LastEvaluatedKey) == 0 {
					break
				}
				startKey = out.LastEvaluatedKey
			}
			c.ExpectItems("items over all pages", got, pg[:5])
		}},
	}
}
