package dynamotest

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TransactGetItems reads up to 100 distinct items, from one or more tables,
// as one consistent snapshot: every table involved is read-locked for the
// whole call. Each read costs twice a strongly consistent read.
func (db *DB) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, _ ...func(*dynamodb.Options)) (res *dynamodb.TransactGetItemsOutput, err error) {
	defer acknowledged(db, &res, &err)
	in = orEmpty(in)
	tableNames := make([]string, 0, 4)
	for _, it := range in.TransactItems {
		if it.Get != nil {
			tableNames = append(tableNames, aws.ToString(it.Get.TableName))
		}
	}
	if _, err := db.stats.begin(ctx, opTransactGetItems, tableNames...); err != nil {
		return nil, err
	}
	if err := validConsumedMode(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	switch n := len(in.TransactItems); {
	case n == 0:
		return nil, constraint("[]", "transactItems", "Member must have length greater than or equal to 1")
	case n > maxTxActions:
		return nil, constraint(fmt.Sprintf("[%d items]", n), "transactItems", "Member must have length less than or equal to 100")
	}
	type get struct {
		t       *dbTable
		key     map[string]types.AttributeValue
		proj    *readProj
		invalid error
	}
	gets := make([]get, len(in.TransactItems))
	seen := make(map[string]bool, len(in.TransactItems))
	// The whole request is validated before ResourceNotFound, as in
	// TransactWriteItems.
	var notFound error
	for i, it := range in.TransactItems {
		if it.Get == nil {
			return nil, constraint("null", "transactItems.member.get", "Member must not be null")
		}
		t := db.table(aws.ToString(it.Get.TableName))
		if t == nil {
			notFound = missingTable(requestExprs{names: it.Get.ExpressionAttributeNames, projection: it.Get.ProjectionExpression})
			if !isResourceNotFound(notFound) {
				return nil, notFound
			}
			continue
		}
		// As in TransactWriteItems, a key that does not match the schema
		// cancels the transaction with a ValidationError reason.
		_, _, invalid := t.checkKey(it.Get.Key)
		id := t.itemID(it.Get.Key)
		if seen[id] {
			return nil, validationf("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		proj, err := t.readProjection(it.Get.ExpressionAttributeNames, it.Get.ProjectionExpression, nil)
		if err != nil {
			return nil, err
		}
		gets[i] = get{t: t, key: it.Get.Key, proj: proj, invalid: invalid}
	}
	if notFound != nil {
		return nil, notFound
	}
	reasons := make([]types.CancellationReason, len(gets))
	canceled := false
	for i, g := range gets {
		reasons[i].Code = aws.String("None")
		if g.invalid != nil {
			canceled = true
			reasons[i] = types.CancellationReason{Code: aws.String("ValidationError"), Message: aws.String(errorMessage(g.invalid))}
		}
	}
	if canceled {
		return nil, txCanceled(reasons)
	}

	tables, unlock := db.lockTables(tableNames, false)
	for _, g := range gets {
		if tables[g.t.name] != g.t {
			unlock()
			return nil, resourceNotFound()
		}
	}
	out := &dynamodb.TransactGetItemsOutput{Responses: make([]types.ItemResponse, len(gets))}
	var ts tableUsages
	for i, g := range gets {
		size := 0
		if e := g.t.lookup(g.key); e != nil {
			out.Responses[i].Item = g.proj.project(e.Item())
			size = e.Size
		}
		ts.of(g.t.name).read += 2 * readUnits(size, true)
	}
	unlock()
	db.record(ctx, ts.list...)
	out.ConsumedCapacity = consumedList(in.ReturnConsumedCapacity, ts.list, true)
	return out, nil
}
