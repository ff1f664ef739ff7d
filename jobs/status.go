package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// transitions is the seed's state machine plus the replay the seed's
// "FAILED (DLQ): Manual replay" calls for.
var transitions = map[Status][]Status{
	StatusQueued:     {StatusProcessing},
	StatusProcessing: {StatusEditing},
	StatusEditing:    {StatusCompleted, StatusFailed},
	StatusFailed:     {StatusQueued},
}

// CanMoveTo reports whether the state machine has a move from s to next:
// QUEUED → PROCESSING → EDITING → COMPLETED, EDITING → FAILED, and the
// replay FAILED → QUEUED. COMPLETED is final.
func (s Status) CanMoveTo(next Status) bool {
	for _, t := range transitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// StartProcessing moves a job QUEUED → PROCESSING (a worker picked it up)
// and sets processingStartedAt. Of any number of workers racing for one
// job, exactly one succeeds; the others get a *TransitionError.
func (s *Store) StartProcessing(ctx context.Context, id string) (*Job, error) {
	return s.move(ctx, id, StatusQueued, StatusProcessing, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		return u.Set(expression.Name(attrProcessingStartedAt), expression.Value(now)), nil
	})
}

// StartEditing moves a job PROCESSING → EDITING (the provider call begins)
// and stores the provider's analysis, when there is one. An analysis that
// could push the item past the offload threshold is written to the blob
// store first and the item keeps a pointer to it; Get and the lists read it
// back transparently.
func (s *Store) StartEditing(ctx context.Context, id string, analysis *AnalysisResult) (*Job, error) {
	if err := analysis.validate(); err != nil {
		return nil, err
	}
	return s.move(ctx, id, StatusProcessing, StatusEditing, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		if analysis == nil {
			return u, nil
		}
		av, err := attributevalue.Marshal(normalizeAnalysis(analysis))
		if err != nil {
			return u, fmt.Errorf("jobs: marshal analysis result: %w", err)
		}
		av, err = s.offloadAttr(ctx, id, attrAnalysisResult, av)
		if err != nil {
			return u, err
		}
		return u.Set(expression.Name(attrAnalysisResult), expression.Value(av)), nil
	})
}

// Complete moves a job EDITING → COMPLETED, stores the edit result, sets
// s3FinalKey to the result's key and processingCompletedAt. An error map
// left by an earlier failure stays: it records how many replays it took.
func (s *Store) Complete(ctx context.Context, id string, result EditResult) (*Job, error) {
	if err := result.validate(); err != nil {
		return nil, err
	}
	return s.move(ctx, id, StatusEditing, StatusCompleted, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		av, err := attributevalue.Marshal(result)
		if err != nil {
			return u, fmt.Errorf("jobs: marshal edit result: %w", err)
		}
		av, err = s.offloadAttr(ctx, id, attrEditResult, av)
		if err != nil {
			return u, err
		}
		return u.Set(expression.Name(attrEditResult), expression.Value(av)).
			Set(expression.Name(attrS3FinalKey), expression.Value(result.S3Key)).
			Set(expression.Name(attrProcessingCompletedAt), expression.Value(now)), nil
	})
}

// Fail moves a job EDITING → FAILED (the provider failed or retries ran
// out), records the error and sets processingCompletedAt. failure.RetryCount
// must be 0: the store keeps the count, which only Replay changes.
//
// A job failing for the first time takes one conditional write. A job that
// failed before and was replayed already has an error map whose retryCount
// must survive; the first write is then refused (its condition requires no
// error map), DynamoDB returns the item with the refusal, and a second
// conditional write updates the map's fields in place. Both writes require
// EDITING, so neither can overwrite a concurrent move.
func (s *Store) Fail(ctx context.Context, id string, failure JobError) (*Job, error) {
	if err := failure.validate(); err != nil {
		return nil, err
	}
	job, err := s.move(ctx, id, StatusEditing, StatusFailed, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		return u.Set(expression.Name(attrError), expression.Value(failure)).
			Set(expression.Name(attrProcessingCompletedAt), expression.Value(now)), nil
	}, expression.AttributeNotExists(expression.Name(attrError)))
	var te *TransitionError
	if !errors.As(err, &te) || te.Current != StatusEditing {
		return job, err
	}
	// The job is EDITING and was refused only for its error map.
	return s.move(ctx, id, StatusEditing, StatusFailed, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		u = u.Set(expression.Name(attrError+".code"), expression.Value(failure.Code)).
			Set(expression.Name(attrError+".message"), expression.Value(failure.Message)).
			Set(expression.Name(attrProcessingCompletedAt), expression.Value(now))
		if failure.Stack != "" {
			u = u.Set(expression.Name(attrError+".stack"), expression.Value(failure.Stack))
		} else {
			u = u.Remove(expression.Name(attrError + ".stack"))
		}
		return u, nil
	}, expression.AttributeExists(expression.Name(attrError)))
}

