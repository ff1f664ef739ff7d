package entity

import (
	"context"
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
	// add adds the write to tx.
	add func(ctx context.Context, tx *table.WriteTx, now time.Time) error
	// failure is the sentinel of the action's failed condition, given the
	// item as it was and the transaction's time: the function the same
	// write decides with outside a transaction (Put's for TxPut, ...), so
	// that an action and its call mean one thing. Nil: ErrConditionFailed.
	failure func(current table.Item, now time.Time) error
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
	for _, a := range actions {
		h := tx
		if a.m.reg.t != home.t {
			h = tx.On(a.m.reg.t)
		}
		if err = a.add(ctx, h, now); err != nil {
			return err
		}
	}
	err = tx.Run(ctx)
	home.patterns.recordTx(err, actions)
	if err != nil {
		return txError(err, actions, now)
	}
	return nil
}

func failedAction(err error) Action { return Action{err: err} }

// AddTo adds the action to tx, a transaction the caller builds and runs
// beside writes of its own that are not entity's (tasks.SubmitTx adds a
// task's items to the caller's transaction, possibly on another table;
// a store adds an entity's action to the transaction it builds by
// hand): the action writes what it writes in Transact, under the same
// conditions, at the registry's time now. The caller runs tx, so a
// refusal is tx.Run's *table.TxError, by position (its Reasons carry the
// item as it was wherever Transact's would), and no access pattern is
// recorded: the transaction is the caller's to declare. A bad action, a
// nil ctx or a nil tx is an error, and nothing is added.
func (a Action) AddTo(ctx context.Context, tx *table.WriteTx) error {
	switch {
	case ctx == nil:
		return inputError("ctx", "nil", "a request needs a context", nil)
	case tx == nil:
		return inputError("tx", "nil", "AddTo needs the caller's table.WriteTx", nil)
	case a.err != nil:
		return a.err
	case a.m == nil:
		return inputError("action", "zero Action", "make actions with an entity's Tx methods", ErrNoEntity)
	}
	return a.add(ctx, tx.On(a.m.reg.t), a.m.reg.now())
}

// TxCreate is Create as a transaction's action: table.ErrAlreadyExists
// when the key is taken.
func (e *Entity[T]) TxCreate(v T) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	m := e.m
	failure := func(current table.Item, now time.Time) error { return m.createFailure(false, now)(current) }
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.PutItem, failure: failure, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) error {
		v := v // a copy per run: the stamps are this run's (see TxCheck)
		rv := reflect.ValueOf(&v).Elem()
		m.stampNew(rv, now)
		item, _, err := m.encode(ctx, rv, &v)
		if err != nil {
			return err
		}
		if m.ttl != nil {
			tx.Put(item, table.IfNotExistsOrExpired(m.ttl.name, now))
		} else {
			tx.Create(item)
		}
		return nil
	}}
}

// TxPut is Put as a transaction's action: for a versioned entity it
// compares v's version and stores the next. Its refusal (TxError.Err)
// means what Put answers over the same item: ErrVersionConflict for
// version 0 over a live item or a stale version, table.ErrNotFound for a
// version over a missing or expired item. Unlike Put, a TxPut with If
// conditions over an expired item DynamoDB has not removed cannot clear it
// first: its conditions meet the expired item's attributes.
func (e *Entity[T]) TxPut(v T, opts ...func(*WriteOptions)) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	m := e.m
	o := writeOptions(opts)
	read := int64(0)
	if m.version != nil {
		read = m.versionOf(reflect.ValueOf(&v).Elem())
	}
	// What Put answers over the same item (putFailure), in one place.
	failure := func(current table.Item, now time.Time) error {
		return m.putFailure(read, now, len(o.Conditions) > 0)(current)
	}
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.PutItem, failure: failure, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) error {
		v := v // a copy per run: the version and stamps are this run's (see TxCheck)
		rv := reflect.ValueOf(&v).Elem()
		wo := conditions(o.Conditions)
		if m.version != nil {
			m.setVersion(rv, read+1)
			switch {
			case read == 0 && m.ttl != nil:
				wo = append(wo, table.IfNotExistsOrExpired(m.ttl.name, now))
			case read == 0:
				wo = append(wo, table.IfNotExists())
			default:
				wo = append(wo, table.If(expression.Name(m.version.name).Equal(expression.Value(read))))
				if m.ttl != nil {
					wo = append(wo, table.If(m.alive(now)))
				}
			}
			// The item as it was tells a version conflict from a missing one.
			wo = append(wo, table.ItemOnConditionFailure())
		}
		m.stampReplace(rv, now)
		item, _, err := m.encode(ctx, rv, &v)
		if err != nil {
			return err
		}
		tx.Put(item, wo...)
		return nil
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
	failure := func(current table.Item, now time.Time) error { return m.existingFailure(o.Version, now)(current) }
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.DeleteItem, failure: failure, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) error {
		tx.Delete(k, m.existing(o.Conditions, o.Version, now, o.Unchecked)...)
		return nil
	}}
}

