package changes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
)

// TestCatchUpIntegrationReadsWhatDynamoDBLocalPublished: CatchUp reads
// batch after batch of DynamoDB Local's stream in one call, and calling it
// again is how a test waits for records Local publishes a moment after the
// write (it holds no record back once published).
func TestCatchUpIntegrationReadsWhatDynamoDBLocalPublished(t *testing.T) {
	ep := testenv.DynamoDBEndpoint(t)
	ctx := context.Background()
	db := testenv.DynamoDB(t)
	streams := dynamotest.NewStreamsClient(ep)
	src, leases, _ := streamTables(t, db, "catchup")
	c, err := changes.New[counter](db, streams, src, changes.LeaseTable(leases), changes.BatchSize(4))
	require.NoError(t, err)

	const writes = 30
	for i := range writes {
		item, err := attributevalue.MarshalMap(counter{PK: "g", SK: fmt.Sprintf("c%02d", i), Group: "g", N: i})
		require.NoError(t, err)
		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(src), Item: item})
		require.NoError(t, err)
	}
	var got []int
	h := func(_ context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			got = append(got, ch.New.N)
		}
		return nil
	}
	deadline := time.Now().Add(20 * time.Second)
	most := 0
	for len(got) < writes {
		require.True(t, time.Now().Before(deadline), "Local did not publish %d records in 20s (got %d)", writes, len(got))
		n, err := c.CatchUp(ctx, h)
		require.NoError(t, err)
		most = max(most, n)
		if len(got) < writes {
			time.Sleep(50 * time.Millisecond)
		}
	}
	assert.Greater(t, most, 4, "one CatchUp read more than one batch of 4")
	want := make([]int, writes)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, got, "every record once, in order")
	n, err := c.CatchUp(ctx, h)
	require.NoError(t, err)
	assert.Zero(t, n, "caught up")
}
