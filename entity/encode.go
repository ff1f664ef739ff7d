package entity

import (
	"context"
	"reflect"

	"github.com/tablekit/tablekit/table"
)

// Key returns the table key of the item whose key fields key gives (other
// fields are ignored): the key Get reads, for a call composed with table's
// own (a table.WriteTx action that updates the item by document path, a
// table.GetTx). Bad key fields are a *table.InputError, as for Get.
func (e *Entity[T]) Key(key T) (table.Key, error) {
	if e == nil || e.m == nil {
		return nil, noEntity()
	}
	return e.tableKey(key)
}

// Encode is Decode's inverse: the item of v as the entity stores it — its
// attributes, table and index keys and type attribute, KeyOnly attributes
// left to the keys, its rules checked, offloadable attributes moved to the
// blob store when it is over the threshold — without writing it, for a
// write composed with table's own calls (a table.WriteTx that also updates
// other items by document path). v is encoded as given: Created, Updated,
// the version and the TTL are the caller's to set (the calls that write
// set them). Decode of the item returns v.
func (e *Entity[T]) Encode(ctx context.Context, v T) (table.Item, error) {
	if err := e.ready(ctx); err != nil {
		return nil, err
	}
	item, _, err := e.m.encode(ctx, reflect.ValueOf(&v).Elem(), &v)
	return item, err
}
