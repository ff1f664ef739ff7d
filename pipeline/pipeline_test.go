package pipeline_test

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	if p.Version != 1 || p.State != pipeline.StateEnabled || p.CreatedBy != "abc@xyz.com" || p.UpdatedBy != "abc@xyz.com" {
		t.Fatalf("created %+v", p)
	}
	snap := e.snapshot(t)
	want := []string{
		"P:p1|PV:current", "P:p1|PV:0000000001", "P:p1|G:/usa/northwest",
		"T:source|T:sap:P:p1", "T:plant|T:abc:P:p1",
		"T:region|T:usa:P:p1", "T:region#usa|T:northwest:P:p1",
		"TA:source|TA:sap", "TA:plant|TA:abc", "TA:region|TA:usa", "TA:region|TA:usa/northwest",
	}
	for _, k := range want {
		if _, ok := snap[k]; !ok {
			t.Errorf("missing item %s", k)
		}
	}
	if len(snap) != len(want) {
		t.Errorf("%d items, want %d: %v", len(snap), len(want), slicesKeys(snap))
	}
	var raw table.Item
	require.NoError(t, e.store.Table().Get(ctx, e.store.Table().Key("P:p1", "PV:current"), &raw))
	for _, a := range []string{"pk", "sk", "siKey1", "name", "state", "createdAt", "updatedAt", "createdBy", "updatedBy", "version", "attributes", "tags", "transformer", "groups"} {
		if _, ok := raw[a]; !ok {
			t.Errorf("current item lacks %s", a)
		}
	}
	var m map[string]any
	require.NoError(t, table.Unmarshal(raw, &m))
	if m["createdAt"] != "2022-08-10T23:55:20.323Z" || m["siKey1"] != "P" {
		t.Errorf("createdAt %v siKey1 %v", m["createdAt"], m["siKey1"])
	}
	var agg map[string]any
	require.NoError(t, e.store.Table().Get(ctx, e.store.Table().Key("TA:region", "TA:usa/northwest"), &agg))
	if agg["siKey1"] != "TD" || agg["count"] != float64(1) {
		t.Errorf("aggregate %v", agg)
	}
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
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("Get = %+v\nwant %+v", got, p)
	}
	if _, err := e.store.Get(ctx, "nope"); !errors.Is(err, pipeline.ErrNotFound) || !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("missing pipeline: %v", err)
	}
}

func TestCreateSameIDTwiceFails(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := sapInput()
	in.ID = "dup"
	if _, err := e.store.Create(ctx, in); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot(t)
	in.Tags = []pipeline.Tag{{Key: "other", Value: "x"}}
	if _, err := e.store.Create(ctx, in); !errors.Is(err, table.ErrAlreadyExists) {
		t.Fatalf("second create: %v", err)
	}
	if after := e.snapshot(t); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused create wrote something")
	}
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
	p2, err := e.store.Update(ctx, p.ID, 1, in)
	require.NoError(t, err)
	if p2.Version != 2 || p2.CreatedBy != "abc@xyz.com" || p2.UpdatedBy != "def@xyz.com" || !p2.CreatedAt.Equal(p.CreatedAt) || !p2.UpdatedAt.After(p.UpdatedAt) {
		t.Fatalf("updated %+v", p2)
	}
	v1, err := e.store.GetVersion(ctx, p.ID, 1)
	if err != nil || v1.Name != p.Name || v1.Version != 1 {
		t.Fatalf("version 1: %+v %v", v1, err)
	}
	page, err := e.store.ListVersions(ctx, p.ID, "")
	if err != nil || len(page.Items) != 2 || page.Items[0].Version != 1 || page.Items[1].Version != 2 || page.Next != "" {
		t.Fatalf("versions %+v %v", page, err)
	}
	counts := tagCounts(t, e)
	want := map[string]int{"source=sap": 1, "region=usa": 1, "region=usa/southeast": 1}
	if !reflect.DeepEqual(counts, want) {
		t.Fatalf("aggregates %v, want %v", counts, want)
	}
	snap := e.snapshot(t)
	for _, gone := range []string{"T:plant|T:abc:P:" + p.ID, "T:region#usa|T:northwest:P:" + p.ID, "P:" + p.ID + "|G:/usa/northwest"} {
		if _, ok := snap[gone]; ok {
			t.Errorf("%s still there", gone)
		}
	}
	for _, kept := range []string{"T:region|T:usa:P:" + p.ID, "T:region#usa|T:southeast:P:" + p.ID, "P:" + p.ID + "|G:/usa/southeast"} {
		if _, ok := snap[kept]; !ok {
			t.Errorf("%s missing", kept)
		}
	}
	g, err := e.store.ListGroup(ctx, "/usa/northwest", "")
	if err != nil || len(g.Items) != 0 {
		t.Fatalf("old group %+v %v", g, err)
	}
	g, err = e.store.ListGroup(ctx, "/usa/southeast", "")
	if err != nil || len(g.Items) != 1 || g.Items[0].Version != 2 {
		t.Fatalf("new group %+v %v", g, err)
	}
}

