package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DeleteTable deletes a table and its items at once; the description it
// returns says DELETING, as DynamoDB's does, and the table is gone for every
// later call.
func (db *DB) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (res *dynamodb.DeleteTableOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opDeleteTable, name); err != nil {
		return nil, err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	old := db.tableMap()
	t, ok := old[name]
	if !ok {
		return nil, tableNotFound(name)
	}
	if t.protected() {
		return nil, validationf("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	next := make(map[string]*dbTable, len(old))
	for k, v := range old {
		if k != name {
			next[k] = v
		}
	}
	db.tables.Store(&next)
	// Operations that looked the table up before it left the map wait here,
	// then see deleted and fail as if it never existed.
	t.mu.Lock()
	t.deleted = true
	desc := t.describeLocked(types.TableStatusDeleting)
	t.stopStream()
	t.dropped()
	t.mu.Unlock()
	return &dynamodb.DeleteTableOutput{TableDescription: desc}, nil
}

// DescribeTable describes a table: always ACTIVE, with live item counts and
// sizes (DynamoDB refreshes those about every six hours).
func (db *DB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (res *dynamodb.DescribeTableOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	name := aws.ToString(in.TableName)
	if _, err := db.stats.begin(ctx, opDescribeTable, name); err != nil {
		return nil, err
	}
	t := db.table(name)
	if t == nil {
		return nil, tableNotFound(name)
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.deleted {
		return nil, tableNotFound(name)
	}
	out := &dynamodb.DescribeTableOutput{Table: t.describeLocked(types.TableStatusActive)}
	// An index UpdateTable added is reported CREATING once, then ACTIVE.
	for _, ix := range t.indexes {
		ix.creating.Store(false)
	}
	return out, nil
}
