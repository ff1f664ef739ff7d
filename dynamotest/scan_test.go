package dynamotest_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScanSegmentsSplitTheTable(t *testing.T) {
	db := newDB(t, numbered)
	for p := 0; p < 50; p++ {
		fill(t, db, "numbered", fmt.Sprintf("p%d", p), 3, 1)
	}
	seen := map[string]int{}
	const total = 4
	for seg := int32(0); seg < total; seg++ {
		in := &dynamodb.ScanInput{TableName: aws.String("numbered"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(7)}
		n := 0
		for {
			out, err := db.Scan(ctx, in)
			require.NoError(t, err)
			for _, it := range out.Items {
				seen[str(t, it, "pk")+"/"+num(t, it, "n")]++
				n++
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		assert.Falsef(t, n == 0 || n == 150, "segment %d holds %d of 150 items", seg, n)
	}
	assert.Lenf(t, seen, 150, "segments returned %d distinct items, want 150", len(seen))
	for k, c := range seen {
		assert.EqualValuesf(t, 1, c, "%s returned %d times", k, c)
	}
}

func TestScanRejects(t *testing.T) {
	db := newDB(t, numbered)
	cases := []struct {
		name string
		in   dynamodb.ScanInput
		msg  string
	}{
		{"segment without total", dynamodb.ScanInput{Segment: aws.Int32(0)},
			"The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{"total without segment", dynamodb.ScanInput{TotalSegments: aws.Int32(2)},
			"The Segment parameter is required but was not present in the request when parameter TotalSegments is present"},
		{"segment out of range", dynamodb.ScanInput{Segment: aws.Int32(2), TotalSegments: aws.Int32(2)},
			"The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less than TotalSegments: 2"},
		{"bad start key", dynamodb.ScanInput{ExclusiveStartKey: item{"pk": S("a")}}, "The provided starting key is invalid"},
		{"projection with COUNT", dynamodb.ScanInput{Select: "COUNT", ProjectionExpression: aws.String("pk")},
			"Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{"projected attributes without index", dynamodb.ScanInput{Select: "ALL_PROJECTED_ATTRIBUTES"},
			"ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.TableName = aws.String("numbered")
			_, err := db.Scan(ctx, &in)
			wantValidation(t, err, c.msg)
		})
	}
}

func TestScanFilterMayUseKeys(t *testing.T) {
	db := newDB(t, numbered)
	fill(t, db, "numbered", "p", 10, 1)
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("numbered"),
		FilterExpression: aws.String("n >= :five"), ExpressionAttributeValues: item{":five": N("5")}})
	require.NoError(t, err)
	assert.Falsef(t, out.Count != 5 || out.ScannedCount != 10, "count %d scanned %d", out.Count, out.ScannedCount)
}
