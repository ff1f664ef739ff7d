package entity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// A rule in an action's condition (an Add under Bounds) that refuses it is
// that action's error, a validation error naming the attribute, and not
// another action's: the refusal is told apart by the action built, as a
// version conflict or a taken key is.
func TestTxErrorGivesARulesRefusalToTheActionItRefused(t *testing.T) {
	e := newEnv(t)
	_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "x", Role: "viewer", Uses: 5})
	require.NoError(t, err)
	_, err = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)

	over := e.invites.Patch(Invite{AlbumID: "a1", Email: "x"}).Add("uses", 1).Action()
	fine := e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Action()
	err = entity.Transact(ctx, fine, over)
	var txe *entity.TxError
	require.ErrorAs(t, err, &txe)
	assert.ErrorIs(t, err, entity.ErrValidation, "the transaction's error matches the rule's")

	assert.ErrorIs(t, txe.Err(over), entity.ErrValidation)
	var ie *table.InputError
	require.ErrorAs(t, txe.Err(over), &ie)
	assert.Contains(t, ie.Field, "invite.")
	assert.ErrorIs(t, txe.Err(over), table.ErrConditionFailed)
	assert.NoError(t, txe.Err(fine), "the album's patch was not refused")
}
