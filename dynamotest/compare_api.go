package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
)

// A Comparison is a table.API: each method sends the call to the reference
// and the candidate through do, and answers with the reference's result.
var _ table.API = (*Comparison)(nil)

// CreateTable calls CreateTable on both stores and answers with the reference's result.
func (c *Comparison) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return do(c, ctx, "CreateTable", in, optFns, c.refAPI().CreateTable, c.candAPI().CreateTable)
}

// DeleteTable calls DeleteTable on both stores and answers with the reference's result.
func (c *Comparison) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return do(c, ctx, "DeleteTable", in, optFns, c.refAPI().DeleteTable, c.candAPI().DeleteTable)
}

// DescribeTable calls DescribeTable on both stores and answers with the reference's result.
func (c *Comparison) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return do(c, ctx, "DescribeTable", in, optFns, c.refAPI().DescribeTable, c.candAPI().DescribeTable)
}

// ListTables calls ListTables on both stores and answers with the reference's result.
func (c *Comparison) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return do(c, ctx, "ListTables", in, optFns, c.refAPI().ListTables, c.candAPI().ListTables)
}

// UpdateTimeToLive calls UpdateTimeToLive on both stores and answers with the reference's result.
func (c *Comparison) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return do(c, ctx, "UpdateTimeToLive", in, optFns, c.refAPI().UpdateTimeToLive, c.candAPI().UpdateTimeToLive)
}

// DescribeTimeToLive calls DescribeTimeToLive on both stores and answers with the reference's result.
func (c *Comparison) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return do(c, ctx, "DescribeTimeToLive", in, optFns, c.refAPI().DescribeTimeToLive, c.candAPI().DescribeTimeToLive)
}

// ListTagsOfResource calls ListTagsOfResource on both stores and answers with the reference's result.
func (c *Comparison) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	return do(c, ctx, "ListTagsOfResource", in, optFns, c.refAPI().ListTagsOfResource, c.candAPI().ListTagsOfResource)
}

// UpdateTable calls UpdateTable on both stores and answers with the reference's result.
func (c *Comparison) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return do(c, ctx, "UpdateTable", in, optFns, c.refAPI().UpdateTable, c.candAPI().UpdateTable)
}

// UpdateContinuousBackups calls UpdateContinuousBackups on both stores and answers with the reference's result.
func (c *Comparison) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return do(c, ctx, "UpdateContinuousBackups", in, optFns, c.refAPI().UpdateContinuousBackups, c.candAPI().UpdateContinuousBackups)
}

// DescribeContinuousBackups calls DescribeContinuousBackups on both stores and answers with the reference's result.
func (c *Comparison) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return do(c, ctx, "DescribeContinuousBackups", in, optFns, c.refAPI().DescribeContinuousBackups, c.candAPI().DescribeContinuousBackups)
}

// GetItem calls GetItem on both stores and answers with the reference's result.
func (c *Comparison) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return do(c, ctx, "GetItem", in, optFns, c.refAPI().GetItem, c.candAPI().GetItem)
}

// PutItem calls PutItem on both stores and answers with the reference's result.
func (c *Comparison) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return do(c, ctx, "PutItem", in, optFns, c.refAPI().PutItem, c.candAPI().PutItem)
}

// UpdateItem calls UpdateItem on both stores and answers with the reference's result.
func (c *Comparison) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return do(c, ctx, "UpdateItem", in, optFns, c.refAPI().UpdateItem, c.candAPI().UpdateItem)
}

// DeleteItem calls DeleteItem on both stores and answers with the reference's result.
func (c *Comparison) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return do(c, ctx, "DeleteItem", in, optFns, c.refAPI().DeleteItem, c.candAPI().DeleteItem)
}

// Query calls Query on both stores and answers with the reference's result.
func (c *Comparison) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return do(c, ctx, "Query", in, optFns, c.refAPI().Query, c.candAPI().Query)
}

// Scan calls Scan on both stores and answers with the reference's result.
func (c *Comparison) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return do(c, ctx, "Scan", in, optFns, c.refAPI().Scan, c.candAPI().Scan)
}

// BatchGetItem calls BatchGetItem on both stores and answers with the reference's result.
func (c *Comparison) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return do(c, ctx, "BatchGetItem", in, optFns, c.refAPI().BatchGetItem, c.candAPI().BatchGetItem)
}

// BatchWriteItem calls BatchWriteItem on both stores and answers with the reference's result.
func (c *Comparison) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return do(c, ctx, "BatchWriteItem", in, optFns, c.refAPI().BatchWriteItem, c.candAPI().BatchWriteItem)
}

// TransactGetItems calls TransactGetItems on both stores and answers with the reference's result.
func (c *Comparison) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return do(c, ctx, "TransactGetItems", in, optFns, c.refAPI().TransactGetItems, c.candAPI().TransactGetItems)
}

// TransactWriteItems calls TransactWriteItems on both stores and answers with the reference's result.
func (c *Comparison) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return do(c, ctx, "TransactWriteItems", in, optFns, c.refAPI().TransactWriteItems, c.candAPI().TransactWriteItems)
}

// refAPI and candAPI are the two stores. When c was not made by Compare
// they are a nil *DB, whose method values do takes but never calls: it
// answers errNoComparison first.
func (c *Comparison) refAPI() table.API {
	if c == nil || c.ref == nil {
		return (*DB)(nil)
	}
	return c.ref
}

func (c *Comparison) candAPI() table.API {
	if c == nil || c.cand == nil {
		return (*DB)(nil)
	}
	return c.cand
}
