package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/table"
)

// Redrive gives a dead letter another chance: the DEAD task becomes
// PENDING, claimable at once, with Options.MaxAttempts fresh attempts and a
// REDRIVEN event carrying reason (at most 4096 bytes), and returns it. Like
// every move, it is one transaction: META updated on the condition that it
// is DEAD with the event count read (a strongly consistent GetItem), and
// the event created (attribute_not_exists, or over an expired item), so
// two operators re-driving one task at once re-drive it once; the other
// gets a *StateError naming PENDING. A task that is not DEAD is refused with a *StateError
// (ErrInvalidState) and left alone.
//
// The attempt number keeps growing (it is the lease's fencing token); the
// task's AttemptBase records where the fresh attempts start. The same
// transaction gives the event that made the task DEAD, which a dead letter
// keeps without a ttl, one Options.Retention from now, so the re-driven
// task expires whole once it finishes. A dead letter is re-drivable
// however old: its META never expires; its events older than Retention
// may have (see History).
func (h *Maintenance) Redrive(ctx context.Context, taskID, reason string) (_ *Task, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "tasks.Maintenance.Redrive")
	defer span.End(&err)
	if err := s.check(checkTaskID(taskID)); err != nil {
		return nil, err
	}
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return nil, err
	}
	t, err := s.get(ctx, taskID)
	if err != nil {
		return nil, err
	}
	return s.redrive(ctx, t, reason)
}

func (s *Store) redrive(ctx context.Context, t *Task, reason string) (*Task, error) {
	if t.Status != StatusDead {
		return nil, &StateError{TaskID: t.ID, Op: "redrive", Status: t.Status, Want: StatusDead}
	}
	now := s.now()
	if t.UpdatedAt.After(now) {
		now = t.UpdatedAt // event times stay in order across skewed clocks
	}
	ev, err := s.newEvent(t.ID, t.Events+1, EventRedriven, StatusPending, t.Attempt, "", reason, now)
	if err != nil {
		return nil, err
	}
	cond := expression.Name(attrStatus).Equal(expression.Value(StatusDead)).
		And(expression.Name(attrEvents).Equal(expression.Value(t.Events)))
	update := s.inQueue(s.move(t.ID), StatusPending, t.ID, now).
		Set(attrAvailableAt, keys.FormatTime(now)).
		Set(attrAttemptBase, t.Attempt).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Add(attrEvents, 1).
		If(cond)
	// The event that made the task DEAD has no ttl (a dead letter keeps
	// it); now that the task is live again, it expires like the others.
	dead := s.ent.events.Update(eventItem{TaskID: t.ID, Seq: t.Events}).Set(attrTTL, s.ttlFrom(now))
	if err := s.transact(ctx, update, s.ent.events.TxCreate(*ev), dead.Action()); err != nil {
		return nil, s.stateError(t.ID, "redrive", StatusDead, err)
	}
	s.log.InfoContext(ctx, "tasks: re-drove a dead letter", "operation", "redrive", "key", t.ID, "attempt", t.Attempt)
	s.bump(ctx)
	out := *t
	out.Status, out.AvailableAt, out.AttemptBase, out.UpdatedAt, out.Events = StatusPending, now, t.Attempt, now, t.Events+1
	return &out, nil
}

// RedriveDead re-drives every dead letter for which match returns true
// (nil matches all), oldest death first, each as Redrive does with its own
// transaction and REDRIVEN event, and returns how many it moved. A task
// that left DEAD meanwhile (another operator re-drove it) is skipped. It
// stops at the first other error, having moved the ones it counted.
func (h *Maintenance) RedriveDead(ctx context.Context, match func(*Task) bool, reason string) (_ int, err error) {
	s := h.store()
	ctx, span := s.start(ctx, "tasks.Maintenance.RedriveDead")
	defer span.End(&err)
	if err := s.check(checkReason(reason)); err != nil {
		return 0, err
	}
	if _, err := s.tableShards(ctx, true); err != nil {
		return 0, err
	}
	moved := 0
	for t, err := range s.Maintenance().Dead().All(ctx) {
		if err != nil {
			return moved, err
		}
		if match != nil && !match(&t) {
			continue
		}
		// The index is eventually consistent: read the task as stored.
		cur, err := s.get(ctx, t.ID)
		if err != nil {
			return moved, err
		}
		if cur.Status != StatusDead {
			continue
		}
		_, err = s.redrive(ctx, cur, reason)
		switch {
		case err == nil:
			moved++
		case errors.Is(err, ErrInvalidState):
			// re-driven by someone else since the read
		default:
			return moved, err
		}
	}
	return moved, nil
}

// stateError turns a refused transaction whose first action was
// conditioned on META being in status want into the error to return: not
// found, a *StateError with the status DynamoDB returned, or the error.
func (s *Store) stateError(taskID, op string, want Status, err error) error {
	var txe *table.TxError
	if errors.As(err, &txe) {
		for _, r := range txe.Reasons {
			if r.Index == 0 && r.Code == "ConditionalCheckFailed" {
				if r.Item == nil {
					return notFound(taskID, err)
				}
				m, uerr := s.ent.tasks.Decode(context.Background(), r.Item)
				if uerr != nil {
					return fmt.Errorf("tasks: %s %q: %w", op, taskID, uerr)
				}
				return &StateError{TaskID: taskID, Op: op, Status: m.Status, Want: want, Cause: err}
			}
		}
	}
	return fmt.Errorf("tasks: %s %q: %w", op, taskID, err)
}
