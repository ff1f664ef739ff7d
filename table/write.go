package table

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// writeError maps the error of a single-item write, turning a failed
// condition into the sentinel the caller's options call for.
func (t *Table) writeError(op string, key Key, wc writeCondition, o WriteOptions, err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		e := &Error{Op: op, Table: t.Name(), Key: key.String(), Err: wc.failureSentinel(ccf.Item), Cause: err}
		if o.ItemOnConditionFailure && len(ccf.Item) > 0 {
			e.Item = ccf.Item
		}
		return e
	}
	return wrapError(op, t.Name(), key.String(), err)
}

// buildExpr builds the expressions of one request (from Build's cache of
// shapes); a builder the expression package rejects (an empty update, a
// condition with no operands) is bad input.
func buildExpr(field string, b builders) (Built, error) {
	e, err := b.build()
	if err != nil {
		return e, inputErr(field, "", err.Error())
	}
	return e, nil
}

// decodeReturned stores returned attributes into ptr when there are any.
func decodeReturned(attrs Item, ptr any) error {
	if ptr == nil || len(attrs) == 0 {
		return nil
	}
	return Unmarshal(attrs, ptr)
}
