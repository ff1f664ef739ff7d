package entity_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// testATTLOfZeroNeverExpires: with ttl 0, Get found the item, List left
// it out, Patch failed with ErrConditionFailed and a second Create
// replaced it — the write conditions treated 0 as expired, reads as
// never. 0 never expires, as in DynamoDB, on every path.
func testATTLOfZeroNeverExpires(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		key := Invite{AlbumID: "a1", Email: "x@y"}
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "x@y", Role: "viewer", Uses: 1})
		require.NoError(t, err)
		assert.Equal(t, "0", rawN(t, e.raw(t, "ALBUM#a1", "INVITE#x@y")["expiresAt"]), "stored as 0")

		got, err := e.invites.Get(ctx, key, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, 1, got.Uses)
		page, err := e.invites.List(ctx, Invite{AlbumID: "a1"}, "", entity.Consistent())
		require.NoError(t, err)
		assert.Len(t, page.Items, 1, "List finds it")
		col, err := entity.NewCollection(e.reg, "invites", "", e.invites, e.albums)
		require.NoError(t, err)
		cp, err := col.List(ctx, Invite{AlbumID: "a1"}, "", entity.Consistent())
		require.NoError(t, err)
		assert.Len(t, cp.Items, 1, "a collection finds it")
		batch, err := e.invites.BatchGet(ctx, []Invite{key}, entity.Consistent())
		require.NoError(t, err)
		assert.Len(t, batch, 1, "BatchGet finds it")
		item := e.raw(t, "ALBUM#a1", "INVITE#x@y")
		_, ok, err := e.invites.FromChange(ctx, changes.Change[table.Item]{Event: changes.Insert, Keys: table.Item{"pk": item["pk"], "sk": item["sk"]}, New: &item})
		require.NoError(t, err)
		assert.True(t, ok, "FromChange decodes it")

		patched, err := e.invites.Patch(key).Add("uses", 1).Run(ctx)
		require.NoError(t, err, "Patch finds it")
		assert.Equal(t, 2, patched.Uses)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "x@y", Role: "editor"})
		require.ErrorIs(t, err, table.ErrAlreadyExists, "a second Create does not replace it")
		err = entity.Transact(ctx, e.invites.TxCreate(Invite{AlbumID: "a1", Email: "x@y"}))
		require.ErrorIs(t, err, table.ErrAlreadyExists, "nor does TxCreate")
		_, err = e.invites.Put(ctx, Invite{AlbumID: "a1", Email: "x@y"})
		require.ErrorIs(t, err, entity.ErrVersionConflict, "a Put of version 0 finds it")
		err = entity.Transact(ctx, e.invites.TxPut(Invite{AlbumID: "a1", Email: "x@y"}))
		require.ErrorIs(t, err, table.ErrConditionFailed, "so does TxPut")
		up, err := e.invites.Update(key).Add("uses", 1).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, up.Uses, "Update keeps what it has")
		ups, err := e.invites.Upsert(ctx, Invite{AlbumID: "a1", Email: "x@y", Uses: 4})
		require.NoError(t, err)
		assert.Equal(t, "viewer", ups.Role, "Upsert keeps what v leaves out of a live item")
		assert.Equal(t, 4, ups.Uses)
		deleted, err := e.invites.Delete(ctx, key)
		require.NoError(t, err, "Delete finds it")
		assert.True(t, deleted)
	})
}

func TestATTLOfZeroNeverExpires(t *testing.T) { testATTLOfZeroNeverExpires(t, fakeEnv) }

func TestIntegrationATTLOfZeroNeverExpires(t *testing.T) { testATTLOfZeroNeverExpires(t, localEnv) }

