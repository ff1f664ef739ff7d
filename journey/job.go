package journey

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Job keys (declared in declare).
const (
	// SK "JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z": a stage's
	// executions sort by execution number, so the latest is the last.
	jobSortKey = "JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}"
	// GSI1SK "2025-11-01T20:30:00.000000Z": the job's start, under GSI1PK
	// JOB#{jobId} (jobIndexPartition), shared with the job's log entries.
	jobIndexSort = "{startedAt:time}"
)

// jobSK tells a job's sort key (backups, patterns).
var jobSK = keys.MustSort(jobSortKey)

// JobStatus is a job execution's state.
type JobStatus string

// The seed's job statuses.
const (
	JobPending   JobStatus = "pending"
	JobRunning   JobStatus = "running"
	JobCompleted JobStatus = "completed"
	JobFailed    JobStatus = "failed"
	JobCancelled JobStatus = "cancelled"
)

// StepStatus is a step's state within a job.
type StepStatus string

// Step statuses.
const (
	StepPending   StepStatus = "pending"
	StepRunning   StepStatus = "running"
	StepCompleted StepStatus = "completed"
	StepFailed    StepStatus = "failed"
	StepSkipped   StepStatus = "skipped"
)

func (s StepStatus) valid() bool {
	switch s {
	case StepPending, StepRunning, StepCompleted, StepFailed, StepSkipped:
		return true
	}
	return false
}

// JobConfiguration is the part of the journey's configuration a job runs with.
type JobConfiguration struct {
	Timeout               int  `dynamodbav:"timeout" json:"timeout"`
	RetryAttempts         int  `dynamodbav:"retryAttempts" json:"retryAttempts"`
	EnableDetailedLogging bool `dynamodbav:"enableDetailedLogging" json:"enableDetailedLogging"`
}

// JobMetrics are a job's log counts per level; step loggers ADD to them.
type JobMetrics struct {
	TotalLogs    int `dynamodbav:"totalLogs" json:"totalLogs"`
	ErrorCount   int `dynamodbav:"errorCount" json:"errorCount"`
	WarningCount int `dynamodbav:"warningCount" json:"warningCount"`
	InfoCount    int `dynamodbav:"infoCount" json:"infoCount"`
	DebugCount   int `dynamodbav:"debugCount" json:"debugCount"`
}

// StepExecution is one step's progress within a job.
type StepExecution struct {
	StepID    string     `dynamodbav:"stepId" json:"stepId"`
	Status    StepStatus `dynamodbav:"status" json:"status"`
	StartTime Time       `dynamodbav:"startTime" json:"startTime"`
	EndTime   Time       `dynamodbav:"endTime" json:"endTime"`
	Duration  float64    `dynamodbav:"duration" json:"duration"` // seconds
}

// S3Config names the buckets of a job's files (the seed's job-start record).
type S3Config struct {
	LogsBucket    string `dynamodbav:"logsBucket" json:"logsBucket"`
	ReportsBucket string `dynamodbav:"reportsBucket" json:"reportsBucket"`
}

