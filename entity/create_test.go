package entity_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

func TestCreateWritesTheItemWithItsKeysTypeAndStamps(t *testing.T) {
	e := newEnv(t)
	before := e.db.Now()
	a, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps", Visibility: "public"})
	require.NoError(t, err)
	assert.False(t, a.CreatedAt.Before(before), "Created is the registry's clock")
	assert.False(t, a.CreatedAt.After(e.db.Now()))
	assert.Equal(t, a.CreatedAt, a.UpdatedAt)
	assert.Equal(t, 1, a.Version, "a new item is version 1")

	item := e.raw(t, "ALBUM#a1", "ALBUM")
	require.NotNil(t, item)
	assert.Equal(t, s("album"), item["_type"], "the type attribute names the entity")
	assert.Equal(t, s("USER#u1"), item["gsi1pk"])
	assert.Equal(t, s("ALBUM#"+keys.FormatTime(a.CreatedAt)), item["gsi1sk"], "index keys come from the templates")
	assert.Equal(t, s("a1"), item["albumId"], "the fields are stored as attributevalue writes them")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, item["version"])
}

func TestCreateOfATakenKeyIsAlreadyExistsCarriesTheStoredItemAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "first"})
	require.NoError(t, err)
	_, err = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u2", Title: "second"})
	require.ErrorIs(t, err, table.ErrAlreadyExists)
	assert.ErrorIs(t, err, table.ErrConditionFailed, "a refused create is a failed condition too")
	var te *table.Error
	require.ErrorAs(t, err, &te)
	stored, derr := e.albums.Decode(ctx, te.Item)
	require.NoError(t, derr, "the refusal carries the stored item, no read needed")
	assert.Equal(t, "first", stored.Title)
	assert.Equal(t, 2, e.db.Calls("PutItem"), "and no other request")
	got, err := e.albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err)
	assert.Equal(t, "first", got.Title)
}

func TestFiftyConcurrentCreatesOfOneKeyHaveOneWinner(t *testing.T) {
	e := newEnv(t)
	wins, exists := race(t, 50, table.ErrAlreadyExists, func(i int) error {
		_, err := e.albums.Create(ctx, Album{ID: "contended", OwnerID: "u", Title: strings.Repeat("x", i+1)})
		return err
	})
	assert.Equal(t, 1, wins)
	assert.Equal(t, 49, exists)
	assert.Equal(t, 1, e.count(t))
}

func TestBadInputIsATypedErrorAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	huge := strings.Repeat("x", table.MaxItemSize)
	cases := []struct {
		name   string
		create func() error
		is     error
	}{
		{"missing key field", func() error {
			_, err := e.albums.Create(ctx, Album{OwnerID: "u", Title: "t"})
			return err
		}, keys.ErrEmpty},
		{"delimiter inside a key value", func() error {
			_, err := e.albums.Create(ctx, Album{ID: "a#PHOTO", OwnerID: "u", Title: "t"})
			return err
		}, keys.ErrDelimiter},
		{"delimiter inside an index key value", func() error {
			_, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u#1", Title: "t"})
			return err
		}, keys.ErrDelimiter},
		{"required attribute left out", func() error {
			_, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u"})
			return err
		}, entity.ErrValidation},
		{"value outside its enum", func() error {
			_, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u", Title: "t", Visibility: "secret"})
			return err
		}, entity.ErrValidation},
		{"number out of bounds", func() error {
			_, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u", Title: "t", PhotoCount: -1})
			return err
		}, entity.ErrValidation},
		{"item over 400 KB with no offload rule", func() error {
			_, err := e.albums.Create(ctx, Album{ID: "a", OwnerID: "u", Title: huge})
			return err
		}, table.ErrItemTooLarge},
		{"put over 400 KB with no offload rule", func() error {
			_, err := e.albums.Put(ctx, Album{ID: "a", OwnerID: "u", Title: huge})
			return err
		}, table.ErrItemTooLarge},
		{"nil context", func() error {
			_, err := e.albums.Create(nil, Album{ID: "a", OwnerID: "u", Title: "t"}) //nolint:staticcheck // the nil context is the bad input
			return err
		}, table.ErrInvalidInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.create()
			require.Error(t, err)
			assert.ErrorIs(t, err, c.is)
			var ie *table.InputError
			assert.ErrorAs(t, err, &ie, "bad input is a *table.InputError")
			assert.Equal(t, 0, e.count(t), "nothing written")
		})
	}
	assert.Zero(t, e.db.Calls("PutItem"), "no request was sent")
}