// tagCounts reads every visible aggregate as "key=value" -> count.
func tagCounts(t testing.TB, e *env) map[string]int {
	t.Helper()
	out := map[string]int{}
	cursor := ""
	for {
		page, err := e.store.ListTags(context.Background(), cursor, pipeline.Limit(7))
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
	if _, err := e.store.Update(ctx, p.ID, 1, sapInput()); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot(t)
	in := sapInput()
	in.Tags = []pipeline.Tag{{Key: "late", Value: "x"}}
	_, err = e.store.Update(ctx, p.ID, 1, in)
	var ce *pipeline.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, pipeline.ErrConflict) || ce.Expected != 1 || ce.Current != 2 {
		t.Fatalf("stale update: %v", err)
	}
	if after := e.snapshot(t); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused update wrote something")
	}
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
	loser := newStore(t, race, nil, pipeline.Clock(e.clock.Now))
	in := sapInput()
	in.Tags = []pipeline.Tag{{Key: "loser", Value: "yes"}}
	in.Groups = []string{"losers"}
	_, err = loser.Update(ctx, p.ID, 1, in)
	if winnerErr != nil {
		t.Fatal(winnerErr)
	}
	var ce *pipeline.ConflictError
	if !errors.As(err, &ce) || ce.Expected != 1 || ce.Current != 2 || !errors.Is(err, table.ErrConditionFailed) {
		t.Fatalf("losing update: %v (%#v)", err, ce)
	}
	if after := e.snapshot(t); !reflect.DeepEqual(before, after) {
		t.Fatal("the losing update wrote something")
	}
	cur, err := e.store.Get(ctx, p.ID)
	if err != nil || cur.Version != 2 || cur.Tags[0].Key != "winner" {
		t.Fatalf("current %+v %v", cur, err)
	}
}

func TestUpdateOfMissingPipelineIsNotFound(t *testing.T) {
	e := newEnv(t)
	if _, err := e.store.Update(context.Background(), "ghost", 1, sapInput()); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("update of a missing pipeline: %v", err)
	}
}

func TestListPagesEveryPipelineOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var want []string
	for range 23 {
		p, err := e.store.Create(ctx, pipeline.Input{Name: "p"})
		require.NoError(t, err)
		want = append(want, p.ID)
		if _, err := e.store.Update(ctx, p.ID, 1, pipeline.Input{Name: "p2"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	cursor := ""
	for {
		page, err := e.store.ListPipelines(ctx, cursor, pipeline.Limit(5))
		require.NoError(t, err)
		for _, p := range page.Items {
			if p.Version != 2 {
				t.Fatalf("listed %s at version %d", p.ID, p.Version)
			}
			got = append(got, p.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("listed %v\nwant %v (ULIDs in creation order)", got, want)
	}
	n := 0
	for p, err := range e.store.Pipelines(ctx) {
		if err != nil || p.Version != 2 {
			t.Fatal(p, err)
		}
		n++
	}
	if n != 23 {
		t.Fatalf("All gave %d", n)
	}
}

func TestOversizedPipelineIsRefusedBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := sapInput()
	in.Transformer.Transforms[0].Formula = strings.Repeat("x", table.MaxItemSize)
	e.db.ResetCalls()
	if _, err := e.store.Create(ctx, in); !errors.Is(err, table.ErrItemTooLarge) {
		t.Fatalf("create of a 400 KB transformer: %v", err)
	}
	if n := e.calls(); n != 0 {
		t.Fatalf("sent %d requests", n)
	}
}
