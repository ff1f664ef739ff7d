package journey

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
)

// NewJob is what Jobs.Start needs.
type NewJob struct {
	JourneyID string
	StageID   string
	// JobID is the job's id; a new "JOB-..." id when "".
	JobID string
	// TriggeredBy is who started the job ("user" when "").
	TriggeredBy string
	// Configuration is what the job runs with. A Timeout or RetryAttempts
	// of 0 takes the journey's (configuration.timeout and retryAttempts),
	// and EnableDetailedLogging is on when the job's or the journey's is,
	// so a job runs with the journey's configuration unless told otherwise
	// (the seed's job record repeats the journey's values). A job whose
	// journey has no timeout either takes Options.JobTimeout (the seed's
	// 1800 s by default). Negative values are refused.
	Configuration JobConfiguration
}

// maxExecution is the largest {execution:03d}.
const maxExecution = 999

// stageStartable are the stage statuses a job can start from: a stage runs
// at most one execution at a time, and a retry follows a failure.
var stageStartable = []StageStatus{StagePending, StageFailed, StageCancelled}

// journeyStartable are the journey statuses a job can start in.
var journeyStartable = []Status{StatusPending, StatusRunning}

// StageJob is what a stage item keeps of the execution Jobs.Start created
// last (Stage.LastJob, a field the seed does not have): enough to name the
// job's item without a query, and to tell when it has run past its
// timeout. Jobs.Start writes it in the same transaction as the job.
type StageJob struct {
	JobID           string `dynamodbav:"jobId" json:"jobId"`
	ExecutionNumber int    `dynamodbav:"executionNumber" json:"executionNumber"`
	StartTime       Time   `dynamodbav:"startTime" json:"startTime"`
	// Timeout is the job's configuration.timeout in seconds; 0 is none.
	Timeout int `dynamodbav:"timeout" json:"timeout"`
}

// deadline is when a job started at start with a timeout of seconds has
// run too long; the zero time when it has no timeout.
func deadline(start time.Time, seconds int) time.Time {
	if seconds <= 0 || start.IsZero() {
		return time.Time{}
	}
	return start.Add(time.Duration(seconds) * time.Second)
}

// pastDeadline reports whether a job that must end by d (zero: never) has
// run too long at now.
func pastDeadline(d, now time.Time) bool { return !d.IsZero() && !now.Before(d) }

// jobConfiguration is the configuration a new job runs with: the caller's,
// with the journey's where the caller left a value at zero, and the
// store's Options.JobTimeout when neither has a timeout.
func (s *Store) jobConfiguration(c JobConfiguration, j Configuration) JobConfiguration {
	c.Timeout = s.timeout(c.Timeout, j.Timeout)
	if c.RetryAttempts == 0 {
		c.RetryAttempts = j.RetryAttempts
	}
	c.EnableDetailedLogging = c.EnableDetailedLogging || j.EnableDetailedLogging
	return c
}

// checkStageOrder refuses to start stages[i] while an earlier stage is
// neither completed nor skipped: the seed's stages "run in order 1, 2,
// 3". Done is final for a stage (Jobs.Start refuses a done stage, Skip
// moves only pending and failed ones, and Finish and Cancel move only a
// stage whose job is still active), so what was read stays true and the
// transaction needs no condition on the earlier stages.
func checkStageOrder(stages []Stage, i int) error {
	for _, e := range stages[:i] {
		if !stageDone(e.Status) {
			return &StatusError{Entity: "stage", ID: e.StageID, Op: fmt.Sprintf("start stage %q before", stages[i].StageID),
				Current: string(e.Status), Allowed: statusStrings([]StageStatus{StageCompleted, StageSkipped}), Cause: ErrStageOrder}
		}
	}
	return nil
}

// timedOutMessage is the errorMessage of a job failed for running past
// its timeout.
func timedOutMessage(timeout int, d time.Time) string {
	return fmt.Sprintf("timed out: still running at %s, past its configuration.timeout of %d s", At(d), timeout)
}

