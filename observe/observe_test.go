package observe_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/observe"
	"github.com/tablekit/tablekit/table"
)

// rig is a fake DynamoDB behind the wrapper, with in-memory exporters.
type rig struct {
	db     *dynamotest.DB
	api    table.API
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	logs   *bytes.Buffer
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{db: dynamotest.New(), spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), logs: &bytes.Buffer{}}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	log := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	api, err := observe.DynamoDB(r.db, observe.TracerProvider(r.tp), observe.MeterProvider(mp), observe.Logger(log))
	require.NoError(t, err)
	r.api = api
	_, err = r.db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("things"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	require.NoError(t, err)
	return r
}

func (r *rig) put(t *testing.T, ctx context.Context, pk string, opts ...func(*dynamodb.PutItemInput)) (*dynamodb.PutItemOutput, error) {
	t.Helper()
	in := &dynamodb.PutItemInput{TableName: aws.String("things"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "g": &types.AttributeValueMemberS{Value: "G"},
	}}
	for _, o := range opts {
		o(in)
	}
	return r.api.PutItem(ctx, in)
}

// sums returns every data point of the named counter, keyed by its attributes.
func (r *rig) sums(t *testing.T, name string) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	out := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += float64(p.Value)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += p.Value
				}
			}
		}
	}
	return out
}

func spanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func TestDynamoDBRequestIsAChildSpanWithTableAndConsumedCapacity(t *testing.T) {
	r := newRig(t)
	ctx, parent := r.tp.Tracer("test").Start(context.Background(), "jobs.Create")
	out, err := r.put(t, ctx, "a")
	require.NoError(t, err)
	parent.End()

	// The caller did not ask for capacity: the wrapper's own request must not show.
	assert.Nil(t, out.ConsumedCapacity)

	ended := r.spans.Ended()
	require.Len(t, ended, 2)
	put := ended[0]
	assert.Equal(t, "DynamoDB.PutItem", put.Name())
	assert.Equal(t, parent.SpanContext().SpanID(), put.Parent().SpanID(), "the request span is a child of the store call")
	assert.Equal(t, parent.SpanContext().TraceID(), put.SpanContext().TraceID())
	tables, ok := spanAttr(put, "aws.dynamodb.table_names")
	require.True(t, ok)
	assert.Equal(t, []string{"things"}, tables.AsStringSlice())
	cc, ok := spanAttr(put, "aws.dynamodb.consumed_capacity")
	require.True(t, ok)
	assert.Contains(t, cc.AsStringSlice()[0], `"TableName":"things"`)
	assert.Equal(t, codes.Unset, put.Status().Code)

	// A 1 KB-or-less item written to a table with one GSI: 1 WCU on the
	// table and 1 on the index, recorded per index.
	capacity := r.sums(t, "tablekit.dynamodb.consumed_capacity")
	assert.Equal(t, 1.0, capacity["aws.dynamodb.index_name=,db.collection.name=things,tablekit.capacity.kind=write"])
	assert.Equal(t, 1.0, capacity["aws.dynamodb.index_name=byG,db.collection.name=things,tablekit.capacity.kind=write"])
	requests := r.sums(t, "tablekit.dynamodb.requests")
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=PutItem,tablekit.outcome=ok"])
}

func TestDynamoDBCallerAskingForCapacityStillGetsIt(t *testing.T) {
	r := newRig(t)
	out, err := r.put(t, context.Background(), "a", func(in *dynamodb.PutItemInput) {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	})
	require.NoError(t, err)
	require.NotNil(t, out.ConsumedCapacity)
	assert.Equal(t, 2.0, aws.ToFloat64(out.ConsumedCapacity.CapacityUnits))
	assert.Nil(t, out.ConsumedCapacity.GlobalSecondaryIndexes, "TOTAL was asked for, so no per-index detail")
}

func TestDynamoDBWrapperDoesNotChangeTheCallersInput(t *testing.T) {
	r := newRig(t)
	in := &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}
	_, err := r.api.GetItem(context.Background(), in)
	require.NoError(t, err)
	assert.Empty(t, in.ReturnConsumedCapacity)
}

func TestDynamoDBLostRaceIsCountedAndLoggedAtDebug(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	create := func(in *dynamodb.PutItemInput) { in.ConditionExpression = aws.String("attribute_not_exists(pk)") }
	_, err := r.put(t, ctx, "a", create)
	require.NoError(t, err)
	_, err = r.put(t, ctx, "a", create)
	require.Error(t, err)

	requests := r.sums(t, "tablekit.dynamodb.requests")
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=PutItem,tablekit.outcome=condition_failed"])
	lost := r.spans.Ended()[1]
	assert.Equal(t, codes.Error, lost.Status().Code)
	typ, _ := spanAttr(lost, "error.type")
	assert.Equal(t, "ConditionalCheckFailedException", typ.AsString())
	assert.Contains(t, r.logs.String(), "level=DEBUG")
	assert.Contains(t, r.logs.String(), "outcome=condition_failed")
}

func TestDynamoDBThrottleIsCountedAndLoggedAtWarn(t *testing.T) {
	r := newRig(t)
	r.db.Inject(dynamotest.Throttle("PutItem", 1))
	_, err := r.put(t, context.Background(), "a")
	require.Error(t, err)
	requests := r.sums(t, "tablekit.dynamodb.requests")
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=PutItem,tablekit.outcome=throttled"])
	assert.Contains(t, r.logs.String(), "level=WARN")
	assert.Contains(t, r.logs.String(), "ProvisionedThroughputExceededException")
}

