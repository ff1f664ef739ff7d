package dynamotest

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// maxTransactStatements is ExecuteTransaction's limit, as TransactWriteItems'.
const maxTransactStatements = 100

// ExecuteTransaction runs PartiQL statements as one transaction: all
// SELECTs (each fixing a whole key with "=") as a TransactGetItems, or all
// writes as a TransactWriteItems, with the same atomicity, cancellation
// reasons (DuplicateItem for an INSERT of an existing key) and
// ClientRequestToken idempotency. EXISTS(SELECT ...) is a write-side
// condition check (a whole key and one more condition, as the reference
// says), so it mixes with writes and not with SELECTs; RETURNING is
// refused, as DynamoDB refuses it.
func (db *DB) ExecuteTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput, _ ...func(*dynamodb.Options)) (res *dynamodb.ExecuteTransactionOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if err := contextErr(ctx); err != nil {
		return nil, err
	}
	if n := len(in.TransactStatements); n == 0 || n > maxTransactStatements {
		return nil, constraint("[...]", "transactStatements", "Member must have length less than or equal to 100 and greater than or equal to 1")
	}
	sts, reads, err := db.parseStatements("transactStatements", in.TransactStatements, true)
	if err != nil {
		return nil, err
	}
	if reads {
		gets := make([]types.TransactGetItem, len(sts))
		for i, st := range sts {
			g, err := st.get(db.table(st.table))
			if err != nil {
				return nil, err
			}
			gets[i] = types.TransactGetItem{Get: g}
		}
		out, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
		if err != nil {
			return nil, err
		}
		res := &dynamodb.ExecuteTransactionOutput{ConsumedCapacity: out.ConsumedCapacity}
		for _, r := range out.Responses {
			res.Responses = append(res.Responses, types.ItemResponse{Item: r.Item})
		}
		return res, nil
	}
	writes := make([]types.TransactWriteItem, len(sts))
	for i, st := range sts {
		if st.returning != "" {
			return nil, validationf("RETURNING is not supported in a transaction")
		}
		w, err := st.write(db.table(st.table))
		if err != nil {
			return nil, err
		}
		onFailure := in.TransactStatements[i].ReturnValuesOnConditionCheckFailure
		switch {
		case w.Put != nil:
			w.Put.ReturnValuesOnConditionCheckFailure = onFailure
		case w.Update != nil:
			w.Update.ReturnValuesOnConditionCheckFailure = onFailure
		case w.Delete != nil:
			w.Delete.ReturnValuesOnConditionCheckFailure = onFailure
		case w.ConditionCheck != nil:
			w.ConditionCheck.ReturnValuesOnConditionCheckFailure = onFailure
		}
		writes[i] = w
	}
	out, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writes,
		ClientRequestToken: in.ClientRequestToken, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) {
		for i, r := range canceled.CancellationReasons {
			if sts[i].verb == "INSERT" && aws.ToString(r.Code) == "ConditionalCheckFailed" {
				canceled.CancellationReasons[i].Code = aws.String("DuplicateItem")
				canceled.CancellationReasons[i].Message = aws.String("Duplicate primary key exists in table")
			}
		}
		return nil, txCanceled(canceled.CancellationReasons)
	}
	if err != nil {
		return nil, err
	}
	return &dynamodb.ExecuteTransactionOutput{ConsumedCapacity: out.ConsumedCapacity}, nil
}

// parseStatements parses a transaction's or batch's statements, which must
// be all reads or all writes. whole (a transaction) refuses the request
// when a statement names a missing table; a batch answers each statement
// on its own instead, ResourceNotFound in that statement's response, as
// the API reference's BatchStatementError codes and DynamoDB Local do.
// Every statement's length is checked before any is parsed; field is the
// request's list of statements, as DynamoDB names it in messages.
func (db *DB) parseStatements(field string, ps []types.ParameterizedStatement, whole bool) ([]*statement, bool, error) {
	var v violations
	for i, p := range ps {
		v.statement(field+"."+strconv.Itoa(i+1)+".member.statement", p.Statement)
	}
	if err := v.err(); err != nil {
		return nil, false, err
	}
	sts := make([]*statement, len(ps))
	reads := 0
	for i, p := range ps {
		st, err := parseStatement(aws.ToString(p.Statement), p.Parameters)
		if err != nil {
			return nil, false, err
		}
		if whole && db.table(st.table) == nil {
			return nil, false, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
		}
		if st.verb == "SELECT" {
			reads++
		}
		sts[i] = st
	}
	if reads != 0 && reads != len(sts) {
		return nil, false, validationf("Transaction or batch must contain either all reads or all writes")
	}
	return sts, reads > 0, nil
}

// get is a SELECT as the Get it stands for: its WHERE clause must fix the
// whole key with "=" and say nothing else.
func (st *statement) get(t *dbTable) (*types.Get, error) {
	key, err := st.key(t)
	if err != nil {
		return nil, err
	}
	if st.index != "" || len(st.p.eqs) != len(key) || st.p.terms != len(key) {
		return nil, validationf("Where clause does not contain a mandatory equality on all key attributes")
	}
	// Only the projection's names: the key's are not used by a Get.
	return &types.Get{TableName: aws.String(st.table), Key: key, ProjectionExpression: st.projection,
		ExpressionAttributeNames: st.projectionNames}, nil
}

