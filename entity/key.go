package entity

import (
	"github.com/tablekit/tablekit/table"
)

// Key returns the table key of the item whose key fields key gives (other
// fields are ignored): the key Get reads, for a call composed with table's
// own (a table.WriteTx action that updates the item by document path, a
// table.GetTx). Bad key fields are a *table.InputError, as for Get. An
// entity's own writes in such a transaction are its actions, added with
// Action.AddTo (written, stamped and conditioned as every write of the
// entity), not items encoded apart.
func (e *Entity[T]) Key(key T) (table.Key, error) {
	if e == nil || e.m == nil {
		return nil, noEntity()
	}
	return e.tableKey(key)
}
