package entity_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// A registry on the fake, given no Clock, stamps the fake's time: a test
// moves one clock, the fake's, and the registry's timestamps and TTLs
// follow it.
func TestARegistryOnTheFakeKeepsTheFakesTime(t *testing.T) {
	t0 := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
	s := testSchema("clocked")
	require.NoError(t, s.EnsureTable(ctx, db))
	reg, err := entity.NewRegistry(table.New(db, s))
	require.NoError(t, err)
	albums, err := entity.New[Album](reg, "album", albumOptions()...)
	require.NoError(t, err)

	a, err := albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	assert.True(t, a.CreatedAt.Equal(t0), "created at the fake's time, not the wall clock's: %v", a.CreatedAt)
	db.Advance(time.Hour)
	a, err = albums.Put(ctx, a)
	require.NoError(t, err)
	assert.True(t, a.UpdatedAt.Equal(t0.Add(time.Hour)), "updated an hour on: %v", a.UpdatedAt)

	// An explicit Clock wins.
	later := t0.Add(24 * time.Hour)
	reg2, err := entity.NewRegistry(table.New(db, s), entity.Clock(func() time.Time { return later }))
	require.NoError(t, err)
	photos, err := entity.New[Album](reg2, "album", albumOptions()...)
	require.NoError(t, err)
	b, err := photos.Create(ctx, Album{ID: "a2", OwnerID: "u1", Title: "Andes"})
	require.NoError(t, err)
	assert.True(t, b.CreatedAt.Equal(later))
}
