package journey

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// recorder is the fake, keeping every Query request.
type recorder struct {
	*dynamotest.DB
	mu      sync.Mutex
	queries []*dynamodb.QueryInput
}

func (r *recorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.mu.Lock()
	r.queries = append(r.queries, in)
	r.mu.Unlock()
	return r.DB.Query(ctx, in, opts...)
}

func TestStartJobNumbersExecutionsAndKeepsEveryAttempt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	var refs []JobRef
	for i := 1; i <= 3; i++ {
		e.db.Advance(time.Minute)
		j := must[*Job](t)(e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}))
		require.Equal(t, i, j.ExecutionNumber, "attempt %d: execution number", i)
		require.Equal(t, JobRunning, j.Status, "attempt %d: status", i)
		require.Equal(t, 1, j.Order, "attempt %d: stage order", i)
		require.Len(t, j.Steps, 3, "attempt %d: the stage's steps", i)
		must[*Job](t)(e.store.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobFailed, ErrorMessage: fmt.Sprintf("attempt %d failed", i)}))
		refs = append(refs, j.Ref())
	}
	jobs := must[[]Job](t)(collect(e.store.Jobs().All(ctx, "JRN-T", OfStage("raw_analysis"), Consistent())))
	require.Equal(t, 3, len(jobs), "%d jobs", len(jobs))
	for i, j := range jobs {
		assert.Equal(t, i+1, j.ExecutionNumber, "job %d: execution number", i)
		assert.Equal(t, JobFailed, j.Status, "job %d: status", i)
		if assert.NotNil(t, j.ErrorMessage, "job %d: error message", i) {
			assert.Equal(t, fmt.Sprintf("attempt %d failed", i+1), *j.ErrorMessage, "job %d: error message", i)
		}
	}
	latest := must[*Job](t)(e.store.Jobs().Latest(ctx, "JRN-T", "raw_analysis"))
	assert.Equal(t, 3, latest.ExecutionNumber, "the latest execution's number")
	assert.Equal(t, refs[2].JobID, latest.JobID, "the latest execution")
	jr := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T"))
	assert.Equal(t, 3, jr.Aggregates.TotalJobs, "totalJobs")
	assert.Equal(t, 3, jr.Aggregates.FailedJobs, "failedJobs")
	assert.Equal(t, refs[2].JobID, jr.CurrentJobs["raw_analysis"], "the stage's current job")
	assert.Equal(t, StatusRunning, jr.Status, "a journey with retries left keeps running")
	_, err := e.store.Jobs().Latest(ctx, "JRN-T", "tmf_mapping")
	assert.ErrorIs(t, err, ErrJobNotFound, "no executions: %v", err)
}

// TestConcurrentStartsOfOneStageRunOneExecution: of 20 starts of one
// stage at once exactly one runs; the others are refused with a
// *StatusError naming the running stage. A retry starts only after the
// running execution failed, and takes the next number.
func TestConcurrentStartsOfOneStageRunOneExecution(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var started []*Job
	var refused int
	for range 20 {
		wg.Go(func() {
			j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
			mu.Lock()
			defer mu.Unlock()
			var se *StatusError
			switch {
			case err == nil:
				started = append(started, j)
			case errors.As(err, &se) && se.Entity == "stage" && se.Current == string(StageRunning):
				refused++
			default:
				assert.Fail(t, fmt.Sprintf("start: %v", err))
			}
		})
	}
	wg.Wait()
	require.Len(t, started, 1)
	assert.Equal(t, 19, refused)
	assert.Equal(t, 1, started[0].ExecutionNumber)
	jr, err := e.store.Journeys().Get(ctx, "JRN-T")
	require.NoError(t, err)
	assert.Equal(t, 1, jr.Aggregates.TotalJobs)

	_, err = e.store.Jobs().Finish(ctx, started[0].Ref(), Finish{Status: JobFailed})
	require.NoError(t, err)
	retry, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	assert.Equal(t, 2, retry.ExecutionNumber)
	_, err = e.store.Jobs().Finish(ctx, retry.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	var se *StatusError
	require.ErrorAs(t, err, &se, "a completed stage starts again")
	assert.Equal(t, string(StageCompleted), se.Current)
}

// TestJobsForStageUsesKeyConditionNotFilter: the stage's jobs come from
// begins_with(SK, "JOB#{order}#{stageId}#") and nothing else is read.
func TestJobsForStageUsesKeyConditionNotFilter(t *testing.T) {
	rec := &recorder{DB: dynamotest.New()}
	ctx := context.Background()
	require.NoError(t, Schema("").Create(ctx, rec))
	// Stages in any order: raw_2's executions run between raw's.
	s := mustStore(t, rec, newEnv(t).logs, inAnyOrder)
	if _, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-K", Name: "k", Configuration: Configuration{RetryAttempts: 5},
		Stages: []Stage{{StageID: "raw"}, {StageID: "raw_2"}}}); err != nil {
		require.NoError(t, err)
	}
	for _, st := range []string{"raw", "raw_2", "raw", "raw_2", "raw_2"} {
		j := must[*Job](t)(s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-K", StageID: st}))
		must[*Job](t)(s.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobFailed}))
	}
	rec.queries = nil
	jobs := must[[]Job](t)(collect(s.Jobs().All(ctx, "JRN-K", OfStage("raw"), Consistent())))
	require.Len(t, jobs, 2, "raw's jobs")
	require.Equal(t, "raw", jobs[0].StageID, "first job's stage")
	require.Equal(t, "raw", jobs[1].StageID, "second job's stage")
	last := rec.queries[len(rec.queries)-1]
	assert.Nil(t, last.FilterExpression, "jobs query filters: %s", aws.ToString(last.FilterExpression))
	var prefix string
	for _, v := range last.ExpressionAttributeValues {
		if sv, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(sv.Value, "JOB#") {
			prefix = sv.Value
		}
	}
	assert.Contains(t, aws.ToString(last.KeyConditionExpression), "begins_with", "the jobs query's key condition")
	assert.Equal(t, "JOB#01#raw#", prefix, "the key condition's prefix ends at the stage, so raw does not match raw_2")

	// The latest execution is one descending query with Limit 1.
	rec.queries = nil
	j := must[*Job](t)(s.Jobs().Latest(ctx, "JRN-K", "raw_2"))
	last = rec.queries[len(rec.queries)-1]
	assert.Equal(t, 3, j.ExecutionNumber, "the latest execution of raw_2")
	assert.False(t, aws.ToBool(last.ScanIndexForward), "Latest queries descending")
	assert.Equal(t, int32(1), aws.ToInt32(last.Limit), "Latest reads one item")
	assert.Nil(t, last.FilterExpression, "Latest filters nothing")
}

