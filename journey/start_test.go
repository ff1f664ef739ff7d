package journey

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// timedJourney creates JRN-T with a 60-second configuration.timeout and
// starts raw_analysis, whose worker then dies: the job stays running.
func timedJourney(t *testing.T, s *Store) *Job {
	t.Helper()
	ctx := context.Background()
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "timed", Configuration: Configuration{Timeout: 60, RetryAttempts: 3}})
	require.NoError(t, err)
	j, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	return j
}

// TestStartJobIsTwoRoundTrips: Jobs.Start reads the stages and the
// journey side by side, then writes one transaction, also when it fails a
// timed-out job on the way; it took three requests one after another.
func TestStartJobIsTwoRoundTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
		require.NoError(t, Schema("").Create(ctx, db))
		m := dynamotest.NewMeter(db, func(o *dynamotest.MeterOptions) { o.Latency = 5 * time.Millisecond })
		s := mustStore(t, m, blobstore.NewMemory(), Clock(db.Now))
		_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "t", Configuration: Configuration{Timeout: 60}})
		require.NoError(t, err)

		var j *Job
		u := m.Measure(func() { j, err = s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}) })
		require.NoError(t, err)
		t.Logf("Jobs.Start: %d requests, %d round trips, %.1f WCU, %.1f RCU", u.Requests, u.RoundTrips, u.WriteUnits, u.ReadUnits)
		assert.Equal(t, 3, u.Requests)
		assert.Equal(t, 2, u.RoundTrips)
		assert.Equal(t, map[string]int{"Query": 1, "GetItem": 1, "TransactWriteItems": 1}, u.Calls)

		db.Advance(61 * time.Second)
		u = m.Measure(func() { _, err = s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}) })
		require.NoError(t, err)
		t.Logf("Jobs.Start past a timed-out job: %d requests, %d round trips, %.1f WCU", u.Requests, u.RoundTrips, u.WriteUnits)
		assert.Equal(t, 2, u.RoundTrips)
		old, err := s.Jobs().Get(ctx, j.Ref(), Consistent())
		require.NoError(t, err)
		assert.Equal(t, JobFailed, old.Status)
	})
}

// TestStartPastTimeoutFailsTheTimedOutJob: a job whose worker died blocks
// its stage until its configuration.timeout, then the next Start fails it
// (timed out) and starts the retry in one transaction; the dead worker's
// late Finish is refused.
func TestStartPastTimeoutFailsTheTimedOutJob(t *testing.T) {
	e := newEnv(t)
	startPastTimeout(t, e.store, e.db.Advance)
}

// startPastTimeout is TestStartPastTimeoutFailsTheTimedOutJob on s, whose
// clock advance moves.
func startPastTimeout(t *testing.T, s *Store, advance func(time.Duration)) {
	ctx := context.Background()
	dead := timedJourney(t, s)
	t0 := dead.StartTime.Time
	assert.Equal(t, 60, dead.Configuration.Timeout, "the job runs with the journey's timeout")
	assert.Equal(t, t0.Add(time.Minute), dead.Deadline())

	advance(59 * time.Second)
	_, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	var se *StatusError
	require.ErrorAs(t, err, &se, "within its timeout the job still holds its stage")
	assert.Equal(t, string(StageRunning), se.Current)

	advance(time.Second)
	retry, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 2, retry.ExecutionNumber)
	assert.Equal(t, JobRunning, retry.Status)

	old, err := s.Jobs().Get(ctx, dead.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, JobFailed, old.Status)
	assert.True(t, old.TimedOut)
	require.NotNil(t, old.ErrorMessage)
	assert.Contains(t, *old.ErrorMessage, "timed out")
	assert.Equal(t, t0.Add(time.Minute), old.EndTime.Time)
	assert.Equal(t, 60.0, old.Duration)

	jr, err := s.Journeys().Get(ctx, "JRN-T", Consistent())
	require.NoError(t, err)
	assert.Equal(t, 2, jr.Aggregates.TotalJobs)
	assert.Equal(t, 1, jr.Aggregates.FailedJobs)
	assert.Equal(t, 60.0, jr.Aggregates.TotalExecutionSeconds)
	assert.Equal(t, retry.JobID, jr.CurrentJobs["raw_analysis"])
	st, err := s.Stages().Get(ctx, "JRN-T", "raw_analysis", Consistent())
	require.NoError(t, err)
	assert.Equal(t, StageRunning, st.Status)
	require.NotNil(t, st.LastJob)
	assert.Equal(t, StageJob{JobID: retry.JobID, ExecutionNumber: 2, StartTime: retry.StartTime, Timeout: 60}, *st.LastJob)

	_, err = s.Jobs().Finish(ctx, dead.Ref(), Finish{Status: JobCompleted})
	require.ErrorAs(t, err, &se, "the dead worker's late finish")
	assert.Equal(t, string(JobFailed), se.Current)
	done, err := s.Jobs().Finish(ctx, retry.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	assert.Equal(t, JobCompleted, done.Status)
}

