package pipeline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

func newExecution(t *testing.T, e *env) *pipeline.Execution {
	t.Helper()
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{Name: "n"})
	require.NoError(t, err)
	ex, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID})
	require.NoError(t, err)
	require.Equal(t, pipeline.ExecutionCreated, ex.State)
	return ex
}

func TestExecutionRunsToSuccessWithItsTimes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ex := newExecution(t, e)

	e.db.Advance(time.Second)
	started, err := e.store.Executions().Start(ctx, ex.ID)
	require.NoError(t, err)
	assert.Equal(t, pipeline.ExecutionRunning, started.State)
	assert.True(t, started.StartedAt.After(ex.CreatedAt))
	assert.Equal(t, started.StartedAt, started.UpdatedAt)
	assert.True(t, started.FinishedAt.IsZero())

	e.db.Advance(time.Second)
	done, err := e.store.Executions().Succeed(ctx, ex.ID)
	require.NoError(t, err)
	assert.Equal(t, pipeline.ExecutionSucceeded, done.State)
	assert.Equal(t, started.StartedAt, done.StartedAt)
	assert.True(t, done.FinishedAt.After(done.StartedAt))
	assert.Empty(t, done.Error)

	got, err := e.store.Executions().Get(ctx, ex.ID)
	require.NoError(t, err)
	assert.Equal(t, done, got)
}

func TestExecutionFailsFromCreatedOrRunningWithItsReason(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	created := newExecution(t, e)
	failed, err := e.store.Executions().Fail(ctx, created.ID, "input rejected")
	require.NoError(t, err)
	assert.Equal(t, pipeline.ExecutionFailed, failed.State)
	assert.Equal(t, "input rejected", failed.Error)
	assert.False(t, failed.FinishedAt.IsZero())
	assert.True(t, failed.StartedAt.IsZero(), "it never ran")

	running := newExecution(t, e)
	_, err = e.store.Executions().Start(ctx, running.ID)
	require.NoError(t, err)
	failed, err = e.store.Executions().Fail(ctx, running.ID, "formula error")
	require.NoError(t, err)
	assert.Equal(t, pipeline.ExecutionFailed, failed.State)
	assert.Equal(t, "formula error", failed.Error)
}

func TestRefusedMoveCarriesTheCurrentStateAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ex := newExecution(t, e)
	_, err := e.store.Executions().Start(ctx, ex.ID)
	require.NoError(t, err)
	_, err = e.store.Executions().Fail(ctx, ex.ID, "boom")
	require.NoError(t, err)
	before := e.snapshot(t)

	for name, move := range map[string]func() (*pipeline.Execution, error){
		"start again":      func() (*pipeline.Execution, error) { return e.store.Executions().Start(ctx, ex.ID) },
		"succeed a failed": func() (*pipeline.Execution, error) { return e.store.Executions().Succeed(ctx, ex.ID) },
		"fail twice":       func() (*pipeline.Execution, error) { return e.store.Executions().Fail(ctx, ex.ID, "again") },
	} {
		e.db.ResetCalls()
		got, err := move()
		assert.Nil(t, got, name)
		var te *pipeline.TransitionError
		require.ErrorAs(t, err, &te, name)
		assert.ErrorIs(t, err, pipeline.ErrTransition, name)
		assert.ErrorIs(t, err, table.ErrConditionFailed, name)
		assert.Equal(t, pipeline.ExecutionFailed, te.Current, name)
		require.NotNil(t, te.Execution, name)
		assert.Equal(t, "boom", te.Execution.Error, name)
		assert.Equal(t, 1, e.calls(), "%s: one conditional write, no read after it", name)
	}
	assert.Equal(t, before, e.snapshot(t))
}

func TestSucceedBeforeStartIsRefused(t *testing.T) {
	e := newEnv(t)
	ex := newExecution(t, e)
	_, err := e.store.Executions().Succeed(context.Background(), ex.ID)
	var te *pipeline.TransitionError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, pipeline.ExecutionCreated, te.Current)
	assert.Equal(t, []pipeline.ExecutionState{pipeline.ExecutionRunning}, te.From)
}

func TestTwoStartsOneWins(t *testing.T) {
	e := newEnv(t)
	ex := newExecution(t, e)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := e.store.Executions().Start(context.Background(), ex.ID)
			errs <- err
		}()
	}
	var won, lost int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			won++
		case errors.Is(err, pipeline.ErrTransition):
			lost++
		default:
			require.NoError(t, err)
		}
	}
	assert.Equal(t, 1, won)
	assert.Equal(t, 1, lost)
}

func TestMovesOfMissingExecutionAreNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Executions().Start(ctx, "nope")
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
	_, err = e.store.Executions().Fail(ctx, "nope", "x")
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
	assert.Empty(t, e.snapshot(t), "a move never creates an execution")
}

func TestMoveInputIsCheckedBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ex := newExecution(t, e)
	e.db.ResetCalls()
	for name, call := range map[string]func() error{
		"empty id":     func() error { _, err := e.store.Executions().Start(ctx, ""); return err },
		"id with :":    func() error { _, err := e.store.Executions().Succeed(ctx, "a:b"); return err },
		"blank reason": func() error { _, err := e.store.Executions().Fail(ctx, ex.ID, " "); return err },
		"long reason":  func() error { _, err := e.store.Executions().Fail(ctx, ex.ID, string(make([]byte, 5000))); return err },
		"zero cutoff": func() error {
			_, err := e.store.Maintenance().RecoverExecutions(ctx, ex.PipelineID, time.Time{})
			return err
		},
	} {
		assert.ErrorIs(t, call(), table.ErrInvalidInput, name)
	}
	assert.Zero(t, e.calls())
}

func TestRecoverFailsOnlyExecutionsIdleSinceTheCutoff(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.store.Create(ctx, pipeline.Input{Name: "n"})
	require.NoError(t, err)
	create := func() *pipeline.Execution {
		ex, err := e.store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID})
		require.NoError(t, err)
		return ex
	}
	stuckRunning, stuckCreated, done := create(), create(), create()
	_, err = e.store.Executions().Start(ctx, stuckRunning.ID)
	require.NoError(t, err)
	_, err = e.store.Executions().Start(ctx, done.ID)
	require.NoError(t, err)
	_, err = e.store.Executions().Succeed(ctx, done.ID)
	require.NoError(t, err)
	e.db.Advance(time.Minute)
	cutoff := e.db.Now()
	e.db.Advance(time.Minute)
	fresh := create()
	_, err = e.store.Executions().Start(ctx, fresh.ID)
	require.NoError(t, err)

	failed, err := e.store.Maintenance().RecoverExecutions(ctx, p.ID, cutoff)
	require.NoError(t, err)
	var ids []string
	for _, f := range failed {
		ids = append(ids, f.ID)
		assert.Equal(t, pipeline.ExecutionFailed, f.State)
		assert.Equal(t, pipeline.TimedOut, f.Error)
	}
	assert.ElementsMatch(t, []string{stuckRunning.ID, stuckCreated.ID}, ids)
	for id, want := range map[string]pipeline.ExecutionState{done.ID: pipeline.ExecutionSucceeded, fresh.ID: pipeline.ExecutionRunning} {
		got, err := e.store.Executions().Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got.State)
	}
	again, err := e.store.Maintenance().RecoverExecutions(ctx, p.ID, cutoff)
	require.NoError(t, err)
	assert.Empty(t, again, "a second recovery finds nothing left")
}
