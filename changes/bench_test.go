package changes_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// benchFake is a fake on the wall clock with the source table streaming
// and the lease table, served in process or over HTTP.
func benchFake(b *testing.B, overHTTP bool) (table.API, changes.StreamsAPI, *dynamotest.DB) {
	b.Helper()
	ctx := context.Background()
	var db table.API
	var streams changes.StreamsAPI
	var fake *dynamotest.DB
	if overHTTP {
		srv := dynamotest.NewServer()
		b.Cleanup(srv.Close)
		db, streams, fake = srv.Client(), srv.StreamsClient(), srv.DB
	} else {
		fake = dynamotest.New()
		db, streams = fake, fake
	}
	if err := (table.Schema{Name: source, PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey: table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS}}).EnsureTable(ctx, fake); err != nil {
		b.Fatal(err)
	}
	if _, err := changes.EnableStream(ctx, fake, source, types.StreamViewTypeNewAndOldImages); err != nil {
		b.Fatal(err)
	}
	if err := changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, fake); err != nil {
		b.Fatal(err)
	}
	return db, streams, fake
}

func benchItem(i int, at time.Time) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":    &types.AttributeValueMemberS{Value: "g" + strconv.Itoa(i%16)},
		"sk":    &types.AttributeValueMemberS{Value: "c" + strconv.Itoa(i)},
		"group": &types.AttributeValueMemberS{Value: "g" + strconv.Itoa(i%16)},
		"n":     &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
		"at":    &types.AttributeValueMemberN{Value: strconv.FormatInt(at.UnixNano(), 10)},
	}
}

// BenchmarkConsume measures records per second a consumer reads, decodes,
// hands to a handler and checkpoints, from a stream of b.N records written
// beforehand, with batches of 100 and 1,000.
func BenchmarkConsume(b *testing.B) {
	for _, mode := range []string{"inprocess", "http"} {
		for _, batch := range []int{100, 1000} {
			b.Run(fmt.Sprintf("%s/batch=%d", mode, batch), func(b *testing.B) {
				db, streams, fake := benchFake(b, mode == "http")
				for i := range b.N {
					if _, err := fake.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(source), Item: benchItem(i, time.Now())}); err != nil {
						b.Fatal(err)
					}
				}
				c, err := changes.New[counter](db, streams, source, changes.BatchSize(batch))
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				h := func(_ context.Context, batch []changes.Change[counter]) error { got += len(batch); return nil }
				b.ResetTimer()
				start := time.Now()
				for got < b.N {
					if _, err := c.Step(context.Background(), h); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(got)/time.Since(start).Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkWriteToHandlerLag measures the time from a PutItem's call to
// the handler seeing its change, with a consumer polling every millisecond.
// "paced" writes one item and waits for the handler before the next: the
// lag of a quiet stream, bounded below by the poll interval. "saturated"
// writes b.N items as fast as it can while the consumer keeps up: the lag
// includes the backlog. It reports the median and the 99th percentile.
func BenchmarkWriteToHandlerLag(b *testing.B) {
	for _, mode := range []string{"inprocess", "http"} {
		for _, paced := range []bool{true, false} {
			name := mode + "/saturated"
			if paced {
				name = mode + "/paced"
			}
			b.Run(name, func(b *testing.B) { benchLag(b, mode == "http", paced) })
		}
	}
}

func benchLag(b *testing.B, overHTTP, paced bool) {
	db, streams, fake := benchFake(b, overHTTP)
	c, err := changes.New[counter](db, streams, source, changes.PollInterval(time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	written := make(map[string]time.Time, b.N)
	lags := make([]time.Duration, 0, b.N)
	seen := make(chan struct{}, b.N)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = c.Run(ctx, func(_ context.Context, batch []changes.Change[counter]) error {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			for _, ch := range batch {
				if w, ok := written[ch.New.SK]; ok {
					lags = append(lags, now.Sub(w))
					seen <- struct{}{}
				}
			}
			return nil
		})
	}()
	wait := func() {
		select {
		case <-seen:
		case <-time.After(time.Minute):
			b.Fatal("the consumer fell behind by a minute")
		}
	}
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		written["c"+strconv.Itoa(i)] = time.Now()
		mu.Unlock()
		if _, err := fake.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(source), Item: benchItem(i, time.Now())}); err != nil {
			b.Fatal(err)
		}
		if paced {
			wait()
		}
	}
	if !paced {
		for range b.N {
			wait()
		}
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds()), "p50-lag-µs")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds()), "p99-lag-µs")
}
