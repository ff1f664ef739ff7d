package table

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's transaction limits: 100 actions, 4 MB in total, and each item
// at most once.
const (
	maxTxActions = 100
	maxTxBytes   = 4 * 1024 * 1024
)

// WriteTx collects writes that DynamoDB applies all together or not at all
// (TransactWriteItems). Build it with the chainable methods, then Run it.
// Mistakes in building (a bad key, the same item twice, more than 100
// actions) are reported by Run, before anything is sent.
//
// A transaction may write several tables, as DynamoDB's do: On returns a
// handle on the same transaction whose actions write another Table.
type WriteTx struct {
	t *Table // the table this handle's actions write
	*txState
}

// txState is one transaction, shared by its handles.
type txState struct {
	home    *Table // the table WriteTx was called on: its API, backoff, attempts and logger run the transaction
	actions []txAction
	token   string
	err     error
	keys    map[string]int
	bytes   int
}

type txAction struct {
	kind  string
	table string
	key   Key
	item  types.TransactWriteItem
	wc    writeCondition
}

// WriteTx starts a write transaction on the table.
func (t *Table) WriteTx() *WriteTx {
	return &WriteTx{t: t, txState: &txState{home: t, keys: map[string]int{}, err: t.usable()}}
}

// On returns a handle on the same transaction whose actions write other:
// whichever handle adds an action or calls Run, it is one transaction of
// all the actions, applied all together or not at all, under one
// ClientRequestToken. DynamoDB transactions span tables of one account and
// region, so other must be on the same API as the table the transaction
// started on; its key checks and item size limit apply to its actions,
// while the starting table's backoff, attempts and logger run the
// transaction. A nil other, or one on another API, is an *InputError that
// Run reports.
//
//	tx := jobsTable.WriteTx().Update(jobKey, moved, table.If(wasQueued))
//	tx.On(tasksTable).Create(task)
//	err := tx.Run(ctx)
func (tx *WriteTx) On(other *Table) *WriteTx {
	if tx.skip() {
		return tx
	}
	if err := other.usable(); err != nil {
		tx.fail(refield(err, "tx.On"))
		return tx
	}
	if !sameAPI(tx.home.db, other.db) {
		tx.fail(inputErr("tx.On", other.Name(), "table is on another API than "+tx.home.Name()+": one transaction goes to one DynamoDB"))
		return tx
	}
	return &WriteTx{t: other, txState: tx.txState}
}

// sameAPI reports whether a and b are the same client. Values of a type
// that cannot be compared count as the same: the check catches a mix-up,
// and DynamoDB refuses a transaction naming a table it does not have.
func sameAPI(a, b API) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() {
		return va.IsValid() == vb.IsValid()
	}
	if va.Type() != vb.Type() {
		return false
	}
	if !va.Comparable() {
		return true
	}
	return va.Equal(vb)
}

// skip reports a transaction that takes no more actions: a nil or zero
// WriteTx (Run reports it), or one that has failed already.
func (tx *WriteTx) skip() bool { return tx == nil || tx.txState == nil || tx.err != nil }

func (tx *WriteTx) fail(err error) *WriteTx {
	if tx.err == nil {
		tx.err = err
	}
	return tx
}

func (tx *WriteTx) field() string { return fmt.Sprintf("tx action %d", len(tx.actions)) }

// add records an action after the checks every action shares.
func (tx *WriteTx) add(kind string, key Key, wc writeCondition, item types.TransactWriteItem, size int) *WriteTx {
	if len(tx.actions) >= maxTxActions {
		return tx.fail(inputErr(tx.field(), kind, fmt.Sprintf("a transaction holds at most %d actions", maxTxActions)))
	}
	id := tx.t.Name() + "\x00" + tx.t.identity(key)
	if first, ok := tx.keys[id]; ok {
		return tx.fail(inputErr(tx.field(), key.String(), fmt.Sprintf("item already used by action %d: DynamoDB allows one action per item in a transaction", first)))
	}
	tx.bytes += size
	if tx.bytes > maxTxBytes {
		return tx.fail(&InputError{Field: tx.field(), Value: key.String(), Reason: "transaction is over DynamoDB's 4 MB limit", Err: ErrItemTooLarge})
	}
	tx.keys[id] = len(tx.actions)
	tx.actions = append(tx.actions, txAction{kind: kind, table: tx.t.Name(), key: key, item: item, wc: wc})
	return tx
}

