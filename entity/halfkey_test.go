package entity_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Card is in indexes whose two keys are built from two attributes, either
// of which may be unset: team (the partition) and lane, or updatedAt (the
// sort), or points (a number, whose zero a key takes).
type Card struct {
	ID      string `dynamodbav:"cardId"`
	Team    string `dynamodbav:"team,omitempty"`
	Lane    string `dynamodbav:"lane,omitempty"`
	Points  int    `dynamodbav:"points"`
	Title   string `dynamodbav:"title,omitempty"`
	Updated int64  `dynamodbav:"updatedAt"`
}

// cardEntities declares Card three ways, on keys of their own: sparse
// (GSI1 team/lane, GSI2 team/updatedAt), not sparse (GSI1 team/lane:
// a Put of no team is refused), and not sparse on a number (GSI1
// points/lane: a Put of no points writes P#0).
func cardEntities(t *testing.T, e *env) (sparse, dense, tally *entity.Entity[Card]) {
	t.Helper()
	var err error
	sparse, err = entity.New[Card](e.reg, "card", entity.Key("CARD#{cardId}", "CARD"),
		entity.SparseIndex("GSI1", "TEAM#{team}", "LANE#{lane}"),
		entity.SparseIndex("GSI2", "TEAM#{team}", "U#{updatedAt:013d}"), entity.Timestamps("", "updatedAt"))
	require.NoError(t, err)
	dense, err = entity.New[Card](e.reg, "dense", entity.Key("DENSE#{cardId}", "DENSE"),
		entity.Index("GSI1", "DTEAM#{team}", "DLANE#{lane}"), entity.Timestamps("", "updatedAt"))
	require.NoError(t, err)
	tally, err = entity.New[Card](e.reg, "tally", entity.Key("TALLY#{cardId}", "TALLY"),
		entity.Index("GSI1", "P#{points:04d}", "TLANE#{lane}"), entity.Timestamps("", "updatedAt"))
	require.NoError(t, err)
	return sparse, dense, tally
}

// gsiKeys are every GSI key attribute stored at key, raw (nil: none).
func gsiKeys(t *testing.T, e *env, key table.Key) map[string]string {
	t.Helper()
	out, err := e.t.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.t.Name()), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	if len(out.Item) == 0 {
		return nil
	}
	var keys map[string]string
	for _, name := range []string{"gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"} {
		if av, ok := out.Item[name]; ok {
			if keys == nil {
				keys = map[string]string{}
			}
			keys[name] = av.(*types.AttributeValueMemberS).Value
		}
	}
	return keys
}

// putLayout is what a Put of v stores in GSI keys: v put under a twin
// key (the index templates do not name the id) and read back raw, its
// error when the Put refuses v.
func putLayout(t *testing.T, e *env, ent *entity.Entity[Card], prefix string, v Card) (map[string]string, error) {
	t.Helper()
	v.ID += "-put"
	if _, err := ent.Put(ctx, v); err != nil {
		return nil, err
	}
	return gsiKeys(t, e, cardKey(prefix, v.ID)), nil
}

func cardKey(prefix, id string) table.Key {
	return table.Key{"pk": s(prefix + "#" + id), "sk": s(prefix)}
}

