package entity_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

func TestATransactionalReadDecodesEachEntityAsGetDoes(t *testing.T) {
	testATransactionalReadDecodesEachEntityAsGetDoes(t, fakeEnv)
}

func TestIntegrationATransactionalReadDecodesEachEntityAsGetDoes(t *testing.T) {
	testATransactionalReadDecodesEachEntityAsGetDoes(t, localEnv)
}

// testATransactionalReadDecodesEachEntityAsGetDoes: TxGet means what Get
// means, item by item, in one TransactGetItems: TTL 0 never expires, an
// item past its TTL that DynamoDB has not deleted is not found, offloaded
// attributes come back, a missing item is its own read's ErrNotFound while
// the others are filled.
func testATransactionalReadDecodesEachEntityAsGetDoes(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		now := e.clock.Now()
		_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
		require.NoError(t, err)
		photo, err := e.photos.Create(ctx, Photo{AlbumID: "a1", ID: "p1", OwnerID: "u1", TakenAt: now,
			Metadata: strings.Repeat("m", 500*1024)})
		require.NoError(t, err, "offloaded: over DynamoDB's 400 KB")
		_, ok := blobstore.PointerOf(e.raw(t, "ALBUM#a1", "PHOTO#p1")["metadata"])
		require.True(t, ok, "the item holds a pointer")
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "zero@y", Seats: 1}) // TTL 0
		require.NoError(t, err)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "old@y", Seats: 1, ExpiresAt: now.Add(time.Minute).Unix()})
		require.NoError(t, err)
		e.lag(time.Hour) // old@y expired; DynamoDB has not deleted it
		require.NotEmpty(t, e.raw(t, "ALBUM#a1", "INVITE#old@y"), "still stored")

		album := e.albums.TxGet(Album{ID: "a1"})
		pic := e.photos.TxGet(Photo{AlbumID: "a1", ID: "p1"})
		zero := e.invites.TxGet(Invite{AlbumID: "a1", Email: "zero@y"})
		expired := e.invites.TxGet(Invite{AlbumID: "a1", Email: "old@y"})
		gone := e.photos.TxGet(Photo{AlbumID: "a1", ID: "nope"})
		err = entity.TransactGet(ctx, album, pic, zero, expired, gone)
		require.ErrorIs(t, err, table.ErrNotFound, "the first read that found nothing")
		assert.ErrorContains(t, err, "INVITE#old@y", "it names the key")

		a, err := album.Value()
		require.NoError(t, err)
		assert.Equal(t, "Alps", a.Title)
		p, err := pic.Value()
		require.NoError(t, err)
		assert.Equal(t, photo.Metadata, p.Metadata, "the offloaded attribute is read back")
		inv, err := zero.Value()
		require.NoError(t, err, "TTL 0 never expires")
		assert.Equal(t, "zero@y", inv.Email)
		_, err = expired.Value()
		require.ErrorIs(t, err, table.ErrNotFound, "past its TTL, not yet deleted")
		_, err = gone.Value()
		require.ErrorIs(t, err, table.ErrNotFound)
		assert.ErrorContains(t, err, "PHOTO#nope")

		require.NoError(t, entity.TransactGet(ctx, album, zero), "all found: no error")
		_, err = album.Value()
		require.NoError(t, err)
	})
}

func TestATransactionalReadOfAnotherEntitysItemIsUnknown(t *testing.T) {
	e := newEnv(t)
	// An album's attributes at a photo's key (a bug elsewhere, a hand
	// edit): the photo read refuses it, as Get does.
	_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(e.t.Name()), Item: table.Item{
		"pk": &types.AttributeValueMemberS{Value: "ALBUM#a1"}, "sk": &types.AttributeValueMemberS{Value: "PHOTO#p1"},
		"_type": &types.AttributeValueMemberS{Value: "album"}, "albumId": &types.AttributeValueMemberS{Value: "a1"}}})
	require.NoError(t, err)
	read := e.photos.TxGet(Photo{AlbumID: "a1", ID: "p1"})
	require.ErrorIs(t, entity.TransactGet(ctx, read), entity.ErrUnknownItem)
	p, err := read.Value()
	require.ErrorIs(t, err, entity.ErrUnknownItem)
	assert.Zero(t, p)
}

