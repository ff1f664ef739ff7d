package observe

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tablekit/tablekit/table"
)

// DynamoDB wraps api so that every request is a span, is counted, and has
// its consumed capacity recorded (see the package documentation). The
// result satisfies table.API and is safe for concurrent use when api is.
func DynamoDB(api table.API, opts ...func(*Options)) (table.API, error) {
	if api == nil {
		return nil, ErrNilBackend
	}
	t, err := newTelemetry(opts)
	if err != nil {
		return nil, err
	}
	return &dynamoAPI{API: api, t: t}, nil
}

// dynamoAPI embeds the API it wraps, so a call it does not observe (one
// table.API may gain later) still goes through.
type dynamoAPI struct {
	table.API
	t *telemetry
}

// Capacity kinds, the values of tablekit.capacity.kind.
const (
	capacityRead  = "read"
	capacityWrite = "write"
)

// begin starts the span of one request on tableName.
func (a *dynamoAPI) begin(ctx context.Context, op, tableName string, attrs ...attribute.KeyValue) (context.Context, *call) {
	attrs = append(attrs, semconv.DBSystemNameAWSDynamoDB, semconv.DBOperationName(op))
	if tableName != "" {
		attrs = append(attrs, semconv.AWSDynamoDBTableNames(tableName))
	}
	ctx, span := a.t.tracer.Start(ctx, "DynamoDB."+op,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &call{t: a.t, span: span, start: time.Now(), op: op, table: tableName,
		storeOp: table.OperationFromContext(ctx)}
}

// ObservesOperations tells table.Table that this API labels requests with
// the store call they serve (table.OperationObserver), so stores record it
// in the context even when they are not traced.
func (a *dynamoAPI) ObservesOperations() {}

// askCapacity returns the ReturnConsumedCapacity to send, and whether the
// caller did not ask for it, in which case the output's capacity is removed
// again after it is recorded.
func askCapacity(m types.ReturnConsumedCapacity) (types.ReturnConsumedCapacity, bool) {
	if m == "" || m == types.ReturnConsumedCapacityNone {
		return types.ReturnConsumedCapacityIndexes, true
	}
	return m, false
}

// consumed records what DynamoDB reported, per table and index.
func (c *call) consumed(ctx context.Context, kind string, ccs ...*types.ConsumedCapacity) {
	var docs []string
	for _, cc := range ccs {
		if cc == nil {
			continue
		}
		name := aws.ToString(cc.TableName)
		if name == "" {
			name = c.table
		}
		record := func(index string, units *float64) {
			if units == nil || *units == 0 {
				return
			}
			c.t.capacity.Add(ctx, *units, c.t.measure(c.withStoreOp(semconv.DBCollectionName(name),
				semconv.AWSDynamoDBIndexName(index), CapacityKindKey.String(kind))...))
		}
		if cc.Table != nil || len(cc.GlobalSecondaryIndexes) > 0 || len(cc.LocalSecondaryIndexes) > 0 {
			if cc.Table != nil {
				record("", cc.Table.CapacityUnits)
			}
			for _, idx := range slices.Sorted(maps.Keys(cc.GlobalSecondaryIndexes)) {
				record(idx, cc.GlobalSecondaryIndexes[idx].CapacityUnits)
			}
			for _, idx := range slices.Sorted(maps.Keys(cc.LocalSecondaryIndexes)) {
				record(idx, cc.LocalSecondaryIndexes[idx].CapacityUnits)
			}
		} else {
			record("", cc.CapacityUnits)
		}
		if !c.span.IsRecording() {
			continue
		}
		if b, err := json.Marshal(cc); err == nil {
			docs = append(docs, string(b))
		}
	}
	if len(docs) > 0 {
		c.span.SetAttributes(semconv.AWSDynamoDBConsumedCapacity(docs...))
	}
}

func ptrs(ccs []types.ConsumedCapacity) []*types.ConsumedCapacity {
	out := make([]*types.ConsumedCapacity, len(ccs))
	for i := range ccs {
		out[i] = &ccs[i]
	}
	return out
}

// firstTable names the tables of a multi-table request: the one table, or
// "" when there are several (their names go on the span instead).
func firstTable(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return ""
}

func readAttrs(index *string, limit *int32, consistent *bool) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if index != nil {
		attrs = append(attrs, semconv.AWSDynamoDBIndexName(*index))
	}
	if limit != nil {
		attrs = append(attrs, semconv.AWSDynamoDBLimit(int(*limit)))
	}
	if consistent != nil {
		attrs = append(attrs, semconv.AWSDynamoDBConsistentRead(*consistent))
	}
	return attrs
}