// testAnUpdateWritesBothKeysOfAnIndexOrNeither: an update that sets one
// attribute of an index's keys (or none, its sort key built from
// updatedAt) stores the index keys a Put of the item as it is after it
// stores: both or neither, never one (issue 32: an Update that created
// the item wrote the key it could build and not the other, and one over
// an item out of a sparse index wrote a stray sort key); where it cannot
// (the other key's attributes unknown and the item new or leaving a
// refusal of Put), it is refused with ErrIndexKey naming them, and
// nothing is written.
func testAnUpdateWritesBothKeysOfAnIndexOrNeither(t *testing.T, mk makeEnv) {
	e := mk(t)
	sparse, dense, tally := cardEntities(t, e)
	// same checks the item at id of entity ent against a Put of it.
	same := func(t *testing.T, ent *entity.Entity[Card], prefix string, v Card, what string) {
		t.Helper()
		want, err := putLayout(t, e, ent, prefix, v)
		require.NoError(t, err, what)
		assert.Equal(t, want, gsiKeys(t, e, cardKey(prefix, v.ID)), what)
	}

	t.Run("sparse: an update that creates the item and sets the sort key's attribute alone", func(t *testing.T) {
		v, err := sparse.Update(Card{ID: "c1"}).Set("lane", "todo").Run(ctx)
		require.NoError(t, err)
		assert.Nil(t, gsiKeys(t, e, cardKey("CARD", "c1")), "no team: out of both indexes, as Put leaves it")
		same(t, sparse, "CARD", v, "created")
	})
	t.Run("sparse: an update over an item out of the index", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c2", Lane: "todo"})
		require.NoError(t, err)
		v, err := sparse.Update(Card{ID: "c2"}).Set("lane", "doing").Run(ctx)
		require.NoError(t, err)
		same(t, sparse, "CARD", v, "Update")
		v, err = sparse.Patch(Card{ID: "c2"}).Set("title", "t").Run(ctx)
		require.NoError(t, err)
		same(t, sparse, "CARD", v, "Patch of no index attribute: updatedAt's key stays out")
	})
	t.Run("sparse: an update over an item in the index", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c3", Team: "red", Lane: "todo"})
		require.NoError(t, err)
		e.lag(2e9)
		v, err := sparse.Update(Card{ID: "c3"}).Set("lane", "done").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, "LANE#done", gsiKeys(t, e, cardKey("CARD", "c3"))["gsi1sk"])
		same(t, sparse, "CARD", v, "in the index")
	})
	t.Run("sparse: an update that sets the partition's attribute of an item out only for it, not knowing the sort key's", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c4", Lane: "todo"})
		require.NoError(t, err)
		before := gsiKeys(t, e, cardKey("CARD", "c4"))
		_, err = sparse.Patch(Card{ID: "c4"}).Set("team", "red").Run(ctx)
		require.ErrorIs(t, err, entity.ErrIndexKey)
		var ie *table.InputError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "lane", ie.Value, "names the attribute the other key needs")
		got, err := sparse.Get(ctx, Card{ID: "c4"}, entity.Consistent())
		require.NoError(t, err)
		assert.Empty(t, got.Team, "nothing written")
		assert.Equal(t, before, gsiKeys(t, e, cardKey("CARD", "c4")))
		v, err := sparse.Patch(Card{ID: "c4"}).Set("team", "red").Set("lane", "todo").Run(ctx)
		require.NoError(t, err, "setting both is the way in")
		same(t, sparse, "CARD", v, "both set")
	})
	t.Run("sparse: an update that sets the partition's attribute of an item with neither", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c9", Title: "t"})
		require.NoError(t, err)
		v, err := sparse.Patch(Card{ID: "c9"}).Set("team", "red").Run(ctx)
		require.NoError(t, err, "no lane: the item stays out, as Put leaves it")
		same(t, sparse, "CARD", v, "neither")
	})
	t.Run("sparse: a stray key of an item out of the index goes", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c10", Lane: "todo"})
		require.NoError(t, err)
		// As an update before the fix left it: a sort key alone.
		_, err = e.t.DB().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.t.Name()), Key: cardKey("CARD", "c10"),
			UpdateExpression: aws.String("SET gsi1sk = :s"), ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("LANE#todo")}})
		require.NoError(t, err)
		v, err := sparse.Update(Card{ID: "c10"}).Set("lane", "doing").Run(ctx)
		require.NoError(t, err)
		same(t, sparse, "CARD", v, "the stray sort key removed")
	})
	t.Run("sparse: a patch that sets the attribute of one key enters the index with the other, built from the table key", func(t *testing.T) {
		squads, err := entity.New[Card](e.reg, "squad", entity.Key("SQUAD#{cardId}", "SQUAD"),
			entity.SparseIndex("GSI2", "STEAM#{team}", "S#{cardId}"))
		require.NoError(t, err)
		_, err = squads.Put(ctx, Card{ID: "q1"})
		require.NoError(t, err)
		_, err = squads.Patch(Card{ID: "q1"}).Set("team", "red").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"gsi2pk": "STEAM#red", "gsi2sk": "S#q1"}, gsiKeys(t, e, cardKey("SQUAD", "q1")), "as Put writes them")
	})
	t.Run("not sparse: an update that would create the item with an empty key", func(t *testing.T) {
		_, err := dense.Update(Card{ID: "d1"}).Set("lane", "todo").Run(ctx)
		require.ErrorIs(t, err, entity.ErrIndexKey)
		var ie *table.InputError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "team", ie.Value)
		assert.Nil(t, gsiKeys(t, e, cardKey("DENSE", "d1")), "nothing written")
		_, err = putLayout(t, e, dense, "DENSE", Card{ID: "d1", Lane: "todo"})
		require.Error(t, err, "as Put refuses it")
		_, err = dense.Put(ctx, Card{ID: "d2", Team: "red", Lane: "todo"})
		require.NoError(t, err)
		v, err := dense.Update(Card{ID: "d2"}).Set("lane", "done").Run(ctx)
		require.NoError(t, err, "an item in the index")
		same(t, dense, "DENSE", v, "in the index")
	})
	t.Run("not sparse: an item taken out of the index stays out", func(t *testing.T) {
		_, err := dense.Put(ctx, Card{ID: "d3", Team: "red", Lane: "todo"})
		require.NoError(t, err)
		_, err = dense.Patch(Card{ID: "d3"}).Set("title", "gone").LeaveIndex("GSI1").Run(ctx)
		require.NoError(t, err)
		_, err = dense.Update(Card{ID: "d3"}).Set("lane", "done").Run(ctx)
		require.NoError(t, err)
		assert.Nil(t, gsiKeys(t, e, cardKey("DENSE", "d3")), "no stray sort key")
	})
	t.Run("not sparse on a number: an update that creates the item writes the zero's key, as Put", func(t *testing.T) {
		v, err := tally.Update(Card{ID: "t1"}).Set("lane", "todo").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"gsi1pk": "P#0000", "gsi1sk": "TLANE#todo"}, gsiKeys(t, e, cardKey("TALLY", "t1")))
		same(t, tally, "TALLY", v, "created")
		_, err = tally.Put(ctx, Card{ID: "t2", Points: 5, Lane: "todo"})
		require.NoError(t, err)
		v, err = tally.Update(Card{ID: "t2"}).Set("lane", "done").Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, "P#0005", gsiKeys(t, e, cardKey("TALLY", "t2"))["gsi1pk"], "an existing item keeps its points' key")
		same(t, tally, "TALLY", v, "existing")
	})
	t.Run("a transaction's update over an item out of the index is refused", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c5", Lane: "todo"})
		require.NoError(t, err)
		act := sparse.Update(Card{ID: "c5"}).Set("lane", "doing").Action()
		err = entity.Transact(ctx, act)
		require.ErrorIs(t, err, entity.ErrIndexKey)
		var txe *entity.TxError
		require.ErrorAs(t, err, &txe)
		assert.ErrorIs(t, txe.Err(act), entity.ErrIndexKey, "the action's own error")
		got, err := sparse.Get(ctx, Card{ID: "c5"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, "todo", got.Lane, "nothing written")
		assert.Nil(t, gsiKeys(t, e, cardKey("CARD", "c5")))

		_, err = sparse.Put(ctx, Card{ID: "c6", Team: "red", Lane: "todo"})
		require.NoError(t, err)
		require.NoError(t, entity.Transact(ctx, sparse.Update(Card{ID: "c6"}).Set("lane", "doing").Action()), "an item in the index")
		v, err := sparse.Get(ctx, Card{ID: "c6"}, entity.Consistent())
		require.NoError(t, err)
		same(t, sparse, "CARD", v, "transaction, in the index")
	})
	t.Run("an upsert of a value that leaves out an index attribute the item has", func(t *testing.T) {
		_, err := sparse.Put(ctx, Card{ID: "c7", Team: "red", Lane: "todo"})
		require.NoError(t, err)
		before := gsiKeys(t, e, cardKey("CARD", "c7"))
		_, err = sparse.Upsert(ctx, Card{ID: "c7", Lane: "doing"})
		require.ErrorIs(t, err, entity.ErrIndexKey, "team would stay, and the keys would not follow it")
		var ie *table.InputError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "team", ie.Value)
		got, err := sparse.Get(ctx, Card{ID: "c7"}, entity.Consistent())
		require.NoError(t, err)
		assert.Equal(t, "todo", got.Lane, "nothing written")
		assert.Equal(t, before, gsiKeys(t, e, cardKey("CARD", "c7")))

		v, err := sparse.Upsert(ctx, Card{ID: "c8", Lane: "doing"})
		require.NoError(t, err, "a new item has nothing of what the value leaves out")
		same(t, sparse, "CARD", v, "upsert of a new item")
		v, err = sparse.Upsert(ctx, Card{ID: "c7", Team: "blue", Lane: "doing"})
		require.NoError(t, err)
		same(t, sparse, "CARD", v, "upsert that sets them")
	})
}

