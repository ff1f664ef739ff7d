package entity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
)

// Ranked is in a sparse index by rank, under a constant partition: an
// item without a rank is left out of it.
type Ranked struct {
	ID      string `dynamodbav:"rankedId"`
	Owner   string `dynamodbav:"ownerId"`
	Rank    string `dynamodbav:"rank"`
	Version int    `dynamodbav:"version"`
}

func rankedEntity(t *testing.T, e *env) *entity.Entity[Ranked] {
	t.Helper()
	ranked, err := entity.New[Ranked](e.reg, "ranked",
		entity.Key("RANKED#{rankedId}", "RANKED"),
		entity.SparseIndex("GSI2", "RANKS", "R#{rank}"),
		entity.Version("version"), entity.Required("ownerId"))
	require.NoError(t, err)
	return ranked
}

// ranks lists the sparse index: the ids in rank order.
func ranks(t *testing.T, ranked *entity.Entity[Ranked]) []string {
	t.Helper()
	var out []string
	for v, err := range ranked.Items(ctx, Ranked{}, entity.ByIndex("GSI2")) {
		require.NoError(t, err)
		out = append(out, v.ID)
	}
	return out
}

// testASparseIndexHoldsExactlyTheItemsWithItsAttributes: found by the
// model test. A sparse index holds an item exactly when the attributes of
// its templates are set, whichever write set them: an update setting one
// to its zero value was refused ("empty string") where a Put of the same
// value leaves the item out of the index.
func testASparseIndexHoldsExactlyTheItemsWithItsAttributes(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		ranked := rankedEntity(t, e)
		_, err := ranked.Create(ctx, Ranked{ID: "a", Owner: "u", Rank: "r1"})
		require.NoError(t, err)
		_, err = ranked.Create(ctx, Ranked{ID: "b", Owner: "u", Rank: "r2"})
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b"}, ranks(t, ranked))

		v, err := ranked.Patch(Ranked{ID: "a"}).Set("rank", "").Run(ctx)
		require.NoError(t, err, "a Set of the zero value takes the item out")
		assert.Equal(t, "", v.Rank)
		assert.Equal(t, []string{"b"}, ranks(t, ranked), "Patch")
		_, err = ranked.Update(Ranked{ID: "b"}).Set("rank", "").Run(ctx)
		require.NoError(t, err)
		assert.Empty(t, ranks(t, ranked), "Update")
		got, err := ranked.Get(ctx, Ranked{ID: "b"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, Ranked{ID: "b", Owner: "u", Version: 2}, got)

		// An item enters the index when an update sets what it lacked:
		// both index keys are written, the constant partition too (a
		// Patch wrote the sort key alone, and the item stayed out).
		_, err = ranked.Create(ctx, Ranked{ID: "c", Owner: "u"})
		require.NoError(t, err)
		assert.Empty(t, ranks(t, ranked), "created without a rank")
		_, err = ranked.Patch(Ranked{ID: "c"}).Set("rank", "r3").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"c"}, ranks(t, ranked), "Patch")
		_, err = ranked.Update(Ranked{ID: "a"}).Set("rank", "r1").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "c"}, ranks(t, ranked), "Update")
		_, err = ranked.Update(Ranked{ID: "d"}).Set("ownerId", "u").Run(ctx)
		require.NoError(t, err, "an Update that creates an item without a rank")
		_, err = ranked.Patch(Ranked{ID: "d"}).Set("rank", "r4").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "c", "d"}, ranks(t, ranked))

		// An Upsert of a value out of the index takes the item out: the
		// stored item's index keys went stale under its new rank "".
		_, err = ranked.Upsert(ctx, Ranked{ID: "c", Owner: "u"})
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "d"}, ranks(t, ranked), "Upsert of no rank")
		_, err = ranked.Upsert(ctx, Ranked{ID: "c", Owner: "u", Rank: "r0"})
		require.NoError(t, err)
		assert.Equal(t, []string{"c", "a", "d"}, ranks(t, ranked), "Upsert of a rank")
	})
}

func TestASparseIndexHoldsExactlyTheItemsWithItsAttributes(t *testing.T) {
	testASparseIndexHoldsExactlyTheItemsWithItsAttributes(t, fakeEnv)
}

func TestIntegrationASparseIndexHoldsExactlyTheItemsWithItsAttributes(t *testing.T) {
	testASparseIndexHoldsExactlyTheItemsWithItsAttributes(t, localEnv)
}
