package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/tasks"
)

// The seed's capacity plan per task: 3 WCU on the submission path (the
// SUBMITTED event, the idempotency record, META) and 3 on the processing
// path (the claim, the PROCESSING event, the COMPLETED event), each at 1
// WCU, with no transaction cost and no index writes.
const seedPlanWCUPerTask = 6

// latency is what the meter adds to every request, as the network does, so
// that requests a call sends concurrently overlap and count as one round
// trip.
const latency = time.Millisecond

// metered is a store on the fake (its clock at epoch, moved by Advance)
// behind a dynamotest.Meter, with the table created and the store's first
// read of the table's shard count done, so what the meter counts next is
// the calls under test.
func metered(tb testing.TB, opts ...func(*tasks.Options)) (*dynamotest.DB, *dynamotest.Meter, *tasks.Store) {
	tb.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	m := dynamotest.NewMeter(db, func(o *dynamotest.MeterOptions) { o.Latency = latency })
	store, err := tasks.NewStore(m, nil, append([]func(*tasks.Options){tasks.Clock(db.Now)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := store.EnsureTable(context.Background()); err != nil {
		tb.Fatal(err)
	}
	m.Reset()
	return db, m, store
}

// lifecycle runs task i through the queue as the seed plans it: submitted
// with an idempotency key, claimed, one heartbeat, completed.
func lifecycle(tb testing.TB, db *dynamotest.DB, store *tasks.Store, i int) {
	ctx := context.Background()
	if _, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: fmt.Sprintf("client-%d", i), Payload: []byte(`{"resize":"photo.jpg","width":1024}`)}); err != nil {
		tb.Fatal(err)
	}
	c, err := store.Claim(ctx, "w-bench")
	if err != nil {
		tb.Fatal(err)
	}
	db.Advance(10 * time.Second)
	lease, err := store.Heartbeat(ctx, c.Lease)
	if err != nil {
		tb.Fatal(err)
	}
	if err := store.Complete(ctx, lease, []byte(`{"ok":true}`)); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkTaskLifecycle is one task through the queue (submit with an
// idempotency key, claim, one heartbeat, complete) on the fake: requests,
// round trips and billed units per task by DynamoDB's rules, beside the
// seed's plan, in the default layout (every status change an event item)
// and with CompactHistory.
func BenchmarkTaskLifecycle(b *testing.B) {
	for _, compact := range []bool{false, true} {
		for _, shards := range []int{1, tasks.DefaultShards} {
			b.Run(fmt.Sprintf("%s/shards=%d", layoutName(compact), shards), func(b *testing.B) {
				db, m, store := metered(b, tasks.Shards(shards), layout(compact))
				i := 0
				for b.Loop() {
					lifecycle(b, db, store, i)
					i++
				}
				m.Usage().Report(b)
				b.ReportMetric(seedPlanWCUPerTask, "seed-plan-WCU/op")
			})
		}
	}
}

// BenchmarkClaimEmptyQueue is what an idle worker's poll costs: a Claim on
// a queue with nothing to claim, polled again and again as the worker
// runtime does.
func BenchmarkClaimEmptyQueue(b *testing.B) {
	for _, shards := range []int{1, tasks.DefaultShards, 16} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			db, m, store := metered(b, tasks.Shards(shards))
			ctx := context.Background()
			for b.Loop() {
				db.Advance(tasks.DefaultPollBackoff.Max)
				if _, err := store.Claim(ctx, "w-idle"); !errors.Is(err, tasks.ErrNoTask) {
					b.Fatal(err)
				}
			}
			m.Usage().Report(b)
		})
	}
}

// BenchmarkHeartbeat is one extension of a lease.
func BenchmarkHeartbeat(b *testing.B) {
	db, m, store := metered(b)
	ctx := context.Background()
	if _, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{"resize":"photo.jpg"}`)}); err != nil {
		b.Fatal(err)
	}
	c, err := store.Claim(ctx, "w-bench")
	if err != nil {
		b.Fatal(err)
	}
	lease := c.Lease
	m.Reset()
	for b.Loop() {
		db.Advance(10 * time.Second)
		if lease, err = store.Heartbeat(ctx, lease); err != nil {
			b.Fatal(err)
		}
	}
	m.Usage().Report(b)
}

// BenchmarkTaskLifecycleDynamoDBLocal is the lifecycle against DynamoDB
// Local (TABLEKIT_DYNAMODB_ENDPOINT), which reports consumed capacity as
// DynamoDB does.
func BenchmarkTaskLifecycleDynamoDBLocal(b *testing.B) {
	if os.Getenv(testenv.DynamoDBEndpointVar) == "" {
		b.Skip(testenv.DynamoDBEndpointVar + " not set: this benchmark needs DynamoDB Local")
	}
	client := testenv.DynamoDB(b)
	name := testenv.TableName(b, "tasks-bench")
	ctx := context.Background()
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	m := dynamotest.NewMeter(client)
	store, err := tasks.NewStore(m, nil, tasks.TableName(name), tasks.Clock(clock.Now))
	if err != nil {
		b.Fatal(err)
	}
	if err := store.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	m.Reset()
	i := 0
	for b.Loop() {
		lifecycle(b, clock, store, i)
		i++
	}
	m.Usage().Report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}
