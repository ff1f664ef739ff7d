package dynamotest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// startupItemsEnv sets how many items BenchmarkPersistStartup loads (CI
// runs it once with the default 10,000; the goal is measured with
// 1,000,000):
//
//	TABLEKIT_STARTUP_ITEMS=1000000 go test -run '^$' -bench PersistStartup -benchtime 3x ./dynamotest/
const startupItemsEnv = "TABLEKIT_STARTUP_ITEMS"

// BenchmarkPersistStartup measures how long Open takes on a directory
// holding n items of 1 KB (goal: 1,000,000 in at most 10 s):
//
//	from=snapshot  after Close, which leaves a snapshot and no log
//	from=log       after a crash with the last tenth of the items in the
//	               log only (as after a kill between two snapshots)
func BenchmarkPersistStartup(b *testing.B) {
	n := 10_000
	if s := os.Getenv(startupItemsEnv); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	for _, from := range []string{"snapshot", "log"} {
		b.Run(fmt.Sprintf("items=%d/from=%s", n, from), func(b *testing.B) {
			dir := b.TempDir()
			db, err := Open(Persist(dir))
			if err != nil {
				b.Fatal(err)
			}
			_, err = db.CreateTable(pctx, benchTable("startup"))
			if err != nil {
				b.Fatal(err)
			}
			logged := 0
			if from == "log" {
				logged = n / 10
			}
			fill(b, db, 0, n-logged)
			if logged > 0 {
				// Snapshot what is there, then write the rest to the log
				// only: no snapshot may start meanwhile.
				if err := db.persist.snapshot(); err != nil {
					b.Fatal(err)
				}
				db.persist.j.mu.Lock()
				db.persist.j.grow = 0
				db.persist.j.mu.Unlock()
				fill(b, db, n-logged, n)
				crash(db)
			} else if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			var last *DB
			cpu := benchCPU()
			for b.Loop() {
				if last != nil {
					crash(last) // leaves the directory as it was
				}
				last, err = Open(Persist(dir))
				if err != nil {
					b.Fatal(err)
				}
			}
			d, err := last.DescribeTable(pctx, &dynamodb.DescribeTableInput{TableName: aws.String("startup")})
			if err != nil || aws.ToInt64(d.Table.ItemCount) != int64(n) {
				b.Fatalf("after start-up: %v, %d items, want %d", err, aws.ToInt64(d.Table.ItemCount), n)
			}
			used := benchCPU() - cpu
			crash(last)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/start")
			// The process's CPU time: on a machine shared with other work,
			// what starting costs apart from waiting for a core.
			b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/start")
		})
	}
}

// fill writes items [from, to) of 1 KB each (by DynamoDB's measure), in
// batches of 25 from 8 writers, 1,000 items to a partition.
func fill(b *testing.B, db *DB, from, to int) {
	b.Helper()
	pad := strings.Repeat("x", 1024-len("pk")-len("P0000")-len("sk")-len("ITEM#000000")-len("data"))
	work := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range work {
				var reqs []types.WriteRequest
				for i := start; i < min(start+25, to); i++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"pk":   &types.AttributeValueMemberS{Value: fmt.Sprintf("P%04d", i/1000)},
						"sk":   &types.AttributeValueMemberS{Value: fmt.Sprintf("ITEM#%06d", i)},
						"data": &types.AttributeValueMemberS{Value: pad},
					}}})
				}
				if _, err := db.BatchWriteItem(pctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"startup": reqs}}); err != nil {
					once.Do(func() { b.Error(err) })
				}
			}
		}()
	}
	t0 := time.Now()
	for s := from; s < to; s += 25 {
		work <- s
	}
	close(work)
	wg.Wait()
	b.Logf("wrote %d items in %v", to-from, time.Since(t0))
}