// itemKey is the key of the item a statement reads or writes in t: an
// INSERT's item's, a SELECT's, UPDATE's or DELETE's WHERE clause's; nil
// when the statement does not name a whole key.
func (st *statement) itemKey(t *dbTable) map[string]types.AttributeValue {
	switch st.verb {
	case "INSERT":
		key := map[string]types.AttributeValue{}
		for _, k := range []string{t.pk.name, t.sk.name} {
			if k == "" {
				continue
			}
			v, ok := st.item[k]
			if !ok {
				return nil
			}
			key[k] = v
		}
		return key
	case "SELECT":
		g, err := st.get(t)
		if err != nil {
			return nil
		}
		return g.Key
	}
	key, err := st.key(t)
	if err != nil {
		return nil
	}
	return key
}

// maxBatchStatements is BatchExecuteStatement's limit.
const maxBatchStatements = 25

// BatchExecuteStatement runs up to 25 PartiQL statements, all SELECTs of
// one item by its whole key (as BatchGetItem) or all writes, each on its
// own: a statement that fails has its error in its response and does not
// stop the others.
func (db *DB) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, _ ...func(*dynamodb.Options)) (res *dynamodb.BatchExecuteStatementOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	if err := contextErr(ctx); err != nil {
		return nil, err
	}
	if n := len(in.Statements); n == 0 || n > maxBatchStatements {
		return nil, constraint("[...]", "statements", "Member must have length less than or equal to 25 and greater than or equal to 1")
	}
	ps := make([]types.ParameterizedStatement, len(in.Statements))
	for i, s := range in.Statements {
		ps[i] = types.ParameterizedStatement{Statement: s.Statement, Parameters: s.Parameters}
	}
	sts, reads, err := db.parseStatements("statements", ps, false)
	if err != nil {
		return nil, err
	}
	for _, st := range sts {
		if st.verb == "EXISTS" {
			return nil, errExistsOutsideTransaction()
		}
		if st.returning != "" {
			return nil, validationf("RETURNING is not supported in a batch")
		}
	}
	// A batch names each item once, whatever it does with it: two
	// statements on one item, reads or writes, refuse the whole batch
	// (DynamoDB Local, as BatchGetItem and BatchWriteItem do). A statement
	// on a missing table, or without a whole key, fails on its own.
	seen := make(map[string]bool, len(sts))
	for _, st := range sts {
		t := db.table(st.table)
		if t == nil {
			continue
		}
		if key := st.itemKey(t); key != nil {
			id := t.itemID(key)
			if seen[id] {
				return nil, duplicateKeys()
			}
			seen[id] = true
		}
	}
	out := &dynamodb.BatchExecuteStatementOutput{Responses: make([]types.BatchStatementResponse, len(sts))}
	for i, st := range sts {
		r := &out.Responses[i]
		r.TableName = aws.String(st.table)
		t := db.table(st.table)
		if t == nil {
			r.Error = batchError(&types.ResourceNotFoundException{Message: aws.String("Requested resource not found")})
			continue
		}
		if reads {
			g, err := st.get(t)
			if err == nil {
				var res *dynamodb.GetItemOutput
				res, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: g.TableName, Key: g.Key, ProjectionExpression: g.ProjectionExpression,
					ExpressionAttributeNames: g.ExpressionAttributeNames, ConsistentRead: in.Statements[i].ConsistentRead})
				if err == nil {
					r.Item = res.Item
				}
			}
			if err != nil {
				r.Error = batchError(err)
			}
			continue
		}
		_, err := db.runStatement(ctx, st, &dynamodb.ExecuteStatementInput{Statement: in.Statements[i].Statement,
			ReturnValuesOnConditionCheckFailure: in.Statements[i].ReturnValuesOnConditionCheckFailure})
		if err != nil {
			r.Error = batchError(err)
		}
	}
	return out, nil
}

// batchError is a statement's error as BatchExecuteStatement reports it.
func batchError(err error) *types.BatchStatementError {
	code := types.BatchStatementErrorCodeEnumInternalServerError
	var item map[string]types.AttributeValue
	var ccf *types.ConditionalCheckFailedException
	var dup *types.DuplicateItemException
	var rnf *types.ResourceNotFoundException
	var ice *types.ItemCollectionSizeLimitExceededException
	var pte *types.ProvisionedThroughputExceededException
	var ae smithy.APIError
	switch {
	case errors.As(err, &ccf):
		code, item = types.BatchStatementErrorCodeEnumConditionalCheckFailed, ccf.Item
	case errors.As(err, &dup):
		code = types.BatchStatementErrorCodeEnumDuplicateItem
	case errors.As(err, &rnf):
		code = types.BatchStatementErrorCodeEnumResourceNotFound
	case errors.As(err, &ice):
		code = types.BatchStatementErrorCodeEnumItemCollectionSizeLimitExceeded
	case errors.As(err, &pte):
		code = types.BatchStatementErrorCodeEnumProvisionedThroughputExceeded
	case errors.As(err, &ae) && ae.ErrorCode() == "ValidationException":
		code = types.BatchStatementErrorCodeEnumValidationError
	}
	return &types.BatchStatementError{Code: code, Message: aws.String(errorMessage(err)), Item: item}
}