// Job is one execution of a stage (SK JOB#{order}#{stageId}#{execution}#{startedAt}).
type Job struct {
	JobID           string             `dynamodbav:"jobId" json:"jobId"`
	JourneyID       string             `dynamodbav:"journeyId" json:"journeyId"`
	StageID         string             `dynamodbav:"stageId" json:"stageId"`
	Status          JobStatus          `dynamodbav:"status" json:"status"`
	Progress        int                `dynamodbav:"progress" json:"progress"`
	CurrentStep     string             `dynamodbav:"currentStep" json:"currentStep"`
	StartTime       Time               `dynamodbav:"startTime" json:"startTime"`
	EndTime         Time               `dynamodbav:"endTime" json:"endTime"`
	Duration        float64            `dynamodbav:"duration" json:"duration"` // seconds
	TriggeredBy     string             `dynamodbav:"triggeredBy" json:"triggeredBy"`
	ExecutionNumber int                `dynamodbav:"executionNumber" json:"executionNumber"`
	Configuration   JobConfiguration   `dynamodbav:"configuration" json:"configuration"`
	Results         map[string]float64 `dynamodbav:"results" json:"results"`
	Metrics         JobMetrics         `dynamodbav:"metrics" json:"metrics"`
	ErrorMessage    *string            `dynamodbav:"errorMessage" json:"errorMessage"`
	Steps           []StepExecution    `dynamodbav:"steps" json:"steps"`
	S3Config        *S3Config          `dynamodbav:"s3Config,omitempty" json:"s3Config,omitempty"`
	// TimedOut marks a job failed for running past its
	// configuration.timeout (by Jobs.Start of its stage or Jobs.Recover),
	// not by its worker; a field the seed does not have.
	TimedOut bool `dynamodbav:"timedOut,omitempty" json:"timedOut,omitempty"`

	// Order is the stage's order (from the key).
	Order     int  `dynamodbav:"-" json:"order"`
	CreatedAt Time `dynamodbav:"-" json:"createdAt"`
	UpdatedAt Time `dynamodbav:"-" json:"updatedAt"`
}

// JobRef is what identifies a job's item: its sort key holds the stage's
// order, the execution number and the start time.
//
// Its JSON names are the job's, so a Job's JSON decodes as its JobRef.
type JobRef struct {
	JourneyID string    `json:"journeyId"`
	StageID   string    `json:"stageId"`
	Order     int       `json:"order"`
	Execution int       `json:"executionNumber"`
	StartedAt time.Time `json:"startTime"`
	JobID     string    `json:"jobId"`
}

// Deadline is when the job has run past its configuration.timeout
// (StartTime plus Timeout seconds); the zero time when it has none. A
// running job past its deadline no longer blocks its stage.
func (j Job) Deadline() time.Time { return deadline(j.StartTime.Time, j.Configuration.Timeout) }

// Ref returns the job's reference.
func (j Job) Ref() JobRef {
	return JobRef{JourneyID: j.JourneyID, StageID: j.StageID, Order: j.Order, Execution: j.ExecutionNumber,
		StartedAt: j.StartTime.Time, JobID: j.JobID}
}

func (r JobRef) check() error {
	if err := checkID("JobRef.JourneyID", r.JourneyID); err != nil {
		return err
	}
	if err := checkID("JobRef.StageID", r.StageID); err != nil {
		return err
	}
	if err := checkID("JobRef.JobID", r.JobID); err != nil {
		return err
	}
	if r.StartedAt.IsZero() {
		return inputError("JobRef.StartedAt", "zero", "the job's start time is part of its key")
	}
	if _, err := jobSK.Build(r.Order, r.StageID, r.Execution, r.StartedAt); err != nil {
		return inputError("JobRef", fmt.Sprintf("%+v", r), err.Error())
	}
	return nil
}

func (s *Store) jobKey(r JobRef) (table.Key, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return s.ents.jobs.Key(jobItem{JourneyID: r.JourneyID, Order: r.Order, StageID: r.StageID, Execution: r.Execution,
		StartedAt: r.StartedAt})
}

// jobItem is a job execution as stored (declare): the job is Data, and
// its key parts, kept in the keys only, are copies of the job's fields.
type jobItem struct {
	JourneyID string    `dynamodbav:"journeyId"`
	Order     int       `dynamodbav:"order"`
	StageID   string    `dynamodbav:"stageId"`
	Execution int       `dynamodbav:"execution"`
	StartedAt time.Time `dynamodbav:"startedAt"`
	JobID     string    `dynamodbav:"jobId"`
	CreatedAt string    `dynamodbav:"CreatedAt"`
	UpdatedAt string    `dynamodbav:"UpdatedAt,omitempty"`
	Data      Job       `dynamodbav:"Data"`
}

func jobItemOf(j Job) jobItem {
	return jobItem{JourneyID: j.JourneyID, Order: j.Order, StageID: j.StageID, Execution: j.ExecutionNumber,
		StartedAt: j.StartTime.Time, JobID: j.JobID, CreatedAt: j.CreatedAt.String(), UpdatedAt: j.UpdatedAt.String(), Data: j}
}