func TestAnUpdateWritesBothKeysOfAnIndexOrNeither(t *testing.T) {
	testAnUpdateWritesBothKeysOfAnIndexOrNeither(t, fakeEnv)
}

func TestIntegrationAnUpdateWritesBothKeysOfAnIndexOrNeither(t *testing.T) {
	testAnUpdateWritesBothKeysOfAnIndexOrNeither(t, localEnv)
}

// TestAnUpdateOfAHalfKnownIndexSendsOneRequestWhenItsGuessHolds: the
// rule costs a second UpdateItem only where the item belies the update's
// guess (in the index); an update that creates an item of a sparse index
// whose other key it cannot build writes no key of it, without a guess.
func TestAnUpdateOfAHalfKnownIndexSendsOneRequestWhenItsGuessHolds(t *testing.T) {
	e := newEnv(t)
	sparse, _, _ := cardEntities(t, e)
	members, err := entity.New[Card](e.reg, "member2", entity.Key("MEM#{cardId}", "MEM"),
		entity.SparseIndex("GSI2", "MEM#{cardId}", "MLANE#{lane}"))
	require.NoError(t, err)
	_, err = sparse.Put(ctx, Card{ID: "c1", Team: "red", Lane: "todo"})
	require.NoError(t, err)
	calls := e.db.Calls("UpdateItem")
	_, err = sparse.Update(Card{ID: "c1"}).Set("lane", "done").Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, e.db.Calls("UpdateItem")-calls, "an item in the index")

	calls = e.db.Calls("UpdateItem")
	_, err = members.Update(Card{ID: "m1"}).Set("title", "t").Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, e.db.Calls("UpdateItem")-calls, "a new item, out of the sparse index: no guess")
	assert.Nil(t, gsiKeys(t, e, cardKey("MEM", "m1")), "as Put of no lane leaves it")
}

