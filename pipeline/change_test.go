package pipeline_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/internal/testkit"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// follower follows the pipeline table's stream from here on.
func (e *env) follower(t *testing.T) func() []changes.Change[table.Item] {
	return testkit.Follow(t, e.db, e.db, e.store.Schema().Name, e.db.Now)
}

func TestExecutionAndPipelineFromChangeFollowTheTableAsGetReadsIt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	follow := e.follower(t)
	p, err := e.store.Create(ctx, pipeline.Input{Name: "resize", Tags: []pipeline.Tag{{Key: "region", Value: "usa"}}})
	require.NoError(t, err)
	p2, err := e.store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "resize v2"})
	require.NoError(t, err)
	ex, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID})
	require.NoError(t, err)
	running, err := e.store.Executions().Start(ctx, ex.ID)
	require.NoError(t, err)
	done, err := e.store.Executions().Succeed(ctx, ex.ID)
	require.NoError(t, err)

	var pipelines []*pipeline.Pipeline
	var executions []*pipeline.Execution
	for _, ch := range follow() {
		if got, ok, err := pipeline.PipelineFromChange(ch); assert.NoError(t, err) && ok {
			pipelines = append(pipelines, got)
		}
		if got, ok, err := pipeline.ExecutionFromChange(ch); assert.NoError(t, err) && ok {
			executions = append(executions, got)
		}
	}
	assert.Equal(t, []*pipeline.Pipeline{p, p2}, pipelines, "the current item's changes, not the versions', tags' or executions'")
	assert.Equal(t, []*pipeline.Execution{ex, running, done}, executions, "each move of the execution, as the store returned it")
}

func TestPipelineDecodersSkipOtherItemsAndRefuseOtherTables(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	version := table.Item{"pk": s("P:p1"), "sk": s("PV:0000000001"), "name": s("n")}
	for _, ch := range []changes.Change[table.Item]{
		{Event: changes.Insert, Keys: table.Item{"pk": version["pk"], "sk": version["sk"]}, New: &version},
		{Event: changes.Remove, Keys: table.Item{"pk": s("PE:e1"), "sk": s("PE:P")}},
		{},
	} {
		_, ok, err := pipeline.PipelineFromChange(ch)
		require.NoError(t, err)
		assert.False(t, ok)
		_, ok, err = pipeline.ExecutionFromChange(ch)
		require.NoError(t, err)
		assert.False(t, ok)
	}

	task := table.Item{"PK": s("TASK#t-1"), "SK": s("META")}
	job := table.Item{"jobId": s("j1")}
	for _, ch := range []changes.Change[table.Item]{
		{Event: changes.Insert, Keys: task, New: &task},
		{Event: changes.Insert, New: &job},
		{Event: changes.Remove, Keys: table.Item{"pk": s("PE:e1"), "sk": s("PE:P"), "x": s("y")}},
	} {
		for name, decode := range map[string]func() error{
			"PipelineFromChange":  func() error { _, _, err := pipeline.PipelineFromChange(ch); return err },
			"ExecutionFromChange": func() error { _, _, err := pipeline.ExecutionFromChange(ch); return err },
		} {
			err := decode()
			var ie *table.InputError
			require.ErrorAsf(t, err, &ie, "%s of %v", name, ch.Keys)
			assert.Equal(t, "change", ie.Field)
		}
	}

	bad := table.Item{"pk": s("PE:e1"), "sk": s("PE:P"), "siKey1": s("P:p1"), "createdAt": s("yesterday"), "updatedAt": s("today")}
	_, ok, err := pipeline.ExecutionFromChange(changes.Change[table.Item]{Event: changes.Insert, New: &bad})
	assert.ErrorIs(t, err, changes.ErrDecode, "an execution whose times do not parse is an error, not zero times")
	assert.False(t, ok)
	badP := table.Item{"pk": s("P:p1"), "sk": s("PV:current"), "version": s("one")}
	_, ok, err = pipeline.PipelineFromChange(changes.Change[table.Item]{Event: changes.Insert, New: &badP})
	assert.ErrorIs(t, err, changes.ErrDecode)
	assert.False(t, ok)
}

func TestPipelineDecodersFailAnItemWhoseKeysDoNotParse(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	times := table.Item{"createdAt": s("2024-01-02T03:04:05.000Z"), "updatedAt": s("2024-01-02T03:04:05.000Z")}
	with := func(keys table.Item) *table.Item {
		item := table.Item{}
		for _, m := range []table.Item{times, keys} {
			for k, v := range m {
				item[k] = v
			}
		}
		return &item
	}
	for name, item := range map[string]*table.Item{
		"no execution id": with(table.Item{"pk": s("PE:"), "sk": s("PE:P"), "siKey1": s("P:p1")}),
		"siKey1 not P:":   with(table.Item{"pk": s("PE:e1"), "sk": s("PE:P"), "siKey1": s("G:g1")}),
		"no siKey1":       with(table.Item{"pk": s("PE:e1"), "sk": s("PE:P")}),
		"id with a colon": with(table.Item{"pk": s("PE:e1:x"), "sk": s("PE:P"), "siKey1": s("P:p1")}),
	} {
		_, ok, err := pipeline.ExecutionFromChange(changes.Change[table.Item]{Event: changes.Insert, New: item})
		assert.ErrorIsf(t, err, changes.ErrDecode, "%s: an execution whose keys do not parse is an error, not empty ids", name)
		assert.False(t, ok, name)
	}
	_, ok, err := pipeline.PipelineFromChange(changes.Change[table.Item]{Event: changes.Insert,
		New: with(table.Item{"pk": s("P:"), "sk": s("PV:current"), "version": &types.AttributeValueMemberN{Value: "1"}})})
	assert.ErrorIs(t, err, changes.ErrDecode, "a current item without a pipeline id")
	assert.False(t, ok)

	good := with(table.Item{"pk": s("PE:e1"), "sk": s("PE:P"), "siKey1": s("P:p1")})
	e, ok, err := pipeline.ExecutionFromChange(changes.Change[table.Item]{Event: changes.Insert, New: good})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "e1", e.ID)
	assert.Equal(t, "p1", e.PipelineID)
}