// TestConcurrentFinishesLoseNothing: 30 finishes of one journey's jobs at
// once, their transactions canceled by conflicts and throttled as
// DynamoDB does under contention (dynamotest.Chaos, one seed: the fake,
// like DynamoDB Local, serializes transactions itself), each retried by
// table.WriteTx, still count exactly once: totalJobs, completedJobs,
// failedJobs, the completed stages and the progress exact.
func TestConcurrentFinishesLoseNothing(t *testing.T) {
	e := newEnv(t, inAnyOrder)
	c := dynamotest.Chaos(dynamotest.ChaosSeed(t), dynamotest.ChaosOn(e.db), func(o *dynamotest.ChaosOptions) {
		o.RatesFor = func(op, _ string, _ any) dynamotest.ChaosRates {
			if op == "TransactWriteItems" {
				return dynamotest.ChaosRates{Conflict: 0.3, Throttle: 0.1}
			}
			return dynamotest.ChaosRates{}
		}
	})
	concurrentFinishes(t, e.storeOn(t, c, inAnyOrder), "JRN-T", func() {
		e.db.Advance(90 * time.Second) // every job ran about 90 s: 45m in all
	})
	a := must[*Journey](t)(e.store.Journeys().Get(context.Background(), "JRN-T")).Aggregates
	assert.Equal(t, "45m", a.TotalExecutionTime, "totalExecutionTime %s for %.3f s", a.TotalExecutionTime, a.TotalExecutionSeconds)
	refused := 0
	for _, f := range c.Faults() {
		if f.Op == "TransactWriteItems" {
			refused++
		}
	}
	assert.Positive(t, refused, "no finish met a conflict or throttling")
	t.Logf("%d transactions refused (conflict or throttling) and retried, in %d calls", refused, c.Calls())
}