// job is the stored job: the order from the key, and the ids the seed
// keeps in Data taken from the key where Data lacks them.
func (it jobItem) job() (Job, error) {
	j := it.Data
	j.Order = it.Order
	if j.JourneyID == "" {
		j.JourneyID = it.JourneyID
	}
	if j.StageID == "" {
		j.StageID = it.StageID
	}
	if j.ExecutionNumber == 0 {
		j.ExecutionNumber = it.Execution
	}
	if j.StartTime.IsZero() {
		j.StartTime = Time{it.StartedAt}
	}
	if err := j.CreatedAt.parse(it.CreatedAt); err != nil {
		return j, err
	}
	return j, j.UpdatedAt.parse(it.UpdatedAt)
}

// jobFromItem decodes a job's item without a store (a change's image).
func jobFromItem(item table.Item) (Job, error) {
	return decodeOffline(item, func(e entities) *entity.Entity[jobItem] { return e.jobs }, jobItem.job)
}

// reasonItem is the current item a canceled transaction returned for
// action i (nil when none).
func reasonItem(err error, i int) table.Item {
	var txe *table.TxError
	if errors.As(err, &txe) {
		for _, r := range txe.Reasons {
			if r.Index == i {
				return r.Item
			}
		}
	}
	return nil
}

// metadataRefused is the error of a canceled transaction whose action i,
// a write of the journey's METADATA item conditional on the item existing
// and being the journey's own (journeyOwn), failed: ErrJourneyNotFound,
// ErrImportInProgress or, while Journeys.Delete removes it,
// ErrDeleteInProgress.
func metadataRefused(journeyID string, err error, i int) error {
	if item := reasonItem(err, i); claimed(item) {
		return claimedError(journeyID, item, err)
	}
	return notFound(ErrJourneyNotFound, journeyID, err)
}

// journeyTxError is journeyWriteError for the METADATA update at action
// index i of a canceled transaction.
func (s *Store) journeyTxError(id, op string, allowed []Status, err error, i int) error {
	var txe *table.TxError
	if errors.As(err, &txe) {
		for _, r := range txe.Reasons {
			if r.Index != i {
				continue
			}
			if len(r.Item) == 0 {
				return notFound(ErrJourneyNotFound, id, err)
			}
			if claimed(r.Item) {
				return claimedError(id, r.Item, err)
			}
			return &StatusError{Entity: "journey", ID: id, Op: op, Current: dataStatus(r.Item),
				Allowed: statusStrings(allowed), Cause: err}
		}
	}
	return err
}

