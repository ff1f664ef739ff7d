package pipeline_test

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

func sapInput() pipeline.Input {
	return pipeline.Input{
		Name: "sap:emissions:pipeline",
		By:   "abc@xyz.com",
		Attributes: map[string]string{
			"label": "My Pipeline", "description": "this is a new pipeline",
		},
		Tags:   []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "plant", Value: "abc"}, {Key: "region", Value: "usa/northwest"}},
		Groups: []string{"/usa/northwest"},
		Transformer: &pipeline.Transformer{
			Transforms: []pipeline.Transform{{Index: 0, Formula: "LOOKUP('vehicle_type', IN(:pin24))",
				Outputs: []pipeline.Field{{Index: 0, Key: "vehicle", Label: "Vehicle", Description: "some description about pin24", Type: "number"}}}},
			Parameters: []pipeline.Field{{Index: 0, Key: "pin24", Label: "pin 24", Description: "some description about pin24", Type: "string"}},
		},
	}
}

func TestCreateWritesTheSeedLayout(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := sapInput()
	in.ID = "p1"
	p, err := e.store.Create(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, 1, p.Version)
	assert.Equal(t, pipeline.StateEnabled, p.State)
	assert.Equal(t, "abc@xyz.com", p.CreatedBy)
	assert.Equal(t, "abc@xyz.com", p.UpdatedBy)
	snap := e.snapshot(t)
	want := []string{
		"P:p1|PV:current", "P:p1|PV:0000000001", "P:p1|G:/usa/northwest",
		"T:source|T:sap:P:p1", "T:plant|T:abc:P:p1",
		"T:region|T:usa:P:p1", "T:region#usa|T:northwest:P:p1",
		"TA:source|TA:sap", "TA:plant|TA:abc", "TA:region|TA:usa", "TA:region|TA:usa/northwest",
	}
	assert.ElementsMatch(t, want, slicesKeys(snap), "the items Create wrote")
	var raw table.Item
	require.NoError(t, e.store.Table().Get(ctx, e.store.Table().Key("P:p1", "PV:current"), &raw))
	for _, a := range []string{"pk", "sk", "siKey1", "name", "state", "createdAt", "updatedAt", "createdBy", "updatedBy", "version", "attributes", "tags", "transformer", "groups"} {
		assert.Contains(t, raw, a, "the current item's attributes")
	}
	var m map[string]any
	require.NoError(t, table.Unmarshal(raw, &m))
	assert.Equal(t, "2022-08-10T23:55:20.322Z", m["createdAt"], "the fake's clock, at the seed's example time")
	assert.Equal(t, "P", m["siKey1"])
	var agg map[string]any
	require.NoError(t, e.store.Table().Get(ctx, e.store.Table().Key("TA:region", "TA:usa/northwest"), &agg))
	assert.Equal(t, "TD", agg["siKey1"], "aggregate %v", agg)
	assert.Equal(t, float64(1), agg["count"], "aggregate %v", agg)
}

func slicesKeys(m map[string]string) []string {
	var out []string
	for k := range maps.Keys(m) {
		out = append(out, k)
	}
	return out
}

func TestGetReturnsWhatCreateWrote(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, sapInput())
	require.NoError(t, err)
	got, err := e.store.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, p, got)
	_, err = e.store.Get(ctx, "nope")
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "missing pipeline")
	assert.ErrorIs(t, err, table.ErrNotFound, "missing pipeline")
}

func TestCreateSameIDTwiceFails(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := sapInput()
	in.ID = "dup"
	_, err := e.store.Create(ctx, in)
	require.NoError(t, err)
	before := e.snapshot(t)
	in.Tags = []pipeline.Tag{{Key: "other", Value: "x"}}
	_, err = e.store.Create(ctx, in)
	assert.ErrorIs(t, err, table.ErrAlreadyExists, "second create")
	assert.Equal(t, before, e.snapshot(t), "a refused create wrote nothing")
}

func TestUpdateWritesNewVersionAndMovesTags(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, sapInput())
	require.NoError(t, err)
	in := sapInput()
	in.By = "def@xyz.com"
	in.Name = "renamed"
	in.Tags = []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa/southeast"}}
	in.Groups = []string{"/usa/southeast"}
	e.db.Advance(time.Second)
	p2, err := e.store.Update(ctx, p.ID, 1, in)
	require.NoError(t, err)
	assert.Equal(t, 2, p2.Version)
	assert.Equal(t, "abc@xyz.com", p2.CreatedBy)
	assert.Equal(t, "def@xyz.com", p2.UpdatedBy)
	assert.True(t, p2.CreatedAt.Equal(p.CreatedAt), "createdAt kept: %v, was %v", p2.CreatedAt, p.CreatedAt)
	assert.True(t, p2.UpdatedAt.After(p.UpdatedAt), "updatedAt moved: %v, was %v", p2.UpdatedAt, p.UpdatedAt)
	v1, err := e.store.Versions().Get(ctx, p.ID, 1)
	require.NoError(t, err)
	assert.Equal(t, p.Name, v1.Name, "version 1")
	assert.Equal(t, 1, v1.Version)
	page, err := e.store.Versions().List(p.ID).Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, page.Items, 2, "versions") {
		assert.Equal(t, 1, page.Items[0].Version)
		assert.Equal(t, 2, page.Items[1].Version)
	}
	assert.Empty(t, page.Next)
	want := map[string]int{"source=sap": 1, "region=usa": 1, "region=usa/southeast": 1}
	assert.Equal(t, want, tagCounts(t, e), "aggregates")
	snap := e.snapshot(t)
	for _, gone := range []string{"T:plant|T:abc:P:" + p.ID, "T:region#usa|T:northwest:P:" + p.ID, "P:" + p.ID + "|G:/usa/northwest"} {
		assert.NotContains(t, snap, gone, "still there")
	}
	for _, kept := range []string{"T:region|T:usa:P:" + p.ID, "T:region#usa|T:southeast:P:" + p.ID, "P:" + p.ID + "|G:/usa/southeast"} {
		assert.Contains(t, snap, kept, "missing")
	}
	g, err := e.store.Pipelines().InGroup("/usa/northwest").Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, g.Items, "old group")
	g, err = e.store.Pipelines().InGroup("/usa/southeast").Page(ctx, "")
	require.NoError(t, err)
	if assert.Len(t, g.Items, 1, "new group") {
		assert.Equal(t, 2, g.Items[0].Version)
	}
}

