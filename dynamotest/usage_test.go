package dynamotest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// kilobytes is an item of simple of about n KB.
func kilobytes(sk string, n int) item {
	return item{"pk": S("a"), "sk": S(sk), "data": S(strings.Repeat("x", n*1024-100))}
}

func TestMeterCountsRequestsRoundTripsAndBilledUnits(t *testing.T) {
	db := newDB(t, simple)
	m := dynamotest.NewMeter(db)

	_, err := m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 3)})
	require.NoError(t, err)
	out, err := m.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.NotNil(t, out.Item)
	_, err = m.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String("simple"), KeyConditionExpression: aws.String("pk = :a"),
		ExpressionAttributeValues: item{":a": S("a")},
	})
	require.NoError(t, err)

	u := m.Usage()
	assert.Equal(t, 3, u.Requests)
	assert.Equal(t, 3, u.RoundTrips, "each request was sent after the one before answered")
	assert.Equal(t, 3.0, u.WriteUnits, "a 3 KB put is 3 write units")
	assert.Equal(t, 1.5, u.ReadUnits, "a consistent 3 KB get is 1 unit, an eventually consistent query of it half of one")
	assert.Equal(t, map[string]int{"PutItem": 1, "GetItem": 1, "Query": 1}, u.Calls)
	assert.Nil(t, out.ConsumedCapacity, "the caller did not ask for its consumed capacity")
}

func TestMeterBillsFailedConditionalWrites(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", kilobytes("1", 2))
	m := dynamotest.NewMeter(db)

	_, err := m.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("simple"), Item: kilobytes("1", 1),
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf)

	u := m.Usage()
	assert.Equal(t, 1, u.Requests)
	assert.Equal(t, 2.0, u.WriteUnits, "DynamoDB bills a failed condition by the size of the item it read")
	assert.Equal(t, db.Consumed("simple").WriteUnits-2, u.WriteUnits, "the fake's totals and the meter agree")
}

func TestMeterCountsConcurrentRequestsAsOneRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := newDB(t, simple)
		m := dynamotest.NewMeter(db, func(o *dynamotest.MeterOptions) { o.Latency = 10 * time.Millisecond })

		// Ten puts sent four at a time: three round trips, as against
		// DynamoDB, where each takes the network's latency.
		work := make(chan int)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for i := range work {
					_, err := m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes(string(rune('a'+i)), 1)})
					assert.NoError(t, err)
				}
			})
		}
		for i := range 10 {
			work <- i
		}
		close(work)
		wg.Wait()
		_, err := m.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("a")}})
		require.NoError(t, err)

		u := m.Usage()
		assert.Equal(t, 11, u.Requests)
		assert.Equal(t, 4, u.RoundTrips, "three rounds of puts, then the get")
		assert.Equal(t, 10.0, u.WriteUnits)
	})
}

func TestMeterMeasureCountsOneCallOnly(t *testing.T) {
	db := newDB(t, simple)
	m := dynamotest.NewMeter(db)
	_, err := m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 1)})
	require.NoError(t, err)

	u := m.Measure(func() {
		_, err := m.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}})
		require.NoError(t, err)
	})
	assert.Equal(t, dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 1, Calls: map[string]int{"DeleteItem": 1}}, u)

	m.Reset()
	assert.Equal(t, dynamotest.Usage{}, m.Usage())
}

// detached passes requests on without their context's values, as an API
// across a network does: the fake cannot tell the Meter what it recorded.
type detached struct{ table.API }

func (d detached) PutItem(_ context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return d.API.PutItem(context.Background(), in, optFns...)
}

func (d detached) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return d.API.BatchWriteItem(context.Background(), in, optFns...)
}

func TestMeterReadsCapacityFromAnswersOfAnotherAPI(t *testing.T) {
	db := newDB(t, simple)
	m := dynamotest.NewMeter(detached{db})

	in := &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 2)}
	out, err := m.PutItem(ctx, in)
	require.NoError(t, err)
	assert.Nil(t, out.ConsumedCapacity, "the caller did not ask for it")
	assert.Empty(t, in.ReturnConsumedCapacity, "the caller's input is left as it was")

	out, err = m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("2", 1), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	require.NotNil(t, out.ConsumedCapacity, "the caller asked for it")
	assert.Equal(t, 1.0, aws.ToFloat64(out.ConsumedCapacity.CapacityUnits))

	bout, err := m.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": {
		{PutRequest: &types.PutRequest{Item: kilobytes("3", 1)}},
		{PutRequest: &types.PutRequest{Item: kilobytes("4", 3)}},
	}}})
	require.NoError(t, err)
	assert.Empty(t, bout.ConsumedCapacity)

	u := m.Usage()
	assert.Equal(t, 3, u.Requests)
	assert.Equal(t, 7.0, u.WriteUnits)
	assert.Equal(t, db.Consumed("simple").WriteUnits, u.WriteUnits)
}

