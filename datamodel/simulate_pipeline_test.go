package datamodel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/pipeline"
)

// runPipeline drives a pipeline store at the peaks pipeline.Patterns
// declares for a busy service (the pipeline design (docs/systems/pipeline.md) states none) multiplied by scale.
// Every 100 ms of the fake's clock: the tick's share of new pipelines
// (the declared typical one: four tag levels, two groups, a current item
// of about 2 KB) and, all on one pipeline, as the per-entity bound
// assumes, its updates (one tag level swapped, one group swapped, as
// declared), reads, versions, executions created, started and succeeded,
// and reads of them; and the listings of pipelines, groups and tags. The
// rare delete is left out. It returns the simulation and what the pipeline's,
// its group's and the constant key values drew.
func runPipeline(t *testing.T, scale float64, seconds int) (*sim, map[partitionKey]keyLoad) {
	ctx := context.Background()
	s := newSim(t)
	st, err := pipeline.NewStore(s.api, blobstore.NewMemory(), pipeline.Clock(s.db.Now),
		func(o *pipeline.Options) { o.Table = append(o.Table, noRetries) })
	require.NoError(t, err)
	require.NoError(t, st.EnsureTable(ctx))
	ps := pipeline.Patterns()
	rate := func(name string) float64 { return scale * rateOf(t, ps, name) }

	n := 0
	input := func(source, group string) pipeline.Input {
		n++
		return pipeline.Input{Name: fmt.Sprint("daily-", n), By: "ops",
			Attributes: map[string]string{"description": strings.Repeat("Nightly load of the ERP extracts into the lake. ", 36)},
			Tags:       []pipeline.Tag{{Key: "source", Value: source}, {Key: "region", Value: "usa/northwest/seattle"}},
			Groups:     []string{"g1", group}}
	}
	hot, err := st.Create(ctx, input("sap", "g2"))
	require.NoError(t, err)
	s.entities = map[string]string{"pipelineId": hot.ID, "groupId": "g1"}
	tags := []pipeline.Tag{{Key: "source", Value: "sap"}}
	keysPerCall := 2 + 1 // TagKeys: a query per key and one that finds none

	tableName := st.Schema().Name
	measured := s.measure(tableName, partitionKey{"", "P:" + hot.ID}, partitionKey{pipeline.IndexGSI1, "P:" + hot.ID},
		partitionKey{pipeline.IndexGSI1, "P"}, partitionKey{pipeline.IndexGSI1, "TD"}, partitionKey{pipeline.IndexGSI1, "G:g1"})
	pace := pacer{}
	var created, started []string
	s.run(seconds, func() {
		for range pace.take("create", rate("create a new pipeline"), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Create(ctx, input("sap", "g2")); return err })
		}
		for range pace.take("update", rate("update an existing pipeline"), simTick) {
			// One tag level and one group swapped, back and forth.
			next := input("erp", "g3")
			if hot.Tags[0].Value == "erp" {
				next = input("sap", "g2")
			}
			s.call(func(ctx context.Context) error {
				p, err := st.Update(ctx, hot.ID, hot.Version, next)
				if err == nil {
					hot = p
				}
				return err
			})
		}
		for range pace.take("get", rate("get an existing pipeline"), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Get(ctx, hot.ID); return err })
		}
		for range pace.take("list", rate("list pipelines"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Pipelines().List(pipeline.Limit(25)).Page(ctx, "")
				return err
			})
		}
		for range pace.take("version", rate("get a specific pipeline version"), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Versions().Get(ctx, hot.ID, 1); return err })
		}
		for range pace.take("versions", rate("list existing pipeline versions"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Versions().List(hot.ID, pipeline.Limit(10)).Page(ctx, "")
				return err
			})
		}
		for range pace.take("execute", rate("create a pipeline execution"), simTick) {
			s.call(func(ctx context.Context) error {
				e, err := st.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: hot.ID})
				if err == nil {
					created = append(created, e.ID)
				}
				return err
			})
		}
		// Each execution moves twice: started, then succeeded.
		for range pace.take("move", rate("move a pipeline execution"), simTick) {
			switch {
			case len(started) > 0:
				id := started[0]
				started = started[1:]
				s.call(func(ctx context.Context) error { _, err := st.Executions().Succeed(ctx, id); return err })
			case len(created) > 0:
				id := created[0]
				created = created[1:]
				if !s.call(func(ctx context.Context) error { _, err := st.Executions().Start(ctx, id); return err }) {
					started = append(started, id)
				}
			}
		}
		for range pace.take("executions", rate("list pipeline executions"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Executions().List(hot.ID, pipeline.Limit(25)).Page(ctx, "")
				return err
			})
		}
		for range pace.take("execution", rate("get a specific pipeline execution"), simTick) {
			if len(started) > 0 {
				s.call(func(ctx context.Context) error {
					_, err := st.Executions().Get(ctx, started[len(started)-1])
					return err
				})
			}
		}
		for range pace.take("group", rate("list pipelines of a group"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Pipelines().InGroup("g1", pipeline.Limit(25)).Page(ctx, "")
				return err
			})
		}
		for range pace.take("tags", rate("list tags"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Tags().List(pipeline.Limit(100)).Page(ctx, "")
				return err
			})
		}
		for range pace.take("keys", rate("list tag keys")/float64(keysPerCall), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Tags().Keys(ctx); return err })
		}
		for range pace.take("values", rate("list values of a tag key"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Tags().Values("source", pipeline.Limit(50)).Page(ctx, "")
				return err
			})
		}
		// One query per tag asked for, then a BatchGetItem of the page.
		for range pace.take("bytags", rate("list pipelines by tags"), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Pipelines().ByTags(tags, pipeline.Limit(25)).Page(ctx, "")
				return err
			})
		}
	})
	require.Greater(t, hot.Version, 1, "the pipeline was updated")
	return s, measured()
}

// TestPipelineAtPeakDoesNotThrottle: at the declared peaks, the
// per-pipeline traffic all on one pipeline, datamodel calls no key value
// hot, neither GSI-1's constant P and TD nor, with all of it on one
// pipeline, P:{pipelineId}; the fake throttles nothing, and what each of
// those key values drew is within datamodel's figure for it.
func TestPipelineAtPeakDoesNotThrottle(t *testing.T) {
	est, err := datamodel.EstimateSchema(pipeline.Schema(pipeline.DefaultTableName), pipeline.Patterns())
	require.NoError(t, err)
	require.Empty(t, hotSet(est))
	require.Empty(t, est.HotPerEntity())

	s, drew := runPipeline(t, 1, 10)
	assertHeld(t, est, s, drew)
}
