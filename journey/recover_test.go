package journey

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// TestRecoverFailsJobsPastTheirTimeout: on the fake.
func TestRecoverFailsJobsPastTheirTimeout(t *testing.T) {
	e := newEnv(t)
	recoverTimedOut(t, e.store, e.db.Advance)
}

// TestIntegrationRecoverFailsJobsPastTheirTimeout: on DynamoDB Local, a
// fake serving as the store's clock.
func TestIntegrationRecoverFailsJobsPastTheirTimeout(t *testing.T) {
	clock := localClock()
	recoverTimedOut(t, localStore(t, Clock(clock.Now)), clock.Advance)
}

// recoverTimedOut: of three running jobs (one past its timeout with
// retries left, one past it with none, one within it) and a completed
// journey, TimedOut finds the two past their deadline without writing,
// and Recover fails exactly those: stage failed, failedJobs counted, the
// journey failed where no retry is left. A second Recover finds nothing.
func recoverTimedOut(t *testing.T, s *Store, advance func(time.Duration)) {
	ctx := context.Background()
	start := func(id string, cfg Configuration) *Job {
		_, err := s.Journeys().Create(ctx, NewJourney{ID: id, Name: id, Configuration: cfg})
		require.NoError(t, err)
		j, err := s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "raw_analysis"})
		require.NoError(t, err)
		return j
	}
	retries := start("JRN-RETRIES", Configuration{Timeout: 60, RetryAttempts: 2})
	last := start("JRN-LAST", Configuration{Timeout: 60})
	alive := start("JRN-ALIVE", Configuration{Timeout: 3600})
	done := start("JRN-DONE", Configuration{Timeout: 60, RetryAttempts: 1})
	c, err := s.Journeys().Load(ctx, "JRN-DONE")
	require.NoError(t, err)
	_, err = s.Jobs().Finish(ctx, done.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	for _, st := range c.Stages[1:] {
		_, err := s.Stages().Skip(ctx, "JRN-DONE", st.StageID)
		if err != nil {
			job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-DONE", StageID: st.StageID})
			require.NoError(t, err)
			_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
			require.NoError(t, err)
		}
	}
	jd, err := s.Journeys().Get(ctx, "JRN-DONE", Consistent())
	require.NoError(t, err)
	require.Equal(t, StatusCompleted, jd.Status)
	advance(2 * time.Minute)

	found, err := collect(s.Jobs().TimedOut(ctx))
	require.NoError(t, err)
	ids := []string{}
	for _, j := range found {
		ids = append(ids, j.JobID)
		assert.Equal(t, JobRunning, j.Status, "TimedOut writes nothing")
	}
	assert.ElementsMatch(t, []string{retries.JobID, last.JobID}, ids)
	one, err := collect(s.Jobs().TimedOut(ctx, OfJourney("JRN-LAST")))
	require.NoError(t, err)
	require.Len(t, one, 1)
	assert.Equal(t, last.JobID, one[0].JobID)

	res, err := s.Jobs().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Found)
	assert.Zero(t, res.Skipped)
	require.Len(t, res.Failed, 2)
	for _, f := range res.Failed {
		assert.Equal(t, JobFailed, f.Status)
		assert.True(t, f.TimedOut)
		got, err := s.Jobs().Get(ctx, f.Ref(), Consistent())
		require.NoError(t, err)
		assert.Equal(t, f, *got, "what Recover returned is what it stored")
		st, err := s.Stages().Get(ctx, f.JourneyID, f.StageID, Consistent())
		require.NoError(t, err)
		assert.Equal(t, StageFailed, st.Status)
	}
	jr, err := s.Journeys().Get(ctx, "JRN-RETRIES", Consistent())
	require.NoError(t, err)
	assert.Equal(t, StatusRunning, jr.Status, "a retry is left")
	assert.Equal(t, 1, jr.Aggregates.FailedJobs)
	jl, err := s.Journeys().Get(ctx, "JRN-LAST", Consistent())
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, jl.Status, "no retry left")
	a, err := s.Jobs().Get(ctx, alive.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, JobRunning, a.Status, "within its timeout")

	again, err := s.Jobs().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, RecoverResult{Failed: []Job{}}, again)

	// The stage of the recovered job starts again.
	retry, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-RETRIES", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 2, retry.ExecutionNumber)
}

// TestTimedOutReadsOnly: the dry run's read sends no write.
func TestTimedOutReadsOnly(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	timedJourney(t, e.store)
	e.db.Advance(time.Hour)
	e.db.ResetCalls()
	jobs, err := collect(e.store.Jobs().TimedOut(ctx))
	require.NoError(t, err)
	assert.Len(t, jobs, 1)
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"} {
		assert.Zero(t, e.db.Calls(op), op)
	}
}

// TestRecoverLeavesAJobItsWorkerFinishedMeanwhile: the worker completes
// its job between Recover's read and its write; the job stays completed
// and Recover counts it as skipped.
func TestRecoverLeavesAJobItsWorkerFinishedMeanwhile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	late := timedJourney(t, e.store)
	e.db.Advance(2 * time.Minute)
	hooked := &hookedAPI{API: e.db}
	s := mustStore(t, hooked, e.logs, Clock(e.db.Now))
	var finishErr error
	hooked.hook(func(n int) error {
		if n == 1 {
			_, finishErr = e.store.Jobs().Finish(ctx, late.Ref(), Finish{Status: JobCompleted})
		}
		return nil
	})
	res, err := s.Jobs().Recover(ctx)
	require.NoError(t, err)
	require.NoError(t, finishErr)
	assert.Equal(t, RecoverResult{Found: 1, Failed: []Job{}, Skipped: 1}, res)
	got, err := e.store.Jobs().Get(ctx, late.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, JobCompleted, got.Status)
	assert.False(t, got.TimedOut)
}

// TestRecoverRefusesBadInput: a bad or reserved journey id is a
// *table.InputError before any request.
func TestRecoverRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, id := range []string{"bad id", GlobalRules} {
		_, err := e.store.Jobs().Recover(ctx, OfJourney(id))
		assert.ErrorIs(t, err, table.ErrInvalidInput, id)
		_, err = collect(e.store.Jobs().TimedOut(ctx, OfJourney(id)))
		assert.ErrorIs(t, err, table.ErrInvalidInput, id)
	}
	_, err := e.store.Jobs().Recover(ctx, OfJourney("JRN-NONE"))
	assert.ErrorIs(t, err, ErrJourneyNotFound)
	assert.Equal(t, 1, e.calls(), "one GetItem for the missing journey, nothing else")
}