// Replay moves a FAILED job back to QUEUED for another attempt and
// increments error.retryCount. The error's code and message stay as the
// record of the last failure; processingStartedAt and
// processingCompletedAt are removed, since they describe the attempt that
// failed and the next StartProcessing sets them afresh.
//
// A FAILED item written before the error map existed gets one, with code
// "UNKNOWN" and retryCount 1, by a second conditional write (the first is
// refused because it requires the map).
func (s *Store) Replay(ctx context.Context, id string) (*Job, error) {
	retryCount := expression.Name(attrError + ".retryCount")
	job, err := s.move(ctx, id, StatusFailed, StatusQueued, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		return u.Set(retryCount, expression.Plus(expression.IfNotExists(retryCount, expression.Value(0)), expression.Value(1))).
			Remove(expression.Name(attrProcessingStartedAt)).
			Remove(expression.Name(attrProcessingCompletedAt)), nil
	}, expression.AttributeExists(expression.Name(attrError)))
	var te *TransitionError
	if !errors.As(err, &te) || te.Current != StatusFailed {
		return job, err
	}
	return s.move(ctx, id, StatusFailed, StatusQueued, func(now int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error) {
		return u.Set(expression.Name(attrError), expression.Value(JobError{
			Code:       UnknownErrorCode,
			Message:    "the job failed before its error was recorded",
			RetryCount: 1,
		})).
			Remove(expression.Name(attrProcessingStartedAt)).
			Remove(expression.Name(attrProcessingCompletedAt)), nil
	}, expression.AttributeNotExists(expression.Name(attrError)))
}

// UnknownErrorCode is the error code Replay records for a FAILED job that
// has no error map (written before the seed added error tracking).
const UnknownErrorCode = "UNKNOWN"

// move is every status change: one UpdateItem that sets status and
// updatedAt plus what set adds, on the condition that the job exists, has
// not expired, is in status from, and meets extra. When the condition fails
// DynamoDB returns the item as it was (ReturnValuesOnConditionCheckFailure),
// which tells a missing or expired job (ErrNotFound) from one in another
// status (*TransitionError) without a second read.
func (s *Store) move(ctx context.Context, id string, from, to Status,
	set func(nowMillis int64, u expression.UpdateBuilder) (expression.UpdateBuilder, error),
	extra ...expression.ConditionBuilder) (*Job, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := checkID(id); err != nil {
		return nil, err
	}
	now := s.now()
	nowMillis := now.UnixMilli()
	u := expression.Set(expression.Name(attrStatus), expression.Value(to)).
		Set(expression.Name(attrUpdatedAt), expression.Value(nowMillis))
	u, err := set(nowMillis, u)
	if err != nil {
		return nil, err
	}
	cond := expression.Name(attrStatus).Equal(expression.Value(from)).And(s.alive(now))
	for _, c := range extra {
		cond = cond.And(c)
	}
	var item table.Item
	err = s.t.Update(ctx, s.t.Key(id), u, table.If(cond), table.ReturnNew(&item), table.ItemOnConditionFailure())
	if err != nil {
		if !errors.Is(err, table.ErrConditionFailed) {
			return nil, fmt.Errorf("jobs: move job %q %s → %s: %w", id, from, to, err)
		}
		var te *table.Error
		var current table.Item
		if errors.As(err, &te) {
			current = te.Item
		}
		st, ok := current[attrStatus].(*types.AttributeValueMemberS)
		if len(current) == 0 || itemExpired(current, now) {
			return nil, notFound(id, err)
		}
		cur := Status("")
		if ok {
			cur = Status(st.Value)
		}
		return nil, &TransitionError{JobID: id, Current: cur, From: from, To: to, Cause: err}
	}
	return s.jobFromStored(ctx, item)
}

// alive is the condition "not expired at now": DynamoDB may keep an
// expired item for days, and a move must not revive it.
func (s *Store) alive(now time.Time) expression.ConditionBuilder {
	ttl := expression.Name(attrTTL)
	return expression.AttributeNotExists(ttl).Or(ttl.GreaterThan(expression.Value(now.Unix())))
}
