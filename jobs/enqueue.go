package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/table"
)

// Work is a job's work to queue, handed to an Enqueuer.
type Work struct {
	// JobID is the job whose work it is.
	JobID string
	// At is the time of the move that queues it (the job's new updatedAt).
	// A job moves to QUEUED at most once per millisecond, so JobID and At
	// make an idempotency key unique to this move: a retried Replay whose
	// first call applied is refused by the job's condition, never queued
	// twice.
	At time.Time
}

// Enqueuer adds a job's work to tx, a transaction the store builds around
// the job's own move and then runs: the work is queued exactly when the
// move applies, and a failure of either applies neither. It may add
// actions on other tables of the same DynamoDB (table.WriteTx.On), and it
// must not run tx. An error it returns fails the call before anything is
// written. With the tasks package:
//
//	jobs.Enqueue(func(ctx context.Context, tx *table.WriteTx, w jobs.Work) error {
//		_, _, err := taskStore.SubmitTx(ctx, tx, tasks.SubmitInput{
//			IdempotencyKey: "job-" + w.JobID + "-" + strconv.FormatInt(w.At.UnixMilli(), 10),
//			Payload:        []byte(w.JobID),
//		})
//		return err
//	})
type Enqueuer func(ctx context.Context, tx *table.WriteTx, w Work) error

// Enqueue sets Options.Enqueue: Replay queues the job's work in the same
// transaction as its move to QUEUED.
func Enqueue(e Enqueuer) func(*Options) { return func(o *Options) { o.Enqueue = e } }

// moveAndEnqueue is move for a move that queues the job's work: one
// transaction of the job's update (under cond) and what the Enqueuer adds.
// A transaction returns no item, so the job is read back (strongly
// consistent) after it commits.
func (s *Store) moveAndEnqueue(ctx context.Context, m moveSpec, u expression.UpdateBuilder, cond expression.ConditionBuilder, now time.Time) (*Job, error) {
	tx := s.t.WriteTx().Update(s.t.Key(m.id), u, table.If(cond), table.ItemOnConditionFailure())
	if err := s.opts.Enqueue(ctx, tx, Work{JobID: m.id, At: time.UnixMilli(now.UnixMilli())}); err != nil {
		return nil, fmt.Errorf("jobs: enqueue the work of job %q: %w", m.id, err)
	}
	if err := tx.Run(ctx); err != nil {
		var txe *table.TxError
		if errors.As(err, &txe) {
			for _, r := range txe.Reasons {
				if r.Index != 0 || r.Code != "ConditionalCheckFailed" {
					continue
				}
				// The job's own condition refused the move.
				if len(r.Item) == 0 || table.ItemExpired(r.Item, attrTTL, now) {
					return nil, notFound(m.id, err)
				}
				return nil, s.transitionError(ctx, m, r.Item, err)
			}
		}
		return nil, fmt.Errorf("jobs: move job %q %s → %s and enqueue its work: %w", m.id, joinStatuses(m.from), m.to, err)
	}
	var item table.Item
	if err := s.t.Get(ctx, s.t.Key(m.id), &item, table.Consistent()); err != nil {
		return nil, fmt.Errorf("jobs: read job %q after its move: %w", m.id, err)
	}
	return s.jobFromStored(ctx, item)
}
