package entity_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// follower returns a function that reads the changes the table's stream
// holds since its last call.
func (e *env) follower(t *testing.T) func() []changes.Change[table.Item] {
	t.Helper()
	_, err := changes.EnableStream(ctx, e.db, e.t.Name(), types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, e.db))
	c, err := changes.New[table.Item](e.db, e.db, e.t.Name(), changes.Decode(changes.DecodeItem), changes.PollInterval(0))
	require.NoError(t, err)
	return func() []changes.Change[table.Item] {
		var all []changes.Change[table.Item]
		_, err := c.CatchUp(ctx, func(_ context.Context, batch []changes.Change[table.Item]) error {
			all = append(all, batch...)
			return nil
		})
		require.NoError(t, err)
		return all
	}
}

func TestChangeRecordsDecodeIntoTypedValues(t *testing.T) {
	e := newEnv(t)
	follow := e.follower(t)
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	p, err := e.photos.Create(ctx, bigPhoto(e, "p1", 500*1024))
	require.NoError(t, err)
	a2, err := e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Run(ctx)
	require.NoError(t, err)
	_, err = e.albums.Delete(ctx, Album{ID: "a1"})
	require.NoError(t, err)

	var albums []Album
	var photos []Photo
	var any []any
	for _, ch := range follow() {
		if v, ok, err := e.albums.FromChange(ctx, ch); assert.NoError(t, err) && ok {
			albums = append(albums, v)
		}
		if v, ok, err := e.photos.FromChange(ctx, ch); assert.NoError(t, err) && ok {
			photos = append(photos, v)
		}
		if v, ok, err := e.reg.FromChange(ctx, ch); assert.NoError(t, err) && ok {
			any = append(any, v)
		}
	}
	require.Len(t, albums, 2, "the create and the patch; the delete leaves no new image")
	assert.Equal(t, a.Title, albums[0].Title)
	assert.Equal(t, a2.PhotoCount, albums[1].PhotoCount)
	require.Len(t, photos, 1)
	assert.Equal(t, p.Metadata, photos[0].Metadata, "offloaded attributes are restored")
	assert.Len(t, any, 3)

	other := table.Item{"jobId": &types.AttributeValueMemberS{Value: "j1"}}
	_, _, err = e.albums.FromChange(ctx, changes.Change[table.Item]{Event: changes.Insert, Keys: other, New: &other})
	var ie *table.InputError
	require.ErrorAs(t, err, &ie, "a record of another table")
}
