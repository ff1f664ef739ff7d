package journey

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
)

// Finish is how a job ended.
type Finish struct {
	// Status is JobCompleted or JobFailed.
	Status JobStatus
	// Results are the job's outcome statistics (recordsProcessed, ...);
	// left as they are when nil.
	Results map[string]float64
	// ErrorMessage says why a job failed.
	ErrorMessage string
}

// journeyRead is the journey's metadata and stages as one of the journey's
// guarded moves (Jobs.Finish, Stages.Skip) read them.
type journeyRead struct {
	j      Journey
	stages []Stage
}

// readJourney reads the journey's stages (a Query) and, in the same round
// trip, its metadata (a consistent GetItem), or its metadata and one more
// item (the job, for Jobs.Finish) in one TransactGetItems: two requests,
// one round trip.
func (s *Store) readJourney(ctx context.Context, journeyID string, jobKey table.Key, job *table.Item) (*journeyRead, error) {
	var r journeyRead
	var stagesErr error
	var wg sync.WaitGroup
	wg.Go(func() { r.stages, stagesErr = s.stages(ctx, journeyID, Consistent()) })
	key, _ := s.journeyKey(journeyID)
	var item table.Item
	var err error
	if jobKey != nil {
		err = s.t.GetTx().Get(key, &item).Get(jobKey, job).Run(ctx)
	} else {
		// One item: a strongly consistent GetItem reads it at half a
		// read transaction's cost.
		err = s.t.Get(ctx, key, &item, table.Consistent())
	}
	wg.Wait()
	if err != nil && !errors.Is(err, table.ErrNotFound) {
		return nil, err
	}
	if stagesErr != nil {
		return nil, stagesErr
	}
	if len(item) == 0 {
		return nil, notFound(ErrJourneyNotFound, journeyID, err)
	}
	if claimed(item) {
		return nil, claimedError(journeyID, item, nil)
	}
	if jobKey != nil && len(*job) == 0 {
		return nil, notFound(ErrJobNotFound, stringAttr(table.Item(jobKey), attrSK), err)
	}
	j, err := decode(ctx, s.ents.journeys, item, journeyItem.journey)
	if err != nil {
		return nil, err
	}
	r.j = j
	return &r, nil
}

// stageDone reports whether a stage counts as done for progress: it
// completed or was skipped.
func stageDone(st StageStatus) bool { return st == StageCompleted || st == StageSkipped }

// advance is how the journey moves when stageID ends (done: completed or
// skipped): the stages done (the journey's completedStages set, which a
// stage joins once, plus stages whose status says so, for journeys written
// without the set), the progress they make (never below the progress
// read), and the next stage to run (nil when every stage is done).
type advance struct {
	progress int
	next     *Stage
	allDone  bool
	index    int      // of stageID in stages, -1 when missing
	done     []string // ids of the stages done, in stage order
}

func (r *journeyRead) advance(stageID string, done bool) advance {
	set := map[string]bool{}
	for _, id := range r.j.CompletedStages {
		set[id] = true
	}
	a := advance{index: -1}
	for i, st := range r.stages {
		if stageDone(st.Status) {
			set[st.StageID] = true
		}
		if st.StageID == stageID {
			a.index = i
		}
	}
	if done {
		set[stageID] = true
	}
	n := 0
	for i, st := range r.stages {
		if set[st.StageID] {
			n++
			a.done = append(a.done, st.StageID)
		} else if a.next == nil {
			a.next = &r.stages[i]
		}
	}
	a.progress = max(progressFor(n, len(r.stages)), r.j.OverallProgress)
	a.allDone = a.next == nil && len(r.stages) > 0
	return a
}

// countsUnchanged is the condition that no other finish (each ADDs 1 to
// completedJobs or failedJobs), skip or stage edit (stageEdits) landed
// since the journey was read:
// Jobs.Finish and Stages.Skip compute progress, the next stage and the seed's
// totalExecutionTime string from what they read, so they are serialized
// on the journey like an optimistic lock, without a version attribute the
// seed does not have.
func (r *journeyRead) countsUnchanged() expression.ConditionBuilder {
	// A number read as 0 may be absent from an item others wrote.
	eq := func(path string, v int) expression.ConditionBuilder {
		c := expression.Name(path).Equal(expression.Value(v))
		if v == 0 {
			c = c.Or(expression.AttributeNotExists(expression.Name(path)))
		}
		return c
	}
	a := r.j.Aggregates
	return eq("Data.aggregates.completedJobs", a.CompletedJobs).
		And(eq("Data.aggregates.failedJobs", a.FailedJobs)).
		And(eq("Data.overallProgress", r.j.OverallProgress)).
		And(eq("Data.stageEdits", r.j.StageEdits)).
		And(expression.Name("Data.status").Equal(expression.Value(r.j.Status))).
		And(journeyOwn())
}

