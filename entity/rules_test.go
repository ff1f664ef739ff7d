package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// testRulesHoldOnEveryWritePath: Add(-1) stored -1 under Bounds(0, 10),
// and a Put of the item as read back was then refused. Where only DynamoDB
// knows the result (an Add to the stored number, an Append to the stored
// list) the rule is in the request's condition, and a refusal is a
// validation error naming the attribute, not a bare ErrConditionFailed;
// nothing is written.
func testRulesHoldOnEveryWritePath(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		key := Invite{AlbumID: "a1", Email: "x"}
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "x", Role: "viewer"})
		require.NoError(t, err)
		stored := func() Invite {
			t.Helper()
			v, err := e.invites.Get(ctx, key, entity.Consistent())
			require.NoError(t, err)
			return v
		}
		refused := func(err error, what string) {
			t.Helper()
			require.ErrorIs(t, err, entity.ErrValidation, what)
			var ie *table.InputError
			require.ErrorAs(t, err, &ie, what)
			assert.Contains(t, ie.Field, "invite.", what)
		}

		_, err = e.invites.Patch(key).Add("uses", -1).Run(ctx)
		refused(err, "Add(-1) from 0 under Bounds(0, 5)")
		assert.Equal(t, 0, stored().Uses, "nothing written")
		v, err := e.invites.Patch(key).Add("uses", 5).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, 5, v.Uses, "to the upper bound, included")
		_, err = e.invites.Patch(key).Add("uses", 1).Run(ctx)
		refused(err, "Add(1) from 5")
		_, err = e.invites.Update(key).Add("uses", 1).Run(ctx)
		refused(err, "an Update's Add")
		err = entity.Transact(ctx, e.invites.Patch(key).Add("uses", 1).Action())
		refused(err, "an Add in a transaction")
		v, err = e.invites.Patch(key).Add("uses", -5).Run(ctx)
		require.NoError(t, err, "down to the lower bound, included")
		assert.Equal(t, 0, v.Uses)
		_, err = e.invites.Update(Invite{AlbumID: "a1", Email: "new"}).Add("uses", 6).Run(ctx)
		refused(err, "an Update that would create the item with 6")
		_, err = e.invites.Get(ctx, Invite{AlbumID: "a1", Email: "new"}, entity.Consistent())
		require.ErrorIs(t, err, table.ErrNotFound, "nothing created")

		// seats: unsigned, Bounds(1, 4); 0 is unset, which only Required
		// refuses.
		_, err = e.invites.Patch(key).Add("seats", -1).Run(ctx)
		refused(err, "an unsigned field holds no negative number")
		_, err = e.invites.Patch(key).Add("seats", 5).Run(ctx)
		refused(err, "Add(5) from 0 under Bounds(1, 4)")
		v, err = e.invites.Patch(key).Add("seats", 2).Run(ctx)
		require.NoError(t, err)
		v, err = e.invites.Patch(key).Add("seats", -1).Run(ctx)
		require.NoError(t, err, "a decrement of an unsigned field, to the lower bound (included)")
		assert.EqualValues(t, 1, v.Seats)
		v, err = e.invites.Patch(key).Add("seats", -1).Run(ctx)
		require.NoError(t, err, "to 0: unset, as a Put of 0 is")
		assert.EqualValues(t, 0, v.Seats)
		v, err = e.invites.Patch(key).Add("seats", 4).Run(ctx)
		require.NoError(t, err, "to the upper bound (included)")
		assert.EqualValues(t, 4, v.Seats)
		err = entity.Transact(ctx, e.invites.Patch(key).Add("seats", -4).Action())
		require.NoError(t, err, "to 0 in a transaction")
		err = entity.Transact(ctx, e.invites.Patch(key).Add("seats", -1).Action())
		refused(err, "below 0 in a transaction")

		_, err = e.invites.Patch(key).Append("notes", "a", "b").Run(ctx)
		require.NoError(t, err)
		_, err = e.invites.Patch(key).Append("notes", "c", "d").Run(ctx)
		refused(err, "Append past a length bound of 3")
		assert.Equal(t, []string{"a", "b"}, stored().Notes)
		calls := callsOf(e, "UpdateItem")
		_, err = e.invites.Patch(key).Append("notes", "1", "2", "3", "4").Run(ctx)
		refused(err, "four elements are too many for any list")
		assert.Equal(t, calls, callsOf(e, "UpdateItem"), "refused before sending")

		_, err = e.invites.Patch(key).Set("role", "owner").Run(ctx)
		refused(err, "Set outside an Enum")
		_, err = e.invites.Patch(key).SetIfNotExists("uses", 9).Run(ctx)
		refused(err, "SetIfNotExists out of bounds")
		_, err = e.albums.Patch(Album{ID: "a1"}).Remove("title").Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "Remove of a Required attribute")
		_, err = e.albums.Update(Album{ID: "nope"}).Set("visibility", "public").Run(ctx)
		refused2 := err
		require.ErrorIs(t, refused2, entity.ErrValidation, "an Update creating an album without its Required title and owner")
		_, err = e.albums.Get(ctx, Album{ID: "nope"}, entity.Consistent())
		require.ErrorIs(t, err, table.ErrNotFound)

		_, err = e.invites.Patch(key).Add("uses", 1).If(expression.Name("role").Equal(expression.Value("editor"))).Run(ctx)
		require.ErrorIs(t, err, table.ErrConditionFailed, "the caller's condition")
		assert.NotErrorIs(t, err, entity.ErrValidation, "is told apart from a rule")

		for name, write := range map[string]func() error{
			"Upsert": func() error { _, err := e.invites.Upsert(ctx, Invite{AlbumID: "a1", Email: "x", Uses: 9}); return err },
			"Put":    func() error { _, err := e.invites.Put(ctx, Invite{AlbumID: "a1", Email: "x", Uses: 9}); return err },
			"BatchPut": func() error {
				_, err := e.invites.BatchPut(ctx, []Invite{{AlbumID: "a1", Email: "y", Uses: 9}})
				return err
			},
			"TxPut": func() error { return entity.Transact(ctx, e.invites.TxPut(Invite{AlbumID: "a1", Email: "y", Uses: 9})) },
			"TxCreate": func() error {
				return entity.Transact(ctx, e.invites.TxCreate(Invite{AlbumID: "a1", Email: "y", Role: "x"}))
			},
		} {
			refused(write(), name)
		}

		_, err = e.invites.Patch(key).Set("uses", 1.5).Run(ctx)
		require.ErrorIs(t, err, table.ErrInvalidInput, "1.5 is no int: refused, not truncated to 1")
		_, err = e.invites.Patch(key).Set("seats", -2).Run(ctx)
		require.ErrorIs(t, err, table.ErrInvalidInput, "-2 is no uint: refused, not wrapped")
		edges, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "edges", Seats: 1, Uses: 5, Notes: []string{"1", "2", "3"}})
		require.NoError(t, err, "both bounds are included")
		edges.Seats = 4
		_, err = e.invites.Put(ctx, edges)
		require.NoError(t, err)
		_, err = e.invites.Patch(Invite{AlbumID: "a1", Email: "edges"}).Set("seats", uint(1)).Run(ctx)
		require.NoError(t, err, "Set to the lower bound")

		read := stored()
		read.Role = "editor"
		_, err = e.invites.Put(ctx, read)
		require.NoError(t, err, "a Put of the item as read back")
	})
}

// callsOf counts the requests of an operation the fake served (0 on
// DynamoDB Local, which does not count).
func callsOf(e *env, op string) int {
	if e.db == nil {
		return 0
	}
	return e.db.Calls(op)
}

func TestRulesHoldOnEveryWritePath(t *testing.T) { testRulesHoldOnEveryWritePath(t, fakeEnv) }

func TestIntegrationRulesHoldOnEveryWritePath(t *testing.T) {
	testRulesHoldOnEveryWritePath(t, localEnv)
}
