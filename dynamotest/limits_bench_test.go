package dynamotest_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The benchmarks below send requests as large as DynamoDB's limits allow
// and larger, and report the cost per unit of input (per OR, per name):
// flat when the work is linear, growing with the size when it is not. A
// request over a limit is refused before the work and costs next to
// nothing. The tests that fail on a quadratic shape, without timing, are
// TestPartiQLTranslationCostsMemoryLinearInTheStatement and
// TestExpressionParsingCostsMemoryLinearInTheInput.

// BenchmarkExecuteStatementLongWhere runs a SELECT whose WHERE is a chain
// of ORs on a missing table (the statement is parsed before the table is
// looked up): within 8 KB up to 700 ORs, the rest refused for length.
func BenchmarkExecuteStatementLongWhere(b *testing.B) {
	db := newDB(b)
	for _, ors := range []int{200, 700, 20000, 51200} {
		b.Run(fmt.Sprintf("ors=%d", ors), func(b *testing.B) {
			in := &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "missing" WHERE a = 0` + strings.Repeat(" OR a = 1", ors))}
			perUnit(b, ors, "or", func() {
				if _, err := db.ExecuteStatement(ctx, in); err == nil {
					b.Fatal("a statement on a missing table succeeded")
				}
			})
		})
	}
}

// BenchmarkExpressionAttributeNames runs a GetItem whose
// ExpressionAttributeNames holds n names, one used: refused for the others
// (every one listed) up to DynamoDB's 2 MB per map, for its size beyond.
func BenchmarkExpressionAttributeNames(b *testing.B) {
	db := newDB(b, simple)
	for _, n := range []int{1000, 10000, 100000, 500000} {
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			names := make(map[string]string, n)
			for i := range n {
				names["#n"+strconv.Itoa(i)] = "a" + strconv.Itoa(i)
			}
			in := &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")},
				ProjectionExpression: aws.String("#n0"), ExpressionAttributeNames: names}
			perUnit(b, n, "name", func() {
				if _, err := db.GetItem(ctx, in); err == nil {
					b.Fatal("unused names were accepted")
				}
			})
		})
	}
}

// perUnit runs call b.N times and reports its CPU time and heap per unit
// of the request's size as well as per call.
func perUnit(b *testing.B, units int, unit string, call func()) {
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		call()
	}
	cpu := cpuTime() - start
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*units), "cpu-ns/"+unit)
}
