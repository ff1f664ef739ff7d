package entity_test

import (
	"math"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// Bugs the model test (model_test.go) found, each pinned alone.

// testATxCheckFailsOverAnExpiredItem: found by the model test. A TxCheck
// evaluated its condition on an expired item DynamoDB had not removed
// yet, so a transaction went through on the attributes of an item every
// read calls gone. The expired item fails the check; a live one and a
// missing one are checked as before.
func testATxCheckFailsOverAnExpiredItem(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		few := expression.Name("uses").LessThan(expression.Value(3))
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "gone", Uses: 1, ExpiresAt: e.now().Add(-time.Second).Unix()})
		require.NoError(t, err)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "live", Uses: 1, ExpiresAt: e.now().Add(time.Hour).Unix()})
		require.NoError(t, err)
		_, err = e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "never", Uses: 1})
		require.NoError(t, err)

		check := e.invites.TxCheck(Invite{AlbumID: "a1", Email: "gone"}, few)
		err = entity.Transact(ctx, check, e.albums.TxCreate(Album{ID: "a9", OwnerID: "u1", Title: "t"}))
		var txe *entity.TxError
		require.ErrorAs(t, err, &txe, "the check of an expired item fails")
		assert.ErrorIs(t, txe.Err(check), table.ErrConditionFailed)
		_, err = e.albums.Get(ctx, Album{ID: "a9"}, entity.Consistent())
		require.ErrorIs(t, err, table.ErrNotFound, "nothing written")

		for _, email := range []string{"live", "never"} {
			require.NoError(t, entity.Transact(ctx, e.invites.TxCheck(Invite{AlbumID: "a1", Email: email}, few)), email)
		}
		err = entity.Transact(ctx, e.invites.TxCheck(Invite{AlbumID: "a1", Email: "missing"}, few))
		require.ErrorIs(t, err, table.ErrConditionFailed, "a missing item fails uses < 3")
		require.NoError(t, entity.Transact(ctx, e.invites.TxCheck(Invite{AlbumID: "a1", Email: "missing"},
			expression.AttributeNotExists(expression.Name("uses")))), "a missing item passes attribute_not_exists")
	})
}

func TestATxCheckFailsOverAnExpiredItem(t *testing.T) {
	testATxCheckFailsOverAnExpiredItem(t, fakeEnv)
}

func TestIntegrationATxCheckFailsOverAnExpiredItem(t *testing.T) {
	testATxCheckFailsOverAnExpiredItem(t, localEnv)
}

// Counter has a number that reaches 38 digits, and one near the end of
// an int64's exact range as a float64, each under Bounds.
type Counter struct {
	ID    string  `dynamodbav:"counterId"`
	Total float64 `dynamodbav:"total"`
	Big   int64   `dynamodbav:"big"`
}

