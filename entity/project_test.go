package entity_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// AlbumTitle is a projection of Album.
type AlbumTitle struct {
	ID    string `dynamodbav:"albumId"`
	Title string `dynamodbav:"title"`
}

// PhotoMeta is a projection of Photo with its offloaded attribute.
type PhotoMeta struct {
	Metadata string `dynamodbav:"metadata"`
}

// InviteUses is a projection of Invite, whose TTL it does not name.
type InviteUses struct {
	Uses int `dynamodbav:"uses"`
}

// projected records the attributes each GetItem asked for.
type projected struct {
	table.API
	asked []string
}

func (p *projected) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	var names []string
	if in.ProjectionExpression != nil {
		for _, ph := range strings.Split(*in.ProjectionExpression, ", ") {
			names = append(names, in.ExpressionAttributeNames[ph])
		}
	}
	sort.Strings(names)
	p.asked = append(p.asked, strings.Join(names, " "))
	return p.API.GetItem(ctx, in, o...)
}

func TestGetAsReadsOnlyTheProjectionsAttributes(t *testing.T) {
	testGetAsReadsOnlyTheProjectionsAttributes(t, fakeEnv)
}

func TestIntegrationGetAsReadsOnlyTheProjectionsAttributes(t *testing.T) {
	testGetAsReadsOnlyTheProjectionsAttributes(t, localEnv)
}

// testGetAsReadsOnlyTheProjectionsAttributes: GetAs asks DynamoDB for
// the projection's attributes and what Get's meanings need (keys, type
// attribute, TTL), and means what Get means.
func testGetAsReadsOnlyTheProjectionsAttributes(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		now := e.clock.Now()
		_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps", Tags: []string{"snow"}})
		require.NoError(t, err)
		p, err := e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: now, Metadata: strings.Repeat("m", 500*1024)})
		require.NoError(t, err)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "old@y", Seats: 1, Uses: 2, ExpiresAt: now.Add(time.Minute).Unix()})
		require.NoError(t, err)

		_, typed := e.raw(t, "ALBUM#a1", "ALBUM")["_type"]
		api := &projected{API: e.t.DB()}
		ropts := []func(*entity.RegistryOptions){entity.Clock(e.clock.Now)}
		if !typed {
			ropts = append(ropts, entity.NoTypeAttribute())
		}
		reg, err := entity.NewRegistry(table.New(api, e.t.Schema()), ropts...)
		require.NoError(t, err)
		albums, err := entity.New[Album](reg, "album", albumOptions()...)
		require.NoError(t, err)

		title, err := entity.GetAs[AlbumTitle](ctx, albums, Album{ID: "a1"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, AlbumTitle{ID: "a1", Title: "Alps"}, title)
		want := "albumId pk sk title"
		if typed {
			want = "_type albumId pk sk title"
		}
		assert.Equal(t, []string{want}, api.asked, "the projection's attributes and the keys, nothing else")

		meta, err := entity.GetAs[PhotoMeta](ctx, e.photos, Photo{AlbumID: "a1", ID: "p1"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, p.Metadata, meta.Metadata, "an offloaded attribute is read back")

		uses, err := entity.GetAs[InviteUses](ctx, e.invites, Invite{AlbumID: "a1", Email: "old@y"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, 2, uses.Uses)
		e.lag(time.Hour) // expired, not deleted
		_, err = entity.GetAs[InviteUses](ctx, e.invites, Invite{AlbumID: "a1", Email: "old@y"}, entity.Consistent())
		require.ErrorIs(t, err, table.ErrNotFound, "the TTL is read though the projection does not name it")
		_, err = entity.GetAs[AlbumTitle](ctx, e.albums, Album{ID: "nope"})
		require.ErrorIs(t, err, table.ErrNotFound)
	})
}

func TestGetAsOfAnotherEntitysItemIsUnknown(t *testing.T) {
	e := newEnv(t)
	_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(e.t.Name()), Item: table.Item{
		"pk": &types.AttributeValueMemberS{Value: "ALBUM#a1"}, "sk": &types.AttributeValueMemberS{Value: "PHOTO#p1"},
		"_type": &types.AttributeValueMemberS{Value: "album"}, "metadata": &types.AttributeValueMemberS{Value: "m"}}})
	require.NoError(t, err)
	_, err = entity.GetAs[PhotoMeta](ctx, e.photos, Photo{AlbumID: "a1", ID: "p1"})
	require.ErrorIs(t, err, entity.ErrUnknownItem, "the type attribute is read though the projection does not name it")
}

func TestGetAsRefusesAProjectionThatIsNotPartOfTheEntity(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	type unknown struct {
		Color string `dynamodbav:"color"`
	}
	type otherType struct {
		Title int `dynamodbav:"title"`
	}
	type empty struct{}
	var nilAlbums *entity.Entity[Album]
	cases := map[string]func() error{
		"an attribute the entity lacks": func() error { _, err := entity.GetAs[unknown](ctx, e.albums, Album{ID: "a1"}); return err },
		"another Go type":               func() error { _, err := entity.GetAs[otherType](ctx, e.albums, Album{ID: "a1"}); return err },
		"no attribute":                  func() error { _, err := entity.GetAs[empty](ctx, e.albums, Album{ID: "a1"}); return err },
		"not a struct":                  func() error { _, err := entity.GetAs[string](ctx, e.albums, Album{ID: "a1"}); return err },
		"a list's option": func() error {
			_, err := entity.GetAs[AlbumTitle](ctx, e.albums, Album{ID: "a1"}, entity.Limit(3))
			return err
		},
		"an empty key": func() error { _, err := entity.GetAs[AlbumTitle](ctx, e.albums, Album{}); return err },
		"a nil entity": func() error { _, err := entity.GetAs[AlbumTitle](ctx, nilAlbums, Album{ID: "a1"}); return err },
		"a nil context": func() error {
			_, err := entity.GetAs[AlbumTitle](nil, e.albums, Album{ID: "a1"}) //nolint:staticcheck // the nil is the case
			return err
		},
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			before := e.db.Calls("GetItem")
			require.ErrorIs(t, call(), table.ErrInvalidInput)
			assert.Equal(t, before, e.db.Calls("GetItem"), "nothing sent")
		})
	}
}

// Badge's code lives only in its GSI2 partition key (KeyOnly).
type Badge struct {
	Tenant string `dynamodbav:"tenant"`
	ID     string `dynamodbav:"badgeId"`
	Code   string `dynamodbav:"code"`
	Label  string `dynamodbav:"label"`
}

type BadgeCode struct {
	Code string `dynamodbav:"code"`
}

func TestGetAsParsesAKeyOnlyAttributeBackFromItsIndexKey(t *testing.T) {
	e := newEnv(t)
	badges, err := entity.New[Badge](e.reg, "badge", entity.Key("TENANT#{tenant}", "BADGE#{badgeId}"),
		entity.Index("GSI2", "CODE#{code}", "BADGE#{badgeId}"), entity.KeyOnly("code"))
	require.NoError(t, err)
	_, err = badges.Create(ctx, Badge{Tenant: "t1", ID: "b1", Code: "gold", Label: "Gold"})
	require.NoError(t, err)
	got, err := entity.GetAs[BadgeCode](ctx, badges, Badge{Tenant: "t1", ID: "b1"})
	require.NoError(t, err)
	assert.Equal(t, "gold", got.Code, "read from gsi2pk, which the projection adds")
}