// tagCounts reads every visible aggregate as "key=value" -> count.
func tagCounts(t testing.TB, e *env) map[string]int {
	t.Helper()
	out := map[string]int{}
	cursor := ""
	for {
		page, err := e.store.Tags().List(pipeline.Limit(7)).Page(context.Background(), cursor)
		require.NoError(t, err)
		for _, tc := range page.Items {
			out[tc.Key+"="+tc.Value] = tc.Count
		}
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

func TestUpdateFromStaleVersionConflictsAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, sapInput())
	require.NoError(t, err)
	_, err = e.store.Update(ctx, p.ID, 1, sapInput())
	require.NoError(t, err)
	before := e.snapshot(t)
	in := sapInput()
	in.Tags = []pipeline.Tag{{Key: "late", Value: "x"}}
	_, err = e.store.Update(ctx, p.ID, 1, in)
	var ce *pipeline.ConflictError
	require.ErrorAs(t, err, &ce, "stale update")
	assert.ErrorIs(t, err, pipeline.ErrConflict)
	assert.Equal(t, 1, ce.Expected)
	assert.Equal(t, 2, ce.Current)
	assert.Equal(t, before, e.snapshot(t), "a refused update wrote nothing")
}

// racingDB lets another update in between an update's read of the current
// item and its transaction, the window optimistic locking guards.
type racingDB struct {
	table.API
	once   sync.Once
	before func()
}

func (r *racingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.once.Do(r.before)
	return r.API.TransactWriteItems(ctx, in, opts...)
}

func TestUpdateThatLostTheRaceGetsConflictAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, sapInput())
	require.NoError(t, err)
	var before map[string]string
	var winnerErr error
	race := &racingDB{API: e.db}
	race.before = func() {
		winner := sapInput()
		winner.Tags = []pipeline.Tag{{Key: "winner", Value: "yes"}}
		_, winnerErr = e.store.Update(ctx, p.ID, 1, winner)
		before = e.snapshot(t)
	}
	loser := newStore(t, race, nil, pipeline.Clock(e.db.Now))
	in := sapInput()
	in.Tags = []pipeline.Tag{{Key: "loser", Value: "yes"}}
	in.Groups = []string{"losers"}
	_, err = loser.Update(ctx, p.ID, 1, in)
	require.NoError(t, winnerErr)
	var ce *pipeline.ConflictError
	require.ErrorAs(t, err, &ce, "losing update")
	assert.Equal(t, 1, ce.Expected)
	assert.Equal(t, 2, ce.Current)
	assert.ErrorIs(t, err, table.ErrConditionFailed)
	assert.Equal(t, before, e.snapshot(t), "the losing update wrote nothing")
	cur, err := e.store.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, cur.Version)
	require.NotEmpty(t, cur.Tags)
	assert.Equal(t, "winner", cur.Tags[0].Key)
}

func TestUpdateOfMissingPipelineIsNotFound(t *testing.T) {
	e := newEnv(t)
	_, err := e.store.Update(context.Background(), "ghost", 1, sapInput())
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
}

func TestListPagesEveryPipelineOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var want []string
	for range 23 {
		p, err := e.store.Create(ctx, pipeline.Input{Name: "p"})
		require.NoError(t, err)
		want = append(want, p.ID)
		_, err = e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "p2"})
		require.NoError(t, err)
	}
	var got []string
	cursor := ""
	for {
		page, err := e.store.Pipelines().List(pipeline.Limit(5)).Page(ctx, cursor)
		require.NoError(t, err)
		for _, p := range page.Items {
			assert.Equal(t, 2, p.Version, "listed %s at its current version", p.ID)
			got = append(got, p.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	assert.Equal(t, want, got, "ULIDs in creation order")
	n := 0
	for p, err := range e.store.Pipelines().List().All(ctx) {
		require.NoError(t, err)
		assert.Equal(t, 2, p.Version)
		n++
	}
	assert.Equal(t, 23, n, "Pipelines")
}

func TestOversizedPipelineIsRefusedBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := sapInput()
	in.Transformer.Transforms[0].Formula = strings.Repeat("x", table.MaxItemSize)
	e.db.ResetCalls()
	_, err := e.store.Create(ctx, in)
	assert.ErrorIs(t, err, table.ErrItemTooLarge, "create of a 400 KB transformer")
	assert.Zero(t, e.calls(), "requests sent")
}