// TestJobWithoutTimeoutTimesOutAfterTheSeeds1800Seconds: a journey and a
// job created without a timeout take the seed's configuration.timeout,
// 1800 s (Options.JobTimeout's default): until then the job holds its
// stage, from then on the next Start fails it and runs the retry.
func TestJobWithoutTimeoutTimesOutAfterTheSeeds1800Seconds(t *testing.T) {
	e := newEnv(t)
	defaultTimeout(t, e.store, e.db.Advance)
}

// TestIntegrationJobWithoutTimeoutTimesOutAfterTheSeeds1800Seconds is
// TestJobWithoutTimeoutTimesOutAfterTheSeeds1800Seconds on DynamoDB Local.
func TestIntegrationJobWithoutTimeoutTimesOutAfterTheSeeds1800Seconds(t *testing.T) {
	clock := localClock()
	defaultTimeout(t, localStore(t, Clock(clock.Now)), clock.Advance)
}

func defaultTimeout(t *testing.T, s *Store, advance func(time.Duration)) {
	ctx := context.Background()
	c, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "no timeout given", Configuration: Configuration{RetryAttempts: 3}})
	require.NoError(t, err)
	assert.Equal(t, 1800, c.Journey.Configuration.Timeout, "the journey's configuration.timeout is the seed's")
	got, err := s.Journeys().Get(ctx, "JRN-T", Consistent())
	require.NoError(t, err)
	assert.Equal(t, 1800, got.Configuration.Timeout, "as stored")
	dead, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 1800, dead.Configuration.Timeout, "the job's")
	assert.Equal(t, dead.StartTime.Add(1800*time.Second), dead.Deadline())

	advance(1799 * time.Second)
	_, err = s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	assert.ErrorIs(t, err, ErrInvalidStatus, "a second before its deadline the job still holds its stage")
	advance(time.Second)
	retry, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err, "at its deadline the job no longer holds its stage")
	assert.Equal(t, 2, retry.ExecutionNumber)
	old, err := s.Jobs().Get(ctx, dead.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, JobFailed, old.Status)
	assert.True(t, old.TimedOut)
}

