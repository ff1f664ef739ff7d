package entity_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// lostTable answers the reads and batches named in fail with
// ResourceNotFoundException (the table deleted under the caller): a
// request DynamoDB received and refused, which no retry cures.
type lostTable struct {
	table.API
	fail map[string]bool
}

func (l lostTable) lost(op string) error {
	if l.fail[op] {
		return &types.ResourceNotFoundException{Message: aws.String("table gone")}
	}
	return nil
}

func (l lostTable) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := l.lost("GetItem"); err != nil {
		return nil, err
	}
	return l.API.GetItem(ctx, in, o...)
}

func (l lostTable) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := l.lost("Query"); err != nil {
		return nil, err
	}
	return l.API.Query(ctx, in, o...)
}

func (l lostTable) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := l.lost("BatchGetItem"); err != nil {
		return nil, err
	}
	return l.API.BatchGetItem(ctx, in, o...)
}

func (l lostTable) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := l.lost("BatchWriteItem"); err != nil {
		return nil, err
	}
	return l.API.BatchWriteItem(ctx, in, o...)
}

// TestEveryCallSentIsAPatternAndNoCallRefusedBeforeSending: a call is an
// access pattern once it was sent to DynamoDB, whatever DynamoDB answered
// (a Get of nothing, a refused condition, a version conflict, a canceled
// transaction, an error), so the least-privilege policy derived from
// Patterns allows every request the code makes; a call refused before any
// request (bad input, by entity or by table) is none.
func TestEveryCallSentIsAPatternAndNoCallRefusedBeforeSending(t *testing.T) {
	type envs struct {
		*env
		col *entity.Collection
	}
	cases := []struct {
		pattern string
		op      access.Op
		fails   []string // the requests the table answers with an error
		sent    func(e envs) error
		refused func(e envs) error
	}{
		{pattern: "album get", op: access.GetItem,
			sent: func(e envs) error {
				_, err := e.albums.Get(ctx, Album{ID: "missing"})
				return want(err, table.ErrNotFound)
			},
			refused: func(e envs) error { _, err := e.albums.Get(ctx, Album{ID: "a1"}, entity.Limit(2)); return err }},
		{pattern: "album get", op: access.GetItem, fails: []string{"GetItem"},
			sent: func(e envs) error {
				_, err := e.albums.Get(ctx, Album{ID: "a1"})
				return want(err, table.ErrTableNotFound)
			},
			refused: func(e envs) error { _, err := e.albums.Get(ctx, Album{}); return err }},
		{pattern: "album create", op: access.PutItem,
			sent: func(e envs) error {
				_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "again"})
				return want(err, table.ErrAlreadyExists)
			},
			refused: func(e envs) error { _, err := e.albums.Create(ctx, Album{ID: "a9", OwnerID: "u1"}); return err }},
		{pattern: "album put", op: access.PutItem,
			sent: func(e envs) error {
				_, err := e.albums.Put(ctx, Album{ID: "a1", OwnerID: "u1", Title: "stale", Version: 7})
				return want(err, entity.ErrVersionConflict)
			},
			refused: func(e envs) error {
				_, err := e.albums.Put(ctx, Album{ID: "a1", OwnerID: "u1", Title: "t", Visibility: "secret", Version: 1})
				return err
			}},
		{pattern: "album patch", op: access.UpdateItem,
			sent: func(e envs) error {
				_, err := e.albums.Patch(Album{ID: "missing"}).Set("title", "x").Run(ctx)
				return want(err, table.ErrNotFound)
			},
			refused: func(e envs) error { _, err := e.albums.Patch(Album{ID: "a1"}).Set("title", 5).Run(ctx); return err }},
		{pattern: "album update", op: access.UpdateItem,
			sent: func(e envs) error {
				_, err := e.albums.Update(Album{ID: "a1"}).Set("title", "x").IfVersion(9).Run(ctx)
				return want(err, entity.ErrVersionConflict)
			},
			refused: func(e envs) error { _, err := e.albums.Update(Album{ID: "a1"}).Set("nope", "x").Run(ctx); return err }},
		{pattern: "album upsert", op: access.UpdateItem,
			sent: func(e envs) error {
				_, err := e.albums.Upsert(ctx, Album{ID: "a1", OwnerID: "u1", Title: "x"}, entity.If(expression.Name("title").Equal(expression.Value("other"))))
				return want(err, table.ErrConditionFailed)
			},
			refused: func(e envs) error {
				_, err := e.albums.Upsert(ctx, Album{ID: "a1", OwnerID: "u1", Title: "x"}, entity.IfVersion(1))
				return err
			}},
		{pattern: "album delete", op: access.DeleteItem,
			sent: func(e envs) error {
				_, err := e.albums.Delete(ctx, Album{ID: "missing"})
				return want(err, table.ErrNotFound)
			},
			refused: func(e envs) error { _, err := e.albums.Delete(ctx, Album{}); return err }},
		{pattern: "album list GSI1", op: access.Query, fails: []string{"Query"},
			sent: func(e envs) error {
				_, err := e.albums.List(ctx, Album{OwnerID: "u1"}, "", entity.ByIndex("GSI1"))
				return want(err, table.ErrTableNotFound)
			},
			refused: func(e envs) error {
				_, err := e.albums.List(ctx, Album{OwnerID: "u1"}, "forged", entity.ByIndex("GSI1"))
				return err
			}},
		{pattern: "album list", op: access.Query, fails: []string{"Query"},
			sent: func(e envs) error {
				for _, err := range e.albums.Items(ctx, Album{ID: "a1"}) {
					return want(err, table.ErrTableNotFound)
				}
				return errors.New("Items yielded nothing")
			},
			refused: func(e envs) error {
				for _, err := range e.albums.Items(ctx, Album{ID: "a1"}, entity.ByIndex("GSI9")) {
					return err
				}
				return errors.New("Items yielded nothing")
			}},
		{pattern: "albumView list", op: access.Query, fails: []string{"Query"},
			sent: func(e envs) error {
				_, err := e.col.List(ctx, Album{ID: "a1"}, "")
				return want(err, table.ErrTableNotFound)
			},
			refused: func(e envs) error { _, err := e.col.List(ctx, Album{ID: "a1"}, "forged"); return err }},
		{pattern: "album batch get", op: access.BatchGetItem, fails: []string{"BatchGetItem"},
			sent: func(e envs) error {
				_, err := e.albums.BatchGet(ctx, []Album{{ID: "a1"}})
				return want(err, table.ErrTableNotFound)
			},
			refused: func(e envs) error { _, err := e.albums.BatchGet(ctx, []Album{{ID: "a1"}, {ID: "a1"}}); return err }},
		{pattern: "album batch put", op: access.BatchWriteItem, fails: []string{"BatchWriteItem"},
			sent: func(e envs) error {
				_, err := e.albums.BatchPut(ctx, []Album{{ID: "a2", OwnerID: "u1", Title: "t"}})
				return want(err, table.ErrTableNotFound)
			},
			refused: func(e envs) error {
				_, err := e.albums.BatchPut(ctx, []Album{{ID: "a2", OwnerID: "u1", Title: "t"}, {ID: "a2", OwnerID: "u1", Title: "t"}})
				return err
			}},
		{pattern: "album batch delete", op: access.BatchWriteItem, fails: []string{"BatchWriteItem"},
			sent: func(e envs) error {
				return want(e.albums.BatchDelete(ctx, []Album{{ID: "a1"}}), table.ErrTableNotFound)
			},
			refused: func(e envs) error { return e.albums.BatchDelete(ctx, []Album{{ID: "a1"}, {ID: "a1"}}) }},
		{pattern: "transaction: album PutItem", op: access.TransactWriteItems,
			sent: func(e envs) error {
				return want(entity.Transact(ctx, e.albums.TxCreate(Album{ID: "a1", OwnerID: "u1", Title: "again"})), table.ErrAlreadyExists)
			},
			refused: func(e envs) error { return entity.Transact(ctx, e.albums.TxCreate(Album{ID: "a9", OwnerID: "u1"})) }},
		{pattern: "transaction: invite UpdateItem", op: access.TransactWriteItems,
			// A rule in the action's condition refuses it: DynamoDB
			// canceled it, so it was sent, though its error is a rule's.
			sent: func(e envs) error {
				return want(entity.Transact(ctx, e.invites.Patch(Invite{AlbumID: "a1", Email: "x@y"}).Add("uses", 9).Action()), entity.ErrValidation)
			},
			// Two actions on one item: table refuses it before sending.
			refused: func(e envs) error {
				return entity.Transact(ctx, e.invites.Patch(Invite{AlbumID: "a1", Email: "x@y"}).Add("uses", 1).Action(),
					e.invites.Patch(Invite{AlbumID: "a1", Email: "x@y"}).Add("uses", 1).Action())
			}},
		{pattern: "transaction: read album GetItem, photo GetItem", op: access.TransactGetItems,
			// A read of a missing item: sent, answered, ErrNotFound.
			sent: func(e envs) error {
				return want(entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), e.photos.TxGet(Photo{AlbumID: "a1", ID: "missing"})), table.ErrNotFound)
			},
			// The same key twice: table refuses it before sending.
			refused: func(e envs) error {
				return entity.TransactGet(ctx, e.albums.TxGet(Album{ID: "a1"}), e.albums.TxGet(Album{ID: "a1"}))
			}},
		{pattern: "invite delete expired", op: access.DeleteItem,
			// A Put with a condition over an invite past its TTL that
			// DynamoDB has not yet removed deletes it first, so that the
			// condition meets no item: a DeleteItem the policy must allow.
			sent: func(e envs) error {
				_, err := e.invites.Put(ctx, Invite{AlbumID: "a1", Email: "old@y", Seats: 1},
					entity.If(expression.AttributeNotExists(expression.Name("role"))))
				return err
			},
			refused: func(e envs) error {
				_, err := e.invites.Put(ctx, Invite{AlbumID: "a1", Email: "old@y", Seats: 9})
				return err
			}},
	}
	for _, c := range cases {
		name := c.pattern
		if len(c.fails) > 0 {
			name += " when " + strings.Join(c.fails, ", ") + " fails"
		}
		t.Run(name, func(t *testing.T) {
			seed := newEnv(t)
			seedAlbum(t, seed, 1)
			_, err := seed.invites.Create(ctx, Invite{AlbumID: "a1", Email: "x@y", Seats: 1})
			require.NoError(t, err)
			_, err = seed.invites.Create(ctx, Invite{AlbumID: "a1", Email: "old@y", Seats: 1, ExpiresAt: seed.now().Add(time.Minute).Unix()})
			require.NoError(t, err)
			seed.lag(time.Hour) // the old invite expired, still stored

			// A registry of its own, whose Patterns are the case's calls.
			api := lostTable{API: seed.db, fail: map[string]bool{}}
			e := envs{env: &env{db: seed.db, t: table.New(api, seed.t.Schema(), fastBackoff), clock: seed.clock}}
			e.declare(t, seed.blobs, entity.Clock(seed.db.Now))
			e.col, err = entity.NewCollection(e.reg, "albumView", "", e.albums, e.photos)
			require.NoError(t, err)
			for _, op := range c.fails {
				api.fail[op] = true
			}

			err = c.refused(e)
			require.Error(t, err)
			require.ErrorIs(t, err, table.ErrInvalidInput, "refused before any request")
			assert.Empty(t, e.reg.Patterns(), "a call refused before any request is no pattern")

			require.NoError(t, c.sent(e))
			byName := map[string]access.Pattern{}
			for _, p := range e.reg.Patterns() {
				byName[p.Name] = p
			}
			require.Contains(t, byName, c.pattern, "the call sent is a pattern, failed or not")
			assert.Equal(t, c.op, byName[c.pattern].Operation)
		})
	}
}

// want is nil when err is target, else an error saying what err was.
func want(err, target error) error {
	if errors.Is(err, target) {
		return nil
	}
	return fmt.Errorf("want %v, got %v", target, err)
}

// TestEverySortAListUsedIsInItsKeyCondition: the sort conditions of a
// list's pattern are those of every call, not only of the calls whose
// sizes were sampled (the first and every 64th).
func TestEverySortAListUsedIsInItsKeyCondition(t *testing.T) {
	e := newEnv(t)
	seedAlbum(t, e, 2)
	_, err := e.photos.List(ctx, Photo{AlbumID: "a1"}, "")
	require.NoError(t, err)
	_, err = e.photos.List(ctx, Photo{AlbumID: "a1"}, "", entity.SortGreater("p00"))
	require.NoError(t, err)
	for _, p := range e.reg.Patterns() {
		if p.Name == "photo list" {
			assert.Contains(t, p.KeyCondition, "sk > ", "the second call's sort")
			return
		}
	}
	t.Fatal("no photo list pattern")
}
