package entity

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/table"
)

// Read is one read of a read transaction: the value an entity's TxGet
// returns, given to TransactGet. Only TxGet makes one.
type Read interface {
	read() *txRead
}

// txRead is what TransactGet needs of a read, whatever its entity's type.
type txRead struct {
	m   *model
	key table.Key
	err error // a bad key or a nil entity, reported before anything is sent
	// got decodes the item read into the typed read (nil: found nothing)
	// and records its error; with ran false it forgets what it held.
	got func(ctx context.Context, item table.Item, now time.Time, ran bool) error
}

// TxRead is a read of one item of entity T in a read transaction. Build it
// with TxGet, pass it to TransactGet, then take its item with Value. It is
// not safe for concurrent use; TransactGet may run it again, which replaces
// what it read.
type TxRead[T any] struct {
	r   txRead
	v   T
	err error
	ran bool
}

func (r *TxRead[T]) read() *txRead {
	if r == nil {
		return nil
	}
	return &r.r
}

// TxGet reads the item whose key the key fields of key give, in a read
// transaction (TransactGet), with Get's meanings: a missing item, and one
// whose TTL has passed, is table.ErrNotFound; an item of another entity at
// the key is ErrUnknownItem; offloaded attributes are restored.
func (e *Entity[T]) TxGet(key T) *TxRead[T] {
	r := &TxRead[T]{}
	if e == nil || e.m == nil {
		r.r.err = noEntity()
		return r
	}
	m := e.m
	r.r.m = m
	r.r.key, r.r.err = e.tableKey(key)
	r.r.got = func(ctx context.Context, item table.Item, now time.Time, ran bool) error {
		var zero T
		r.v, r.err, r.ran = zero, nil, ran
		if !ran {
			return nil
		}
		expired := func(item table.Item) bool { return m.expiredAt(item, now) }
		if r.err = m.found("transact get", item, r.r.key, expired); r.err != nil {
			return r.err
		}
		r.err = m.decode(ctx, item, &r.v)
		return r.err
	}
	return r
}

// Value returns the item the read found, or why not: table.ErrNotFound for
// a missing or expired item, ErrUnknownItem for another entity's, a decoding
// error. Before TransactGet ran it (or when TransactGet failed before
// DynamoDB answered), it is a *table.InputError.
func (r *TxRead[T]) Value() (T, error) {
	var zero T
	switch {
	case r == nil:
		return zero, noEntity()
	case !r.ran:
		return zero, inputError("read", "", "not read: pass it to TransactGet, which must have answered", nil)
	case r.err != nil:
		return zero, r.err
	}
	return r.v, nil
}

// TransactGet reads the items of reads as one serializable snapshot
// (TransactGetItems through table.GetTx: at most 100 items, each at most
// once, canceled by conflicting writes and retried as Transact is): no
// write lands between two of its reads, which BatchGet does not promise.
// Reads may be of several entities of registries on one table. Each read
// then holds its item or its own error (TxRead.Value); TransactGet
// returns the first read's error in the order given — table.ErrNotFound
// naming the key of a missing or expired item, ErrUnknownItem — after
// filling every read it could. Bad input (no reads, more than 100, the same
// key twice, a nil read, a read of a nil entity, reads of several tables)
// is a *table.InputError, and nothing is sent.
func TransactGet(ctx context.Context, reads ...Read) (err error) {
	if ctx == nil {
		return inputError("ctx", "nil", "a request needs a context", nil)
	}
	if len(reads) == 0 {
		return inputError("reads", "[]", "a read transaction needs at least one read", nil)
	}
	rs := make([]*txRead, len(reads))
	for i, rd := range reads {
		var r *txRead
		if rd != nil {
			r = rd.read()
		}
		field := "reads[" + strconv.Itoa(i) + "]"
		switch {
		case r == nil:
			return inputError(field, "nil", "make reads with an entity's TxGet", ErrNoEntity)
		case r.err != nil:
			return refield(r.err, field)
		case r.m == nil:
			return inputError(field, "zero TxRead", "make reads with an entity's TxGet", ErrNoEntity)
		case i > 0 && r.m.reg.t.Name() != rs[0].m.reg.t.Name():
			return inputError(field, r.m.reg.t.Name(), "a read transaction reads one table, "+rs[0].m.reg.t.Name()+
				" (reads across tables: not yet)", nil)
		}
		rs[i] = r
	}
	for _, r := range rs {
		r.got(context.Background(), nil, time.Time{}, false) // what an earlier run read is gone
	}
	home := rs[0].m.reg
	ctx, span := home.start(ctx, "entity.TransactGet")
	defer span.End(&err)
	items := make([]table.Item, len(rs))
	g := home.t.GetTx()
	for i, r := range rs {
		g.Get(r.key, &items[i])
	}
	err = g.Run(ctx)
	home.patterns.recordTxGet(err, rs, items)
	if err != nil && !missing(err) {
		return err
	}
	now := home.now()
	var first error
	for i, r := range rs {
		if err := r.got(ctx, items[i], now, true); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// missing reports whether err is table.GetTx's answer that an item was
// not there: the transaction ran, and each read decides what it found.
func missing(err error) bool {
	var txe *table.TxError
	return errors.Is(err, table.ErrNotFound) && !errors.As(err, &txe)
}