// testAnExpiredItemIsGoneBeforeDynamoDBDeletesIt: the fake's sweeper
// is held back (the clock moves without it), as DynamoDB deletes expired
// items days late, so entity's own test is what leaves them out: List,
// Items, collections, BatchGet, Get, FromChange; an Update over one starts
// afresh (it kept the old counters and the expired ttl, and the next Get
// said ErrNotFound), so does an Upsert (it returned the expired item's
// attributes); Create with If over one answers ErrConditionFailed.
func testAnExpiredItemIsGoneBeforeDynamoDBDeletesIt(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		exp := e.now().Add(time.Hour).Unix()
		for _, email := range []string{"a", "b", "c"} {
			_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: email, Role: "viewer", Uses: 3, Notes: []string{"n"}, ExpiresAt: exp})
			require.NoError(t, err)
		}
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "z", Role: "viewer"})
		require.NoError(t, err)
		e.lag(2 * time.Hour)
		require.NotEmpty(t, e.raw(t, "ALBUM#a1", "INVITE#a"), "still stored")

		key := Invite{AlbumID: "a1", Email: "a"}
		_, err = e.invites.Get(ctx, key, entity.Consistent())
		require.ErrorIs(t, err, table.ErrNotFound)
		for _, limit := range []int{0, 1, 2} {
			got := walk(t, func(c string) (table.Page[Invite], error) {
				return e.invites.List(ctx, Invite{AlbumID: "a1"}, c, entity.Limit(limit), entity.Consistent())
			})
			assert.Equal(t, []string{"z"}, emails(got), "List, limit %d", limit)
		}
		var items []Invite
		for v, err := range e.invites.Items(ctx, Invite{AlbumID: "a1"}, entity.Limit(1), entity.Consistent()) {
			require.NoError(t, err)
			items = append(items, v)
		}
		assert.Equal(t, []string{"z"}, emails(items), "Items")
		col, err := entity.NewCollection(e.reg, "invites", "", e.invites)
		require.NoError(t, err)
		// z sorts last: the pages of a, b and c are empty of live items
		// and must not end with cursors that lead to nothing.
		all := walk(t, func(c string) (table.Page[any], error) {
			return col.List(ctx, Invite{AlbumID: "a1"}, c, entity.Limit(1), entity.Consistent())
		})
		assert.Equal(t, []string{"z"}, emails(entity.Of[Invite](all)), "a collection")
		desc := walk(t, func(c string) (table.Page[any], error) {
			return col.List(ctx, Invite{AlbumID: "a1"}, c, entity.Limit(1), entity.Consistent(), entity.Descending())
		})
		assert.Equal(t, []string{"z"}, emails(entity.Of[Invite](desc)), "a collection, descending")
		batch, err := e.invites.BatchGet(ctx, []Invite{key, {AlbumID: "a1", Email: "z"}}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, []string{"z"}, emails(batch), "BatchGet")
		item := e.raw(t, "ALBUM#a1", "INVITE#a")
		_, ok, err := e.invites.FromChange(ctx, changes.Change[table.Item]{Event: changes.Modify, Keys: table.Item{"pk": item["pk"], "sk": item["sk"]}, New: &item})
		require.NoError(t, err)
		assert.False(t, ok, "FromChange")
		_, err = e.invites.Patch(key).Add("uses", 1).Run(ctx)
		require.ErrorIs(t, err, table.ErrNotFound, "Patch")
		_, err = e.invites.Delete(ctx, key)
		require.ErrorIs(t, err, table.ErrNotFound, "Delete")
		_, err = e.invites.Put(ctx, Invite{AlbumID: "a1", Email: "a", Version: 1})
		require.ErrorIs(t, err, table.ErrNotFound, "a Put of the version it had")

		up, err := e.invites.Update(key).Add("uses", 1).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, Invite{AlbumID: "a1", Email: "a", Uses: 1, Version: 1}, up, "Update starts afresh: no old uses, notes, role or ttl")
		got, err := e.invites.Get(ctx, key, entity.Consistent())
		require.NoError(t, err, "and the next Get finds it")
		assert.Equal(t, up, got)

		ups, err := e.invites.Upsert(ctx, Invite{AlbumID: "a1", Email: "b", Uses: 2})
		require.NoError(t, err)
		assert.Equal(t, Invite{AlbumID: "a1", Email: "b", Uses: 2, Version: 1}, ups, "Upsert starts afresh")

		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "c"}, entity.If(expression.Name("role").Equal(expression.Value("editor"))))
		require.ErrorIs(t, err, table.ErrConditionFailed, "the key is free: the caller's condition failed")
		require.NotErrorIs(t, err, table.ErrAlreadyExists)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "c", Role: "editor"})
		require.NoError(t, err, "Create takes the key over")

		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "d", ExpiresAt: e.now().Add(-time.Second).Unix()})
		require.NoError(t, err)
		err = entity.Transact(ctx, e.invites.TxPut(Invite{AlbumID: "a1", Email: "d"}))
		require.NoError(t, err, "TxPut of version 0 over an expired item")
		err = entity.Transact(ctx, e.invites.Update(Invite{AlbumID: "a1", Email: "e"}).Add("uses", 1).Action())
		require.NoError(t, err)
	})
}