// TestJobTimeoutOptionIsTheTimeoutOfJobsCreatedWithoutOne: Options.JobTimeout
// replaces the seed's 1800 s for a journey created without a timeout, and
// for a job started without one in a journey stored without one (written
// by others, or with NoJobTimeout); a journey's or job's own timeout wins.
func TestJobTimeoutOptionIsTheTimeoutOfJobsCreatedWithoutOne(t *testing.T) {
	e := newEnv(t, JobTimeout(10*time.Minute))
	ctx := context.Background()
	c, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "t"})
	require.NoError(t, err)
	assert.Equal(t, 600, c.Journey.Configuration.Timeout)
	own, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-OWN", Name: "t", Configuration: Configuration{Timeout: 60}})
	require.NoError(t, err)
	assert.Equal(t, 60, own.Journey.Configuration.Timeout, "the journey's own timeout")

	// A journey stored without a timeout: its jobs take the store's.
	key, err := e.store.journeyKey("JRN-T")
	require.NoError(t, err)
	require.NoError(t, e.store.t.Update(ctx, key, expression.Set(expression.Name("Data.configuration.timeout"), expression.Value(0))))
	j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 600, j.Configuration.Timeout)
	k, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-OWN", StageID: "raw_analysis", Configuration: JobConfiguration{Timeout: 5}})
	require.NoError(t, err)
	assert.Equal(t, 5, k.Configuration.Timeout, "the job's own timeout")
}

// TestNoJobTimeoutLeavesJobsWithoutTimeoutHoldingTheirStage: with
// NoJobTimeout a journey and job created without a timeout have none (0),
// and the job holds its stage until it finishes, as before the seed's
// default was applied; Recover finds nothing to fail. Any negative
// Options.JobTimeout means none.
func TestNoJobTimeoutLeavesJobsWithoutTimeoutHoldingTheirStage(t *testing.T) {
	for _, none := range []time.Duration{NoJobTimeout, -time.Hour} {
		t.Run(none.String(), func(t *testing.T) { noJobTimeout(t, none) })
	}
}

func noJobTimeout(t *testing.T, none time.Duration) {
	e := newEnv(t, JobTimeout(none))
	ctx := context.Background()
	c := e.newJourney(t)
	assert.Zero(t, c.Journey.Configuration.Timeout)
	j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Zero(t, j.Configuration.Timeout)
	assert.True(t, j.Deadline().IsZero())
	e.db.Advance(365 * 24 * time.Hour)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	assert.ErrorIs(t, err, ErrInvalidStatus)
	res, err := e.store.Jobs().Recover(ctx)
	require.NoError(t, err)
	assert.Zero(t, res.Found)
}

// TestStartJobTakesTheJobsOwnTimeoutFirst: a job's configuration.timeout
// overrides the journey's.
func TestStartJobTakesTheJobsOwnTimeoutFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "t", Configuration: Configuration{Timeout: 3600, RetryAttempts: 2}})
	require.NoError(t, err)
	j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis", Configuration: JobConfiguration{Timeout: 10}})
	require.NoError(t, err)
	assert.Equal(t, JobConfiguration{Timeout: 10, RetryAttempts: 2}, j.Configuration)
	e.db.Advance(10 * time.Second)
	retry, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 3600, retry.Configuration.Timeout)
}

// TestConcurrentStartsPastATimeoutFailItOnce: 20 starts of a stage whose
// job timed out: one starts the retry and fails the old job, the others
// find the new job running; the old job counts as failed once.
func TestConcurrentStartsPastATimeoutFailItOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	dead := timedJourney(t, e.store)
	e.db.Advance(2 * time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var started []*Job
	for range 20 {
		wg.Go(func() {
			j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				started = append(started, j)
				return
			}
			assert.ErrorIs(t, err, ErrInvalidStatus)
		})
	}
	wg.Wait()
	require.Len(t, started, 1)
	assert.Equal(t, 2, started[0].ExecutionNumber)
	jr, err := e.store.Journeys().Get(ctx, "JRN-T", Consistent())
	require.NoError(t, err)
	assert.Equal(t, 2, jr.Aggregates.TotalJobs)
	assert.Equal(t, 1, jr.Aggregates.FailedJobs)
	old, err := e.store.Jobs().Get(ctx, dead.Ref(), Consistent())
	require.NoError(t, err)
	assert.True(t, old.TimedOut)
}

