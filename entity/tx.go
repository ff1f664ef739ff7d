package entity

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/table"
)

// Action is one write of a transaction: TxCreate, TxPut, TxDelete,
// TxCheck, or an update's Action. Build them, then pass them to Transact.
type Action struct {
	id uint64 // who the action is, for TxError.Reason
	m  *model
	// add adds the write to tx; expect is the version the write compares
	// (-1 when it compares none), to tell a version conflict from another
	// failed condition.
	add func(ctx context.Context, tx *table.WriteTx, now time.Time) (expect int64, err error)
	// explain, when set, tells a refusal by a rule in the action's
	// condition (an Add under Bounds) from the others: the rule's error,
	// or nil.
	explain func(current table.Item) error
	err     error
	entity  string
	op      access.Op // the write, for the recorded pattern
}

// Transact applies actions all together or not at all (table.WriteTx:
// TransactWriteItems, retried under one ClientRequestToken on conflicts
// and throttling). Actions may be of entities of several registries,
// whose tables are on one API (a DynamoDB transaction spans the tables of
// one account and region). A refused action cancels every action: the
// error is a *table.TxError naming each failed action, its sentinel
// (table.ErrAlreadyExists for a TxCreate, table.ErrNotFound for a TxDelete
// or a Patch's action, table.ErrConditionFailed), and ErrVersionConflict
// when a compared version had moved; it is a *TxError, whose Reason and Err
// tell the refusals apart by the Action values the caller built. Bad input
// in any action is reported before anything is sent.
func Transact(ctx context.Context, actions ...Action) (err error) {
	if ctx == nil {
		return inputError("ctx", "nil", "a request needs a context", nil)
	}
	if len(actions) == 0 {
		return inputError("actions", "[]", "a transaction needs at least one action", nil)
	}
	for i, a := range actions {
		if a.err != nil {
			return a.err
		}
		if a.m == nil {
			return inputError("actions["+strconv.Itoa(i)+"]", "zero Action", "make actions with an entity's Tx methods", ErrNoEntity)
		}
	}
	home := actions[0].m.reg
	ctx, span := home.start(ctx, "entity.Transact")
	defer span.End(&err)
	now := home.now()
	tx := home.t.WriteTx()
	expects := make([]int64, len(actions))
	for i, a := range actions {
		h := tx
		if a.m.reg.t != home.t {
			h = tx.On(a.m.reg.t)
		}
		if expects[i], err = a.add(ctx, h, now); err != nil {
			return err
		}
	}
	err = tx.Run(ctx)
	home.patterns.recordTx(err, actions)
	if err != nil {
		return txError(err, actions, expects)
	}
	return nil
}

func failedAction(err error) Action { return Action{err: err} }

// TxCreate is Create as a transaction's action: table.ErrAlreadyExists
// when the key is taken.
func (e *Entity[T]) TxCreate(v T) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	m := e.m
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.PutItem, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) (int64, error) {
		rv := reflect.ValueOf(&v).Elem()
		m.stampNew(rv, now)
		item, _, err := m.encode(ctx, rv, &v)
		if err != nil {
			return -1, err
		}
		if m.ttl != nil {
			tx.Put(item, table.IfNotExistsOrExpired(m.ttl.name, now))
		} else {
			tx.Create(item)
		}
		return -1, nil
	}}
}

// TxPut is Put as a transaction's action: for a versioned entity it
// compares v's version (ErrVersionConflict) and stores the next.
func (e *Entity[T]) TxPut(v T, opts ...func(*WriteOptions)) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	m := e.m
	o := writeOptions(opts)
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.PutItem, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) (int64, error) {
		rv := reflect.ValueOf(&v).Elem()
		expect := int64(-1)
		wo := conditions(o.Conditions)
		if m.version != nil {
			read := m.versionOf(rv)
			m.setVersion(rv, read+1)
			switch {
			case read == 0 && m.ttl != nil:
				wo = append(wo, table.IfNotExistsOrExpired(m.ttl.name, now))
			case read == 0:
				wo = append(wo, table.IfNotExists())
			default:
				wo = append(wo, table.If(expression.Name(m.version.name).Equal(expression.Value(read))), table.ItemOnConditionFailure())
				if m.ttl != nil {
					wo = append(wo, table.If(m.alive(now)))
				}
				expect = read
			}
		}
		m.stampReplace(rv, now)
		item, _, err := m.encode(ctx, rv, &v)
		if err != nil {
			return -1, err
		}
		tx.Put(item, wo...)
		return expect, nil
	}}
}

