package entity_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/table"
)

// One option, Consistent, asks for a strongly consistent read of a Get, a
// BatchGet and a List alike: each costs the full read unit a strongly
// consistent read of a small item costs, where an eventually consistent
// one costs half.
func TestConsistentIsOneOptionForGetBatchGetAndList(t *testing.T) {
	e := newEnv(t)
	_, err := e.albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"})
	require.NoError(t, err)
	for name, read := range map[string]func(opts ...func(*entity.ReadOptions)) error{
		"Get": func(opts ...func(*entity.ReadOptions)) error {
			_, err := e.albums.Get(ctx, Album{ID: "a1"}, opts...)
			return err
		},
		"BatchGet": func(opts ...func(*entity.ReadOptions)) error {
			_, err := e.albums.BatchGet(ctx, []Album{{ID: "a1"}}, opts...)
			return err
		},
		"List": func(opts ...func(*entity.ReadOptions)) error {
			_, err := e.albums.List(ctx, Album{ID: "a1"}, "", opts...)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			e.db.ResetConsumed()
			require.NoError(t, read())
			assert.Equal(t, 0.5, e.db.Consumed(e.t.Name()).ReadUnits, "eventually consistent by default")
			e.db.ResetConsumed()
			require.NoError(t, read(entity.Consistent()))
			assert.Equal(t, 1.0, e.db.Consumed(e.t.Name()).ReadUnits, "strongly consistent with Consistent()")
		})
	}
}

// A Get or a BatchGet reads items by key: the options only a list takes
// are refused before any request, naming the option.
func TestItemReadsRefuseListOptions(t *testing.T) {
	e := newEnv(t)
	for name, opt := range map[string]func(*entity.ReadOptions){
		"ByIndex":          entity.ByIndex("GSI1"),
		"Limit":            entity.Limit(3),
		"a sort condition": entity.SortBeginsWith("x"),
		"Descending":       entity.Descending(),
		"Where":            entity.Where(expression.Name("title").Equal(expression.Value("x"))),
		"AnyTieOrder":      entity.AnyTieOrder(),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.albums.Get(ctx, Album{ID: "a1"}, opt)
			require.ErrorIs(t, err, table.ErrInvalidInput)
			var ie *table.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, name, ie.Value)
			_, err = e.albums.BatchGet(ctx, []Album{{ID: "a1"}}, opt)
			require.ErrorIs(t, err, table.ErrInvalidInput)
		})
	}
	assert.Zero(t, e.db.Calls("GetItem")+e.db.Calls("BatchGetItem"))
	_, err := e.albums.Get(ctx, Album{ID: "a1"}, nil)
	assert.ErrorIs(t, err, table.ErrNotFound, "a nil option is skipped")
}

// A Where option is a value: applied after another Where it filters by
// both, and applied again elsewhere it still means its own condition only.
func TestAWhereOptionMeansItsOwnConditionEachTimeItIsApplied(t *testing.T) {
	a := expression.Name("title").Equal(expression.Value("a"))
	b := expression.Name("ownerId").Equal(expression.Value("u1"))
	onlyB := entity.Where(b)
	var both entity.ReadOptions
	entity.Where(a)(&both)
	onlyB(&both)
	var again entity.ReadOptions
	onlyB(&again)
	filter := func(o entity.ReadOptions) string {
		t.Helper()
		require.NotNil(t, o.Filter)
		e, err := expression.NewBuilder().WithFilter(*o.Filter).Build()
		require.NoError(t, err)
		return *e.Filter()
	}
	assert.Equal(t, "(#0 = :0) AND (#1 = :1)", filter(both))
	assert.Equal(t, "#0 = :0", filter(again), "the option reused alone: its own condition, not the combined one")
}