// deletedBetween deletes an item just before the second UpdateItem it
// passes on: the item changes between an update's guess and its resend.
type deletedBetween struct {
	table.API
	calls int
	del   func()
}

func (d *deletedBetween) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if d.calls++; d.calls == 2 {
		d.del()
	}
	return d.API.UpdateItem(ctx, in, optFns...)
}

// TestAResentUpdateExpectsTheItemItSawOutOfTheIndex: Run resends an
// update whose guess the item belied, expecting the item it saw (out of
// the index); when that item is deleted in between, the resend creates
// nothing Put would refuse (an item of a non-sparse index with an empty
// key): it is refused, and nothing is written.
func TestAResentUpdateExpectsTheItemItSawOutOfTheIndex(t *testing.T) {
	e := newEnv(t)
	_, dense, _ := cardEntities(t, e)
	_, err := dense.Put(ctx, Card{ID: "d1", Team: "red", Lane: "todo"})
	require.NoError(t, err)
	_, err = dense.Patch(Card{ID: "d1"}).Set("title", "gone").LeaveIndex("GSI1").Run(ctx)
	require.NoError(t, err)

	api := &deletedBetween{API: e.t.DB(), del: func() {
		_, err := dense.Delete(ctx, Card{ID: "d1"})
		require.NoError(t, err)
	}}
	reg, err := entity.NewRegistry(table.New(api, e.t.Schema()), entity.Clock(e.clock.Now))
	require.NoError(t, err)
	cards, err := entity.New[Card](reg, "dense", entity.Key("DENSE#{cardId}", "DENSE"),
		entity.Index("GSI1", "DTEAM#{team}", "DLANE#{lane}"), entity.Timestamps("", "updatedAt"))
	require.NoError(t, err)
	_, err = cards.Update(Card{ID: "d1"}).Set("lane", "done").Run(ctx)
	require.ErrorIs(t, err, entity.ErrIndexKey)
	assert.Nil(t, gsiKeys(t, e, cardKey("DENSE", "d1")), "no item written")
	assert.Equal(t, 2, api.calls, "the guess, then the resend")
}
