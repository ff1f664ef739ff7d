package entity

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Delete removes the item whose key the key fields of key give, and
// reports whether there was one to remove. It is conditional on the item
// existing (and not having expired): a missing item is table.ErrNotFound,
// unless Unchecked drops that condition; deleted then says whether a live
// item was there (DynamoDB returns the item as it was, ReturnValues
// ALL_OLD, at no extra write cost; an expired item DynamoDB had not yet
// removed counts as none, as it does for every read). Without Unchecked a
// nil error means deleted is true. IfVersion(n) makes it conditional on
// the stored version too (ErrVersionConflict), If on anything else
// (table.ErrConditionFailed). Offloaded attributes stay in the blob store
// until Registry.RemoveOrphans finds nothing pointing at them.
func (e *Entity[T]) Delete(ctx context.Context, key T, opts ...func(*WriteOptions)) (deleted bool, err error) {
	if err := e.ready(ctx); err != nil {
		return false, err
	}
	m := e.m
	ctx, span := m.start(ctx, opDelete)
	defer span.End(&err)
	o := writeOptions(opts)
	k, err := e.tableKey(key)
	if err != nil {
		return false, err
	}
	base, read := m.expr.exists, int64(0)
	if o.Unchecked {
		base = cond{}
	}
	if o.Version != nil {
		if m.version == nil {
			return false, inputError(m.name+" options", "IfVersion", "the entity has no Version attribute", nil)
		}
		base, read = m.expr.existsVersion, int64(*o.Version)
		if o.Unchecked {
			base = m.expr.version
		}
	}
	now := m.reg.now()
	c, err := m.condition(base, now, read, o.Conditions)
	if err != nil {
		return false, err
	}
	in := &dynamodb.DeleteItemInput{TableName: m.tableName(), Key: k,
		ConditionExpression: c.text, ExpressionAttributeNames: c.names, ExpressionAttributeValues: c.values}
	if c.text != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	if o.Unchecked {
		// Whether there was an item: only the old item tells, and asking
		// for it costs no write capacity.
		in.ReturnValues = types.ReturnValueAllOld
	}
	out, err := m.reg.t.DB().DeleteItem(ctx, in)
	m.ops[opDelete].use.call(err, 0, 1)
	if err != nil {
		return false, m.writeError("delete", k, err, m.existingFailure(o.Version, now))
	}
	if o.Unchecked {
		return len(out.Attributes) > 0 && !m.expiredAt(out.Attributes, now), nil
	}
	return true, nil
}

// existingFailure is the sentinel of a refused write to an item that must
// exist: missing (or expired), another version, or the caller's condition.
func (m *model) existingFailure(version *int, now time.Time) func(table.Item) error {
	return func(current table.Item) error {
		switch {
		case len(current) == 0 || m.expiredAt(current, now):
			return table.ErrNotFound
		case version != nil && versionIn(current, m.version.name) != int64(*version):
			return ErrVersionConflict
		}
		return table.ErrConditionFailed
	}
}
