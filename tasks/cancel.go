package tasks

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/tablekit/tablekit/keys"
)

// Cancel withdraws a PENDING task with reason (at most 4096 bytes): it
// becomes CANCELLED, leaves GSI1 and gets a CANCELLED event. A task in any
// other status is refused with a *StateError (ErrInvalidState) and left
// alone; a task being processed is its worker's to finish or fail.
//
// Cancel reads META (strongly consistent) for the event count, then writes
// in one transaction conditioned on status PENDING and that count; a
// claim that gets there first makes it a *StateError naming PROCESSING.
func (s *Store) Cancel(ctx context.Context, taskID, reason string) (err error) {
	ctx, span := s.start(ctx, "tasks.Cancel")
	defer span.End(&err)
	if err := s.check(checkTaskID(taskID)); err != nil {
		return err
	}
	if err := checkReason(reason); err != nil {
		return err
	}
	t, err := s.get(ctx, taskID)
	if err != nil {
		return err
	}
	if t.Status != StatusPending {
		return &StateError{TaskID: taskID, Op: "cancel", Status: t.Status, Want: StatusPending}
	}
	now := s.now()
	if t.UpdatedAt.After(now) {
		now = t.UpdatedAt // event times stay in order across skewed clocks
	}
	ev, err := s.newEvent(taskID, t.Events+1, EventCancelled, StatusCancelled, t.Attempt, "", reason, now)
	if err != nil {
		return err
	}
	cond := expression.Name(attrStatus).Equal(expression.Value(StatusPending)).
		And(expression.Name(attrEvents).Equal(expression.Value(t.Events)))
	update := leaveQueue(s.move(taskID), StatusCancelled).
		Set(attrLastError, reason).
		Set(attrUpdatedAt, keys.FormatTime(now)).
		Set(attrTTL, s.ttlFrom(now)).
		Add(attrEvents, 1).
		If(cond)
	err = s.transact(ctx, update, s.ent.events.TxCreate(*ev))
	if err == nil {
		return nil
	}
	return s.stateError(taskID, "cancel", StatusPending, err)
}