// concurrentFinishes creates journeyID with 30 stages, starts one job of
// each, finishes them from 30 goroutines at once (every third one failed)
// and checks the journey's counters and progress.
func concurrentFinishes(t *testing.T, s *Store, journeyID string, beforeFinishes ...func()) {
	t.Helper()
	ctx := context.Background()
	stages := make([]Stage, 30)
	for i := range stages {
		stages[i] = Stage{StageID: fmt.Sprintf("stage_%02d", i+1)}
	}
	_, err := s.Journeys().Create(ctx, NewJourney{ID: journeyID, Name: "concurrent finishes", Stages: stages,
		Configuration: Configuration{RetryAttempts: 3}})
	require.NoError(t, err)
	refs := make([]JobRef, len(stages))
	for i := range refs {
		j, err := s.Jobs().Start(ctx, NewJob{JourneyID: journeyID, StageID: stages[i].StageID})
		require.NoError(t, err)
		refs[i] = j.Ref()
	}
	for _, f := range beforeFinishes {
		f()
	}
	var wg sync.WaitGroup
	errs := make([]error, len(refs))
	start := make(chan struct{})
	for i, ref := range refs {
		wg.Go(func() {
			<-start
			st := JobCompleted
			if i%3 == 0 {
				st = JobFailed
			}
			_, errs[i] = s.Jobs().Finish(ctx, ref, Finish{Status: st})
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "finish %d: %v", i, err)
	}
	j, err := s.Journeys().Get(ctx, journeyID, Consistent())
	require.NoError(t, err)
	a := j.Aggregates
	require.Equal(t, 30, a.TotalJobs, "totalJobs after 30 concurrent finishes")
	require.Equal(t, 20, a.CompletedJobs, "completedJobs after 30 concurrent finishes")
	require.Equal(t, 10, a.FailedJobs, "failedJobs after 30 concurrent finishes")
	// Every completed stage counted once, whatever order the finishes won.
	assert.Len(t, j.CompletedStages, 20)
	assert.Equal(t, 20*100/30, j.OverallProgress)
	// The stored display string caught up with the last finish.
	var raw struct {
		Data struct {
			Aggregates Aggregates `dynamodbav:"aggregates"`
		} `dynamodbav:"Data"`
	}
	require.NoError(t, s.t.Get(ctx, s.t.Key("JOURNEY#"+journeyID, "METADATA"), &raw, table.Consistent()))
	ra := raw.Data.Aggregates
	assert.Equal(t, formatMinutes(ra.TotalExecutionSeconds), ra.TotalExecutionTime, "stored totalExecutionTime for %.3f s", ra.TotalExecutionSeconds)
	t.Logf("30 jobs, %.3f s of execution, stored as %q", ra.TotalExecutionSeconds, ra.TotalExecutionTime)
	// Finishing again changes nothing and says why.
	_, err = s.Jobs().Finish(ctx, refs[1], Finish{Status: JobFailed})
	var se *StatusError
	require.ErrorAs(t, err, &se, "second finish")
	require.Equal(t, "completed", se.Current, "second finish: the status it names")
	j2, _ := s.Journeys().Get(ctx, journeyID, Consistent())
	assert.Equal(t, a, j2.Aggregates, "a refused finish moved the aggregates: %+v", j2.Aggregates)
}

func TestJobProgressAndSteps(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	j := must[*Job](t)(e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}))
	ref := j.Ref()
	j = must[*Job](t)(e.store.Jobs().SetProgress(ctx, ref, 40, "metadata_analysis"))
	assert.Equal(t, 40, j.Progress, "progress")
	assert.Equal(t, "metadata_analysis", j.CurrentStep, "current step")
	must[*Job](t)(e.store.Jobs().SetStepStatus(ctx, ref, "schema_extraction", StepRunning))
	e.db.Advance(1500 * time.Millisecond)
	j = must[*Job](t)(e.store.Jobs().SetStepStatus(ctx, ref, "schema_extraction", StepCompleted))
	st := j.Steps[0]
	assert.Equal(t, StepCompleted, st.Status, "step status")
	assert.Equal(t, 1.5, st.Duration, "step duration, seconds")
	assert.True(t, st.EndTime.After(st.StartTime.Time), "step end %v after its start %v", st.EndTime, st.StartTime)
	// A step the stage did not define is appended.
	j = must[*Job](t)(e.store.Jobs().SetStepStatus(ctx, ref, "extra_check", StepRunning))
	if assert.Len(t, j.Steps, 4, "steps after an undefined one") {
		assert.Equal(t, "extra_check", j.Steps[3].StepID, "the undefined step is appended")
	}
	assert.Equal(t, "extra_check", j.CurrentStep, "current step")
	// Found by id alone, through GSI1.
	f := must[*Job](t)(e.store.Jobs().Find(ctx, ref.JobID))
	assert.Equal(t, ref, f.Ref(), "FindJob %+v, want %+v", f.Ref(), ref)
	_, err := e.store.Jobs().Find(ctx, "JOB-NONE")
	assert.ErrorIs(t, err, ErrJobNotFound, "FindJob missing: %v", err)
	must[*Job](t)(e.store.Jobs().Finish(ctx, ref, Finish{Status: JobCompleted}))
	var se *StatusError
	_, err = e.store.Jobs().SetProgress(ctx, ref, 50, "")
	if assert.ErrorAs(t, err, &se, "progress after finish") {
		assert.Equal(t, "completed", se.Current, "progress after finish: the status it names")
	}
	_, err = e.store.Jobs().SetStepStatus(ctx, ref, "data_profiling", StepRunning)
	assert.False(t, !errors.As(err, &se), "step after finish: %v", err)
	missing := ref
	missing.Execution = 9
	_, err = e.store.Jobs().SetProgress(ctx, missing, 50, "")
	assert.ErrorIs(t, err, ErrJobNotFound, "progress of a missing job: %v", err)
	_, err = e.store.Jobs().Finish(ctx, missing, Finish{Status: JobCompleted})
	assert.ErrorIs(t, err, ErrJobNotFound, "finish of a missing job: %v", err)
	_, err = e.store.Jobs().Get(ctx, missing)
	assert.ErrorIs(t, err, ErrJobNotFound, "get of a missing job: %v", err)
}

func TestStartJobUnknownStageOrJourney(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	_, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "nope"})
	assert.ErrorIs(t, err, ErrStageNotFound, "unknown stage: %v", err)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-NONE", StageID: "raw_analysis"})
	assert.ErrorIs(t, err, ErrStageNotFound, "unknown journey: %v", err)
	_, err = e.store.Jobs().List(ctx, "JRN-T", "", OfStage("nope"))
	assert.ErrorIs(t, err, ErrStageNotFound, "jobs of unknown stage: %v", err)
}