func TestDynamoDBTransactionLostRaceIsConditionFailed(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	_, err := r.put(t, ctx, "a")
	require.NoError(t, err)
	_, err = r.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		Put: &types.Put{TableName: aws.String("things"), ConditionExpression: aws.String("attribute_not_exists(pk)"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}},
	}}})
	require.Error(t, err)
	requests := r.sums(t, "tablekit.dynamodb.requests")
	assert.Equal(t, 1.0, requests["db.collection.name=things,db.operation.name=TransactWriteItems,tablekit.outcome=condition_failed"])
}

func TestDynamoDBBatchUnprocessedItemsAreCounted(t *testing.T) {
	r := newRig(t)
	r.db.Inject(dynamotest.UnprocessedFraction("BatchWriteItem", 0.5))
	var reqs []types.WriteRequest
	for _, pk := range []string{"a", "b", "c", "d"} {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}}})
	}
	out, err := r.api.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"things": reqs}})
	require.NoError(t, err)
	left := len(out.UnprocessedItems["things"])
	require.Positive(t, left)
	unprocessed := r.sums(t, "tablekit.dynamodb.unprocessed")
	assert.Equal(t, float64(left), unprocessed["db.collection.name=things,db.operation.name=BatchWriteItem"])
}

func TestDynamoDBQueryCountsAndIndexCapacity(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for _, pk := range []string{"a", "b", "c"} {
		_, err := r.put(t, ctx, pk)
		require.NoError(t, err)
	}
	out, err := r.api.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String("things"), IndexName: aws.String("byG"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "G"}},
	})
	require.NoError(t, err)
	require.Len(t, out.Items, 3)
	assert.Nil(t, out.ConsumedCapacity)
	q := r.spans.Ended()[3]
	count, _ := spanAttr(q, "aws.dynamodb.count")
	assert.Equal(t, int64(3), count.AsInt64())
	idx, _ := spanAttr(q, "aws.dynamodb.index_name")
	assert.Equal(t, "byG", idx.AsString())
	capacity := r.sums(t, "tablekit.dynamodb.consumed_capacity")
	assert.Equal(t, 0.5, capacity["aws.dynamodb.index_name=byG,db.collection.name=things,tablekit.capacity.kind=read"],
		"three small items in one eventually consistent page: half a read unit on the index")
}

func TestBlobsSpansOutcomesAndBytes(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	b, err := observe.Blobs(blobstore.NewMemory(), observe.TracerProvider(tp),
		observe.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	require.NoError(t, err)
	ctx := context.Background()

	require.NoError(t, b.Put(ctx, "a/b.json", strings.NewReader("hello")))
	rc, _, err := b.Get(ctx, "a/b.json")
	require.NoError(t, err)
	body, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	assert.Equal(t, "hello", string(body))
	_, err = b.Head(ctx, "missing")
	require.ErrorIs(t, err, blobstore.ErrNotFound)
	var listed []string
	for info, err := range b.List(ctx, "a/") {
		require.NoError(t, err)
		listed = append(listed, info.Key)
	}
	assert.Equal(t, []string{"a/b.json"}, listed)

	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"blobstore.Put", "blobstore.Get", "blobstore.Head", "blobstore.List"}, names)
	key, _ := spanAttr(spans.Ended()[0], "aws.s3.key")
	assert.Equal(t, "a/b.json", key.AsString())

	r := &rig{reader: reader}
	bytesWritten := r.sums(t, "tablekit.blobstore.bytes")
	assert.Equal(t, 5.0, bytesWritten["blobstore.operation=Put"])
	requests := r.sums(t, "tablekit.blobstore.requests")
	assert.Equal(t, 1.0, requests["blobstore.operation=Head,tablekit.outcome=not_found"])
	assert.Equal(t, 1.0, requests["blobstore.operation=Put,tablekit.outcome=ok"])
}

func TestNilBackendsAreRefused(t *testing.T) {
	_, err := observe.DynamoDB(nil)
	assert.ErrorIs(t, err, observe.ErrNilBackend)
	_, err = observe.Blobs(nil)
	assert.ErrorIs(t, err, observe.ErrNilBackend)
}

func TestNilInputsReachTheBackendsErrorsWithoutPanicking(t *testing.T) {
	api, err := observe.DynamoDB(dynamotest.New(), nil)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = api.GetItem(ctx, nil)
	assert.Error(t, err)
	_, err = api.PutItem(ctx, nil)
	assert.Error(t, err)
	_, err = api.Query(ctx, nil)
	assert.Error(t, err)
	_, err = api.TransactWriteItems(ctx, nil)
	assert.Error(t, err)
	_, err = api.CreateTable(ctx, nil)
	assert.Error(t, err)
	_, err = api.ListTables(ctx, nil)
	assert.NoError(t, err)
}

func TestTraceIDComesFromTheContextsSpan(t *testing.T) {
	assert.Empty(t, observe.TraceID(context.Background()))
	assert.Empty(t, observe.TraceID(nil)) //nolint:staticcheck // nil is exactly what this checks
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "x")
	defer span.End()
	assert.Equal(t, span.SpanContext().TraceID().String(), observe.TraceID(ctx))
	assert.Len(t, observe.TraceID(ctx), 32)

	id := span.SpanContext().TraceID().String()
	assert.Equal(t, "1-"+id[:8]+"-"+id[8:], observe.XRayTraceID(ctx))
	assert.Empty(t, observe.XRayTraceID(context.Background()))
}