func TestMetersInsideMetersBothCount(t *testing.T) {
	db := newDB(t, simple)
	inner := dynamotest.NewMeter(db)
	outer := dynamotest.NewMeter(inner)
	_, err := outer.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 2)})
	require.NoError(t, err)
	_, err = outer.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 1), ConditionExpression: aws.String("attribute_not_exists(pk)")})
	require.Error(t, err)

	for _, m := range []*dynamotest.Meter{inner, outer} {
		u := m.Usage()
		assert.Equal(t, 2, u.Requests)
		assert.Equal(t, 4.0, u.WriteUnits, "2 for the put, 2 for the failed condition on the 2 KB item")
	}
}

func TestUsagesAddUp(t *testing.T) {
	a := dynamotest.Usage{Requests: 2, RoundTrips: 1, ReadUnits: 0.5, WriteUnits: 3, Calls: map[string]int{"Query": 2}}
	b := dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 1, Calls: map[string]int{"PutItem": 1, "Query": 1}}
	assert.Equal(t, dynamotest.Usage{Requests: 3, RoundTrips: 2, ReadUnits: 0.5, WriteUnits: 4,
		Calls: map[string]int{"Query": 3, "PutItem": 1}}, a.Add(b))
	assert.Equal(t, map[string]int{"Query": 2}, a.Calls, "a is left as it was")
	assert.Equal(t, dynamotest.Usage{}, dynamotest.Usage{}.Add(dynamotest.Usage{}))
}

func TestUsageIsWithinAMaximumOnlyWhenNoFigureExceedsIt(t *testing.T) {
	max := dynamotest.Usage{Requests: 2, RoundTrips: 1, ReadUnits: 1, WriteUnits: 3}
	assert.True(t, max.Within(max))
	assert.True(t, dynamotest.Usage{Requests: 1, Calls: map[string]int{"GetItem": 9}}.Within(max), "Calls aside")
	for _, over := range []dynamotest.Usage{
		{Requests: 3}, {RoundTrips: 2}, {ReadUnits: 1.5}, {WriteUnits: 3.5},
	} {
		assert.False(t, over.Within(max), "%+v", over)
	}
}

func TestCheckCostsMeasuresEachCallOnItsOwnFixture(t *testing.T) {
	fixture := func(tb testing.TB) (*dynamotest.Meter, *dynamotest.Meter) {
		m := dynamotest.NewMeter(newDB(tb, simple))
		return m, m
	}
	prepared := 0
	dynamotest.CheckCosts(t, fixture, []dynamotest.Cost[*dynamotest.Meter]{{
		Name: "a put of 2 KB",
		Prepare: func(tb testing.TB, m *dynamotest.Meter) func() error {
			prepared++
			// Prepared through the Meter too, but not counted.
			_, err := m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("before", 3)})
			require.NoError(tb, err)
			return func() error {
				_, err := m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 2)})
				return err
			}
		},
		Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 2},
	}})
	assert.Equal(t, 1, prepared)
}

func TestMeterWithoutAPIFails(t *testing.T) {
	for _, m := range []*dynamotest.Meter{nil, new(dynamotest.Meter), dynamotest.NewMeter(nil)} {
		_, err := m.GetItem(ctx, &dynamodb.GetItemInput{})
		assert.True(t, errors.Is(err, dynamotest.ErrNoAPI))
		assert.Equal(t, dynamotest.Usage{}, m.Usage())
	}
}

func BenchmarkMeterReport(b *testing.B) {
	db := newDB(b, simple)
	m := dynamotest.NewMeter(db)
	in := &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: kilobytes("1", 1)}
	for b.Loop() {
		if _, err := m.PutItem(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	m.Usage().Report(b)
}