func TestATransactionalReadRefusesBadInputBeforeSending(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	archive := e.archive(t) // another table

	var nilEntity *entity.Entity[Album]
	var nilRead *entity.TxRead[Album]
	many := make([]entity.Read, 101)
	for i := range many {
		many[i] = e.albums.TxGet(Album{ID: fmt.Sprint("a", i)})
	}
	cases := map[string]func() error{
		"nil context":         func() error { return entity.TransactGet(nil, e.albums.TxGet(Album{ID: "a1"})) }, //nolint:staticcheck // the nil is the case
		"no reads":            func() error { return entity.TransactGet(ctx) },
		"a nil read":          func() error { return entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), nil) },
		"a typed nil read":    func() error { return entity.TransactGet(ctx, nilRead) },
		"a zero read":         func() error { return entity.TransactGet(ctx, &entity.TxRead[Album]{}) },
		"a nil entity's read": func() error { return entity.TransactGet(ctx, nilEntity.TxGet(Album{ID: "a1"})) },
		"an empty key field":  func() error { return entity.TransactGet(ctx, e.albums.TxGet(Album{})) },
		"the same key twice": func() error {
			return entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), e.albums.TxGet(Album{ID: "a1"}))
		},
		"101 reads": func() error { return entity.TransactGet(ctx, many...) },
		"reads of two tables": func() error {
			return entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), archive.TxGet(Album{ID: "a2"}))
		},
		"the first read's key": func() error { return entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), e.albums.TxGet(Album{})) },
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			before := e.db.Calls("TransactGetItems")
			err := call()
			require.ErrorIs(t, err, table.ErrInvalidInput)
			assert.Equal(t, before, e.db.Calls("TransactGetItems"), "nothing sent")
		})
	}
	for _, p := range e.reg.Patterns() {
		assert.NotEqual(t, access.TransactGetItems, p.Operation, "no read transaction was sent: %s", p.Name)
	}
	// 100 reads is DynamoDB's limit, not over it.
	require.ErrorIs(t, entity.TransactGet(ctx, many[:100]...), table.ErrNotFound)
}

func TestATransactionalReadsValueIsItsLastRunsOnly(t *testing.T) {
	e := newEnv(t)
	read := e.albums.TxGet(Album{ID: "a1"})
	_, err := read.Value()
	require.ErrorIs(t, err, table.ErrInvalidInput, "not run yet")
	_, err = e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	require.NoError(t, entity.TransactGet(ctx, read))
	a, err := read.Value()
	require.NoError(t, err)
	assert.Equal(t, "Alps", a.Title)

	// Run again in a transaction that fails before DynamoDB answers: the
	// earlier item is not passed off as this run's.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	require.Error(t, entity.TransactGet(canceled, read))
	_, err = read.Value()
	require.ErrorIs(t, err, table.ErrInvalidInput, "nothing read this time")

	var nilRead *entity.TxRead[Album]
	_, err = nilRead.Value()
	require.ErrorIs(t, err, entity.ErrNoEntity)
}

// TestTheReadTransactionsPolicyAllowsIt: a TransactGet is recorded as a
// TransactGetItems pattern, whose derived policy grants what IAM checks
// for it (GetItem on the table, per item read: there is no IAM action of
// its own), so a service whose only call is a read transaction runs under
// its own least-privilege policy.
func TestTheReadTransactionsPolicyAllowsIt(t *testing.T) {
	e := newEnv(t)
	seedAlbum(t, e, 1)
	e.declare(t, e.blobs, entity.Clock(e.db.Now)) // a registry whose only calls follow
	require.NoError(t, entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), e.photos.TxGet(Photo{AlbumID: "a1", ID: "p00"})))
	ps := e.reg.Patterns()
	require.Len(t, ps, 1)
	assert.Equal(t, "transaction: read album GetItem, photo GetItem", ps[0].Name)
	assert.Equal(t, access.TransactGetItems, ps[0].Operation)
	assert.True(t, ps[0].Transactional)
	require.Len(t, ps[0].Items, 2)
	assert.Equal(t, access.GetItem, ps[0].Items[1].Operation)
	assert.Equal(t, "ALBUM#{albumId}", ps[0].Items[1].Partition)

	policy, err := datamodel.PolicyFor(e.reg.Schema(), ps, func(o *datamodel.PolicyOptions) { o.Env = dynamotest.Env })
	require.NoError(t, err)
	enforced, err := dynamotest.Enforce(e.db, policy)
	require.NoError(t, err)
	reg, err := entity.NewRegistry(table.New(enforced, e.t.Schema()), entity.Clock(e.db.Now))
	require.NoError(t, err)
	albums, err := entity.New[Album](reg, "album", albumOptions()...)
	require.NoError(t, err)
	read := albums.TxGet(Album{ID: "a1"})
	require.NoError(t, entity.TransactGet(ctx, read), "the derived policy allows it")
	_, err = albums.Get(ctx, Album{ID: "a1"})
	require.NoError(t, err, "IAM checks GetItem for both")
	_, err = albums.Delete(ctx, Album{ID: "a1"})
	var denied *iam.AccessDeniedError
	require.ErrorAs(t, err, &denied, "nothing else is granted")
}
