package entity_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

func TestTheCallsMadeBecomeAccessPatternsForDatamodelAndIAM(t *testing.T) {
	e := newEnv(t)
	seedAlbum(t, e, 3)
	_, err := e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	_, err = e.photos.List(ctx, Photo{OwnerID: "u1"}, "", entity.ByIndex("GSI1"))
	require.NoError(t, err)
	require.NoError(t, entity.Transact(ctx,
		e.photos.TxCreate(Photo{AlbumID: "a1", ID: "px", OwnerID: "u1", TakenAt: e.db.Now()}),
		e.albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Action()))

	ps := e.reg.Patterns()
	byName := map[string]access.Pattern{}
	for _, p := range ps {
		byName[p.Name] = p
	}
	require.Contains(t, byName, "album create")
	require.Contains(t, byName, "album get")
	require.Contains(t, byName, "photo list GSI1")
	require.Contains(t, byName, "transaction: photo PutItem, album UpdateItem")
	assert.NotContains(t, byName, "album delete", "only what was called")
	get := byName["album get"]
	assert.Equal(t, access.GetItem, get.Operation)
	assert.Equal(t, "pk = ALBUM#{albumId} AND sk = ALBUM", get.KeyCondition)
	assert.Equal(t, "ALBUM#{albumId}", get.Partition)
	list := byName["photo list GSI1"]
	assert.Equal(t, "GSI1", list.Index)
	assert.Equal(t, "gsi1pk = USER#{ownerId} AND begins_with(gsi1sk, PHOTO#)", list.KeyCondition)
	assert.Equal(t, []access.IndexWrite{{Index: "GSI1", Partition: "USER#{ownerId}"}}, byName["album create"].IndexWrites)

	est, err := datamodel.EstimateSchema(e.reg.Schema(), ps, datamodel.WithEntities(e.reg.Entities()),
		datamodel.WithRates(map[string]float64{"album get": 100}))
	require.NoError(t, err, "datamodel takes the recorded patterns as they are")
	assert.NotEmpty(t, est.Patterns)

	policy, err := datamodel.PolicyFor(e.reg.Schema(), ps)
	require.NoError(t, err)
	doc, err := json.Marshal(policy)
	require.NoError(t, err)
	for _, action := range []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"} {
		assert.Contains(t, string(doc), action)
	}
	assert.NotContains(t, string(doc), "dynamodb:DeleteItem", "least privilege: no call deleted")
	assert.NotContains(t, string(doc), "dynamodb:Scan")

	// The policy, bound to the fake's account, is enough for the calls
	// that made it, and refuses the others.
	policy, err = datamodel.PolicyFor(e.reg.Schema(), ps, func(o *datamodel.PolicyOptions) { o.Env = dynamotest.Env })
	require.NoError(t, err)
	fresh := newEnv(t)
	enforced, err := dynamotest.Enforce(fresh.db, policy)
	require.NoError(t, err)
	reg, err := entity.NewRegistry(table.New(enforced, fresh.t.Schema()), entity.Clock(fresh.db.Now))
	require.NoError(t, err)
	albums, err := entity.New[Album](reg, "album", albumOptions()...)
	require.NoError(t, err)
	_, err = albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	_, err = albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	_, err = albums.Delete(ctx, Album{ID: "a1"})
	var denied *iam.AccessDeniedError
	require.ErrorAs(t, err, &denied, "DeleteItem was never called, so it is not granted")
}
