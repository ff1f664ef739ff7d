package dynamotest_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

// The benchmarks share one table: a partition of 1,000 items, one of
// 100,000, and 200 other partitions of 50 items, every item 1 KB, so that
// no operation can look fast because its partition is the whole table.

var payload = strings.Repeat("x", 1024-len("pk")-len("sk")-len("data")-len("SMALL")-len("ITEM#000000"))

// benchItem is a 1 KB item. Each has its own payload bytes, as real items
// do: the fake keeps the caller's immutable strings, so items sharing one
// payload string would make the heap look smaller than it is.
func benchItem(pk string, i int) item {
	sk := fmt.Sprintf("ITEM#%06d", i)
	return item{"pk": S(pk), "sk": S(sk), "data": S(sk + payload[len(sk):])}
}

var benchFixture struct {
	once sync.Once
	db   *dynamotest.DB
}

func benchDB(b *testing.B) *dynamotest.DB {
	benchFixture.once.Do(func() {
		db := dynamotest.New()
		if _, err := db.CreateTable(ctx, simple.input()); err != nil {
			b.Fatal(err)
		}
		load(b, db, "SMALL", 1000)
		load(b, db, "LARGE", 100000)
		for p := 0; p < 200; p++ {
			load(b, db, fmt.Sprintf("OTHER%03d", p), 50)
		}
		benchFixture.db = db
	})
	return benchFixture.db
}

func load(tb testing.TB, db *dynamotest.DB, pk string, n int) {
	in := &dynamodb.PutItemInput{TableName: aws.String("simple")}
	for i := 0; i < n; i++ {
		in.Item = benchItem(pk, i)
		if _, err := db.PutItem(ctx, in); err != nil {
			require.NoError(tb, err)
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureCPU reports CPU time per operation (cpu-ns/op) and the rate one
// core sustains (ops/cpu-s) alongside the wall-clock figures: on a shared
// machine the wall clock counts time spent waiting for a core, the CPU
// time does not. GC work done by other threads counts, as it should.
func measureCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		d := cpuTime() - start
		if b.N > 0 && d > 0 {
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.N)/d.Seconds(), "ops/cpu-s")
		}
	}
}

var benchPartitions = []struct {
	pk string
	n  int
}{{"SMALL", 1000}, {"LARGE", 100000}}

// BenchmarkGetItem reads random items of one partition.
func BenchmarkGetItem(b *testing.B) {
	db := benchDB(b)
	for _, part := range benchPartitions {
		b.Run(fmt.Sprintf("partition=%d", part.n), func(b *testing.B) {
			keys := make([]item, 4096)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range keys {
				keys[i] = item{"pk": S(part.pk), "sk": S(fmt.Sprintf("ITEM#%06d", r.IntN(part.n)))}
			}
			in := &dynamodb.GetItemInput{TableName: aws.String("simple")}
			b.ReportAllocs()
			i := 0
			done := measureCPU(b)
			defer done()
			for b.Loop() {
				in.Key = keys[i%len(keys)]
				i++
				out, err := db.GetItem(ctx, in)
				if err != nil || out.Item == nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPutItem writes a 1 KB item over random items of one partition
// (the same content, so the fixture stays as it was).
func BenchmarkPutItem(b *testing.B) {
	db := benchDB(b)
	for _, part := range benchPartitions {
		b.Run(fmt.Sprintf("partition=%d", part.n), func(b *testing.B) {
			it := benchItem(part.pk, 0)
			sks := make([]types.AttributeValue, 4096)
			r := rand.New(rand.NewPCG(3, 4))
			for i := range sks {
				sks[i] = S(fmt.Sprintf("ITEM#%06d", r.IntN(part.n)))
			}
			in := &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: it}
			b.ReportAllocs()
			i := 0
			done := measureCPU(b)
			defer done()
			for b.Loop() {
				it["sk"] = sks[i%len(sks)]
				i++
				if _, err := db.PutItem(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQueryPage reads a 25-item page with begins_with on the sort
// key, starting in the middle of the partition from an ExclusiveStartKey,
// as a client paging through it does.
func BenchmarkQueryPage(b *testing.B) {
	db := benchDB(b)
	for _, part := range benchPartitions {
		b.Run(fmt.Sprintf("partition=%d", part.n), func(b *testing.B) {
			in := &dynamodb.QueryInput{TableName: aws.String("simple"),
				KeyConditionExpression:    aws.String("pk = :p AND begins_with(sk, :prefix)"),
				ExpressionAttributeValues: item{":p": S(part.pk), ":prefix": S("ITEM#")},
				ExclusiveStartKey:         item{"pk": S(part.pk), "sk": S(fmt.Sprintf("ITEM#%06d", part.n/2))},
				Limit:                     aws.Int32(25)}
			b.ReportAllocs()
			done := measureCPU(b)
			defer done()
			for b.Loop() {
				out, err := db.Query(ctx, in)
				if err != nil || len(out.Items) != 25 {
					b.Fatal(len(out.Items), err)
				}
			}
		})
	}
}

// BenchmarkLoad puts n 1 KB items into an empty table; ns/item should not
// grow with n.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				db := dynamotest.New()
				if _, err := db.CreateTable(ctx, simple.input()); err != nil {
					b.Fatal(err)
				}
				load(b, db, "LOAD", n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N*n), "cpu-ns/item")
		})
	}
}

// TestHeapForOneMillionItems measures the heap that 1,000,000 items of
// 1 KB occupy (target: at most 2 GB). It takes a few seconds and about
// 2 GB, so it runs only with TABLEKIT_HEAVY=1:
//
//	TABLEKIT_HEAVY=1 go test ./dynamotest -run HeapForOneMillion -v
func TestHeapForOneMillionItems(t *testing.T) {
	if os.Getenv("TABLEKIT_HEAVY") == "" {
		t.Skip("TABLEKIT_HEAVY not set: loading 1,000,000 items takes about 2 GB")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	db := dynamotest.New()
	_, err := db.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	// 1,000 partitions of 1,000 items.
	for p := 0; p < 1000; p++ {
		load(t, db, fmt.Sprintf("P%04d", p), 1000)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := after.HeapAlloc - before.HeapAlloc
	t.Logf("heap for 1,000,000 items of 1 KB: %.2f GB (%d bytes per item)", float64(heap)/(1<<30), heap/1000000)
	assert.LessOrEqual(t, heap, uint64(2<<30), "heap for 1,000,000 items of 1 KB")
	runtime.KeepAlive(db)
}