// options checks write options for a transaction action: a transaction
// returns no images.
func (tx *WriteTx) options(opts []func(*WriteOptions)) (WriteOptions, writeCondition, error) {
	o := writeOptions(opts)
	if o.ReturnOld != nil || o.ReturnNew != nil {
		return o, writeCondition{}, inputErr(tx.field(), "ReturnOld/ReturnNew", "transactions do not return items")
	}
	wc, err := tx.t.condition(o)
	return o, wc, err
}

type exprParts struct {
	cond, update   *string
	targets        []string // the attributes update writes
	names          map[string]string
	values         map[string]types.AttributeValue
	onCheckFailure types.ReturnValuesOnConditionCheckFailure
}

func (tx *WriteTx) build(o WriteOptions, wc writeCondition, update *expression.UpdateBuilder) (exprParts, error) {
	var p exprParts
	if wc.cond == nil && update == nil {
		return p, nil
	}
	if wc.cond != nil {
		p.onCheckFailure = returnValuesOnFailure(wc.wantCurrentItem(o))
	}
	e, err := buildExpr(tx.field(), builders{condition: wc.cond, update: update})
	if err != nil {
		return p, err
	}
	p.cond, p.names, p.values = e.Condition(), e.Names(), e.Values()
	if update != nil {
		p.update, p.targets = e.Update(), e.updateTargets()
	}
	return p, nil
}

// Put adds a put of item (a struct or an Item).
func (tx *WriteTx) Put(item any, opts ...func(*WriteOptions)) *WriteTx {
	return tx.put("Put", item, opts)
}

// Create adds a put that fails, failing the whole transaction, if the item
// exists; its TxReason then maps to ErrAlreadyExists.
func (tx *WriteTx) Create(item any) *WriteTx {
	return tx.put("Create", item, []func(*WriteOptions){IfNotExists()})
}

func (tx *WriteTx) put(kind string, item any, opts []func(*WriteOptions)) *WriteTx {
	if tx.skip() {
		return tx
	}
	av, err := Marshal(item)
	if err != nil {
		return tx.fail(refield(err, tx.field()))
	}
	if err := tx.t.checkItem(tx.field(), av); err != nil {
		return tx.fail(err)
	}
	o, wc, err := tx.options(opts)
	if err != nil {
		return tx.fail(err)
	}
	p, err := tx.build(o, wc, nil)
	if err != nil {
		return tx.fail(err)
	}
	return tx.add(kind, tx.t.keyOf(av), wc, types.TransactWriteItem{Put: &types.Put{
		TableName:                           aws.String(tx.t.Name()),
		Item:                                av,
		ConditionExpression:                 p.cond,
		ExpressionAttributeNames:            p.names,
		ExpressionAttributeValues:           p.values,
		ReturnValuesOnConditionCheckFailure: p.onCheckFailure,
	}}, ItemSize(av))
}

// Update adds an update of the item with key.
func (tx *WriteTx) Update(key Key, u expression.UpdateBuilder, opts ...func(*WriteOptions)) *WriteTx {
	if tx.skip() {
		return tx
	}
	if err := tx.t.checkKey(tx.field()+" key", key); err != nil {
		return tx.fail(err)
	}
	o, wc, err := tx.options(opts)
	if err != nil {
		return tx.fail(err)
	}
	p, err := tx.build(o, wc, &u)
	if err != nil {
		return tx.fail(err)
	}
	if err := tx.t.checkUpdateTargets(tx.field(), p.targets); err != nil {
		return tx.fail(err)
	}
	return tx.add("Update", key, wc, types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(tx.t.Name()),
		Key:                                 key,
		UpdateExpression:                    p.update,
		ConditionExpression:                 p.cond,
		ExpressionAttributeNames:            p.names,
		ExpressionAttributeValues:           p.values,
		ReturnValuesOnConditionCheckFailure: p.onCheckFailure,
	}}, ItemSize(Item(key)))
}

