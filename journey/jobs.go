package journey

import (
	"context"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// Jobs is the handle of job executions: starting and finishing them,
// their progress and steps, and listing a journey's or a stage's jobs.
type Jobs struct{ s *Store }

// Jobs returns the store's handle of job executions.
func (s *Store) Jobs() *Jobs { return &Jobs{s: s} }

// ready refuses a nil handle, the handle of a Store NewStore did not make
// and a nil context, before any request.
func (h *Jobs) ready(ctx context.Context) error {
	if h == nil {
		return ErrNoStore
	}
	return h.s.ready(ctx)
}

// Start creates a running execution of a stage with the stage's next
// execution number, in one transaction that also marks the stage running,
// moves the journey to running (it must be pending or running: a paused,
// cancelled, failed or finished journey gets a *StatusError), makes the job
// the stage's current job and ADDs 1 to totalJobs.
//
// Stages run in order: while an earlier stage is neither completed nor
// skipped, Start returns a *StatusError naming that stage, whose Cause is
// ErrStageOrder (Options.StagesInAnyOrder lifts this).
//
// A stage runs one execution at a time: while its latest execution is
// pending or running within its timeout, or once the stage completed or
// was skipped, Start returns a *StatusError (Entity "stage"). The stage's
// status is part of the transaction's condition, so of two concurrent
// starts one wins. A latest execution past its deadline (Job.Deadline:
// its configuration.timeout, Options.JobTimeout when created without one)
// no longer blocks the stage: Start fails it (timedOut, errorMessage "timed
// out: ...") in the same transaction that creates the retry, conditional
// on it still being active, so a worker that finished late keeps its
// result.
//
// A retry never overwrites an earlier attempt: the job is created with
// attribute_not_exists, and the stage's lastExecution only moves forward
// by a conditional write. A caller that loses the race for a number takes
// the next one. A stage has at most 999 executions ({execution:03d}); the
// start after the 999th is a *table.InputError.
func (h *Jobs) Start(ctx context.Context, in NewJob) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.Start")
	defer span.End(&err)
	if err := refuseReserved("NewJob.JourneyID", in.JourneyID); err != nil {
		return nil, err
	}
	return h.s.startJob(ctx, in)
}

// Finish ends a running job. It reads the journey's stages, its
// metadata and the job (two requests in one round trip), then writes one
// transaction: the job's status, endTime, duration and results (conditional
// on the job being active and unchanged since the read); its stage's
// status; and the journey's completedJobs or failedJobs (ADD), its
// totalExecutionSeconds and the seed's totalExecutionTime string, its
// overallProgress, current stage and status. That is three requests,
// where the fewest DynamoDB allows is two: the progress and the display
// string depend on values no update expression can compute.
//
// Progress counts the stages done (completed or skipped), so a retried
// stage never moves it backwards. When the last stage completes, a
// running journey becomes completed; when a job fails with no retry left
// (Configuration.RetryAttempts of the job, else of the journey), a running
// journey becomes failed. A paused or cancelled journey keeps its status.
//
// The journey's part is conditional on its counts being as read, so
// concurrent finishes are serialized; a finish that lost the race reads
// again and retries (bounded, with backoff). A job that already finished
// is a *StatusError and changes nothing.
func (h *Jobs) Finish(ctx context.Context, ref JobRef, f Finish) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.Finish")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.finishJob(ctx, ref, f)
}

// Get reads one job execution.
func (h *Jobs) Get(ctx context.Context, ref JobRef, opts ...func(*ReadOptions)) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.Get")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	if _, err := readOptions(getKind.named("Jobs.Get"), opts); err != nil {
		return nil, err
	}
	return h.s.getJob(ctx, ref, opts...)
}

// Find finds a job by its id alone, through GSI1 (GSI1PK JOB#{jobId}).
// The job's log entries share that GSI1PK, so the query keeps only the
// JobExecution item; the job's GSI1SK is its start, which precedes its
// logs, so it normally comes first and the query stops there.
func (h *Jobs) Find(ctx context.Context, jobID string) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.Find")
	defer span.End(&err)
	return h.s.findJob(ctx, jobID)
}

// Latest returns the stage's execution with the highest number,
// or an error matching ErrJobNotFound when the stage has none.
func (h *Jobs) Latest(ctx context.Context, journeyID, stageID string) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.Latest")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return nil, err
	}
	return h.s.latestExecution(ctx, journeyID, stageID)
}

