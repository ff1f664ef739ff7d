package entity

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// FromChange returns the value a change record of the table leaves
// behind (its new image), decoded as Get would return it (offloaded
// attributes restored, KeyOnly ones parsed from the keys). ok is false for
// an item of another entity, an expired one, and a change with no new
// image (a delete; a stream without new images): read ch.Old with
// Registry.Decode for those. A record of another table is a
// *table.InputError (changes.CheckKeys); an image that does not decode
// wraps changes.ErrDecode.
//
//	c, err := changes.New[table.Item](db, streams, name, changes.Decode(changes.DecodeItem))
//	for ch, err := range c.Changes(ctx) {
//		if p, ok, err := photos.FromChange(ctx, ch); ok { ... }
//	}
func (e *Entity[T]) FromChange(ctx context.Context, ch changes.Change[table.Item]) (_ T, ok bool, err error) {
	var zero T
	if err := e.ready(ctx); err != nil {
		return zero, false, err
	}
	item, err := e.m.reg.image(ch)
	if err != nil || item == nil {
		return zero, false, err
	}
	if m := e.m.reg.identify(item); m != e.m || m.expired(item) {
		return zero, false, nil
	}
	var v T
	if err := e.m.decode(ctx, item, &v); err != nil {
		return zero, false, fmt.Errorf("%w: %w", changes.ErrDecode, err)
	}
	return v, true, nil
}

// FromChange is Entity.FromChange for whichever entity of the registry
// the record's item is: its value (an Album, a Photo) and true, or false
// for an item of no entity the registry knows.
func (r *Registry) FromChange(ctx context.Context, ch changes.Change[table.Item]) (_ any, ok bool, err error) {
	if err := r.usable(); err != nil {
		return nil, false, err
	}
	if ctx == nil {
		return nil, false, inputError("ctx", "nil", "FromChange needs a context", nil)
	}
	item, err := r.image(ch)
	if err != nil || item == nil {
		return nil, false, err
	}
	m := r.identify(item)
	if m == nil || m.expired(item) {
		return nil, false, nil
	}
	v, err := m.decodeAny(ctx, item)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", changes.ErrDecode, err)
	}
	return v, true, nil
}

// image is the new image of a change of the registry's table; nil when
// the change has none.
func (r *Registry) image(ch changes.Change[table.Item]) (table.Item, error) {
	s := r.t.Schema()
	names := []string{s.PartitionKey.Name}
	strs := s.PartitionKey.Type == types.ScalarAttributeTypeS
	if s.SortKey.Name != "" {
		names = append(names, s.SortKey.Name)
		strs = strs && s.SortKey.Type == types.ScalarAttributeTypeS
	}
	if strs {
		if err := changes.CheckKeys(ch, names...); err != nil {
			return nil, err
		}
	}
	if ch.New == nil {
		return nil, nil
	}
	return *ch.New, nil
}