// TestStartLeavesAJobThatFinishedMeanwhileAlone: the dead worker was only
// late: it completes its job between Start's read and its transaction.
// Start must not fail the completed job; it finds the stage completed.
// (The job's condition in Start's transaction is what refuses: the
// stage's number has not moved.)
func TestStartLeavesAJobThatFinishedMeanwhileAlone(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	late := timedJourney(t, e.store)
	e.db.Advance(2 * time.Minute)
	hooked := &hookedAPI{API: e.db}
	s := mustStore(t, hooked, e.logs, Clock(e.db.Now), func(o *Options) { o.NewID = e.ids.NewID })
	var finishErr error
	hooked.hook(func(n int) error {
		if n == 1 { // Start read the stage and is about to write
			_, finishErr = e.store.Jobs().Finish(ctx, late.Ref(), Finish{Status: JobCompleted})
		}
		return nil
	})
	_, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, finishErr)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, string(StageCompleted), se.Current)
	got, err := e.store.Jobs().Get(ctx, late.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, JobCompleted, got.Status)
	assert.False(t, got.TimedOut)
	jr, err := e.store.Journeys().Get(ctx, "JRN-T", Consistent())
	require.NoError(t, err)
	assert.Equal(t, 1, jr.Aggregates.TotalJobs)
	assert.Equal(t, 0, jr.Aggregates.FailedJobs)
	assert.Equal(t, 1, jr.Aggregates.CompletedJobs)
}

// TestStartOfAStageWrittenWithoutLastJob: a stage item an earlier version
// wrote has no lastJob; Start reads the latest job item instead (one more
// Query) and enforces its timeout all the same.
func TestStartOfAStageWrittenWithoutLastJob(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	dead := timedJourney(t, e.store)
	key, err := e.store.stageKey("JRN-T", 1, "raw_analysis")
	require.NoError(t, err)
	require.NoError(t, e.store.t.Update(ctx, key, expression.Remove(expression.Name("Data.lastJob"))))
	// The job of an earlier version did not copy the journey's timeout.
	jobKey, err := e.store.jobKey(dead.Ref())
	require.NoError(t, err)
	require.NoError(t, e.store.t.Update(ctx, jobKey, expression.Set(expression.Name("Data.configuration.timeout"), expression.Value(0))))

	e.db.Advance(30 * time.Second)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.ErrorIs(t, err, ErrInvalidStatus)
	e.db.Advance(30 * time.Second)
	e.db.ResetCalls()
	retry, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 2, e.db.Calls("Query"), "the stages, then the latest job")
	assert.Equal(t, 2, retry.ExecutionNumber)
	old, err := e.store.Jobs().Get(ctx, dead.Ref(), Consistent())
	require.NoError(t, err)
	assert.True(t, old.TimedOut)
}

// TestStartRunsStagesInOrder: a stage starts once every earlier stage is
// completed or skipped (the seed: "stages run in order 1, 2, 3"); a
// refusal names the earlier stage and writes nothing.
func TestStartRunsStagesInOrder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	stages := []Stage{{StageID: "first"}, {StageID: "optional", CanSkip: true}, {StageID: "last"}}
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "ordered", Stages: stages, Configuration: Configuration{RetryAttempts: 1}})
	require.NoError(t, err)

	e.db.ResetCalls()
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "last"})
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, ErrStageOrder)
	assert.ErrorIs(t, err, ErrInvalidStatus)
	assert.Equal(t, "first", se.ID)
	assert.Equal(t, string(StagePending), se.Current)
	assert.Contains(t, err.Error(), `start stage "last" before stage "first"`)
	assert.Zero(t, e.db.Calls("TransactWriteItems"), "a refused start writes nothing")

	first, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "first"})
	require.NoError(t, err)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "optional"})
	require.ErrorIs(t, err, ErrStageOrder, "first is running")
	_, err = e.store.Jobs().Finish(ctx, first.Ref(), Finish{Status: JobFailed})
	require.NoError(t, err)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "optional"})
	require.ErrorIs(t, err, ErrStageOrder, "first failed")
	retry, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "first"})
	require.NoError(t, err)
	_, err = e.store.Jobs().Finish(ctx, retry.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)

	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "last"})
	require.ErrorIs(t, err, ErrStageOrder, "optional is pending")
	_, err = e.store.Stages().Skip(ctx, "JRN-T", "optional")
	require.NoError(t, err)
	last, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "last"})
	require.NoError(t, err, "every earlier stage completed or skipped")
	assert.Equal(t, 3, last.Order)
}

