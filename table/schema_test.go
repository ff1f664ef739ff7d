package table

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemaValidateRejectsWhatCreateTableWould(t *testing.T) {
	s := func(f func(*Schema)) Schema {
		c := thingsSchema.WithName("Things")
		f(&c)
		return c
	}
	cases := map[string]Schema{
		"empty name":            s(func(c *Schema) { c.Name = "" }),
		"short name":            s(func(c *Schema) { c.Name = "ab" }),
		"name with space":       s(func(c *Schema) { c.Name = "my table" }),
		"no partition key":      s(func(c *Schema) { c.PartitionKey = Attribute{} }),
		"bad key type":          s(func(c *Schema) { c.PartitionKey.Type = "BOOL" }),
		"sort key without name": s(func(c *Schema) { c.SortKey = Attribute{Type: "S"} }),
		"sort key same as pk":   s(func(c *Schema) { c.SortKey = c.PartitionKey }),
		"attribute two types":   s(func(c *Schema) { c.Indexes[0].PartitionKey = Attribute{Name: "sk", Type: "N"} }),
		"duplicate index":       s(func(c *Schema) { c.Indexes = append(c.Indexes, c.Indexes[0]) }),
		"index without name":    s(func(c *Schema) { c.Indexes[0].Name = "" }),
		"index without pk":      s(func(c *Schema) { c.Indexes[0].PartitionKey = Attribute{} }),
		"bad projection":        s(func(c *Schema) { c.Indexes[0].Projection = "SOME" }),
		"include without attrs": s(func(c *Schema) { c.Indexes[0].Projection = types.ProjectionTypeInclude }),
		"non-key attrs on ALL":  s(func(c *Schema) { c.Indexes[0].NonKeyAttributes = []string{"x"} }),
		"TTL on a key":          s(func(c *Schema) { c.TTLAttribute = "sk" }),
		// Local secondary indexes: CreateTable's rules (the fake's messages
		// say them as DynamoDB does).
		"six local indexes": s(func(c *Schema) {
			for i := range MaxLocalIndexes + 1 {
				c.Indexes = append(c.Indexes, localIndex(fmt.Sprint("LSI", i), fmt.Sprint("lsi", i)))
			}
		}),
		"local index on a table without sort key": s(func(c *Schema) {
			c.SortKey = Attribute{}
			c.Indexes = append(c.Indexes, localIndex("LSI1", "lsi1"))
		}),
		"local index of another partition": s(func(c *Schema) {
			l := localIndex("LSI1", "lsi1")
			l.PartitionKey = Attribute{Name: "other", Type: "S"}
			c.Indexes = append(c.Indexes, l)
		}),
		"local index of another partition key type": s(func(c *Schema) {
			l := localIndex("LSI1", "lsi1")
			l.PartitionKey.Type = "N"
			c.Indexes = append(c.Indexes, l)
		}),
		"local index without sort key": s(func(c *Schema) {
			l := localIndex("LSI1", "lsi1")
			l.SortKey = Attribute{}
			c.Indexes = append(c.Indexes, l)
		}),
		"local index named like a global one": s(func(c *Schema) { c.Indexes = append(c.Indexes, localIndex("GSI1", "lsi1")) }),
		"capacity of a local index": s(func(c *Schema) {
			c.Indexes = append(c.Indexes, localIndex("LSI1", "lsi1"))
			c.Provisioning.Capacity = &Capacity{Read: 1, Write: 1, Indexes: map[string]Throughput{"LSI1": {Read: 1, Write: 1}}}
		}),
	}
	for name, sc := range cases {
		t.Run(name, func(t *testing.T) {
			mustInputError(t, sc.Validate())
			c := newCalls(nil)
			mustInputError(t, sc.Create(context.Background(), c))
			mustInputError(t, sc.EnsureTable(context.Background(), c))
			require.Zero(t, c.total(), "calls for an invalid schema")
		})
	}
	require.NoError(t, thingsSchema.Validate(), "valid schema rejected")
	five := thingsSchema.WithName("Things")
	for i := range MaxLocalIndexes {
		five.Indexes = append(five.Indexes, localIndex(fmt.Sprint("LSI", i), fmt.Sprint("lsi", i)))
	}
	require.NoError(t, five.Validate(), "as many local indexes as DynamoDB allows")
}