func emails(vs []Invite) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Email
	}
	return out
}

func TestAnExpiredItemIsGoneBeforeDynamoDBDeletesIt(t *testing.T) {
	testAnExpiredItemIsGoneBeforeDynamoDBDeletesIt(t, fakeEnv)
}

func TestIntegrationAnExpiredItemIsGoneBeforeDynamoDBDeletesIt(t *testing.T) {
	testAnExpiredItemIsGoneBeforeDynamoDBDeletesIt(t, localEnv)
}

// testUpdatesRacingOverAnExpiredItemLoseNothing: an Update over an expired
// item clears it and starts afresh; the clearing is conditional on the
// item still being expired, so an update that lost the race to another
// (which cleared it and wrote a live item) applies to that live item
// instead of deleting it: every increment counts.
func testUpdatesRacingOverAnExpiredItemLoseNothing(t *testing.T, mk makeEnv) {
	e := mk(t)
	for round := range 10 {
		key := Invite{AlbumID: "a1", Email: fmt.Sprint("r", round)}
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: key.Email, Uses: 4, ExpiresAt: e.now().Add(time.Minute).Unix()})
		require.NoError(t, err)
		e.lag(2 * time.Minute)
		wins, _ := race(t, 5, errNever, func(int) error {
			_, err := e.invites.Update(key).Add("uses", 1).Run(ctx)
			return err
		})
		require.Equal(t, 5, wins)
		got, err := e.invites.Get(ctx, key, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, 5, got.Uses, "round %d: five increments from nothing, none lost and no old uses", round)
	}
}

var errNever = errors.New("never")

func TestUpdatesRacingOverAnExpiredItemLoseNothing(t *testing.T) {
	testUpdatesRacingOverAnExpiredItemLoseNothing(t, fakeEnv)
}

func TestIntegrationUpdatesRacingOverAnExpiredItemLoseNothing(t *testing.T) {
	testUpdatesRacingOverAnExpiredItemLoseNothing(t, localEnv)
}

// testACallersConditionMeetsNoItemWhereOneExpired: found by the model
// test. A Create with If over an expired item evaluated the caller's
// condition against the expired item's attributes: one that fails on no
// item let the Create through, one that holds on no item refused it. The
// condition now meets no item, as it will once DynamoDB has deleted the
// expired one (a write that may create clears it first, as Update and
// Upsert do).
func testACallersConditionMeetsNoItemWhereOneExpired(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		few := expression.Name("uses").LessThan(expression.Value(3))
		noneOrFew := expression.AttributeNotExists(expression.Name("uses")).Or(few)
		expired := func(email string, uses int) {
			t.Helper()
			_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: email, Uses: uses, ExpiresAt: e.now().Add(-time.Second).Unix()})
			require.NoError(t, err)
		}
		expired("a", 1)
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "a"}, entity.If(few))
		require.ErrorIs(t, err, table.ErrConditionFailed, "uses < 3 fails on no item")
		require.NotErrorIs(t, err, table.ErrAlreadyExists)
		expired("b", 4)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "b"}, entity.If(noneOrFew))
		require.NoError(t, err, "holds on no item")
		expired("c", 1)
		_, err = e.invites.Put(ctx, Invite{AlbumID: "a1", Email: "c"}, entity.If(few))
		require.ErrorIs(t, err, table.ErrConditionFailed, "a Put of version 0")
		require.NotErrorIs(t, err, entity.ErrVersionConflict)
		_, err = e.shares.Create(ctx, Share{AlbumID: "a1", UserID: "u", Role: "viewer", ExpiresAt: e.now().Add(-time.Second).Unix()})
		require.NoError(t, err)
		_, err = e.shares.Put(ctx, Share{AlbumID: "a1", UserID: "u", Role: "editor"}, entity.If(expression.Name("role").Equal(expression.Value("viewer"))))
		require.ErrorIs(t, err, table.ErrConditionFailed, "an unversioned Put")
		got, err := e.invites.Get(ctx, Invite{AlbumID: "a1", Email: "b"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, 0, got.Uses)
	})
}

func TestACallersConditionMeetsNoItemWhereOneExpired(t *testing.T) {
	testACallersConditionMeetsNoItemWhereOneExpired(t, fakeEnv)
}

func TestIntegrationACallersConditionMeetsNoItemWhereOneExpired(t *testing.T) {
	testACallersConditionMeetsNoItemWhereOneExpired(t, localEnv)
}