// journeyMove adds to u the journey's move when stageID ends: progress,
// the completedStages set, the next stage, and the status (completed when
// every stage is done; failed when failing is set), each only from
// running.
func (r *journeyRead) journeyMove(u expression.UpdateBuilder, stageID string, done, failing bool) expression.UpdateBuilder {
	a := r.advance(stageID, done)
	u = u.Set(expression.Name("Data.overallProgress"), expression.Value(a.progress))
	if done {
		// A list, not a string set (which has no JSON form for backups):
		// the journey's move is serialized (countsUnchanged), so the whole
		// list can be written.
		u = u.Set(expression.Name("Data.completedStages"), expression.Value(a.done))
		if a.next != nil {
			u = u.Set(expression.Name("Data.currentStageId"), expression.Value(a.next.StageID)).
				Set(expression.Name("Data.currentStageIndex"), expression.Value(a.next.Order-1))
		}
	}
	switch {
	case done && a.allDone && r.j.Status == StatusRunning:
		u = u.Set(expression.Name("Data.status"), expression.Value(StatusCompleted))
	case failing && r.j.Status == StatusRunning:
		u = u.Set(expression.Name("Data.status"), expression.Value(StatusFailed))
	}
	return u
}

// retriesLeft reports whether a failed execution may be retried: the
// job's configuration.retryAttempts, or the journey's when the job has
// none, counts the retries after the first attempt.
func retriesLeft(job Job, j Journey) bool {
	n := job.Configuration.RetryAttempts
	if n == 0 {
		n = j.Configuration.RetryAttempts
	}
	return job.ExecutionNumber <= n
}

// finishJob implements [Jobs.Finish].
func (s *Store) finishJob(ctx context.Context, ref JobRef, f Finish) (*Job, error) {
	return s.endJob(ctx, ref, f, false)
}

// errNotTimedOut: the job Recover was to fail is within its timeout.
var errNotTimedOut = errors.New("journey: job is within its timeout")

// endJob is Jobs.Finish, or with timeout set Recover's failure of a job
// past its deadline (errNotTimedOut when, as read, it is not), which takes
// the same accounting: the job failed (timedOut, the "timed out" message,
// ended now), its stage failed, the journey's failedJobs, time and
// progress, and the journey failed when no retry is left.
func (s *Store) endJob(ctx context.Context, ref JobRef, f Finish, timeout bool) (*Job, error) {
	key, err := s.jobKey(ref)
	if err != nil {
		return nil, err
	}
	if f.Status != JobCompleted && f.Status != JobFailed {
		return nil, inputError("Finish.Status", fmt.Sprintf("%q", f.Status), "must be completed or failed")
	}
	for attempt := 0; ; attempt++ {
		var jobRaw table.Item
		r, err := s.readJourney(ctx, ref.JourneyID, key, &jobRaw)
		if err != nil {
			if errors.Is(err, ErrJobNotFound) {
				return nil, notFound(ErrJobNotFound, ref.JobID, err)
			}
			return nil, err
		}
		job, err := decode(ctx, s.ents.jobs, jobRaw, jobItem.job)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(jobActive, job.Status) {
			return nil, &StatusError{Entity: "job", ID: ref.JobID, Op: "finish", Current: string(job.Status),
				Allowed: statusStrings(jobActive)}
		}
		if r.advance(ref.StageID, false).index < 0 {
			return nil, notFound(ErrStageNotFound, ref.JourneyID+"/"+ref.StageID, nil)
		}
		now := s.now()
		if timeout {
			n := timeoutOf(job, r.j)
			d := deadline(job.StartTime.Time, n)
			if !pastDeadline(d, now) {
				return nil, errNotTimedOut
			}
			f = Finish{Status: JobFailed, ErrorMessage: timedOutMessage(n, d)}
		}
		if now.Before(ref.StartedAt) {
			now = ref.StartedAt
		}
		duration := elapsed(ref.StartedAt, now)
		ts := expression.Value(stamp(now))
		ju := expression.Set(expression.Name("Data.status"), expression.Value(f.Status)).
			Set(expression.Name("Data.endTime"), expression.Value(Time{now})).
			Set(expression.Name("Data.duration"), expression.Value(duration)).
			Set(expression.Name(attrUpdatedAt), ts)
		job.Status, job.EndTime, job.Duration, job.UpdatedAt = f.Status, Time{now}, duration, Time{now}
		if f.Status == JobCompleted {
			ju = ju.Set(expression.Name("Data.progress"), expression.Value(100))
			job.Progress = 100
		}
		if f.Results != nil {
			ju = ju.Set(expression.Name("Data.results"), expression.Value(f.Results))
			job.Results = f.Results
		}
		if f.ErrorMessage != "" {
			ju = ju.Set(expression.Name("Data.errorMessage"), expression.Value(f.ErrorMessage))
			job.ErrorMessage = &f.ErrorMessage
		}
		if timeout {
			ju = ju.Set(expression.Name("Data.timedOut"), expression.Value(true))
			job.TimedOut = true
		}
		stageStatus, counter := StageCompleted, "Data.aggregates.completedJobs"
		if f.Status == JobFailed {
			stageStatus, counter = StageFailed, "Data.aggregates.failedJobs"
		}
		seconds := r.j.Aggregates.TotalExecutionSeconds + duration
		agg := expression.Add(expression.Name(counter), expression.Value(1)).
			Set(expression.Name("Data.aggregates.totalExecutionSeconds"), expression.Value(seconds)).
			Set(expression.Name("Data.aggregates.totalExecutionTime"), expression.Value(formatMinutes(seconds))).
			Set(expression.Name(attrUpdatedAt), ts)
		failing := f.Status == JobFailed && !retriesLeft(job, r.j)
		agg = r.journeyMove(agg, ref.StageID, f.Status == JobCompleted, failing)
		stageKey, _ := s.stageKey(ref.JourneyID, ref.Order, ref.StageID)
		journeyKey, _ := s.journeyKey(ref.JourneyID)
		err = s.t.WriteTx().
			Update(key, ju, table.IfExists(), table.If(statusIn("Data.status", jobActive...).
				And(expression.Name(attrUpdatedAt).Equal(expression.Value(stringAttr(jobRaw, attrUpdatedAt))))), table.ItemOnConditionFailure()).
			Update(stageKey, expression.Set(expression.Name("Data.status"), expression.Value(stageStatus)).
				Set(expression.Name(attrUpdatedAt), ts), table.IfExists()).
			Update(journeyKey, agg, table.IfExists(), table.If(r.countsUnchanged()), table.ItemOnConditionFailure()).
			Run(ctx)
		if err == nil {
			return &job, nil
		}
		switch failedAction(err) {
		case 0:
			item := reasonItem(err, 0)
			if len(item) == 0 {
				return nil, notFound(ErrJobNotFound, ref.JobID, err)
			}
			if !slices.Contains(statusStrings(jobActive), dataStatus(item)) {
				return nil, &StatusError{Entity: "job", ID: ref.JobID, Op: "finish", Current: dataStatus(item),
					Allowed: statusStrings(jobActive), Cause: err}
			}
		case 1:
			return nil, notFound(ErrStageNotFound, ref.JourneyID+"/"+ref.StageID, err)
		case 2:
			item := reasonItem(err, 2)
			if len(item) == 0 || claimed(item) {
				return nil, metadataRefused(ref.JourneyID, err, 2)
			}
		default:
			return nil, err
		}
		// The job or the journey changed since the read: read again.
		if attempt+1 >= raceAttempts {
			return nil, err
		}
		if err := s.lostRace(ctx, "Jobs.Finish", ref.JobID, attempt); err != nil {
			return nil, err
		}
	}
}