// testABoundsCheckIsExactNearItsLimit: a Bounds check compared float64s,
// which cannot tell 10^37 from 10^37+1, nor 2^60 from 2^60+1: an Add of 1
// to a counter at its bound went through (the condition's limit, bound
// minus 1, rounded to the bound), a refused one was told as
// ErrConditionFailed (the stored value read with ParseFloat, plus 1,
// rounded back within the bound), and a Put of 2^60+1 under Bounds(0,
// 2^60) was taken. Numbers are compared exactly, as DynamoDB compares
// them.
func testABoundsCheckIsExactNearItsLimit(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		counters, err := entity.New[Counter](e.reg, "counter", entity.Key("COUNTER#{counterId}", "COUNTER"),
			entity.Bounds("total", 0, 1e37), entity.Bounds("big", 0, 1<<60))
		require.NoError(t, err)
		key := Counter{ID: "c"}
		raw := func() string {
			n, ok := new(big.Rat).SetString(rawN(t, e.raw(t, "COUNTER#c", "COUNTER")["total"]))
			require.True(t, ok)
			return n.FloatString(0)
		}

		_, err = counters.Put(ctx, Counter{ID: "c", Total: 1e37})
		require.NoError(t, err, "at the bound")
		_, err = counters.Patch(key).Add("total", 1).Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "10^37 + 1 is above the bound")
		assert.Equal(t, "10000000000000000000000000000000000000", raw(), "unchanged")

		// 37 nines, one below the bound: one Add of 1 reaches it, the
		// next passes it.
		nines := "9999999999999999999999999999999999999"
		_, err = e.t.DB().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.t.Name()),
			Key:              table.Key{"pk": s("COUNTER#c"), "sk": s("COUNTER")},
			UpdateExpression: aws.String("SET #t = :n"), ExpressionAttributeNames: map[string]string{"#t": "total"}, ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: nines}}})
		require.NoError(t, err)
		_, err = counters.Patch(key).Add("total", 1).Run(ctx)
		require.NoError(t, err, "%s + 1 is the bound", nines)
		assert.Equal(t, "10000000000000000000000000000000000000", raw())
		_, err = counters.Patch(key).Add("total", 1).Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "past the bound")
		assert.Equal(t, "10000000000000000000000000000000000000", raw(), "unchanged")

		_, err = counters.Put(ctx, Counter{ID: "d", Big: 1<<60 + 1})
		require.ErrorIs(t, err, entity.ErrValidation, "2^60 + 1 is above Bounds(0, 2^60)")
		_, err = counters.Put(ctx, Counter{ID: "d", Big: 1 << 60})
		require.NoError(t, err, "2^60 is within")
		_, err = counters.Patch(Counter{ID: "d"}).Add("big", 1).Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "an Add past 2^60")
		_, err = counters.Patch(Counter{ID: "d"}).Add("big", -1).Run(ctx)
		require.NoError(t, err)
		_, err = counters.Patch(Counter{ID: "d"}).Set("big", int64(1<<60+1)).Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "a Set past 2^60")
	})
}

func TestABoundsCheckIsExactNearItsLimit(t *testing.T) {
	testABoundsCheckIsExactNearItsLimit(t, fakeEnv)
}

func TestIntegrationABoundsCheckIsExactNearItsLimit(t *testing.T) {
	testABoundsCheckIsExactNearItsLimit(t, localEnv)
}

// testABoundsRuleMayBeOpenOnOneSide: Bounds(-Inf, max) and Bounds(min,
// +Inf) bound one side. An Add under a bound open below sent the
// condition "BETWEEN -Inf AND hi", which DynamoDB refuses as no number.
func testABoundsRuleMayBeOpenOnOneSide(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		counters, err := entity.New[Counter](e.reg, "counter", entity.Key("COUNTER#{counterId}", "COUNTER"),
			entity.Bounds("total", math.Inf(-1), 10), entity.Bounds("big", -5, math.Inf(1)))
		require.NoError(t, err)
		key := Counter{ID: "c"}
		_, err = counters.Put(ctx, Counter{ID: "c", Total: -1e30, Big: 1e18})
		require.NoError(t, err)
		_, err = counters.Patch(key).Set("total", -100).Run(ctx)
		require.NoError(t, err)
		v, err := counters.Patch(key).Add("total", 110).Add("big", 1).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, Counter{ID: "c", Total: 10, Big: 1e18 + 1}, v)
		_, err = counters.Patch(key).Add("total", 1).Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "above 10")
		_, err = counters.Patch(key).Add("big", int64(-(1e18 + 7))).Run(ctx)
		require.ErrorIs(t, err, entity.ErrValidation, "below -5")
		_, err = counters.Patch(key).Add("big", int64(-(1e18 + 5))).Run(ctx)
		require.NoError(t, err, "-4 is within")
	})
}

func TestABoundsRuleMayBeOpenOnOneSide(t *testing.T) {
	testABoundsRuleMayBeOpenOnOneSide(t, fakeEnv)
}

func TestIntegrationABoundsRuleMayBeOpenOnOneSide(t *testing.T) {
	testABoundsRuleMayBeOpenOnOneSide(t, localEnv)
}

