package changes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamstypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// streamTables makes, on DynamoDB Local, a source table (pk, sk) with a
// NEW_AND_OLD_IMAGES stream and a lease table, both deleted when the test
// ends (testenv.TableName sees to that), and returns their names and the
// stream's ARN.
func streamTables(t *testing.T, db table.API, base string) (src, leases, streamARN string) {
	t.Helper()
	ctx := t.Context()
	src, leases = testenv.TableName(t, base+"-src"), testenv.TableName(t, base+"-leases")
	require.NoError(t, table.Schema{Name: src, PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey: table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS}}.EnsureTable(ctx, db))
	streamARN, err := changes.EnableStream(ctx, db, src, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(leases).EnsureTable(ctx, db))
	return src, leases, streamARN
}

// TestConsumerIntegrationKilledMidBatchResumesFromItsCheckpoint is the
// killed-consumer test on DynamoDB Local: its stream, its conditional
// writes for leases and checkpoints. Leases are measured on a fake's clock
// (the consumer's Clock), so the takeover needs no waiting; only the
// stream's publication delay is waited for.
func TestConsumerIntegrationKilledMidBatchResumesFromItsCheckpoint(t *testing.T) {
	ep := testenv.DynamoDBEndpoint(t)
	ctx := context.Background()
	db := compared.DynamoDB(t)
	streams := dynamotest.NewStreamsClient(ep)
	src, leases, arn := streamTables(t, db, "changes")
	clock := dynamotest.New() // a clock only

	put := func(round int) {
		for i := range 10 {
			g := fmt.Sprintf("g%d", i%3)
			item, err := attributevalue.MarshalMap(counter{PK: g, SK: fmt.Sprintf("c%d", i), Group: g, N: round*10 + i})
			require.NoError(t, err)
			_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(src), Item: item})
			require.NoError(t, err)
		}
		_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "g0"}, "sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("c%d", (round*3)%10)}}})
		require.NoError(t, err)
	}
	newConsumer := func(owner string, opts ...func(*changes.Options)) *changes.Consumer[counter] {
		c, err := changes.New[counter](db, streams, src, append([]func(*changes.Options){changes.Owner(owner), changes.LeaseTable(leases),
			changes.Clock(clock.Now), changes.BatchSize(4), changes.Backoff(table.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond})}, opts...)...)
		require.NoError(t, err)
		return c
	}
	// waitFor steps c until done holds; DynamoDB Local publishes records a
	// moment after the write, so an empty round waits a little (on the
	// service, not on the consumer's clock).
	waitFor := func(c *changes.Consumer[counter], h changes.Handler[counter], done func() bool) error {
		deadline := time.Now().Add(20 * time.Second)
		for !done() {
			n, err := c.Step(ctx, h)
			if err != nil {
				return err
			}
			require.True(t, time.Now().Before(deadline), "the stream did not deliver within 20s")
			if n == 0 {
				time.Sleep(50 * time.Millisecond)
			}
		}
		return nil
	}

	v := newView()
	put(1)
	first := newConsumer("first", changes.MaxAttempts(1))
	batches := 0
	killed := false
	err := waitFor(first, func(_ context.Context, batch []changes.Change[counter]) error {
		batches++
		if batches < 2 || len(batch) < 2 {
			for _, ch := range batch {
				v.apply(ch)
			}
			return nil
		}
		for _, ch := range batch[:len(batch)/2] {
			v.apply(ch)
		}
		killed = true
		return errKilled
	}, func() bool { return killed })
	require.ErrorIs(t, err, errKilled)

	put(2)
	second := newConsumer("second")
	n, err := second.Step(ctx, func(context.Context, []changes.Change[counter]) error {
		require.Fail(t, "handled while the first consumer's lease was live")
		return nil
	})
	require.NoError(t, err)
	assert.Zero(t, n)
	clock.Advance(31 * time.Second)

	recountLocal := func() map[string]int {
		out := map[string]int{}
		res, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(src), ConsistentRead: aws.Bool(true)})
		require.NoError(t, err)
		for _, item := range res.Items {
			var c counter
			require.NoError(t, attributevalue.UnmarshalMap(item, &c))
			out[c.Group] += c.N
		}
		return out
	}
	// streamSeqs reads every record of the stream, every shard.
	streamSeqs := func() []string {
		d, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		require.NoError(t, err)
		var seqs []string
		for _, sh := range d.StreamDescription.Shards {
			it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId, ShardIteratorType: streamstypes.ShardIteratorTypeTrimHorizon})
			require.NoError(t, err)
			for iter := it.ShardIterator; iter != nil; {
				out, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
				require.NoError(t, err)
				for _, r := range out.Records {
					seqs = append(seqs, aws.ToString(r.Dynamodb.SequenceNumber))
				}
				if len(out.Records) == 0 {
					break
				}
				iter = out.NextShardIterator
			}
		}
		return seqs
	}
	allHandled := func() bool {
		for _, s := range streamSeqs() {
			if v.handled[s] == 0 {
				return false
			}
		}
		return true
	}
	want := recountLocal()
	require.NoError(t, waitFor(second, func(_ context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			v.apply(ch)
		}
		return nil
	}, func() bool { return assert.ObjectsAreEqual(want, v.sums()) && allHandled() }))

	seqs := streamSeqs()
	redelivered := 0
	for _, s := range seqs {
		assert.GreaterOrEqual(t, v.handled[s], 1, "record %s was skipped", s)
		if v.handled[s] > 1 {
			redelivered++
		}
	}
	assert.Positive(t, redelivered, "the killed batch's applied half is delivered again")
	assert.Equal(t, want, v.sums())
}