// Delete adds a delete of the item with key.
func (tx *WriteTx) Delete(key Key, opts ...func(*WriteOptions)) *WriteTx {
	if tx.skip() {
		return tx
	}
	if err := tx.t.checkKey(tx.field()+" key", key); err != nil {
		return tx.fail(err)
	}
	o, wc, err := tx.options(opts)
	if err != nil {
		return tx.fail(err)
	}
	p, err := tx.build(o, wc, nil)
	if err != nil {
		return tx.fail(err)
	}
	return tx.add("Delete", key, wc, types.TransactWriteItem{Delete: &types.Delete{
		TableName:                           aws.String(tx.t.Name()),
		Key:                                 key,
		ConditionExpression:                 p.cond,
		ExpressionAttributeNames:            p.names,
		ExpressionAttributeValues:           p.values,
		ReturnValuesOnConditionCheckFailure: p.onCheckFailure,
	}}, ItemSize(Item(key)))
}

// Check adds a condition on the item with key that must hold for the
// transaction to apply, without writing that item. Of opts, the ones that
// make sense for a check apply: more conditions (If, IfExists) and
// ItemOnConditionFailure, which puts the item as it was into the refusal's
// TxReason at no extra cost.
func (tx *WriteTx) Check(key Key, c expression.ConditionBuilder, opts ...func(*WriteOptions)) *WriteTx {
	if tx.skip() {
		return tx
	}
	if err := tx.t.checkKey(tx.field()+" key", key); err != nil {
		return tx.fail(err)
	}
	o, wc, err := tx.options(append([]func(*WriteOptions){If(c)}, opts...))
	if err != nil {
		return tx.fail(err)
	}
	p, err := tx.build(o, wc, nil)
	if err != nil {
		return tx.fail(err)
	}
	return tx.add("Check", key, wc, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                           aws.String(tx.t.Name()),
		Key:                                 key,
		ConditionExpression:                 p.cond,
		ExpressionAttributeNames:            p.names,
		ExpressionAttributeValues:           p.values,
		ReturnValuesOnConditionCheckFailure: p.onCheckFailure,
	}}, ItemSize(Item(key)))
}

// Token sets the ClientRequestToken (1 to 36 characters). DynamoDB applies
// a transaction at most once per token for 10 minutes, so a service that
// derives the token from its own request id gets exactly-once writes across
// its own retries too. Without Token, Run generates one.
func (tx *WriteTx) Token(token string) *WriteTx {
	if tx.skip() {
		return tx
	}
	if len(token) < 1 || len(token) > 36 {
		return tx.fail(inputErr("tx token", fmt.Sprintf("%q", token), "ClientRequestToken must be 1 to 36 characters"))
	}
	tx.token = token
	return tx
}

// Run sends the transaction. A transaction canceled only by conflicts with
// other transactions or by throttling is retried with backoff (up to
// Options.TxAttempts sends), always with the same ClientRequestToken, so a
// retry of a transaction that did apply cannot apply it twice. Any other
// cancellation is a *TxError naming each failed action and why.
func (tx *WriteTx) Run(ctx context.Context) error {
	if tx == nil || tx.txState == nil {
		return (*Table)(nil).usable()
	}
	if tx.err != nil {
		return tx.err
	}
	if err := tx.home.ready(ctx); err != nil {
		return err
	}
	if len(tx.actions) == 0 {
		return inputErr("tx", "", "transaction has no actions")
	}
	if tx.token == "" {
		tx.token = newToken()
	}
	items := make([]types.TransactWriteItem, len(tx.actions))
	for i, a := range tx.actions {
		items[i] = a.item
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: items, ClientRequestToken: aws.String(tx.token)}
	return runTx(ctx, tx.home, "transact write", func(ctx context.Context) error {
		_, err := tx.home.db.TransactWriteItems(ctx, in)
		return err
	}, func(r *TxReason) {
		if r.Index < len(tx.actions) {
			a := tx.actions[r.Index]
			r.Action, r.Table, r.Key = a.kind, a.table, a.key.String()
			if r.Code == "ConditionalCheckFailed" {
				r.err = a.wc.failureSentinel(r.Item)
			}
		}
	})
}

