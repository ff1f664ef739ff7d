package tasks_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/tasks"
)

// The seed's capacity plan per task: 3 WCU on the submission path (the
// SUBMITTED event, the idempotency record, META) and 3 on the processing
// path (the claim, the PROCESSING event, the COMPLETED event), each at 1
// WCU, with no transaction cost and no index writes.
const seedPlanWCUPerTask = 6

// lifecycle runs one task through submit, claim and complete.
func lifecycle(b *testing.B, ctx context.Context, store *tasks.Store, i int) {
	if _, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i), Payload: []byte(`{"resize":"photo.jpg","width":1024}`)}); err != nil {
		b.Fatal(err)
	}
	c, err := store.Claim(ctx, "w-bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := store.Complete(ctx, c.Lease, []byte(`{"ok":true}`)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSubmitClaimComplete is one task through the queue on the fake,
// and the write units it costs by DynamoDB's rules (the fake's capacity
// meter), beside the seed's plan.
func BenchmarkSubmitClaimComplete(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	f.db.ResetConsumed()
	i := 0
	for b.Loop() {
		f.db.Advance(time.Millisecond)
		lifecycle(b, ctx, f.store, i)
		i++
	}
	used := f.db.Consumed(f.store.Table().Name())
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
	b.ReportMetric(used.WriteUnits/float64(b.N), "WCU/task")
	b.ReportMetric(used.ReadUnits/float64(b.N), "RCU/task")
	b.ReportMetric(seedPlanWCUPerTask, "seed-plan-WCU/task")
}

// BenchmarkSubmitClaimCompleteDynamoDBLocal is the same against DynamoDB
// Local (TABLEKIT_DYNAMODB_ENDPOINT).
func BenchmarkSubmitClaimCompleteDynamoDBLocal(b *testing.B) {
	if os.Getenv(testenv.DynamoDBEndpointVar) == "" {
		b.Skip(testenv.DynamoDBEndpointVar + " not set: this benchmark needs DynamoDB Local")
	}
	client := testenv.DynamoDB(b)
	name := testenv.TableName(b, "tasks-bench")
	ctx := context.Background()
	store, err := tasks.NewStore(client, nil, tasks.TableName(name))
	if err != nil {
		b.Fatal(err)
	}
	if err := store.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	i := 0
	for b.Loop() {
		lifecycle(b, ctx, store, i)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}
