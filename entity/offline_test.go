package entity_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// offlineOf is e's declarations on an Offline registry of e's table.
func offlineOf(t *testing.T, e *env, opts ...func(*entity.RegistryOptions)) *env {
	t.Helper()
	reg, err := entity.Offline(e.t.Schema(), append([]func(*entity.RegistryOptions){entity.Clock(e.now)}, opts...)...)
	require.NoError(t, err)
	o := &env{t: reg.Table(), clock: e.clock}
	o.declareOn(t, reg)
	return o
}

func TestAnOfflineRegistryDecodesWhatTheTableHoldsAsGetReturnsIt(t *testing.T) {
	testAnOfflineRegistryDecodesWhatTheTableHoldsAsGetReturnsIt(t, fakeEnv)
}

func TestIntegrationAnOfflineRegistryDecodesWhatTheTableHoldsAsGetReturnsIt(t *testing.T) {
	testAnOfflineRegistryDecodesWhatTheTableHoldsAsGetReturnsIt(t, localEnv)
}

// testAnOfflineRegistryDecodesWhatTheTableHoldsAsGetReturnsIt: the items
// written through a registry on the table decode on an Offline registry
// of the same declarations as Get returns them (the type attribute or the
// key shape told, index keys and timestamps read), its keys are the
// table's, and a change record decodes as on the table; with and without
// the type attribute.
func testAnOfflineRegistryDecodesWhatTheTableHoldsAsGetReturnsIt(t *testing.T, mk makeEnv) {
	registries(t, mk, offlineDecodes)
}

func offlineDecodes(t *testing.T, e *env) {
	var opts []func(*entity.RegistryOptions)
	if e.reg.TypeAttribute() == "" {
		opts = append(opts, entity.NoTypeAttribute())
	}
	o := offlineOf(t, e, opts...)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	_, err = e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), Caption: "peak"})
	require.NoError(t, err)
	a, err := e.albums.Get(ctx, Album{ID: "a1"}, entity.Consistent())
	require.NoError(t, err)
	p, err := e.photos.Get(ctx, Photo{AlbumID: "a1", ID: "p1"}, entity.Consistent())
	require.NoError(t, err)

	for _, k := range []struct {
		pk, sk string
		want   any
		decode func(table.Item) (any, error)
	}{
		{"ALBUM#a1", "ALBUM", a, func(it table.Item) (any, error) { return o.albums.Decode(ctx, it) }},
		{"ALBUM#a1", "PHOTO#p1", p, func(it table.Item) (any, error) { return o.photos.Decode(ctx, it) }},
	} {
		var item table.Item
		require.NoError(t, e.t.Get(ctx, e.t.Key(k.pk, k.sk), &item, table.Consistent()))
		got, err := k.decode(item)
		require.NoError(t, err)
		assert.Equal(t, k.want, got, "%s/%s decodes as Get returned it", k.pk, k.sk)
		v, ok, err := o.reg.FromChange(ctx, changes.Change[table.Item]{Event: changes.Insert, Keys: e.t.Key(k.pk, k.sk), New: &item})
		require.NoError(t, err)
		require.True(t, ok, "%s/%s is one of the registry's", k.pk, k.sk)
		assert.Equal(t, k.want, v)
		_, err = o.tags.Decode(ctx, item)
		assert.ErrorIs(t, err, entity.ErrUnknownItem, "another entity's item is not a tag")
	}
	want, err := e.photos.Key(p)
	require.NoError(t, err)
	got, err := o.photos.Key(p)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// TestAnOfflineRegistrySendsNothing: every call of an Offline registry's
// entities that would send a request, and its table's own calls, fail
// with ErrOffline; nothing reaches a table.
func TestAnOfflineRegistrySendsNothing(t *testing.T) {
	e := newEnv(t)
	o := offlineOf(t, e)
	a := Album{ID: "a1", OwnerID: "u1", Title: "Alps"}
	calls := map[string]func() error{
		"Get":    func() error { _, err := o.albums.Get(ctx, a); return err },
		"Create": func() error { _, err := o.albums.Create(ctx, a); return err },
		"Put":    func() error { _, err := o.albums.Put(ctx, a); return err },
		"Delete": func() error { _, err := o.albums.Delete(ctx, a); return err },
		"List":   func() error { _, err := o.photos.List(ctx, Photo{AlbumID: "a1"}, ""); return err },
		"Items": func() error {
			for _, err := range o.photos.Items(ctx, Photo{AlbumID: "a1"}) {
				return err
			}
			return nil
		},
		"Transact":  func() error { return entity.Transact(ctx, o.albums.TxCreate(a)) },
		"BatchPut":  func() error { _, err := o.albums.BatchPut(ctx, []Album{a}); return err },
		"table Get": func() error { var it table.Item; return o.t.Get(ctx, o.t.Key("ALBUM#a1", "ALBUM"), &it) },
		"table EnsureTable": func() error {
			return o.t.Schema().EnsureTable(context.Background(), o.t.DB())
		},
	}
	for name, call := range calls {
		assert.ErrorIs(t, call(), entity.ErrOffline, name)
	}
	assert.Zero(t, e.count(t), "nothing was written")
	for _, op := range []string{"GetItem", "PutItem", "DeleteItem", "Query", "TransactWriteItems", "BatchWriteItem"} {
		assert.Zero(t, e.db.Calls(op), op)
	}
}
