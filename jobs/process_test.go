package jobs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// call is one request a process sends, as a crash hook sees it.
type call struct {
	op, table string
	in        any
}

// procConn is one worker process's connection to DynamoDB. A hook sees
// every request and may crash the process at it: before it is sent
// (nothing applied) or after DynamoDB applied it (the answer lost); so does
// an answer the API lost (dynamotest.ErrResponseLost, from a connection
// under dynamotest.Chaos). A crashed process sends nothing more, as a dead
// one would: every later request fails with errCrash.
type procConn struct {
	table.API
	mu   sync.Mutex
	hook func(c call) string // "", "before" or "after"
	dead atomic.Bool
	// died, when set, is told the request a lost answer (ErrResponseLost
	// from the API) killed the process at.
	died func(c call)
}

func (p *procConn) crashAt(hook func(c call) string) {
	p.mu.Lock()
	p.hook = hook
	p.mu.Unlock()
}

func (p *procConn) when(c call) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hook == nil {
		return ""
	}
	return p.hook(c)
}

func send[I, O any](ctx context.Context, p *procConn, op, tableName string, f func(context.Context, I, ...func(*dynamodb.Options)) (O, error), in I, opts []func(*dynamodb.Options)) (O, error) {
	var zero O
	if p.dead.Load() {
		return zero, errCrash
	}
	when := p.when(call{op: op, table: tableName, in: in})
	if when == "before" {
		p.dead.Store(true)
		return zero, errCrash
	}
	out, err := f(ctx, in, opts...)
	if when == "after" {
		p.dead.Store(true)
		return zero, errCrash
	}
	if errors.Is(err, dynamotest.ErrResponseLost) {
		// The connection behind it (dynamotest.Chaos) lost the answer,
		// before or after the request applied: the process dies there.
		p.dead.Store(true)
		if p.died != nil {
			p.died(call{op: op, table: tableName, in: in})
		}
		return zero, errCrash
	}
	return out, err
}

func (p *procConn) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return send(ctx, p, "GetItem", aws.ToString(in.TableName), p.API.GetItem, in, o)
}

func (p *procConn) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return send(ctx, p, "PutItem", aws.ToString(in.TableName), p.API.PutItem, in, o)
}

func (p *procConn) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return send(ctx, p, "UpdateItem", aws.ToString(in.TableName), p.API.UpdateItem, in, o)
}

func (p *procConn) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return send(ctx, p, "DeleteItem", aws.ToString(in.TableName), p.API.DeleteItem, in, o)
}

func (p *procConn) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return send(ctx, p, "Query", aws.ToString(in.TableName), p.API.Query, in, o)
}

func (p *procConn) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return send(ctx, p, "Scan", aws.ToString(in.TableName), p.API.Scan, in, o)
}

func (p *procConn) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return send(ctx, p, "BatchGetItem", "", p.API.BatchGetItem, in, o)
}

func (p *procConn) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return send(ctx, p, "BatchWriteItem", "", p.API.BatchWriteItem, in, o)
}

func (p *procConn) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return send(ctx, p, "TransactWriteItems", "", p.API.TransactWriteItems, in, o)
}

func (p *procConn) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return send(ctx, p, "TransactGetItems", "", p.API.TransactGetItems, in, o)
}

// setsStatus reports whether an UpdateItem sets the status attribute (a
// move, not a heartbeat, which only checks it in its condition).
func setsStatus(in any) bool {
	u, ok := in.(*dynamodb.UpdateItemInput)
	if !ok {
		return false
	}
	update := aws.ToString(u.UpdateExpression)
	for placeholder, name := range u.ExpressionAttributeNames {
		if name != "status" {
			continue
		}
		for i := strings.Index(update, placeholder); i >= 0; {
			end := i + len(placeholder)
			if end == len(update) || update[end] < '0' || update[end] > '9' {
				return true
			}
			next := strings.Index(update[end:], placeholder)
			if next < 0 {
				break
			}
			i = end + next
		}
	}
	return false
}