// TxDelete is Delete as a transaction's action: table.ErrNotFound when
// the item is missing; IfVersion and If as for Delete.
func (e *Entity[T]) TxDelete(key T, opts ...func(*WriteOptions)) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	m := e.m
	o := writeOptions(opts)
	k, err := e.tableKey(key)
	if err != nil {
		return failedAction(err)
	}
	if o.Version != nil && m.version == nil {
		return failedAction(inputError(m.name+" options", "IfVersion", "the entity has no Version attribute", nil))
	}
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.DeleteItem, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) (int64, error) {
		wo, expect := m.existing(o.Conditions, o.Version, now, o.Unchecked)
		tx.Delete(k, wo...)
		return expect, nil
	}}
}

// TxCheck is a condition on an item of the entity that the transaction
// needs without writing the item (table.ErrConditionFailed). As for every
// action with a condition, a refusal carries the item as it was
// (TxReason.Item), so the caller can tell why.
func (e *Entity[T]) TxCheck(key T, c expression.ConditionBuilder) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	k, err := e.tableKey(key)
	if err != nil {
		return failedAction(err)
	}
	return Action{id: nextActionID(), m: e.m, entity: e.m.name, op: access.ConditionCheck, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) (int64, error) {
		tx.Check(k, c, table.ItemOnConditionFailure())
		return -1, nil
	}}
}

// Action is the update as a transaction's action; a Patch's is refused
// with table.ErrNotFound when the item is missing.
func (u *Update[T]) Action() Action {
	if u == nil || u.m == nil {
		return failedAction(noEntity())
	}
	if u.err != nil {
		return failedAction(u.err)
	}
	m := u.m
	explain := func(current table.Item) error {
		guards, err := u.guards()
		if err != nil {
			return nil
		}
		if err := u.failure(m.reg.now(), guards)(current); errors.Is(err, ErrValidation) {
			return err
		}
		return nil
	}
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.UpdateItem, explain: explain, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) (int64, error) {
		p, err := u.plan(ctx, now)
		if err != nil {
			return -1, err
		}
		ub := p.shape.builder(p.values)
		wo := conditions(u.conds)
		for _, g := range p.guards {
			wo = append(wo, table.If(g.condition()))
		}
		if len(p.guards) > 0 || !u.creates() {
			wo = append(wo, table.ItemOnConditionFailure())
		}
		expect := int64(-1)
		switch {
		case !u.creates():
			wo = append(wo, table.IfExists())
			if m.ttl != nil {
				wo = append(wo, table.If(m.alive(now)))
			}
		case m.ttl != nil:
			// An action cannot clear an expired item first (Run does):
			// over one, the transaction is refused.
			wo = append(wo, table.If(expression.AttributeNotExists(expression.Name(m.pk.attr.Name)).Or(m.alive(now))))
		}
		if u.ver != nil {
			expect = int64(*u.ver)
			wo = append(wo, table.If(expression.Name(m.version.name).Equal(expression.Value(*u.ver))), table.ItemOnConditionFailure())
		}
		tx.Update(p.key, ub, wo...)
		return expect, nil
	}}
}

// existing is the conditions of a write to an item that must exist (and
// be alive), at a version when one is given.
func (m *model) existing(extra []expression.ConditionBuilder, version *int, now time.Time, unchecked bool) ([]func(*table.WriteOptions), int64) {
	wo := conditions(extra)
	if !unchecked {
		wo = append(wo, table.IfExists())
		if m.ttl != nil {
			wo = append(wo, table.If(m.alive(now)))
		}
	}
	if version == nil {
		return wo, -1
	}
	return append(wo, table.If(expression.Name(m.version.name).Equal(expression.Value(*version))), table.ItemOnConditionFailure()), int64(*version)
}

// conditions are the caller's conditions of a transaction's action; with
// any, a refusal carries the item as it was (TxReason.Item), so the caller
// can tell why.
func conditions(cs []expression.ConditionBuilder) []func(*table.WriteOptions) {
	out := make([]func(*table.WriteOptions), 0, len(cs)+4)
	for _, c := range cs {
		out = append(out, table.If(c))
	}
	if len(cs) > 0 {
		out = append(out, table.ItemOnConditionFailure())
	}
	return out
}

// builder rebuilds a shape's update with the expression package, for a
// transaction (table.WriteTx takes an expression.UpdateBuilder).
func (s *updateShape) builder(values map[string]types.AttributeValue) expression.UpdateBuilder {
	var ub expression.UpdateBuilder
	for _, c := range s.clauses {
		name := expression.Name(s.names[c.name])
		switch c.kind {
		case updSet:
			ub = ub.Set(name, expression.Value(values[c.val]))
		case updSetIfNotExists:
			ub = ub.Set(name, expression.IfNotExists(name, expression.Value(values[c.val])))
		case updAppend:
			ub = ub.Set(name, expression.ListAppend(expression.IfNotExists(name, expression.Value(emptyList[":empty"])), expression.Value(values[c.val])))
		case updAdd:
			ub = ub.Add(name, expression.Value(values[c.val]))
		case updRemove:
			ub = ub.Remove(name)
		}
	}
	return ub
}
