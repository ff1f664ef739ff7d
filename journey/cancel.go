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

// cancelFrom are the journey statuses Cancel starts from.
var cancelFrom = []Status{StatusPending, StatusRunning, StatusPaused, StatusFailed}

// cancelBatch is how many running jobs Cancel moves in the transaction
// that cancels the journey: each takes two actions (the job and its
// stage) of DynamoDB's 100, beside the journey's.
const cancelBatch = 49

// cancel implements [Journeys.Cancel].
func (s *Store) cancel(ctx context.Context, id string) (*Journey, error) {
	if err := checkID("journeyId", id); err != nil {
		return nil, err
	}
	key, _ := s.journeyKey(id)
	for attempt := 0; ; attempt++ {
		j, err := s.getJourney(ctx, id, Consistent())
		if err != nil {
			return nil, err
		}
		var running []Job
		for job, err := range s.allJobs(ctx, id, ListOptions{Consistent: true}) {
			if err != nil {
				return nil, err
			}
			if slices.Contains(jobActive, job.Status) {
				running = append(running, job)
			}
		}
		if j.Status == StatusCancelled {
			return j, s.cancelJobs(ctx, running)
		}
		if !slices.Contains(cancelFrom, j.Status) {
			return nil, &StatusError{Entity: "journey", ID: id, Op: "cancel", Current: string(j.Status),
				Allowed: statusStrings(cancelFrom)}
		}
		now := s.now()
		first := running[:min(len(running), cancelBatch)]
		tx := s.t.WriteTx().Update(key, expression.Set(expression.Name("Data.status"), expression.Value(StatusCancelled)).
			Set(expression.Name(attrUpdatedAt), expression.Value(stamp(now))),
			table.IfExists(), table.ItemOnConditionFailure(), table.If(
				expression.Name("Data.status").Equal(expression.Value(j.Status)).
					And(expression.Name("Data.aggregates.totalJobs").Equal(expression.Value(j.Aggregates.TotalJobs))).
					And(journeyOwn())))
		for _, job := range first {
			s.cancelJob(tx, job, now)
		}
		err = tx.Run(ctx)
		if err == nil {
			j.Status, j.UpdatedAt = StatusCancelled, Time{now}
			return j, s.cancelJobs(ctx, running[len(first):])
		}
		switch a := failedAction(err); {
		case a == 0:
			item := reasonItem(err, 0)
			if len(item) == 0 || claimed(item) {
				return nil, metadataRefused(id, err, 0)
			}
		case a > 0: // a job finished meanwhile
		default:
			return nil, err
		}
		if attempt+1 >= raceAttempts {
			return nil, err
		}
		if err := s.lostRace(ctx, "Journeys.Cancel", id, attempt); err != nil {
			return nil, err
		}
	}
}

// cancelJob adds to tx the move of a running job to cancelled and of its
// stage to cancelled, conditional on the job still being active.
func (s *Store) cancelJob(tx *table.WriteTx, job Job, now time.Time) {
	ts := expression.Value(stamp(now))
	jobKey, _ := s.jobKey(job.Ref())
	stageKey, _ := s.stageKey(job.JourneyID, job.Order, job.StageID)
	end := now
	if end.Before(job.StartTime.Time) {
		end = job.StartTime.Time
	}
	tx.Update(jobKey, expression.Set(expression.Name("Data.status"), expression.Value(JobCancelled)).
		Set(expression.Name("Data.endTime"), expression.Value(Time{end})).
		Set(expression.Name("Data.duration"), expression.Value(elapsed(job.StartTime.Time, end))).
		Set(expression.Name(attrUpdatedAt), ts),
		table.IfExists(), table.If(statusIn("Data.status", jobActive...)))
	tx.Update(stageKey, expression.Set(expression.Name("Data.status"), expression.Value(StageCancelled)).
		Set(expression.Name(attrUpdatedAt), ts), table.IfExists())
}

// cancelJobs cancels jobs of a cancelled journey one transaction each; a
// job that finished meanwhile is left as it finished.
func (s *Store) cancelJobs(ctx context.Context, jobs []Job) error {
	for _, job := range jobs {
		tx := s.t.WriteTx()
		s.cancelJob(tx, job, s.now())
		if err := tx.Run(ctx); err != nil && !(failedAction(err) == 0 && errors.Is(err, table.ErrConditionFailed)) {
			return fmt.Errorf("journey: cancel job %s: %w", job.JobID, err)
		}
	}
	return nil
}