// localIndex is a local secondary index of thingsSchema sorted by sk.
func localIndex(name, sk string) Index {
	return Index{Name: name, PartitionKey: thingsSchema.PartitionKey, SortKey: Attribute{Name: sk, Type: "S"}, Local: true}
}

func TestCreateTableInputIsOnDemandWithIndexesAndProjections(t *testing.T) {
	s := thingsSchema.WithName("Jobs")
	s.Indexes = append(s.Indexes,
		Index{Name: "ByStatus", PartitionKey: Attribute{Name: "status", Type: "S"}, SortKey: Attribute{Name: "sk", Type: "S"},
			Projection: types.ProjectionTypeInclude, NonKeyAttributes: []string{"name"}},
		Index{Name: "ByNumber", PartitionKey: Attribute{Name: "n", Type: "N"}, Projection: types.ProjectionTypeKeysOnly})
	in := s.CreateTableInput()
	require.Equal(t, "Jobs", aws.ToString(in.TableName))
	require.Equal(t, types.BillingModePayPerRequest, in.BillingMode)
	defs := map[string]types.ScalarAttributeType{}
	for _, d := range in.AttributeDefinitions {
		_, dup := defs[*d.AttributeName]
		require.False(t, dup, "attribute %s defined twice", *d.AttributeName)
		defs[*d.AttributeName] = d.AttributeType
	}
	want := map[string]types.ScalarAttributeType{"pk": "S", "sk": "S", "gsi1pk": "S", "gsi1sk": "S", "status": "S", "n": "N"}
	require.Len(t, defs, len(want), "definitions %v, want %v", defs, want)
	for k, v := range want {
		require.Equal(t, v, defs[k], "definitions %v, want %v", defs, want)
	}
	require.Len(t, in.GlobalSecondaryIndexes, 3)
	gsi := map[string]types.GlobalSecondaryIndex{}
	for _, g := range in.GlobalSecondaryIndexes {
		gsi[*g.IndexName] = g
	}
	assert.Equal(t, types.ProjectionTypeAll, gsi["GSI1"].Projection.ProjectionType, "default projection")
	p := gsi["ByStatus"].Projection
	assert.Equal(t, types.ProjectionTypeInclude, p.ProjectionType, "INCLUDE projection = %+v", p)
	assert.Len(t, p.NonKeyAttributes, 1, "INCLUDE projection = %+v", p)
	if k := gsi["ByNumber"].KeySchema; assert.Len(t, k, 1, "hash-only index key schema = %+v", k) {
		assert.Equal(t, types.KeyTypeHash, k[0].KeyType, "hash-only index key schema = %+v", k)
	}
}

// tableLifecycle is a control-plane double: CreateTable starts a table in
// CREATING, which becomes ACTIVE after activeAfter DescribeTable calls;
// ResourceInUse on a second create.
type tableLifecycle struct {
	API
	mu          sync.Mutex
	created     *dynamodb.CreateTableInput
	describes   int
	activeAfter int
	ttl         *types.TimeToLiveSpecification
	onDescribe  func()
}

func (d *tableLifecycle) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.created != nil {
		return nil, &types.ResourceInUseException{Message: strPtr("Table already exists: " + *in.TableName)}
	}
	d.created = in
	return &dynamodb.CreateTableOutput{}, nil
}