// testAnUpdateActionOverAnExpiredItemIsRefusedAsOverNoItem: found by the
// model test. An Update's action over an expired item is refused (an
// action cannot clear it first, as Run does); the refusal was told by the
// expired item's attributes: an Add that would break a rule on its old
// counter answered ErrValidation, though the item is gone and the Add
// breaks nothing on no item. It answers ErrConditionFailed.
func testAnUpdateActionOverAnExpiredItemIsRefusedAsOverNoItem(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "gone", Uses: 5, ExpiresAt: e.now().Add(-time.Second).Unix()})
		require.NoError(t, err)
		add := e.invites.Update(Invite{AlbumID: "a1", Email: "gone"}).Add("uses", 1).Action()
		err = entity.Transact(ctx, add)
		var txe *entity.TxError
		require.ErrorAs(t, err, &txe)
		assert.ErrorIs(t, txe.Err(add), table.ErrConditionFailed)
		assert.NotErrorIs(t, txe.Err(add), entity.ErrValidation, "5 + 1 breaks Bounds(0, 5), but the 5 has expired")
		v, err := e.invites.Update(Invite{AlbumID: "a1", Email: "gone"}).Add("uses", 1).Run(ctx)
		require.NoError(t, err, "Run starts afresh")
		assert.Equal(t, 1, v.Uses)
	})
}

func TestAnUpdateActionOverAnExpiredItemIsRefusedAsOverNoItem(t *testing.T) {
	testAnUpdateActionOverAnExpiredItemIsRefusedAsOverNoItem(t, fakeEnv)
}

func TestIntegrationAnUpdateActionOverAnExpiredItemIsRefusedAsOverNoItem(t *testing.T) {
	testAnUpdateActionOverAnExpiredItemIsRefusedAsOverNoItem(t, localEnv)
}

// testATxCheckMeansItsOwnConditionEachTimeItRuns: a TxCheck action adds
// "not expired at now" to its condition each time it runs, into a new
// value: it rewrote the condition its closure captured, so a reused
// action also carried every earlier run's time (an item alive now was
// refused as expired at a later time the clock had been at), and two
// goroutines running one action raced on it.
func testATxCheckMeansItsOwnConditionEachTimeItRuns(t *testing.T, mk makeEnv) {
	registries(t, mk, func(t *testing.T, e *env) {
		_, err := e.invites.Create(ctx, Invite{AlbumID: "a1", Email: "soon", Uses: 1, ExpiresAt: e.now().Add(30 * time.Second).Unix()})
		require.NoError(t, err)
		check := e.invites.TxCheck(Invite{AlbumID: "a1", Email: "soon"}, expression.Name("uses").LessThan(expression.Value(3)))

		e.lag(time.Minute)
		require.ErrorIs(t, entity.Transact(ctx, check), table.ErrConditionFailed, "expired a minute later")
		e.lag(-time.Minute)
		assert.NoError(t, entity.Transact(ctx, check), "alive now: the earlier run's time is not in this run's condition")

		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for range 5 {
					assert.NoError(t, entity.Transact(ctx, check))
				}
			})
		}
		wg.Wait()

		// A TxPut or TxCreate stamps and versions a copy of its value per
		// run, so one action run from two goroutines does not race on it
		// (-race catches the shared value): one creates, one is refused.
		for name, action := range map[string]entity.Action{
			"TxPut":    e.albums.TxPut(Album{ID: "shared-put", OwnerID: "u1", Title: "t"}),
			"TxCreate": e.albums.TxCreate(Album{ID: "shared-create", OwnerID: "u1", Title: "t"}),
		} {
			errs := make([]error, 2)
			for i := range errs {
				wg.Go(func() { errs[i] = entity.Transact(ctx, action) })
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				if err == nil {
					ok++
				}
			}
			assert.Equal(t, 1, ok, "%s: one of two runs of one action writes: %v", name, errs)
		}
	})
}

func TestATxCheckMeansItsOwnConditionEachTimeItRuns(t *testing.T) {
	testATxCheckMeansItsOwnConditionEachTimeItRuns(t, fakeEnv)
}

func TestIntegrationATxCheckMeansItsOwnConditionEachTimeItRuns(t *testing.T) {
	testATxCheckMeansItsOwnConditionEachTimeItRuns(t, localEnv)
}