// startJob implements [Jobs.Start]: two round trips, the stages and the
// journey read side by side, then one transaction. A stage item written
// without lastJob (by an earlier version, or another writer) costs one
// more Query, for its latest execution.
func (s *Store) startJob(ctx context.Context, in NewJob) (*Job, error) {
	if err := checkID("NewJob.JourneyID", in.JourneyID); err != nil {
		return nil, err
	}
	if err := checkID("NewJob.StageID", in.StageID); err != nil {
		return nil, err
	}
	if in.JobID != "" {
		if err := checkID("NewJob.JobID", in.JobID); err != nil {
			return nil, err
		}
	} else {
		id, err := s.newID("JOB")
		if err != nil {
			return nil, err
		}
		in.JobID = id
	}
	if in.Configuration.Timeout < 0 || in.Configuration.RetryAttempts < 0 {
		return nil, inputError("NewJob.Configuration", fmt.Sprintf("%+v", in.Configuration), "must not be negative")
	}
	if in.TriggeredBy == "" {
		in.TriggeredBy = "user"
	}
	for attempt := 0; ; attempt++ {
		r, err := s.readJourney(ctx, in.JourneyID, nil, nil)
		if err != nil {
			if errors.Is(err, ErrJourneyNotFound) {
				return nil, notFound(ErrStageNotFound, in.JourneyID+"/"+in.StageID, err)
			}
			return nil, err
		}
		i := r.advance(in.StageID, false).index
		if i < 0 {
			return nil, notFound(ErrStageNotFound, in.JourneyID+"/"+in.StageID, nil)
		}
		st := r.stages[i]
		if !slices.Contains(journeyStartable, r.j.Status) {
			return nil, &StatusError{Entity: "journey", ID: in.JourneyID, Op: "start a job of", Current: string(r.j.Status),
				Allowed: statusStrings(journeyStartable)}
		}
		if stageDone(st.Status) {
			return nil, &StatusError{Entity: "stage", ID: in.StageID, Op: "start a job of", Current: string(st.Status),
				Allowed: statusStrings(stageStartable)}
		}
		if !s.opts.StagesInAnyOrder {
			if err := checkStageOrder(r.stages, i); err != nil {
				return nil, err
			}
		}
		prev, err := s.previousJob(ctx, r.j, st)
		if err != nil {
			return nil, err
		}
		now := s.now()
		var expire *Job // the active execution past its timeout, failed by this start
		if prev.active {
			if !pastDeadline(prev.deadline, now) {
				return nil, &StatusError{Entity: "stage", ID: in.StageID, Op: "start a job of", Current: string(StageRunning),
					Allowed: statusStrings(stageStartable)}
			}
			expire = &prev.job
		}
		n := max(st.LastExecution, prev.job.ExecutionNumber) + 1
		if n > maxExecution {
			return nil, inputError("NewJob.StageID", in.StageID, fmt.Sprintf("the stage already has %d executions, the most JOB#...#{execution:03d} holds", maxExecution))
		}
		if !prev.job.StartTime.IsZero() && !now.After(prev.job.StartTime.Time) {
			// Keep sort keys and GSI1SK in start order even if clocks
			// disagree: one microsecond after the previous attempt.
			now = prev.job.StartTime.Add(time.Microsecond)
		}
		steps := make([]StepExecution, len(st.Steps))
		for k, d := range st.Steps {
			steps[k] = StepExecution{StepID: d.StepID, Status: StepPending}
		}
		j := Job{JobID: in.JobID, JourneyID: in.JourneyID, StageID: in.StageID, Status: JobRunning,
			StartTime: Time{now}, TriggeredBy: in.TriggeredBy, ExecutionNumber: n,
			Configuration: s.jobConfiguration(in.Configuration, r.j.Configuration),
			Results:       map[string]float64{}, Steps: steps,
			S3Config: &S3Config{LogsBucket: s.opts.LogsBucket, ReportsBucket: s.opts.ReportsBucket},
			Order:    st.Order, CreatedAt: Time{now}, UpdatedAt: Time{now}}
		stageKey, _ := s.stageKey(in.JourneyID, st.Order, st.StageID)
		journeyKey, _ := s.journeyKey(in.JourneyID)
		counter := expression.Name("Data.lastExecution")
		lastJob := expression.Name("Data.lastJob")
		ts := expression.Value(stamp(now))
		// No other start took this number. The stage moves from a
		// startable status; or, when this start fails the execution that
		// timed out, from whatever it is while that job is still active:
		// the job's own condition (its last action) says so, and a stage
		// is running exactly while its last job is active.
		stageCond := expression.AttributeNotExists(counter).Or(counter.LessThan(expression.Value(n)))
		if expire == nil {
			stageCond = stageCond.And(statusIn("Data.status", stageStartable...).Or(expression.AttributeNotExists(expression.Name("Data.status"))))
		}
		ju := expression.Add(expression.Name("Data.aggregates.totalJobs"), expression.Value(1)).
			Set(expression.Name("Data.status"), expression.Value(StatusRunning)).
			Set(expression.Name("Data.currentStageId"), expression.Value(st.StageID)).
			Set(expression.Name("Data.currentStageIndex"), expression.Value(st.Order-1)).
			Set(expression.Name("Data.currentJobs."+st.StageID), expression.Value(in.JobID)).
			Set(expression.Name(attrUpdatedAt), ts)
		var failed Job
		if expire != nil {
			failed = timedOut(*expire, prev.timeout, prev.deadline, now)
			ju = ju.Add(expression.Name("Data.aggregates.failedJobs"), expression.Value(1)).
				Add(expression.Name("Data.aggregates.totalExecutionSeconds"), expression.Value(failed.Duration))
		}
		tx := s.t.WriteTx().
			Update(stageKey, expression.Set(counter, expression.Value(n)).
				Set(expression.Name("Data.status"), expression.Value(StageRunning)).
				Set(lastJob, expression.Value(StageJob{JobID: j.JobID, ExecutionNumber: n, StartTime: j.StartTime, Timeout: j.Configuration.Timeout})).
				Set(expression.Name(attrUpdatedAt), ts),
				table.IfExists(), table.If(stageCond))
		if err := s.ents.jobs.TxCreate(jobItemOf(j)).AddTo(ctx, tx); err != nil {
			return nil, err
		}
		tx.Update(journeyKey, ju, table.IfExists(), table.If(statusIn("Data.status", journeyStartable...).And(journeyOwn())), table.ItemOnConditionFailure())
		if expire != nil {
			key, err := s.jobKey(expire.Ref())
			if err != nil {
				return nil, err
			}
			tx.Update(key, timedOutUpdate(failed), table.IfExists(), table.If(statusIn("Data.status", jobActive...)))
		}
		err = tx.Run(ctx)
		if err == nil {
			if expire != nil {
				s.log(ctx, "failed a job past its timeout", "journeyId", in.JourneyID, "stageId", in.StageID,
					"jobId", expire.JobID, "timeout", prev.timeout, "startedBy", j.JobID)
			}
			return &j, nil
		}
		switch failedAction(err) {
		case 0, 3: // another start took the number, the stage moved (Stages.Move), or the timed-out job ended since the read
			// The next read finds the stage where it went, or not at all.
		case 1:
			if !errors.Is(err, table.ErrAlreadyExists) {
				return nil, err
			}
		case 2:
			return nil, s.journeyTxError(in.JourneyID, "start a job of", journeyStartable, err, 2)
		default:
			return nil, err
		}
		if attempt+1 >= raceAttempts {
			return nil, err
		}
		if err := s.lostRace(ctx, "Jobs.Start", in.JourneyID+"/"+in.StageID, attempt); err != nil {
			return nil, err
		}
	}
}

