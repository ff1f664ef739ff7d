package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
)

// A Chaotic is a table.API: the item operations go through inject, the
// table operations straight to the fake.
var _ table.API = (*Chaotic)(nil)

// fake is the store behind c, or errNoChaos for a Chaotic not made by
// Chaos.
func (c *Chaotic) fake() (table.API, error) {
	if c == nil || c.api == nil {
		return nil, errNoChaos
	}
	return c.api, nil
}

// CreateTable calls the store's CreateTable, without faults.
func (c *Chaotic) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.CreateTable(ctx, in, optFns...)
}

// DeleteTable calls the store's DeleteTable, without faults.
func (c *Chaotic) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.DeleteTable(ctx, in, optFns...)
}

// DescribeTable calls the store's DescribeTable, without faults.
func (c *Chaotic) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.DescribeTable(ctx, in, optFns...)
}

// ListTables calls the store's ListTables, without faults.
func (c *Chaotic) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.ListTables(ctx, in, optFns...)
}

// UpdateTimeToLive calls the store's UpdateTimeToLive, without faults.
func (c *Chaotic) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.UpdateTimeToLive(ctx, in, optFns...)
}

// DescribeTimeToLive calls the store's DescribeTimeToLive, without faults.
func (c *Chaotic) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.DescribeTimeToLive(ctx, in, optFns...)
}

// ListTagsOfResource calls the store's ListTagsOfResource, without faults.
func (c *Chaotic) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.ListTagsOfResource(ctx, in, optFns...)
}

// UpdateTable calls the store's UpdateTable, without faults.
func (c *Chaotic) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.UpdateTable(ctx, in, optFns...)
}

// UpdateContinuousBackups calls the store's UpdateContinuousBackups, without faults.
func (c *Chaotic) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.UpdateContinuousBackups(ctx, in, optFns...)
}

// DescribeContinuousBackups calls the store's DescribeContinuousBackups, without faults.
func (c *Chaotic) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	db, err := c.fake()
	if err != nil {
		return nil, err
	}
	return db.DescribeContinuousBackups(ctx, in, optFns...)
}

// GetItem calls the store's GetItem, with the faults drawn for the call.
func (c *Chaotic) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return inject(c, ctx, "GetItem", in, 0, c.fakeOrNil().GetItem, optFns, nil)
}

// PutItem calls the store's PutItem, with the faults drawn for the call.
func (c *Chaotic) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return inject(c, ctx, "PutItem", in, 0, c.fakeOrNil().PutItem, optFns, nil)
}

// UpdateItem calls the store's UpdateItem, with the faults drawn for the call.
func (c *Chaotic) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return inject(c, ctx, "UpdateItem", in, 0, c.fakeOrNil().UpdateItem, optFns, nil)
}

// DeleteItem calls the store's DeleteItem, with the faults drawn for the call.
func (c *Chaotic) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return inject(c, ctx, "DeleteItem", in, 0, c.fakeOrNil().DeleteItem, optFns, nil)
}

// Query calls the store's Query, with the faults drawn for the call.
func (c *Chaotic) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return inject(c, ctx, "Query", in, 0, c.fakeOrNil().Query, optFns, nil)
}

// Scan calls the store's Scan, with the faults drawn for the call.
func (c *Chaotic) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return inject(c, ctx, "Scan", in, 0, c.fakeOrNil().Scan, optFns, nil)
}

// BatchGetItem calls the store's BatchGetItem, with the faults drawn for
// the call: unprocessed keys among them.
func (c *Chaotic) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	n := 0
	if in != nil {
		for _, ka := range in.RequestItems {
			n += len(ka.Keys)
		}
	}
	call := c.fakeOrNil().BatchGetItem
	return inject(c, ctx, "BatchGetItem", in, n, call, optFns, func(p plan) (*dynamodb.BatchGetItemOutput, error, bool) {
		return chaosBatch(c, ctx, p, "BatchGetItem", in, n, call, optFns, splitGets, func(out *dynamodb.BatchGetItemOutput) int {
			left := 0
			for _, ka := range out.UnprocessedKeys {
				left += len(ka.Keys)
			}
			return left
		})
	})
}

// BatchWriteItem calls the store's BatchWriteItem, with the faults drawn
// for the call: unprocessed items among them.
func (c *Chaotic) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	n := 0
	if in != nil {
		for _, ws := range in.RequestItems {
			n += len(ws)
		}
	}
	call := c.fakeOrNil().BatchWriteItem
	return inject(c, ctx, "BatchWriteItem", in, n, call, optFns, func(p plan) (*dynamodb.BatchWriteItemOutput, error, bool) {
		return chaosBatch(c, ctx, p, "BatchWriteItem", in, n, call, optFns, splitWrites, func(out *dynamodb.BatchWriteItemOutput) int {
			left := 0
			for _, ws := range out.UnprocessedItems {
				left += len(ws)
			}
			return left
		})
	})
}

// TransactGetItems calls the store's TransactGetItems, with the faults
// drawn for the call: a conflict cancels it.
func (c *Chaotic) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	n := 0
	if in != nil {
		n = len(in.TransactItems)
	}
	return inject(c, ctx, "TransactGetItems", in, 0, c.fakeOrNil().TransactGetItems, optFns, func(p plan) (*dynamodb.TransactGetItemsOutput, error, bool) {
		return chaosTransact[dynamodb.TransactGetItemsOutput](c, p, "TransactGetItems", n)
	})
}

// TransactWriteItems calls the store's TransactWriteItems, with the faults
// drawn for the call: a conflict cancels it.
func (c *Chaotic) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	n := 0
	if in != nil {
		n = len(in.TransactItems)
	}
	return inject(c, ctx, "TransactWriteItems", in, 0, c.fakeOrNil().TransactWriteItems, optFns, func(p plan) (*dynamodb.TransactWriteItemsOutput, error, bool) {
		return chaosTransact[dynamodb.TransactWriteItemsOutput](c, p, "TransactWriteItems", n)
	})
}

// fakeOrNil is the store behind c, or a nil *DB whose method values inject
// takes but never calls (it answers errNoChaos first).
func (c *Chaotic) fakeOrNil() table.API {
	if c == nil || c.api == nil {
		return (*DB)(nil)
	}
	return c.api
}