// skipStage implements [Stages.Skip].
func (s *Store) skipStage(ctx context.Context, journeyID, stageID string) (*Stage, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	if err := checkID("stageId", stageID); err != nil {
		return nil, err
	}
	from := []StageStatus{StagePending, StageFailed}
	for attempt := 0; ; attempt++ {
		r, err := s.readJourney(ctx, journeyID, nil, nil)
		if err != nil {
			return nil, err
		}
		i := r.advance(stageID, false).index
		if i < 0 {
			return nil, notFound(ErrStageNotFound, journeyID+"/"+stageID, nil)
		}
		st := r.stages[i]
		if !st.CanSkip {
			return nil, fmt.Errorf("%w: %s/%s", ErrStageNotSkippable, journeyID, stageID)
		}
		if !slices.Contains(from, st.Status) {
			return nil, &StatusError{Entity: "stage", ID: stageID, Op: "skip", Current: string(st.Status), Allowed: statusStrings(from)}
		}
		now := s.now()
		ts := expression.Value(stamp(now))
		stageKey, _ := s.stageKey(journeyID, st.Order, stageID)
		journeyKey, _ := s.journeyKey(journeyID)
		agg := r.journeyMove(expression.Set(expression.Name(attrUpdatedAt), ts), stageID, true, false)
		err = s.t.WriteTx().
			Update(stageKey, expression.Set(expression.Name("Data.status"), expression.Value(StageSkipped)).
				Set(expression.Name(attrUpdatedAt), ts), table.IfExists(), table.If(statusIn("Data.status", from...))).
			Update(journeyKey, agg, table.IfExists(), table.If(r.countsUnchanged()), table.ItemOnConditionFailure()).
			Run(ctx)
		if err == nil {
			st.Status, st.UpdatedAt = StageSkipped, Time{now}
			return &st, nil
		}
		switch failedAction(err) {
		case 0, 1: // the stage moved (a job started) or the journey changed
			if item := reasonItem(err, 1); failedAction(err) == 1 && (len(item) == 0 || claimed(item)) {
				return nil, metadataRefused(journeyID, err, 1)
			}
		default:
			return nil, err
		}
		if attempt+1 >= raceAttempts {
			return nil, err
		}
		if err := s.lostRace(ctx, "Stages.Skip", journeyID+"/"+stageID, attempt); err != nil {
			return nil, err
		}
	}
}