// previous is a stage's latest execution as Jobs.Start sees it.
type previous struct {
	job Job // zero when the stage has none
	// active: the job is pending or running.
	active bool
	// timeout (seconds) and deadline (zero: none) of an active job.
	timeout  int
	deadline time.Time
}

// previousJob is the stage's latest execution: from the stage's lastJob
// when Jobs.Start wrote one (the stage is running exactly while that job
// is active: Start, Finish and Cancel move both in one transaction), none
// for a pending stage that never handed out an execution number, else
// from a Query of the stage's latest job item.
func (s *Store) previousJob(ctx context.Context, j Journey, st Stage) (previous, error) {
	var p previous
	if lj := st.LastJob; lj != nil {
		p.job = Job{JobID: lj.JobID, JourneyID: st.JourneyID, StageID: st.StageID, Order: st.Order,
			ExecutionNumber: lj.ExecutionNumber, StartTime: lj.StartTime, Status: JobCompleted,
			Configuration: JobConfiguration{Timeout: lj.Timeout}}
		if st.Status == StageRunning {
			p.job.Status = JobRunning
		}
	} else if st.LastExecution > 0 || (st.Status != StagePending && st.Status != "") {
		// Written without lastJob (by an earlier version, or another
		// writer): the latest job item tells. A pending stage that never
		// handed out a number has no execution to look for.
		latest, err := s.latestJob(ctx, st.JourneyID, st.Order, st.StageID)
		if err != nil || latest == nil {
			return p, err
		}
		p.job = *latest
	}
	if slices.Contains(jobActive, p.job.Status) {
		p.active = true
		p.timeout = timeoutOf(p.job, j)
		p.deadline = deadline(p.job.StartTime.Time, p.timeout)
	}
	return p, nil
}

// timeoutOf is a job's timeout in seconds: its configuration's, else the
// journey's (jobs started before jobs copied it), 0 for none.
func timeoutOf(job Job, j Journey) int {
	if job.Configuration.Timeout > 0 {
		return job.Configuration.Timeout
	}
	return j.Configuration.Timeout
}

// timedOut is job as it is once failed at now for running past its
// deadline d.
func timedOut(job Job, timeout int, d, now time.Time) Job {
	end := now
	if end.Before(job.StartTime.Time) {
		end = job.StartTime.Time
	}
	msg := timedOutMessage(timeout, d)
	job.Status, job.EndTime, job.Duration, job.UpdatedAt = JobFailed, Time{end}, elapsed(job.StartTime.Time, end), Time{now}
	job.ErrorMessage, job.TimedOut = &msg, true
	return job
}

// timedOutUpdate writes what timedOut changed.
func timedOutUpdate(job Job) expression.UpdateBuilder {
	return expression.Set(expression.Name("Data.status"), expression.Value(job.Status)).
		Set(expression.Name("Data.endTime"), expression.Value(job.EndTime)).
		Set(expression.Name("Data.duration"), expression.Value(job.Duration)).
		Set(expression.Name("Data.errorMessage"), expression.Value(*job.ErrorMessage)).
		Set(expression.Name("Data.timedOut"), expression.Value(true)).
		Set(expression.Name(attrUpdatedAt), expression.Value(job.UpdatedAt.String()))
}