func (d *tableLifecycle) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.onDescribe != nil {
		d.onDescribe()
	}
	if d.created == nil {
		return nil, &types.ResourceNotFoundException{Message: strPtr("Requested resource not found")}
	}
	d.describes++
	status, ixStatus := types.TableStatusCreating, types.IndexStatusCreating
	if d.describes > d.activeAfter {
		status = types.TableStatusActive
	}
	if d.describes > d.activeAfter+1 {
		ixStatus = types.IndexStatusActive
	}
	desc := &types.TableDescription{BillingModeSummary: &types.BillingModeSummary{BillingMode: d.created.BillingMode}, TableName: d.created.TableName, TableStatus: status,
		KeySchema: d.created.KeySchema, AttributeDefinitions: d.created.AttributeDefinitions}
	for _, g := range d.created.GlobalSecondaryIndexes {
		desc.GlobalSecondaryIndexes = append(desc.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName: g.IndexName, KeySchema: g.KeySchema, IndexStatus: ixStatus})
	}
	return &dynamodb.DescribeTableOutput{Table: desc}, nil
}

func (d *tableLifecycle) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}}
	if d.ttl != nil {
		out.TimeToLiveDescription = &types.TimeToLiveDescription{AttributeName: d.ttl.AttributeName, TimeToLiveStatus: types.TimeToLiveStatusEnabled}
	}
	return out, nil
}

func (d *tableLifecycle) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ttl != nil {
		return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "TimeToLive is already enabled"}
	}
	d.ttl = in.TimeToLiveSpecification
	return &dynamodb.UpdateTimeToLiveOutput{}, nil
}

func TestCreateWaitsUntilTableAndIndexesAreActiveThenEnablesTTL(t *testing.T) {
	db := &tableLifecycle{activeAfter: 3}
	c := newCalls(db)
	require.NoError(t, thingsSchema.Create(context.Background(), c))
	require.GreaterOrEqual(t, db.describes, 5, "DescribeTable calls: Create returned before the index was ACTIVE")
	require.NotNil(t, db.ttl, "TTL, want enabled on expiresAt")
	require.Equal(t, "expiresAt", aws.ToString(db.ttl.AttributeName), "TTL = %+v", db.ttl)
	require.True(t, aws.ToBool(db.ttl.Enabled), "TTL = %+v, want enabled", db.ttl)
	// EnsureTable on the existing table: no second create, no second TTL update.
	require.NoError(t, thingsSchema.EnsureTable(context.Background(), c))
	require.Equal(t, 1, c.count("CreateTable"), "calls: %v", c.n)
	require.Equal(t, 1, c.count("UpdateTimeToLive"), "calls: %v", c.n)
	require.ErrorIs(t, thingsSchema.Create(context.Background(), c), ErrAlreadyExists, "second Create")
}

func TestCreateStopsWaitingWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := &tableLifecycle{activeAfter: 1 << 30}
	db.onDescribe = func() {
		if db.describes == 2 {
			cancel()
		}
	}
	err := thingsSchema.Create(ctx, db)
	require.ErrorIs(t, err, context.Canceled)
	require.LessOrEqual(t, db.describes, 3, "DescribeTable calls after the context ended")
}

func TestEnsureTableRejectsExistingTableWithOtherKeys(t *testing.T) {
	db := &tableLifecycle{}
	require.NoError(t, thingsSchema.Create(context.Background(), db))
	other := thingsSchema.WithName("Things")
	other.SortKey = Attribute{Name: "sk", Type: "N"}
	err := other.EnsureTable(context.Background(), db)
	require.ErrorIs(t, err, ErrSchemaMismatch)
	require.ErrorContains(t, err, "sk N", "want ErrSchemaMismatch describing the keys")
	noSort := thingsSchema.WithName("Things")
	noSort.SortKey = Attribute{}
	require.ErrorIs(t, noSort.EnsureTable(context.Background(), db), ErrSchemaMismatch)
}

func TestWithNameCopiesWithoutSharingSlices(t *testing.T) {
	a := thingsSchema.WithName("photoeditor-dev-jobs")
	a.Indexes[0].Name = "Changed"
	require.Equal(t, "GSI1", thingsSchema.Indexes[0].Name, "WithName shares the Indexes slice with the original")
	require.Equal(t, "photoeditor-dev-jobs", a.Name)
	require.Equal(t, "Things", thingsSchema.Name)
}
