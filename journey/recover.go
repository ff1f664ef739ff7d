package journey

import (
	"context"
	"errors"
	"iter"
)

// RecoverOptions configure Jobs.TimedOut and Jobs.Recover.
type RecoverOptions struct {
	// JourneyID, when set, looks at that journey only; otherwise at every
	// journey Journeys.List shows that has not completed.
	JourneyID string
}

// OfJourney sets RecoverOptions.JourneyID: only that journey's jobs.
func OfJourney(journeyID string) func(*RecoverOptions) {
	return func(o *RecoverOptions) { o.JourneyID = journeyID }
}

// RecoverResult is what one Jobs.Recover did.
type RecoverResult struct {
	// Found is how many running jobs past their deadline were found.
	Found int `json:"found"`
	// Failed are the jobs Recover failed (timed out), as written.
	Failed []Job `json:"failed"`
	// Skipped jobs ended between the read and the write (their worker
	// finished them, or a Jobs.Start of their stage failed them first) and
	// were left as they are.
	Skipped int `json:"skipped"`
}

// recoverOptions applies opts (nil ones skipped) and checks them.
func recoverOptions(opts []func(*RecoverOptions)) (RecoverOptions, error) {
	var o RecoverOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.JourneyID != "" {
		if err := checkID("RecoverOptions.JourneyID", o.JourneyID); err != nil {
			return o, err
		}
		if err := refuseReserved("RecoverOptions.JourneyID", o.JourneyID); err != nil {
			return o, err
		}
	}
	return o, nil
}

// timedOutJobs implements [Jobs.TimedOut].
func (s *Store) timedOutJobs(ctx context.Context, o RecoverOptions) iter.Seq2[Job, error] {
	return func(yield func(Job, error) bool) {
		for j, err := range s.unfinishedJourneys(ctx, o) {
			if err != nil {
				yield(Job{}, err)
				return
			}
			jobs, err := s.timedOutOf(ctx, j)
			if err != nil {
				yield(Job{}, err)
				return
			}
			for _, job := range jobs {
				if !yield(job, nil) {
					return
				}
			}
		}
	}
}

// unfinishedStatuses are the statuses of a journey that may have a
// running job: all but completed (every stage of a completed journey is
// done). A cancelled journey is among them: a Cancel interrupted past its
// first 49 jobs leaves some running.
var unfinishedStatuses = []Status{StatusPending, StatusRunning, StatusPaused, StatusFailed, StatusCancelled}

// unfinishedJourneys are the journeys that may have a running job: one,
// read strongly consistent, or every listed journey that has not
// completed, in processing order (priority, then age:
// journeysByPriority). Journeys being imported are not listed and have
// no job of their own yet.
func (s *Store) unfinishedJourneys(ctx context.Context, o RecoverOptions) iter.Seq2[Journey, error] {
	return func(yield func(Journey, error) bool) {
		if o.JourneyID != "" {
			j, err := s.getJourney(ctx, o.JourneyID, Consistent())
			if err != nil {
				yield(Journey{}, err)
				return
			}
			yield(*j, nil)
			return
		}
		journeys, err := s.journeysByPriority(ctx, unfinishedStatuses)
		if err != nil {
			yield(Journey{}, err)
			return
		}
		for _, j := range journeys {
			if !yield(j, nil) {
				return
			}
		}
	}
}

// timedOutOf returns the journey's active jobs past their deadline: one
// Query of its stages, then for each running stage past its lastJob's
// deadline a consistent GetItem of the job (a stage written without
// lastJob: a Query of its latest job).
func (s *Store) timedOutOf(ctx context.Context, j Journey) ([]Job, error) {
	stages, err := s.stages(ctx, j.ID, Consistent())
	if err != nil {
		return nil, err
	}
	now := s.now()
	var out []Job
	for _, st := range stages {
		if st.Status != StageRunning {
			continue
		}
		p, err := s.previousJob(ctx, j, st)
		if err != nil {
			return nil, err
		}
		if !p.active || !pastDeadline(p.deadline, now) {
			continue
		}
		job := p.job
		if st.LastJob != nil {
			got, err := s.getJob(ctx, p.job.Ref(), Consistent())
			if errors.Is(err, ErrJobNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			job = *got
		}
		if job.Status == JobPending || job.Status == JobRunning {
			out = append(out, job)
		}
	}
	return out, nil
}

// recoverJobs implements [Jobs.Recover].
func (s *Store) recoverJobs(ctx context.Context, o RecoverOptions) (RecoverResult, error) {
	res := RecoverResult{Failed: []Job{}}
	for job, err := range s.timedOutJobs(ctx, o) {
		if err != nil {
			return res, err
		}
		res.Found++
		failed, err := s.endJob(ctx, job.Ref(), Finish{Status: JobFailed}, true)
		var se *StatusError
		switch {
		case err == nil:
			res.Failed = append(res.Failed, *failed)
			s.log(ctx, "failed a job past its timeout", "journeyId", job.JourneyID, "stageId", job.StageID,
				"jobId", job.JobID, "timeout", timeoutOf(job, Journey{}))
		case errors.As(err, &se), errors.Is(err, errNotTimedOut):
			res.Skipped++
		default:
			return res, err
		}
	}
	return res, nil
}
