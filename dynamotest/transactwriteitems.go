package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	maxTxActions = 100
	// maxTxBytes is DynamoDB's limit on the items one transaction writes.
	maxTxBytes = 4 * 1024 * 1024
	// tokenWindow is how long DynamoDB remembers a ClientRequestToken: a
	// replay inside it returns the first call's result and changes nothing.
	tokenWindow = 10 * time.Minute
)

// TransactWriteItems applies up to 100 writes and condition checks, on
// distinct items in one or more tables, all or none. When any condition
// fails it changes nothing and returns *types.TransactionCanceledException
// with one reason per action, in order. A ClientRequestToken makes the call
// idempotent for ten minutes of the fake's clock.
func (db *DB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (out *dynamodb.TransactWriteItemsOutput, err error) {
	defer acknowledged(db, &out, &err)
	in = orEmpty(in)
	tableNames := make([]string, 0, 4)
	for _, it := range in.TransactItems {
		tableNames = append(tableNames, txTable(it))
	}
	if _, err := db.stats.begin(ctx, opTransactWriteItems, tableNames...); err != nil {
		return nil, err
	}
	if err := validConsumedMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	if err := checkCollectionMetricsMode(in.ReturnItemCollectionMetrics); err != nil {
		return nil, err
	}
	switch n := len(in.TransactItems); {
	case n == 0:
		return nil, constraint("[]", "transactItems", "Member must have length greater than or equal to 1")
	case n > maxTxActions:
		return nil, constraint(fmt.Sprintf("[%d items]", n), "transactItems", "Member must have length less than or equal to 100")
	}
	token := aws.ToString(in.ClientRequestToken)
	if in.ClientRequestToken != nil && (len(token) < 1 || len(token) > 36) {
		return nil, constraint(token, "clientRequestToken", "Member must have length less than or equal to 36")
	}

	ops := make([]*writeOp, len(in.TransactItems))
	size := 0
	onFailure := make([]types.ReturnValuesOnConditionCheckFailure, len(in.TransactItems))
	seen := make(map[string]bool, len(in.TransactItems))
	// DynamoDB validates the whole request before it looks for a table: an
	// action on a missing table is checked on its own (see missingTable) and
	// ResourceNotFound comes only when no action is invalid.
	var notFound error
	for i, it := range in.TransactItems {
		w, mode, err := db.txOp(it)
		if isResourceNotFound(err) {
			if notFound == nil {
				notFound = err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if notFound != nil {
			continue
		}
		id := w.t.itemID(w.key)
		if seen[id] {
			return nil, validationf("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		ops[i], onFailure[i] = w, mode
		size += w.size
	}
	if notFound != nil {
		return nil, notFound
	}
	if size > maxTxBytes {
		return nil, validationf("Transaction request cannot be larger than 4 MB")
	}

	var (
		remember func(*dynamodb.TransactWriteItemsOutput)
		sum      [32]byte
		at       time.Time
	)
	if token != "" {
		sum, at = fingerprint(in), db.now()
		replay, done, err := db.tokens.begin(token, sum, at)
		if err != nil || replay != nil {
			return replay, err
		}
		remember = done
		// A failure forgets the token, so the call can be retried; a
		// success remembers it under the tables' locks (below).
		defer func() {
			if remember != nil {
				remember(nil)
			}
		}()
	}

	tables, unlock := db.lockTables(tableNames, true)
	for _, w := range ops {
		if tables[w.t.name] != w.t {
			unlock()
			return nil, resourceNotFound()
		}
	}
	outcomes := make([]outcome, len(ops))
	reasons := make([]types.CancellationReason, len(ops))
	canceled := false
	for i, w := range ops {
		o, err := w.evaluate()
		outcomes[i] = o
		var tooLarge *types.ItemCollectionSizeLimitExceededException
		switch {
		case errors.As(err, &tooLarge):
			canceled = true
			reasons[i] = types.CancellationReason{Code: aws.String("ItemCollectionSizeLimitExceeded"), Message: tooLarge.Message}
		case err != nil:
			canceled = true
			reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(errorMessage(err))}
		case o.failed:
			canceled = true
			reasons[i] = types.CancellationReason{
				Code:    aws.String("ConditionalCheckFailed"),
				Message: aws.String("The conditional request failed"),
				Item:    returnedOnFailure(onFailure[i], o),
			}
		default:
			reasons[i] = types.CancellationReason{Code: aws.String("None")}
		}
	}
	if canceled {
		unlock()
		db.recordPrepared(ctx, ops, outcomes, reasons)
		return nil, txCanceled(reasons)
	}
	var ts tableUsages
	var metrics map[string][]types.ItemCollectionMetrics
	for i, w := range ops {
		w.apply(outcomes[i], ts.of(w.t.name))
		if m := w.itemCollectionMetrics(in.ReturnItemCollectionMetrics, outcomes[i]); m != nil && w.kind != writeCheck {
			if metrics == nil {
				metrics = map[string][]types.ItemCollectionMetrics{}
			}
			metrics[w.t.name] = append(metrics[w.t.name], *m)
		}
	}
	// Transactional writes cost twice the units of plain writes.
	for _, u := range ts.list {
		u.scale(2)
	}
	out = &dynamodb.TransactWriteItemsOutput{ConsumedCapacity: consumedList(in.ReturnConsumedCapacity, ts.list, true), ItemCollectionMetrics: metrics}
	if remember != nil {
		// Still under the tables' locks: the token goes into the
		// transaction's own journal record, and a snapshot (which takes
		// every table's lock) sees the token and the writes together. A
		// client retrying after a restart is answered, not applied twice.
		remember(out)
		remember = nil
		ops[0].t.noteToken(token, sum, at, out.ConsumedCapacity)
	}
	unlock()
	db.record(ctx, ts.list...)
	return out, nil
}

// recordPrepared records what a cancelled transaction costs. DynamoDB
// writes every item of a transaction twice, once to prepare it and once to
// commit it (Developer Guide, "Capacity management for transactions"): a
// transaction whose condition fails is cancelled after its prepare phase,
// which has written each item once, and a write whose condition fails is
// still billed the item's size (Developer Guide, "DynamoDB read and write
// operations"). So each action costs what it would as a plain write, half
// its transactional cost: a passing one its own size, a failed one the
// stored item's size, or one unit; index writes come with the commit, and
// there is none. The answer, a TransactionCanceledException, carries no
// ConsumedCapacity (as DynamoDB's; paritysuite/dynamodb-conformance PR 67,
// characterised against DynamoDB).
func (db *DB) recordPrepared(ctx context.Context, ops []*writeOp, outcomes []outcome, reasons []types.CancellationReason) {
	var ts tableUsages
	for i, w := range ops {
		units := failedCost(outcomes[i])
		if aws.ToString(reasons[i].Code) == "None" {
			units = w.units(outcomes[i])
		}
		ts.of(w.t.name).write += units
	}
	db.record(ctx, ts.list...)
}

// tableUsages keeps one usage per table, listed in the order the tables
// come.
type tableUsages struct {
	byTable map[string]*usage
	list    []*usage
}

func (ts *tableUsages) of(table string) *usage {
	if u := ts.byTable[table]; u != nil {
		return u
	}
	if ts.byTable == nil {
		ts.byTable = map[string]*usage{}
	}
	u := &usage{table: table}
	ts.byTable[table] = u
	ts.list = append(ts.list, u)
	return u
}

// txTable is the table an action names.
func txTable(it types.TransactWriteItem) string {
	switch {
	case it.Put != nil:
		return aws.ToString(it.Put.TableName)
	case it.Update != nil:
		return aws.ToString(it.Update.TableName)
	case it.Delete != nil:
		return aws.ToString(it.Delete.TableName)
	case it.ConditionCheck != nil:
		return aws.ToString(it.ConditionCheck.TableName)
	}
	return ""
}

// txOp validates and compiles one action of a transaction.
func (db *DB) txOp(it types.TransactWriteItem) (*writeOp, types.ReturnValuesOnConditionCheckFailure, error) {
	n := 0
	for _, set := range []bool{it.Put != nil, it.Update != nil, it.Delete != nil, it.ConditionCheck != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, "", validationf("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	name := txTable(it)
	t := db.table(name)
	if t == nil {
		return nil, "", missingTxTable(it)
	}
	var w *writeOp
	var mode types.ReturnValuesOnConditionCheckFailure
	var err error
	switch {
	case it.Put != nil:
		p := it.Put
		mode = p.ReturnValuesOnConditionCheckFailure
		w, err = t.putOp(p.Item, p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues)
	case it.Update != nil:
		u := it.Update
		mode = u.ReturnValuesOnConditionCheckFailure
		if u.UpdateExpression == nil {
			return nil, "", constraint("null", "transactItems.member.update.updateExpression", "Member must not be null")
		}
		w, err = t.txKeyOp(writeUpdate, u.Key, u.ConditionExpression, u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues)
	case it.Delete != nil:
		d := it.Delete
		mode = d.ReturnValuesOnConditionCheckFailure
		w, err = t.txKeyOp(writeDelete, d.Key, d.ConditionExpression, nil, d.ExpressionAttributeNames, d.ExpressionAttributeValues)
	default:
		c := it.ConditionCheck
		mode = c.ReturnValuesOnConditionCheckFailure
		if c.ConditionExpression == nil {
			return nil, "", constraint("null", "transactItems.member.conditionCheck.conditionExpression", "Member must not be null")
		}
		w, err = t.txKeyOp(writeCheck, c.Key, c.ConditionExpression, nil, c.ExpressionAttributeNames, c.ExpressionAttributeValues)
	}
	if err != nil {
		return nil, "", err
	}
	if err := checkOnFailureMode(mode); err != nil {
		return nil, "", err
	}
	return w, mode, nil
}

// missingTxTable is the error for an action whose table does not exist: the
// first thing wrong with the action on its own, else ResourceNotFound.
func missingTxTable(it types.TransactWriteItem) error {
	var r requestExprs
	var mode types.ReturnValuesOnConditionCheckFailure
	switch {
	case it.Put != nil:
		p := it.Put
		mode = p.ReturnValuesOnConditionCheckFailure
		r = requestExprs{names: p.ExpressionAttributeNames, values: p.ExpressionAttributeValues, condition: p.ConditionExpression}
	case it.Update != nil:
		u := it.Update
		mode = u.ReturnValuesOnConditionCheckFailure
		if u.UpdateExpression == nil {
			return constraint("null", "transactItems.member.update.updateExpression", "Member must not be null")
		}
		r = requestExprs{names: u.ExpressionAttributeNames, values: u.ExpressionAttributeValues, condition: u.ConditionExpression, update: u.UpdateExpression}
	case it.Delete != nil:
		d := it.Delete
		mode = d.ReturnValuesOnConditionCheckFailure
		r = requestExprs{names: d.ExpressionAttributeNames, values: d.ExpressionAttributeValues, condition: d.ConditionExpression}
	default:
		c := it.ConditionCheck
		mode = c.ReturnValuesOnConditionCheckFailure
		if c.ConditionExpression == nil {
			return constraint("null", "transactItems.member.conditionCheck.conditionExpression", "Member must not be null")
		}
		r = requestExprs{names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, condition: c.ConditionExpression}
	}
	if err := checkOnFailureMode(mode); err != nil {
		return err
	}
	return missingTable(r)
}
