package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// spread is twelve items over six partitions.
func spread() []Item {
	var items []Item
	for p := range 6 {
		for s := range 2 {
			items = append(items, I("pk", string(rune('a'+p)), "sk", string(rune('0'+s)), "n", p*2+s))
		}
	}
	return items
}

func scanCases() []Case {
	v := Vals
	all := spread()
	return []Case{
		ScanCase("scan/returns-every-item", PKSK, spread(), dynamodb.ScanInput{}, Want{Items: all, AnyOrder: true, Scanned: i32(12)}),
		ScanCase("scan/empty-table", PKSK, nil, dynamodb.ScanInput{}, Want{Items: Items()}),
		ScanCase("scan/filter", PKSK, spread(), dynamodb.ScanInput{FilterExpression: aws.String("n >= :n"), ExpressionAttributeValues: v(":n", 10)},
			Want{Items: all[10:], AnyOrder: true, Scanned: i32(12)}),
		ScanCase("scan/filter-on-key-attribute-allowed", PKSK, spread(), dynamodb.ScanInput{FilterExpression: aws.String("pk = :p"), ExpressionAttributeValues: v(":p", "c")},
			Want{Items: all[4:6], AnyOrder: true, Scanned: i32(12)}),
		ScanCase("scan/select-count", PKSK, spread(), dynamodb.ScanInput{Select: types.SelectCount}, Want{Count: i32(12), Scanned: i32(12)}),
		ScanCase("scan/projection", PK, Items(I("pk", "a", "x", 1, "y", 2)), dynamodb.ScanInput{ProjectionExpression: aws.String("y")}, Want{Items: Items(I("y", 2))}),
		ScanCase("scan/limit-has-last-key", PKSK, spread(), dynamodb.ScanInput{Limit: aws.Int32(5)}, Want{AnyItems: true, Count: i32(5), Scanned: i32(5), More: true}),
		ScanCase("scan/limit-counts-before-filter", PKSK, spread(), dynamodb.ScanInput{Limit: aws.Int32(12), FilterExpression: aws.String("n = :n"), ExpressionAttributeValues: v(":n", 3)},
			Want{Items: all[3:4], Scanned: i32(12), More: true}),
		ScanCase("scan-error/segment-without-total", PKSK, spread(), dynamodb.ScanInput{Segment: aws.Int32(0)}, Want{Err: "ValidationException"}),
		ScanCase("scan-error/segment-not-below-total", PKSK, spread(), dynamodb.ScanInput{Segment: aws.Int32(2), TotalSegments: aws.Int32(2)}, Want{Err: "ValidationException"}),
		ScanCase("scan-error/total-segments-above-limit", PKSK, spread(), dynamodb.ScanInput{Segment: aws.Int32(0), TotalSegments: aws.Int32(1000001)}, Want{Err: "ValidationException"}),
		ScanCase("scan-error/limit-zero", PKSK, spread(), dynamodb.ScanInput{Limit: aws.Int32(0)}, Want{Err: "ValidationException"}),
		ScanCase("scan-error/consistent-read-on-index", Indexed, nil, dynamodb.ScanInput{IndexName: aws.String("byStatus"), ConsistentRead: aws.Bool(true)}, Want{Err: "ValidationException", Msg: "Consistent reads are not supported on global secondary indexes"}),
		ScanCase("scan-error/unknown-index", PKSK, nil, dynamodb.ScanInput{IndexName: aws.String("nosuch")}, Want{Err: "ValidationException"}),
		ScanCase("scan-error/count-with-projection", PKSK, spread(), dynamodb.ScanInput{Select: types.SelectCount, ProjectionExpression: aws.String("n")}, Want{Err: "ValidationException"}),
		ScanCase("scan-error/start-key-not-a-key", PKSK, spread(), dynamodb.ScanInput{ExclusiveStartKey: I("n", 1)}, Want{Err: "ValidationException"}),
		{Name: "scan-error/missing-table", NoTable: true, Run: func(c *C) {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: aws.String(c.UniqueTableName("missing"))})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "scan/pagination-walks-every-item-once", Seed: spread(), Run: func(c *C) {
			got := c.scanAll(&dynamodb.ScanInput{TableName: c.TableName(), Limit: aws.Int32(5)}, 10)
			c.ExpectSameItems("items over all pages", got, all)
		}},
		{Name: "scan/pagination-with-filter-walks-every-match", Seed: spread(), Run: func(c *C) {
			got := c.scanAll(&dynamodb.ScanInput{TableName: c.TableName(), Limit: aws.Int32(4),
				FilterExpression: aws.String("n < :n"), ExpressionAttributeValues: v(":n", 5)}, 10)
			c.ExpectSameItems("items over all pages", got, all[:5])
		}},
		{Name: "scan/segments-partition-the-table", Seed: spread(), Run: func(c *C) {
			const total = 4
			var got []Item
			for seg := range int32(total) {
				got = append(got, c.scanAll(&dynamodb.ScanInput{TableName: c.TableName(), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total)}, 20)...)
			}
			c.ExpectSameItems("union of all segments (each item exactly once)", got, all)
		}},
		{Name: "scan/segments-keep-a-partition-together", Seed: spread(), Run: func(c *C) {
			const total = 3
			owner := map[string]int32{}
			for seg := range int32(total) {
				for _, it := range c.scanAll(&dynamodb.ScanInput{TableName: c.TableName(), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total)}, 20) {
					pk := Render(it["pk"])
					if prev, ok := owner[pk]; ok && prev != seg {
						c.Errorf("partition %s is in segments %d and %d", pk, prev, seg)
					}
					owner[pk] = seg
				}
			}
			if len(owner) != 6 {
				c.Errorf("segments covered %d partitions; want 6", len(owner))
			}
		}},
		{Name: "scan/single-segment-is-whole-table", Seed: spread(), Run: func(c *C) {
			got := c.scanAll(&dynamodb.ScanInput{TableName: c.TableName(), Segment: aws.Int32(0), TotalSegments: aws.Int32(1)}, 10)
			c.ExpectSameItems("items", got, all)
		}},
		{Name: "scan/sees-its-own-writes-with-consistent-read", Seed: spread()[:2], Run: func(c *C) {
			c.Put(I("pk", "z", "sk", "0", "n", 99))
			out, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: c.TableName(), ConsistentRead: aws.Bool(true)})
			c.OK(err)
			c.ExpectSameItems("items", out.Items, append(spread()[:2], I("pk", "z", "sk", "0", "n", 99)))
		}},
	}
}

// scanAll pages through a Scan, failing after maxCalls pages.
func (c *C) scanAll(in *dynamodb.ScanInput, maxCalls int) []Item {
	c.Helper()
	var got []Item
	for calls := 0; ; calls++ {
		if calls >= maxCalls {
			c.Fatalf("Scan did not finish in %d pages", maxCalls)
		}
		out, err := c.API.Scan(c.Ctx, in)
		c.OK(err)
		got = append(got, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return got
		}
		next := *in
		next.ExclusiveStartKey = out.LastEvaluatedKey
		in = &next
	}
}
