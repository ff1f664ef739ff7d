package entity

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Delete removes the item whose key the key fields of key give. It is
// conditional on the item existing (and not having expired): a missing
// item is table.ErrNotFound, unless Unchecked drops that condition. IfVersion(n) makes it conditional on the
// stored version too (ErrVersionConflict), If on anything else
// (table.ErrConditionFailed). Offloaded attributes stay in the blob store
// until Registry.RemoveOrphans finds nothing pointing at them.
func (e *Entity[T]) Delete(ctx context.Context, key T, opts ...func(*WriteOptions)) (err error) {
	if err := e.ready(ctx); err != nil {
		return err
	}
	m := e.m
	ctx, span := m.start(ctx, opDelete)
	defer span.End(&err)
	o := writeOptions(opts)
	k, err := e.tableKey(key)
	if err != nil {
		return err
	}
	base, read := m.expr.exists, int64(0)
	if o.Unchecked {
		base = cond{}
	}
	if o.Version != nil {
		if m.version == nil {
			return inputError(m.name+" options", "IfVersion", "the entity has no Version attribute", nil)
		}
		base, read = m.expr.existsVersion, int64(*o.Version)
		if o.Unchecked {
			base = m.expr.version
		}
	}
	now := m.reg.now()
	c, err := m.condition(base, now, read, o.Conditions)
	if err != nil {
		return err
	}
	in := &dynamodb.DeleteItemInput{TableName: m.tableName(), Key: k,
		ConditionExpression: c.text, ExpressionAttributeNames: c.names, ExpressionAttributeValues: c.values}
	if c.text != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	if _, err := m.reg.t.DB().DeleteItem(ctx, in); err != nil {
		return m.writeError("delete", k, err, m.existingFailure(o.Version, now))
	}
	m.ops[opDelete].use.record(0, 1)
	return nil
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