// runTx sends a transaction until it succeeds, fails for a reason a retry
// cannot cure, runs out of attempts or ctx ends.
func runTx(ctx context.Context, t *Table, op string, send func(context.Context) error, describe func(*TxReason)) error {
	for attempt := 0; ; attempt++ {
		err := send(ctx)
		if err == nil {
			return nil
		}
		werr := wrapError(op, t.Name(), "", err)
		if ctx.Err() != nil {
			return &Error{Op: op, Table: t.Name(), Cause: fmt.Errorf("%w; last attempt: %w", ctx.Err(), werr)}
		}
		var txe *TxError
		retry := isThrottle(werr) || errors.Is(werr, ErrTransactionConflict)
		if errors.As(werr, &txe) {
			for i := range txe.Reasons {
				describe(&txe.Reasons[i])
			}
			retry = txe.retryable()
		}
		if !retry || attempt+1 >= t.opts.TxAttempts {
			return werr
		}
		delay := t.opts.Backoff.delay(attempt)
		t.logRetry(ctx, slog.LevelWarn, "table: transaction canceled, retrying", op, attempt+2, delay, slog.String("error", werr.Error()))
		if err := wait(ctx, delay); err != nil {
			return &Error{Op: op, Table: t.Name(), Cause: fmt.Errorf("retrying after %w: %w", werr, err)}
		}
	}
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// GetTx reads up to 100 items as one consistent snapshot
// (TransactGetItems).
type GetTx struct {
	t    *Table
	gets []txGet
	err  error
	keys map[string]int
}

type txGet struct {
	key Key
	out any
}

// GetTx starts a read transaction on the table.
func (t *Table) GetTx() *GetTx { return &GetTx{t: t, keys: map[string]int{}, err: t.usable()} }

// Get adds a read of the item with key into out.
func (g *GetTx) Get(key Key, out any) *GetTx {
	if g == nil || g.keys == nil || g.err != nil {
		return g
	}
	field := fmt.Sprintf("tx get %d", len(g.gets))
	if err := g.t.checkKey(field+" key", key); err != nil {
		g.err = err
		return g
	}
	if err := checkOut(out); err != nil {
		g.err = refield(err, field+" out")
		return g
	}
	if len(g.gets) >= maxTxActions {
		g.err = inputErr(field, key.String(), fmt.Sprintf("a transaction holds at most %d actions", maxTxActions))
		return g
	}
	id := g.t.identity(key)
	if first, ok := g.keys[id]; ok {
		g.err = inputErr(field, key.String(), fmt.Sprintf("item already read by get %d", first))
		return g
	}
	g.keys[id] = len(g.gets)
	g.gets = append(g.gets, txGet{key: key, out: out})
	return g
}

// Run reads the items and stores each one found into its out. If any item
// is missing, Run still fills the others and returns ErrNotFound naming the
// first missing key.
func (g *GetTx) Run(ctx context.Context) error {
	if g == nil || g.keys == nil {
		return (*Table)(nil).usable()
	}
	if g.err != nil {
		return g.err
	}
	if err := g.t.ready(ctx); err != nil {
		return err
	}
	if len(g.gets) == 0 {
		return inputErr("tx", "", "transaction has no actions")
	}
	items := make([]types.TransactGetItem, len(g.gets))
	for i, gt := range g.gets {
		items[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(g.t.Name()), Key: gt.key}}
	}
	var out *dynamodb.TransactGetItemsOutput
	err := runTx(ctx, g.t, "transact get", func(ctx context.Context) error {
		var err error
		out, err = g.t.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
		return err
	}, func(r *TxReason) {
		if r.Index < len(g.gets) {
			r.Action, r.Table, r.Key = "Get", g.t.Name(), g.gets[r.Index].key.String()
		}
	})
	if err != nil {
		return err
	}
	var missing error
	for i, gt := range g.gets {
		if i >= len(out.Responses) || len(out.Responses[i].Item) == 0 {
			if missing == nil {
				missing = &Error{Op: "transact get", Table: g.t.Name(), Key: gt.key.String(), Err: ErrNotFound}
			}
			continue
		}
		if err := Unmarshal(out.Responses[i].Item, gt.out); err != nil {
			return err
		}
	}
	return missing
}
