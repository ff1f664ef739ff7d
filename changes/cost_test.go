package changes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// stepFixture is a consumer whose lease table requests go through a
// Meter: what a round of the consumer costs beside the handler's own work
// (the stream's reads are the Streams API's, billed apart).
type stepFixture struct {
	fake     *dynamotest.DB
	consumer *changes.Consumer[table.Item]
	written  int
}

func newStepFixture(tb testing.TB) (*stepFixture, *dynamotest.Meter) {
	tb.Helper()
	ctx := context.Background()
	fake := dynamotest.New()
	if err := (table.Schema{Name: source, PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey: table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS}}).EnsureTable(ctx, fake); err != nil {
		tb.Fatal(err)
	}
	if _, err := changes.EnableStream(ctx, fake, source, types.StreamViewTypeNewAndOldImages); err != nil {
		tb.Fatal(err)
	}
	if err := changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, fake); err != nil {
		tb.Fatal(err)
	}
	m := dynamotest.NewMeter(fake)
	c, err := changes.New[table.Item](m, fake, source, changes.Clock(fake.Now), changes.Decode(changes.DecodeItem))
	if err != nil {
		tb.Fatal(err)
	}
	f := &stepFixture{fake: fake, consumer: c}
	f.write(tb, 1) // the first round takes the shard's lease
	if _, err := c.Step(ctx, func(context.Context, []changes.Change[table.Item]) error { return nil }); err != nil {
		tb.Fatal(err)
	}
	return f, m
}

// write puts n items into the source table.
func (f *stepFixture) write(tb testing.TB, n int) {
	for range n {
		f.written++
		_, err := f.fake.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(source), Item: benchItem(f.written, f.fake.Now())})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// step is one round of the consumer that must hand want records.
func (f *stepFixture) step(want int) func() error {
	return func() error {
		n, err := f.consumer.Step(context.Background(), func(context.Context, []changes.Change[table.Item]) error { return nil })
		if err == nil && n != want {
			err = fmt.Errorf("%d records, want %d", n, want)
		}
		return err
	}
}

// stepCosts are a consumer's rounds and what each costs today in its
// lease table: a checkpoint write per batch, nothing for a round with no
// records while the lease holds.
var stepCosts = []dynamotest.Cost[*stepFixture]{
	{Name: "Step with a batch of 100", Prepare: func(tb testing.TB, f *stepFixture) func() error {
		f.write(tb, 100)
		return f.step(100)
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 1}}, // the checkpoint
	{Name: "Step with nothing new", Prepare: func(tb testing.TB, f *stepFixture) func() error {
		f.fake.Advance(time.Second)
		return f.step(0)
	}, Max: dynamotest.Usage{}}, // the lease is still good: nothing to write
}

// TestConsumerRoundsCostNoMoreThanToday fails when a consumer's round
// sends more requests to its lease table, or is billed more, than today.
func TestConsumerRoundsCostNoMoreThanToday(t *testing.T) {
	dynamotest.CheckCosts(t, newStepFixture, stepCosts)
}

// BenchmarkConsumerRounds reports a round's lease table requests and
// billed units.
func BenchmarkConsumerRounds(b *testing.B) {
	dynamotest.BenchmarkCosts(b, newStepFixture, stepCosts)
}