// SetProgress records a running job's progress (0-100) and, when
// step is not "", its current step. Only a pending or running job can
// move (a *StatusError otherwise).
func (h *Jobs) SetProgress(ctx context.Context, ref JobRef, progress int, step string) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.SetProgress")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.updateJobProgress(ctx, ref, progress, step)
}

// SetStepStatus records a step's status in a running job: running sets
// its startTime and makes it the current step; completed, failed and
// skipped set its endTime and duration. A step the stage did not define is
// appended. The write is conditional on the step list being as read, so a
// concurrent change of another step is never overwritten.
func (h *Jobs) SetStepStatus(ctx context.Context, ref JobRef, stepID string, status StepStatus) (_ *Job, err error) {
	if err := h.ready(ctx); err != nil {
		return nil, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.SetStepStatus")
	defer span.End(&err)
	if err := refuseReserved("JobRef.JourneyID", ref.JourneyID); err != nil {
		return nil, err
	}
	return h.s.setStepStatus(ctx, ref, stepID, status)
}

// List returns one page of a journey's job executions (all, or one
// stage's with OfStage). The order is total: by stage order, then
// execution number, which the job's sort key
// JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt} holds and which is
// unique in the journey; cursors resume exactly after the last job
// returned. One Query per page, reading job items only: the journey's log
// summaries and catalog entries are not read. With OfStage, the journey's
// stages are read first to learn the stage's order.
func (h *Jobs) List(ctx context.Context, journeyID string, cursor string, opts ...func(*ListOptions)) (_ table.Page[Job], err error) {
	if err := h.ready(ctx); err != nil {
		return table.Page[Job]{}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.List")
	defer span.End(&err)
	if err := refuseReserved("journeyId", journeyID); err != nil {
		return table.Page[Job]{}, err
	}
	o, err := readOptions(listJobsKind, opts)
	if err != nil {
		return table.Page[Job]{}, err
	}
	return h.s.listJobs(ctx, journeyID, cursor, o)
}

// All walks every page of List, in its order. It stops at the first
// error, which it yields.
func (h *Jobs) All(ctx context.Context, journeyID string, opts ...func(*ListOptions)) iter.Seq2[Job, error] {
	return table.Walk(func(cursor string) (table.Page[Job], error) { return h.List(ctx, journeyID, cursor, opts...) })
}

// TimedOut walks the jobs that are still pending or running past their
// deadline (Job.Deadline: their configuration.timeout, else their
// journey's), the jobs of workers that died: in every journey that has
// not completed (GSI1 JOURNEYS, filtered on status), or in one with
// OfJourney. The journeys come in processing order (Journeys.ByPriority:
// priority, then age), so under load the most urgent journey's dead
// workers are found first, and their stages freed first. Per journey it
// reads the stages (one Query) and each timed-out job (one GetItem); it
// writes nothing, so it is what an operator's dry run shows. It stops at
// the first error, which it yields.
func (h *Jobs) TimedOut(ctx context.Context, opts ...func(*RecoverOptions)) iter.Seq2[Job, error] {
	return func(yield func(Job, error) bool) {
		if err := h.ready(ctx); err != nil {
			yield(Job{}, err)
			return
		}
		o, err := recoverOptions(opts)
		if err != nil {
			yield(Job{}, err)
			return
		}
		for j, err := range h.s.timedOutJobs(ctx, o) {
			if !yield(j, err) || err != nil {
				return
			}
		}
	}
}

// Recover fails every job TimedOut finds, in its order (by the journey's
// priority, then age), each as Finish with JobFailed would, in one
// transaction: the job failed (TimedOut, errorMessage
// "timed out: ...", endTime now), its stage failed, the journey's
// failedJobs, execution time and progress, and a running journey failed
// when the job had no retry left. The job's part is conditional on the
// job being unchanged since it was read, so a worker that finished it
// meanwhile, or a Jobs.Start that failed it first, wins and the job is
// Skipped. Run it periodically, from one place or many: concurrent calls
// are safe. Jobs.Start of a stage does the same for that stage's job
// without waiting for Recover.
func (h *Jobs) Recover(ctx context.Context, opts ...func(*RecoverOptions)) (_ RecoverResult, err error) {
	if err := h.ready(ctx); err != nil {
		return RecoverResult{Failed: []Job{}}, err
	}
	ctx, span := h.s.t.Start(ctx, "journey.Jobs.Recover")
	defer span.End(&err)
	o, err := recoverOptions(opts)
	if err != nil {
		return RecoverResult{Failed: []Job{}}, err
	}
	return h.s.recoverJobs(ctx, o)
}
