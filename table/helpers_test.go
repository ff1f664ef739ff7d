package table

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/require"
)

// thingsSchema is the schema most tests use: a string partition and sort
// key, one GSI and a TTL attribute, like the seeds' single tables.
var thingsSchema = Schema{
	Name:         "Things",
	PartitionKey: Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
	SortKey:      Attribute{Name: "sk", Type: types.ScalarAttributeTypeS},
	Indexes: []Index{{
		Name:         "GSI1",
		PartitionKey: Attribute{Name: "gsi1pk", Type: types.ScalarAttributeTypeS},
		SortKey:      Attribute{Name: "gsi1sk", Type: types.ScalarAttributeTypeS},
	}},
	TTLAttribute: "expiresAt",
}

// thing is a typical stored record.
type thing struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	GSI1PK string `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK string `dynamodbav:"gsi1sk,omitempty"`
	Name   string `dynamodbav:"name"`
	Count  int    `dynamodbav:"count"`
}

// fastBackoff keeps retry tests quick; the retry logic is the same.
func fastBackoff(o *Options) {
	o.Backoff = Backoff{Initial: 50 * time.Microsecond, Max: time.Millisecond}
}

// calls counts API calls by operation name. Every method of API records
// its call and then delegates to next, or fails when next is nil, so a test
// can assert that bad input sent nothing.
type calls struct {
	mu   sync.Mutex
	n    map[string]int
	next API
}

func newCalls(next API) *calls { return &calls{n: map[string]int{}, next: next} }

func (c *calls) count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

func (c *calls) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}

func (c *calls) record(op string) error {
	c.mu.Lock()
	c.n[op]++
	c.mu.Unlock()
	if c.next == nil {
		return errors.New("unexpected call to " + op)
	}
	return nil
}

func (c *calls) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	if err := c.record("CreateTable"); err != nil {
		return nil, err
	}
	return c.next.CreateTable(ctx, in, o...)
}
func (c *calls) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	if err := c.record("DeleteTable"); err != nil {
		return nil, err
	}
	return c.next.DeleteTable(ctx, in, o...)
}
func (c *calls) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if err := c.record("DescribeTable"); err != nil {
		return nil, err
	}
	return c.next.DescribeTable(ctx, in, o...)
}
func (c *calls) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	if err := c.record("ListTables"); err != nil {
		return nil, err
	}
	return c.next.ListTables(ctx, in, o...)
}
func (c *calls) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	if err := c.record("UpdateTimeToLive"); err != nil {
		return nil, err
	}
	return c.next.UpdateTimeToLive(ctx, in, o...)
}
func (c *calls) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	if err := c.record("DescribeTimeToLive"); err != nil {
		return nil, err
	}
	return c.next.DescribeTimeToLive(ctx, in, o...)
}
func (c *calls) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	if err := c.record("UpdateTable"); err != nil {
		return nil, err
	}
	return c.next.UpdateTable(ctx, in, o...)
}
func (c *calls) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	if err := c.record("UpdateContinuousBackups"); err != nil {
		return nil, err
	}
	return c.next.UpdateContinuousBackups(ctx, in, o...)
}
func (c *calls) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	if err := c.record("DescribeContinuousBackups"); err != nil {
		return nil, err
	}
	return c.next.DescribeContinuousBackups(ctx, in, o...)
}
func (c *calls) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	if err := c.record("ListTagsOfResource"); err != nil {
		return nil, err
	}
	return c.next.ListTagsOfResource(ctx, in, o...)
}
func (c *calls) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := c.record("GetItem"); err != nil {
		return nil, err
	}
	return c.next.GetItem(ctx, in, o...)
}
func (c *calls) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := c.record("PutItem"); err != nil {
		return nil, err
	}
	return c.next.PutItem(ctx, in, o...)
}
func (c *calls) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := c.record("UpdateItem"); err != nil {
		return nil, err
	}
	return c.next.UpdateItem(ctx, in, o...)
}
func (c *calls) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := c.record("DeleteItem"); err != nil {
		return nil, err
	}
	return c.next.DeleteItem(ctx, in, o...)
}
func (c *calls) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := c.record("Query"); err != nil {
		return nil, err
	}
	return c.next.Query(ctx, in, o...)
}
func (c *calls) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := c.record("Scan"); err != nil {
		return nil, err
	}
	return c.next.Scan(ctx, in, o...)
}
func (c *calls) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := c.record("BatchGetItem"); err != nil {
		return nil, err
	}
	return c.next.BatchGetItem(ctx, in, o...)
}
func (c *calls) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := c.record("BatchWriteItem"); err != nil {
		return nil, err
	}
	return c.next.BatchWriteItem(ctx, in, o...)
}
func (c *calls) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	if err := c.record("TransactGetItems"); err != nil {
		return nil, err
	}
	return c.next.TransactGetItems(ctx, in, o...)
}
func (c *calls) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := c.record("TransactWriteItems"); err != nil {
		return nil, err
	}
	return c.next.TransactWriteItems(ctx, in, o...)
}

// memDB is a deliberately small stand-in for DynamoDB: it stores items of
// one table keyed by pk/sk, and answers GetItem, PutItem, DeleteItem,
// BatchWriteItem, BatchGetItem, Query and Scan without evaluating
// condition, filter or sort-key expressions. A Query reads the partition
// named by the first key-condition value, in sort key order, honouring
// Limit, ExclusiveStartKey and ScanIndexForward. Methods it does not
// implement panic through the nil embedded API.
type memDB struct {
	API
	mu    sync.Mutex
	items map[string]Item
	// pageEndKey makes Query and Scan return a LastEvaluatedKey on their
	// last page too, as DynamoDB does when a 1 MB page ends exactly at the
	// end of the data.
	pageEndKey bool
}

func newMemDB() *memDB { return &memDB{items: map[string]Item{}} }

func memID(k map[string]types.AttributeValue) string {
	return formatValue(k["pk"]) + "\x00" + formatValue(k["sk"])
}

func (m *memDB) put(item Item) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items[memID(item)] = item
}

func (m *memDB) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

func (m *memDB) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &dynamodb.GetItemOutput{Item: m.items[memID(in.Key)]}, nil
}

func (m *memDB) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	m.put(in.Item)
	return &dynamodb.PutItemOutput{}, nil
}

func (m *memDB) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.items, memID(in.Key))
	return &dynamodb.DeleteItemOutput{}, nil
}

func (m *memDB) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, reqs := range in.RequestItems {
		if len(reqs) > maxBatchWrite {
			return nil, errors.New("memDB: more than 25 requests in one BatchWriteItem")
		}
		for _, r := range reqs {
			if r.PutRequest != nil {
				m.items[memID(r.PutRequest.Item)] = r.PutRequest.Item
			} else {
				delete(m.items, memID(r.DeleteRequest.Key))
			}
		}
	}
	return &dynamodb.BatchWriteItemOutput{}, nil
}

func (m *memDB) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
	for name, ka := range in.RequestItems {
		if len(ka.Keys) > maxBatchGet {
			return nil, errors.New("memDB: more than 100 keys in one BatchGetItem")
		}
		for _, k := range ka.Keys {
			if it, ok := m.items[memID(k)]; ok {
				out.Responses[name] = append(out.Responses[name], it)
			}
		}
	}
	return out, nil
}

// sorted returns the items whose attribute attr equals v (all items when
// attr is ""), in sort key order (then partition key, so the order is total).
func (m *memDB) sorted(attr string, v types.AttributeValue) []Item {
	var items []Item
	for _, it := range m.items {
		if attr == "" || formatValue(it[attr]) == formatValue(v) {
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool {
		return memID(Item{"pk": items[i]["sk"], "sk": items[i]["pk"]}) < memID(Item{"pk": items[j]["sk"], "sk": items[j]["pk"]})
	})
	return items
}

func page(items []Item, start Item, limit *int32, endKey bool) ([]Item, Item) {
	if start != nil {
		for i, it := range items {
			if memID(it) == memID(start) {
				items = items[i+1:]
				break
			}
		}
	}
	var last Item
	if limit != nil && int(*limit) < len(items) {
		items = items[:*limit]
		last = Item{"pk": items[len(items)-1]["pk"], "sk": items[len(items)-1]["sk"]}
	} else if endKey && len(items) > 0 {
		last = Item{"pk": items[len(items)-1]["pk"], "sk": items[len(items)-1]["sk"]}
	}
	return items, last
}

func (m *memDB) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	attr := in.ExpressionAttributeNames["#0"]
	if !strings.HasPrefix(*in.KeyConditionExpression, "#0 = :0") {
		return nil, errors.New("memDB: unexpected key condition " + *in.KeyConditionExpression)
	}
	items := m.sorted(attr, in.ExpressionAttributeValues[":0"])
	if in.ScanIndexForward != nil && !*in.ScanIndexForward {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	got, last := page(items, in.ExclusiveStartKey, in.Limit, m.pageEndKey)
	return &dynamodb.QueryOutput{Items: got, LastEvaluatedKey: last, Count: int32(len(got))}, nil
}

func (m *memDB) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	items := m.sorted("", nil)
	if in.TotalSegments != nil {
		var seg []Item
		for i, it := range items {
			if int32(i)%*in.TotalSegments == *in.Segment {
				seg = append(seg, it)
			}
		}
		items = seg
	}
	got, last := page(items, in.ExclusiveStartKey, in.Limit, m.pageEndKey)
	return &dynamodb.ScanOutput{Items: got, LastEvaluatedKey: last, Count: int32(len(got))}, nil
}

// mustInputError fails the test unless err is an *InputError.
func mustInputError(t *testing.T, err error) *InputError {
	t.Helper()
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, ErrInvalidInput)
	return ie
}