// TxCheck is a condition on an item of the entity that the transaction
// needs without writing the item (table.ErrConditionFailed). As for every
// action with a condition, a refusal carries the item as it was
// (TxReason.Item), so the caller can tell why. An expired item DynamoDB
// has not removed yet fails the check (it is no item, as for every read;
// its attributes are not checked): a check that a missing item passes,
// such as attribute_not_exists, fails over an expired one.
func (e *Entity[T]) TxCheck(key T, c expression.ConditionBuilder) Action {
	if e == nil || e.m == nil {
		return failedAction(noEntity())
	}
	k, err := e.tableKey(key)
	if err != nil {
		return failedAction(err)
	}
	m := e.m
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.ConditionCheck, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) error {
		// A new value each run: an action may run again (a retry, a
		// reuse) or in two transactions at once.
		check := c
		if m.ttl != nil {
			check = c.And(m.alive(now))
		}
		tx.Check(k, check, table.ItemOnConditionFailure())
		return nil
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
	// What Run answers over the same item (Update.failure), in one place.
	failure := func(current table.Item, now time.Time) error {
		guards, err := u.guards()
		if err != nil {
			return table.ErrConditionFailed
		}
		return u.failure(now, guards, 0)(current)
	}
	return Action{id: nextActionID(), m: m, entity: m.name, op: access.UpdateItem, failure: failure, add: func(ctx context.Context, tx *table.WriteTx, now time.Time) error {
		// A transaction cannot resend: it expects every item in the
		// indexes whose keys it cannot build (indexkeys.go).
		p, err := u.plan(ctx, now, 0)
		if err != nil {
			return err
		}
		ub := p.shape.builder(p.values)
		wo := conditions(u.conds)
		for _, g := range p.guards {
			wo = append(wo, table.If(g.condition()))
		}
		for _, c := range p.shape.indexConds {
			wo = append(wo, table.If(c))
		}
		if len(p.guards) > 0 || len(p.shape.indexConds) > 0 || !u.creates() {
			wo = append(wo, table.ItemOnConditionFailure())
		}
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
			wo = append(wo, table.If(expression.Name(m.version.name).Equal(expression.Value(*u.ver))), table.ItemOnConditionFailure())
		}
		tx.Update(p.key, ub, wo...)
		return nil
	}}
}

// existing is the conditions of a write to an item that must exist (and
// be alive), at a version when one is given.
func (m *model) existing(extra []expression.ConditionBuilder, version *int, now time.Time, unchecked bool) []func(*table.WriteOptions) {
	wo := conditions(extra)
	if !unchecked {
		wo = append(wo, table.IfExists())
		if m.ttl != nil {
			wo = append(wo, table.If(m.alive(now)))
		}
	}
	if version == nil {
		return append(wo, table.ItemOnConditionFailure())
	}
	return append(wo, table.If(expression.Name(m.version.name).Equal(expression.Value(*version))), table.ItemOnConditionFailure())
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
		name := expression.NameNoDotSplit(s.names[c.name])
		src := name
		if c.src != "" {
			src = expression.NameNoDotSplit(s.names[c.src])
		}
		switch c.kind {
		case updSet:
			ub = ub.Set(name, expression.Value(values[c.val]))
		case updSetIfNotExists:
			ub = ub.Set(name, expression.IfNotExists(src, expression.Value(values[c.val])))
		case updSetPlus:
			ub = ub.Set(name, expression.Plus(expression.IfNotExists(src, expression.Value(zero[":zero"])), expression.Value(values[c.val])))
		case updAppend:
			ub = ub.Set(name, expression.ListAppend(expression.IfNotExists(src, expression.Value(emptyList[":empty"])), expression.Value(values[c.val])))
		case updAdd:
			ub = ub.Add(name, expression.Value(values[c.val]))
		case updRemove:
			ub = ub.Remove(name)
		}
	}
	return ub
}