func (a *dynamoAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if in == nil {
		return a.API.GetItem(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	ctx, c := a.begin(ctx, "GetItem", aws.ToString(in.TableName), readAttrs(nil, nil, in.ConsistentRead)...)
	out, err := a.API.GetItem(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityRead, out.ConsumedCapacity)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if in == nil {
		return a.API.PutItem(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	ctx, c := a.begin(ctx, "PutItem", aws.ToString(in.TableName))
	out, err := a.API.PutItem(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityWrite, out.ConsumedCapacity)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if in == nil {
		return a.API.UpdateItem(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	ctx, c := a.begin(ctx, "UpdateItem", aws.ToString(in.TableName))
	out, err := a.API.UpdateItem(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityWrite, out.ConsumedCapacity)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if in == nil {
		return a.API.DeleteItem(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	ctx, c := a.begin(ctx, "DeleteItem", aws.ToString(in.TableName))
	out, err := a.API.DeleteItem(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityWrite, out.ConsumedCapacity)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if in == nil {
		return a.API.Query(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	attrs := readAttrs(in.IndexName, in.Limit, in.ConsistentRead)
	if in.ScanIndexForward != nil {
		attrs = append(attrs, semconv.AWSDynamoDBScanForward(*in.ScanIndexForward))
	}
	ctx, c := a.begin(ctx, "Query", aws.ToString(in.TableName), attrs...)
	out, err := a.API.Query(ctx, &req, o...)
	if out != nil {
		c.span.SetAttributes(semconv.AWSDynamoDBCount(int(out.Count)), semconv.AWSDynamoDBScannedCount(int(out.ScannedCount)))
		c.consumed(ctx, capacityRead, out.ConsumedCapacity)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if in == nil {
		return a.API.Scan(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	attrs := readAttrs(in.IndexName, in.Limit, in.ConsistentRead)
	if in.Segment != nil {
		attrs = append(attrs, semconv.AWSDynamoDBSegment(int(*in.Segment)))
	}
	if in.TotalSegments != nil {
		attrs = append(attrs, semconv.AWSDynamoDBTotalSegments(int(*in.TotalSegments)))
	}
	ctx, c := a.begin(ctx, "Scan", aws.ToString(in.TableName), attrs...)
	out, err := a.API.Scan(ctx, &req, o...)
	if out != nil {
		c.span.SetAttributes(semconv.AWSDynamoDBCount(int(out.Count)), semconv.AWSDynamoDBScannedCount(int(out.ScannedCount)))
		c.consumed(ctx, capacityRead, out.ConsumedCapacity)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if in == nil {
		return a.API.BatchGetItem(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	names := slices.Sorted(maps.Keys(in.RequestItems))
	ctx, c := a.begin(ctx, "BatchGetItem", firstTable(names), semconv.AWSDynamoDBTableNames(names...))
	out, err := a.API.BatchGetItem(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityRead, ptrs(out.ConsumedCapacity)...)
		for name, keys := range out.UnprocessedKeys {
			c.unprocessed(ctx, name, len(keys.Keys))
		}
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if in == nil {
		return a.API.BatchWriteItem(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	names := slices.Sorted(maps.Keys(in.RequestItems))
	ctx, c := a.begin(ctx, "BatchWriteItem", firstTable(names), semconv.AWSDynamoDBTableNames(names...))
	out, err := a.API.BatchWriteItem(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityWrite, ptrs(out.ConsumedCapacity)...)
		for name, reqs := range out.UnprocessedItems {
			c.unprocessed(ctx, name, len(reqs))
		}
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (c *call) unprocessed(ctx context.Context, tableName string, n int) {
	if n == 0 {
		return
	}
	c.t.unprocessed.Add(ctx, int64(n), c.t.measure(semconv.DBOperationName(c.op), semconv.DBCollectionName(tableName)))
	if c.t.log != nil {
		c.t.log.WarnContext(ctx, "dynamodb batch left items unprocessed",
			"operation", c.op, "table", tableName, "unprocessed", n)
	}
}

func (a *dynamoAPI) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	if in == nil {
		return a.API.TransactGetItems(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	names := transactGetTables(in.TransactItems)
	ctx, c := a.begin(ctx, "TransactGetItems", firstTable(names), semconv.AWSDynamoDBTableNames(names...))
	out, err := a.API.TransactGetItems(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityRead, ptrs(out.ConsumedCapacity)...)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if in == nil {
		return a.API.TransactWriteItems(ctx, in, o...)
	}
	req := *in
	var strip bool
	req.ReturnConsumedCapacity, strip = askCapacity(in.ReturnConsumedCapacity)
	names := transactWriteTables(in.TransactItems)
	ctx, c := a.begin(ctx, "TransactWriteItems", firstTable(names), semconv.AWSDynamoDBTableNames(names...))
	out, err := a.API.TransactWriteItems(ctx, &req, o...)
	if out != nil {
		c.consumed(ctx, capacityWrite, ptrs(out.ConsumedCapacity)...)
		if strip {
			out.ConsumedCapacity = nil
		}
	}
	c.end(ctx, err)
	return out, err
}

func transactGetTables(items []types.TransactGetItem) []string {
	var names []string
	for _, it := range items {
		if it.Get != nil {
			names = append(names, aws.ToString(it.Get.TableName))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func transactWriteTables(items []types.TransactWriteItem) []string {
	var names []string
	for _, it := range items {
		switch {
		case it.Put != nil:
			names = append(names, aws.ToString(it.Put.TableName))
		case it.Update != nil:
			names = append(names, aws.ToString(it.Update.TableName))
		case it.Delete != nil:
			names = append(names, aws.ToString(it.Delete.TableName))
		case it.ConditionCheck != nil:
			names = append(names, aws.ToString(it.ConditionCheck.TableName))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// The control-plane calls are spans and counts only: they consume no capacity.

func (a *dynamoAPI) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	var name string
	if in != nil {
		name = aws.ToString(in.TableName)
	}
	ctx, c := a.begin(ctx, "CreateTable", name)
	out, err := a.API.CreateTable(ctx, in, o...)
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	var name string
	if in != nil {
		name = aws.ToString(in.TableName)
	}
	ctx, c := a.begin(ctx, "DeleteTable", name)
	out, err := a.API.DeleteTable(ctx, in, o...)
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	var name string
	if in != nil {
		name = aws.ToString(in.TableName)
	}
	ctx, c := a.begin(ctx, "DescribeTable", name)
	out, err := a.API.DescribeTable(ctx, in, o...)
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	ctx, c := a.begin(ctx, "ListTables", "")
	out, err := a.API.ListTables(ctx, in, o...)
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	var name string
	if in != nil {
		name = aws.ToString(in.TableName)
	}
	ctx, c := a.begin(ctx, "UpdateTimeToLive", name)
	out, err := a.API.UpdateTimeToLive(ctx, in, o...)
	c.end(ctx, err)
	return out, err
}

func (a *dynamoAPI) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	var name string
	if in != nil {
		name = aws.ToString(in.TableName)
	}
	ctx, c := a.begin(ctx, "DescribeTimeToLive", name)
	out, err := a.API.DescribeTimeToLive(ctx, in, o...)
	c.end(ctx, err)
	return out, err
}
