package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest/internal/store"
)

const maxTotalSegments = 1000000

// Scan reads a whole table or index, partition by partition in hash order,
// as DynamoDB does. A parallel scan's segment is a contiguous range of
// partition hashes, so segments never overlap and together cover every
// item.
func (db *DB) Scan(ctx context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (res *dynamodb.ScanOutput, err error) {
	defer acknowledged(db, &res, &err)
	out, items, err := db.scan(ctx, in)
	if err != nil {
		return nil, err
	}
	out.Items = readItems(items)
	return out, nil
}

// scan is Scan with the items left as readItems, for the HTTP handler.
func (db *DB) scan(ctx context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, []readItem, error) {
	in = orEmpty(in)
	t, err := db.openRead(ctx, opScan, aws.ToString(in.TableName))
	if err != nil {
		return nil, nil, err
	}
	if err := scanViolations(in, t != nil); err != nil {
		return nil, nil, err
	}
	// How Segment and TotalSegments pair is checked before the table is
	// looked up and before the expressions (dynalite's AWS-written "should
	// return ValidationException for missing TotalSegments", on a table
	// that does not exist, with an empty ExpressionAttributeNames).
	segment, total, err := checkSegments(in.Segment, in.TotalSegments)
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, nil, missingTable(requestExprs{attributesToGet: in.AttributesToGet, names: in.ExpressionAttributeNames, values: in.ExpressionAttributeValues,
			filter: in.FilterExpression, projection: in.ProjectionExpression, scanFilter: in.ScanFilter})
	}
	limit := int(aws.ToInt32(in.Limit))
	consistent := aws.ToBool(in.ConsistentRead)
	ix, err := t.readIndex(in.IndexName, consistent)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSelect(in.Select, ix, in.ProjectionExpression != nil, in.AttributesToGet != nil); err != nil {
		return nil, nil, err
	}
	filterExpr, names, values := in.FilterExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues
	if in.ScanFilter != nil || in.ConditionalOperator != "" {
		filterExpr, names, values, err = legacyFilter("ScanFilter", in.ScanFilter, in.ConditionalOperator,
			present("FilterExpression", in.FilterExpression, "ProjectionExpression", in.ProjectionExpression),
			in.FilterExpression, names, values)
		if err != nil {
			return nil, nil, err
		}
	}
	if in.AttributesToGet != nil && (in.ProjectionExpression != nil || in.FilterExpression != nil) {
		return nil, nil, validationf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	}
	x, err := newExprs(names, values)
	if err != nil {
		return nil, nil, err
	}
	if in.ScanFilter != nil {
		x.env.Translated()
	}
	x.onTable(t)
	filter, err := x.filter(filterExpr)
	if err != nil {
		return nil, nil, err
	}
	sel, err := x.selection(in.Select, in.ProjectionExpression, in.AttributesToGet)
	if err != nil {
		return nil, nil, err
	}
	if err := x.done(); err != nil {
		return nil, nil, err
	}
	fetch, err := checkProjected(ix, sel, filter)
	if err != nil {
		return nil, nil, err
	}
	start, err := t.checkStartKey(in.ExclusiveStartKey, ix)
	if err != nil {
		return nil, nil, err
	}
	if start != nil && total > 1 && store.Segment(store.Hash(start.id), total) != segment {
		return nil, nil, validationf("The provided starting key is invalid: The provided Exclusive start key does not map to the provided Segment")
	}
	res, err := db.readPage(ctx, pageRead{t: t, ix: ix, limit: limit, consistent: consistent, filter: filter, sel: sel, mode: in.ReturnConsumedCapacity, fetch: fetch,
		fill: func(col *store.Collection, p *page) { scanSegment(col, segment, total, start, p) }})
	if err != nil {
		return nil, nil, err
	}
	return &dynamodb.ScanOutput{Count: res.count, ScannedCount: res.scanned, LastEvaluatedKey: res.lastKey, ConsumedCapacity: res.consumed}, res.items, nil
}

// checkSegments pairs Segment with TotalSegments; their ranges are
// checked with the request's other constraints (scanViolations).
func checkSegments(segment, total *int32) (int, int, error) {
	switch {
	case segment == nil && total == nil:
		return 0, 1, nil
	case segment == nil:
		return 0, 0, validationf("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case total == nil:
		return 0, 0, validationf("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case *segment >= *total:
		return 0, 0, validationf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *segment, *total)
	}
	return int(*segment), int(*total), nil
}

// scanSegment feeds p the entries of one segment in scan order, starting
// just after start when given.
func scanSegment(col *store.Collection, segment, total int, start *startKey, p *page) {
	fromHash, fromID := store.SegmentStart(segment, total), ""
	if start != nil {
		fromHash, fromID = store.Hash(start.id), start.id
	}
	col.AscendPartitions(fromHash, fromID, func(part *store.Partition) bool {
		if total > 1 && store.Segment(part.Hash(), total) != segment {
			return false
		}
		more := true
		if start != nil && part.ID() == start.id {
			part.Ascend(start.pos, func(e *store.Entry) bool {
				if e.Key == start.pos {
					return true
				}
				more = p.add(e)
				return more
			})
		} else {
			part.Ascend("", func(e *store.Entry) bool {
				more = p.add(e)
				return more
			})
		}
		return more
	})
}
