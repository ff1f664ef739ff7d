package pipeline_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/pipeline"
)

// costEnv is an env whose store sends its requests through a Meter, so
// that a test sees what one call sends and what it is billed.
type costEnv struct {
	*env
	meter *dynamotest.Meter
}

func newCostEnv(t testing.TB) *costEnv {
	t.Helper()
	e := newEnv(t)
	m := dynamotest.NewMeter(e.db)
	e.store = newStore(t, m, e.blobs, pipeline.Clock(e.db.Now))
	return &costEnv{env: e, meter: m}
}

func costEnvAndMeter(t testing.TB) (*costEnv, *dynamotest.Meter) {
	e := newCostEnv(t)
	return e, e.meter
}

// seeds seeds the random pipelines of a list's preparation. The pins are
// today's costs on the data of the first seed, so the test starts from it
// on every run (firstSeed); a benchmark's later preparations move on to
// other ids.
var seeds uint64 = firstSeed

const firstSeed = 2026

var threeTags = pipeline.Input{Name: "n", Tags: []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "plant", Value: "abc"},
	{Key: "region", Value: "usa/northwest/seattle"}}, Groups: []string{"/usa"}}

// pipelineHotCalls are the store's frequent calls and what each costs
// today.
var pipelineHotCalls = []dynamotest.Cost[*costEnv]{
	{Name: "Create with three tags and a group", Prepare: func(t testing.TB, e *costEnv) func() error {
		return func() error { _, err := e.store.Create(context.Background(), threeTags); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 40}}, // one transaction: the pipeline, its version, tag and group items
	{Name: "Update moving one tag", Prepare: func(t testing.TB, e *costEnv) func() error {
		p, err := e.store.Create(context.Background(), threeTags)
		require.NoError(t, err)
		in := threeTags
		in.Tags = append([]pipeline.Tag{{Key: "region", Value: "usa/northwest/portland"}}, in.Tags[:2]...)
		return func() error { _, err := e.store.Update(context.Background(), p.ID, p.Version, in); return err }
	}, Max: dynamotest.Usage{Requests: 3, RoundTrips: 3, ReadUnits: 1, WriteUnits: 20}},
	{Name: "Get", Prepare: func(t testing.TB, e *costEnv) func() error {
		p, err := e.store.Create(context.Background(), threeTags)
		require.NoError(t, err)
		return func() error { _, err := e.store.Get(context.Background(), p.ID); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, ReadUnits: 1}},
	{Name: "CreateExecution", Prepare: func(t testing.TB, e *costEnv) func() error {
		p, err := e.store.Create(context.Background(), threeTags)
		require.NoError(t, err)
		return func() error {
			_, err := e.store.Executions().Create(context.Background(), pipeline.ExecutionInput{PipelineID: p.ID})
			return err
		}
	}, Max: dynamotest.Usage{Requests: 2, RoundTrips: 2, ReadUnits: 1, WriteUnits: 10}},
	{Name: "StartExecution", Prepare: func(t testing.TB, e *costEnv) func() error {
		p, err := e.store.Create(context.Background(), threeTags)
		require.NoError(t, err)
		ex, err := e.store.Executions().Create(context.Background(), pipeline.ExecutionInput{PipelineID: p.ID})
		require.NoError(t, err)
		return func() error { _, err := e.store.Executions().Start(context.Background(), ex.ID); return err }
	}, Max: dynamotest.Usage{Requests: 1, RoundTrips: 1, WriteUnits: 2}},
	{Name: "ListByTags page of 25, two tags of 300 pipelines", Prepare: func(t testing.TB, e *costEnv) func() error {
		seeds++ // a benchmark prepares again: other ids
		createMany(t, e.env, 300, rand.New(rand.NewPCG(4, seeds)))
		tags := []pipeline.Tag{{Key: "env", Value: "prod"}, {Key: "region", Value: "usa/northwest"}}
		return func() error {
			page, err := e.store.Pipelines().ByTags(tags, pipeline.Limit(25)).Page(context.Background(), "")
			if err == nil && len(page.Items) == 0 {
				err = fmt.Errorf("nothing listed")
			}
			return err
		}
	}, Max: dynamotest.Usage{Requests: 4, RoundTrips: 4, ReadUnits: 10.5}}, // some concurrent: without a Meter latency, round trips ≤ requests
}

// TestHotCallsCostNoMoreThanToday fails when one of the store's frequent
// calls sends more requests or is billed more units than it is today:
// counts on the fake are exact, so a rise is a change to look at.
func TestHotCallsCostNoMoreThanToday(t *testing.T) {
	seeds = firstSeed // -count=N runs it N times: each on the pinned data
	dynamotest.CheckCosts(t, costEnvAndMeter, pipelineHotCalls)
}

// BenchmarkHotCalls reports each frequent call's requests, round trips
// and billed units per call.
func BenchmarkHotCalls(b *testing.B) {
	dynamotest.BenchmarkCosts(b, costEnvAndMeter, pipelineHotCalls)
}