// TestStagesInAnyOrderStartsAnyStage: Options.StagesInAnyOrder lifts the
// order for services whose stages are independent.
func TestStagesInAnyOrderStartsAnyStage(t *testing.T) {
	e := newEnv(t, inAnyOrder)
	ctx := context.Background()
	e.newJourney(t)
	j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "verification_validation"})
	require.NoError(t, err)
	assert.Equal(t, 6, j.Order)
}

// TestStartOfAMissingJourneyOrStage: typed not-found errors, nothing
// written.
func TestStartOfAMissingJourneyOrStage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-NONE", StageID: "raw_analysis"})
	assert.ErrorIs(t, err, ErrStageNotFound)
	assert.ErrorIs(t, err, ErrJourneyNotFound)
	e.newJourney(t)
	e.db.ResetCalls()
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "nope"})
	assert.ErrorIs(t, err, ErrStageNotFound)
	assert.True(t, errors.Is(err, table.ErrNotFound))
	assert.Zero(t, e.db.Calls("TransactWriteItems"))
}

// TestIntegrationStartPastTimeoutFailsTheTimedOutJob is
// TestStartPastTimeoutFailsTheTimedOutJob on DynamoDB Local; a fake
// serves as the store's clock.
func TestIntegrationStartPastTimeoutFailsTheTimedOutJob(t *testing.T) {
	clock := localClock()
	startPastTimeout(t, localStore(t, Clock(clock.Now)), clock.Advance)
}

// TestStartTakesExecution999AndRefusesTheNextWritingNothing: the job's
// sort key holds {execution:03d}, so 999 is the last execution a stage
// can have: Start hands it out, and the start after it is a
// *table.InputError that writes nothing (a bound made off by one either
// way fails here).
func TestStartTakesExecution999AndRefusesTheNextWritingNothing(t *testing.T) {
	execution999(t, newEnv(t).store)
}

// TestIntegrationStartTakesExecution999AndRefusesTheNext is
// TestStartTakesExecution999AndRefusesTheNextWritingNothing on DynamoDB
// Local.
func TestIntegrationStartTakesExecution999AndRefusesTheNext(t *testing.T) {
	execution999(t, localStore(t))
}

func execution999(t *testing.T, s *Store) {
	ctx := context.Background()
	_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "many retries", Configuration: Configuration{RetryAttempts: maxExecution}})
	require.NoError(t, err)
	// 998 executions handed out already (as many failed retries would
	// leave them), without running them one by one.
	key, err := s.stageKey("JRN-T", 1, "raw_analysis")
	require.NoError(t, err)
	require.NoError(t, s.t.Update(ctx, key, expression.Set(expression.Name("Data.lastExecution"), expression.Value(maxExecution-1))))

	last, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err, "execution 999 fits {execution:03d}")
	assert.Equal(t, 999, last.ExecutionNumber)
	_, err = s.Jobs().Finish(ctx, last.Ref(), Finish{Status: JobFailed})
	require.NoError(t, err)

	before := tableItems(t, s)
	_, err = s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	var ie *table.InputError
	require.ErrorAs(t, err, &ie, "execution 1000 does not fit {execution:03d}")
	assert.Equal(t, "NewJob.StageID", ie.Field)
	assert.Equal(t, before, tableItems(t, s), "the refused start wrote nothing")
}
