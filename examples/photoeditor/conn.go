package main

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
)

// conn is one process's connection to DynamoDB. It retries throttled
// calls, as the AWS SDK's retryer does for the real client (the in-memory
// fake in process has none), bounded and jittered; and it can be killed:
// every call after kill fails, as a dead process's would, so a killed
// worker writes nothing more, renews nothing and releases nothing.
type conn struct {
	api  table.API
	dead atomic.Bool
}

// errProcessDead is what a killed process's calls return.
var errProcessDead = errors.New("photoeditor: the process is dead")

// throttleBackoff paces retries of throttled calls.
var throttleBackoff = table.Backoff{Initial: 5 * time.Millisecond, Max: 500 * time.Millisecond}

const throttleAttempts = 12

// Now is the clock of the store behind c (table.ClockOf), so the stores
// built on c stamp and lease by the fake's time as they would on the fake.
func (c *conn) Now() time.Time { return table.ClockOf(c.api)() }

// kill cuts c, and reports whether it was alive.
func (c *conn) kill() bool { return !c.dead.Swap(true) }

// do sends one request through c: refused once c is dead, retried while
// throttled (a throttled call wrote nothing, so a conditional write may be
// sent again as it was).
func do[I, O any](ctx context.Context, c *conn, call func(context.Context, I, ...func(*dynamodb.Options)) (O, error), in I, opts []func(*dynamodb.Options)) (O, error) {
	var (
		out O
		err error
	)
	for n := range throttleAttempts {
		if c.dead.Load() {
			return out, errProcessDead
		}
		if out, err = call(ctx, in, opts...); !errors.Is(table.WrapError("", err), table.ErrThrottled) {
			return out, err
		}
		if serr := throttleBackoff.Sleep(ctx, n); serr != nil {
			return out, err
		}
	}
	return out, err
}

func (c *conn) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return do(ctx, c, c.api.CreateTable, in, o)
}

func (c *conn) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return do(ctx, c, c.api.DeleteTable, in, o)
}

func (c *conn) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return do(ctx, c, c.api.DescribeTable, in, o)
}

func (c *conn) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return do(ctx, c, c.api.ListTables, in, o)
}

func (c *conn) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return do(ctx, c, c.api.UpdateTimeToLive, in, o)
}

func (c *conn) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return do(ctx, c, c.api.DescribeTimeToLive, in, o)
}

func (c *conn) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return do(ctx, c, c.api.UpdateTable, in, o)
}

func (c *conn) UpdateContinuousBackups(ctx context.Context, in *dynamodb.UpdateContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return do(ctx, c, c.api.UpdateContinuousBackups, in, o)
}

func (c *conn) DescribeContinuousBackups(ctx context.Context, in *dynamodb.DescribeContinuousBackupsInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return do(ctx, c, c.api.DescribeContinuousBackups, in, o)
}

func (c *conn) ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	return do(ctx, c, c.api.ListTagsOfResource, in, o)
}

func (c *conn) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return do(ctx, c, c.api.GetItem, in, o)
}

func (c *conn) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return do(ctx, c, c.api.PutItem, in, o)
}

func (c *conn) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return do(ctx, c, c.api.UpdateItem, in, o)
}

func (c *conn) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return do(ctx, c, c.api.DeleteItem, in, o)
}

func (c *conn) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return do(ctx, c, c.api.Query, in, o)
}

func (c *conn) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return do(ctx, c, c.api.Scan, in, o)
}

func (c *conn) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return do(ctx, c, c.api.BatchGetItem, in, o)
}

func (c *conn) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return do(ctx, c, c.api.BatchWriteItem, in, o)
}

func (c *conn) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return do(ctx, c, c.api.TransactGetItems, in, o)
}

func (c *conn) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return do(ctx, c, c.api.TransactWriteItems, in, o)
}
