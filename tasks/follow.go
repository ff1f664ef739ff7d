package tasks

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
)

// EventFromChange returns the task event one change of the tasks table
// records, for a follower of the table's stream (the seed's events are a
// history other services want to follow):
//
//	c, err := changes.New[table.Item](db, streams, tasks.DefaultTableName,
//		changes.Decode(changes.DecodeItem), changes.Name("task-events"))
//	err = c.Run(ctx, func(ctx context.Context, batch []changes.Change[table.Item]) error {
//		for _, ch := range batch {
//			ev, ok, err := tasks.EventFromChange(ch)
//			...
//		}
//		return nil
//	})
//
// ok is false for every other change: META, idempotency and claim items,
// and removals (an event item is removed only by TTL). The stream needs new
// images (NEW_IMAGE or NEW_AND_OLD_IMAGES).
//
// Events of one task arrive in Seq order, at least once. One Seq can arrive
// twice with different events: a Complete whose META update was refused
// (its lease was lost) leaves a COMPLETED event that the next change of the
// task writes over. The later one is the history's (History never shows
// the first); a follower keeps the last event per (TaskID, Seq).
//
// Retention (see the package documentation) adds three cases. Redrive
// sets the ttl of the event that made the task DEAD, so that event
// arrives again, unchanged but for its ttl. Once a task has expired, a
// Submit of its idempotency key starts a fresh task with the same id: its
// SUBMITTED event, Seq 1, begins a new history. And a Submit of a key
// whose IDEM item expired while its task lived on (longer than Retention)
// writes a SUBMITTED event at Seq 1 that is not the task's: its time is
// not the task's CreatedAt (Get), and History leaves it out.
func EventFromChange(ch changes.Change[table.Item]) (ev Event, ok bool, err error) {
	if ch.New == nil {
		return Event{}, false, nil
	}
	var it eventItem
	if err := attributevalue.UnmarshalMap(*ch.New, &it); err != nil {
		return Event{}, false, fmt.Errorf("tasks: event from change %s: %w", ch.EventID, err)
	}
	if it.Type != typeEvent {
		return Event{}, false, nil
	}
	ev, err = it.event()
	if err != nil {
		return Event{}, false, fmt.Errorf("tasks: event from change %s: %w", ch.EventID, err)
	}
	return ev, true, nil
}