// getJob implements [Jobs.Get].
func (s *Store) getJob(ctx context.Context, ref JobRef, opts ...func(*ReadOptions)) (*Job, error) {
	if err := ref.check(); err != nil {
		return nil, err
	}
	it, err := get(ctx, s.ents.jobs, jobItem{JourneyID: ref.JourneyID, Order: ref.Order, StageID: ref.StageID,
		Execution: ref.Execution, StartedAt: ref.StartedAt}, opts, ErrJobNotFound, ref.JobID)
	if err != nil {
		return nil, err
	}
	j, err := it.job()
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// findJob implements [Jobs.Find].
func (s *Store) findJob(ctx context.Context, jobID string) (*Job, error) {
	if err := checkID("jobId", jobID); err != nil {
		return nil, err
	}
	it, ok, err := firstOf(s.ents.jobs.Items(ctx, jobItem{JobID: jobID}, entity.ByIndex(IndexGSI1), entity.Limit(1)))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFound(ErrJobNotFound, jobID, nil)
	}
	j, err := it.job()
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// stageJobs is the sort condition of one stage's executions:
// begins_with(SK, "JOB#{order}#{stageId}#"). The seed filters on
// Data.stageId instead, which reads every job of the journey.
func stageJobs(order int, stageID string) func(*entity.ListOptions) {
	return entity.SortBeginsWith(order, stageID)
}

// latestJob is the stage's execution with the highest number (nil when
// none): one descending, consistent Query with Limit 1.
func (s *Store) latestJob(ctx context.Context, journeyID string, order int, stageID string) (*Job, error) {
	it, ok, err := firstOf(s.ents.jobs.Items(ctx, jobItem{JourneyID: journeyID}, stageJobs(order, stageID),
		entity.Descending(), entity.Limit(1), entity.Consistent()))
	if err != nil || !ok {
		return nil, err
	}
	j, err := it.job()
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// firstOf returns the first item of seq, reading no further.
func firstOf[T any](seq iter.Seq2[T, error]) (T, bool, error) {
	for v, err := range seq {
		return v, err == nil, err
	}
	var zero T
	return zero, false, nil
}

// listJobs implements [Jobs.List]. Its key condition is
// begins_with(SK, "JOB#"), or "JOB#{order}#{stageId}#" for one stage (the
// stage list is read first to learn the stage's order): the log summaries
// (LOG#...) and every other item of the partition are outside it, so the
// listing reads only job items.
func (s *Store) listJobs(ctx context.Context, journeyID, cursor string, o ListOptions) (table.Page[Job], error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return table.Page[Job]{}, err
	}
	opts := entityList("", o)
	if o.StageID != "" {
		st, _, err := s.stage(ctx, journeyID, o.StageID)
		if err != nil {
			return table.Page[Job]{}, err
		}
		opts = append(opts, stageJobs(st.Order, st.StageID))
	}
	page, err := s.ents.jobs.List(ctx, jobItem{JourneyID: journeyID}, cursor, opts...)
	if err != nil {
		return table.Page[Job]{}, err
	}
	return pageOf(page, jobItem.job)
}

// latestExecution implements [Jobs.Latest].
func (s *Store) latestExecution(ctx context.Context, journeyID, stageID string) (*Job, error) {
	if err := checkID("journeyId", journeyID); err != nil {
		return nil, err
	}
	if err := checkID("stageId", stageID); err != nil {
		return nil, err
	}
	st, _, err := s.stage(ctx, journeyID, stageID)
	if err != nil {
		return nil, err
	}
	j, err := s.latestJob(ctx, journeyID, st.Order, stageID)
	if err != nil {
		return nil, err
	}
	if j == nil {
		return nil, notFound(ErrJobNotFound, "no execution of "+journeyID+"/"+stageID, nil)
	}
	return j, nil
}

// jobActive is the condition for changing a job that has not finished.
var jobActive = []JobStatus{JobPending, JobRunning}

// jobWriteError turns a refused conditional write on a job into
// ErrJobNotFound or a *StatusError.
func jobWriteError(ref JobRef, op string, err error, item table.Item) error {
	if errors.Is(err, table.ErrNotFound) {
		return notFound(ErrJobNotFound, ref.JobID, err)
	}
	if errors.Is(err, table.ErrConditionFailed) {
		return &StatusError{Entity: "job", ID: ref.JobID, Op: op, Current: dataStatus(item),
			Allowed: statusStrings(jobActive), Cause: err}
	}
	return err
}

func tableErrorItem(err error) table.Item {
	var te *table.Error
	if errors.As(err, &te) {
		return te.Item
	}
	return nil
}

// updateJobProgress implements [Jobs.SetProgress].
func (s *Store) updateJobProgress(ctx context.Context, ref JobRef, progress int, step string) (*Job, error) {
	key, err := s.jobKey(ref)
	if err != nil {
		return nil, err
	}
	if progress < 0 || progress > 100 {
		return nil, inputError("progress", progress, "must be between 0 and 100")
	}
	u := expression.Set(expression.Name("Data.progress"), expression.Value(progress)).
		Set(expression.Name("Data.status"), expression.Value(JobRunning)).
		Set(expression.Name(attrUpdatedAt), expression.Value(stamp(s.now())))
	if step != "" {
		if err := checkID("step", step); err != nil {
			return nil, err
		}
		u = u.Set(expression.Name("Data.currentStep"), expression.Value(step))
	}
	var item table.Item
	err = s.t.Update(ctx, key, u, table.IfExists(), table.If(statusIn("Data.status", jobActive...)),
		table.ItemOnConditionFailure(), table.ReturnNew(&item))
	if err != nil {
		return nil, jobWriteError(ref, "update progress of", err, tableErrorItem(err))
	}
	j, err := decode(ctx, s.ents.jobs, item, jobItem.job)
	return &j, err
}

// setStepStatus implements [Jobs.SetStepStatus].
func (s *Store) setStepStatus(ctx context.Context, ref JobRef, stepID string, status StepStatus) (*Job, error) {
	key, err := s.jobKey(ref)
	if err != nil {
		return nil, err
	}
	if err := checkID("stepId", stepID); err != nil {
		return nil, err
	}
	if !status.valid() {
		return nil, inputError("status", fmt.Sprintf("%q", status), "must be pending, running, completed, failed or skipped")
	}
	for attempt := 0; ; attempt++ {
		j, err := s.getJob(ctx, ref, Consistent())
		if err != nil {
			return nil, err
		}
		if j.Status != JobPending && j.Status != JobRunning {
			return nil, &StatusError{Entity: "job", ID: ref.JobID, Op: "set a step of", Current: string(j.Status),
				Allowed: statusStrings(jobActive)}
		}
		now := s.now()
		i := -1
		for k, st := range j.Steps {
			if st.StepID == stepID {
				i = k
			}
		}
		step := StepExecution{StepID: stepID}
		if i >= 0 {
			step = j.Steps[i]
		}
		step.Status = status
		switch status {
		case StepRunning:
			step.StartTime, step.EndTime, step.Duration = Time{now}, Time{}, 0
		case StepCompleted, StepFailed, StepSkipped:
			if step.StartTime.IsZero() {
				step.StartTime = Time{now}
			}
			step.EndTime, step.Duration = Time{now}, elapsed(step.StartTime.Time, now)
		}
		ts := expression.Value(stamp(now))
		var u expression.UpdateBuilder
		var cond expression.ConditionBuilder
		steps := expression.Name("Data.steps")
		if i >= 0 {
			path := fmt.Sprintf("Data.steps[%d]", i)
			u = expression.Set(expression.Name(path), expression.Value(step))
			cond = expression.Name(path + ".stepId").Equal(expression.Value(stepID))
		} else {
			u = expression.Set(steps, expression.ListAppend(expression.IfNotExists(steps, expression.Value([]StepExecution{})),
				expression.Value([]StepExecution{step})))
			cond = expression.Size(steps).Equal(expression.Value(len(j.Steps))).Or(expression.AttributeNotExists(steps))
		}
		if status == StepRunning {
			u = u.Set(expression.Name("Data.currentStep"), expression.Value(stepID))
		}
		u = u.Set(expression.Name(attrUpdatedAt), ts)
		var item table.Item
		err = s.t.Update(ctx, key, u, table.IfExists(),
			table.If(statusIn("Data.status", jobActive...).And(cond)), table.ReturnNew(&item))
		if err == nil {
			out, err := decode(ctx, s.ents.jobs, item, jobItem.job)
			return &out, err
		}
		if errors.Is(err, table.ErrConditionFailed) && !errors.Is(err, table.ErrNotFound) && attempt+1 < raceAttempts {
			if err := s.lostRace(ctx, "Jobs.SetStepStatus", ref.JobID, attempt); err != nil {
				return nil, err
			}
			continue // the job changed since we read it; look again
		}
		return nil, jobWriteError(ref, "set a step of", err, tableErrorItem(err))
	}
}

// allJobs walks every page of listJobs.
func (s *Store) allJobs(ctx context.Context, journeyID string, o ListOptions) iter.Seq2[Job, error] {
	return table.Walk(func(cursor string) (table.Page[Job], error) { return s.listJobs(ctx, journeyID, cursor, o) })
}
