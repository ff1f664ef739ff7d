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

// Cancel moves a pending, running, paused or failed journey to cancelled,
// which is final, and cancels its running jobs: each pending or running job
// becomes cancelled (the seed's JobCancelled, with endTime and duration)
// and its stage cancelled, in the same transaction as the journey (for up
// to 49 running jobs; a journey runs at most one job a stage). The
// transaction is conditional on the journey's status and totalJobs being
// as read, so a job started meanwhile makes Cancel read again rather than
// leave it running. Jobs past the first 49 are cancelled one transaction
// each afterwards; Cancel on a cancelled journey cancels any job still
// running, so an interrupted Cancel is completed by calling it again.
func (s *Store) Cancel(ctx context.Context, id string) (*Journey, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := checkID("journeyId", id); err != nil {
		return nil, err
	}
	key, _ := s.journeyKey(id)
	for attempt := 0; ; attempt++ {
		j, err := s.GetJourney(ctx, id, Consistent())
		if err != nil {
			return nil, err
		}
		var running []Job
		for job, err := range s.Jobs(ctx, id, ConsistentList()) {
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
					And(notImporting())))
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
			if len(item) == 0 || importing(item) {
				return nil, metadataRefused(id, err, 0)
			}
		case a > 0: // a job finished meanwhile
		default:
			return nil, err
		}
		if attempt+1 >= raceAttempts {
			return nil, err
		}
		if err := s.lostRace(ctx, "Cancel", id, attempt); err != nil {
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
