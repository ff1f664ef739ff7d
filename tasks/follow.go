package tasks

import (
	"context"
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
// Events are event items, and the ones META tells by itself (see History)
// are also read from META's changes, so a follower of a table written
// with Options.CompactHistory sees them too: a task's SUBMITTED event from
// the META item its Submit creates, a claim's PROCESSING event from META
// moving to PROCESSING, a COMPLETED event from META moving to COMPLETED.
// ok is false for every other change: other META changes, the
// idempotency, claim and CONFIG items, and removals (an item is removed
// only by TTL or by Complete's delete of its claim item). The stream needs
// new images (NEW_IMAGE or NEW_AND_OLD_IMAGES). A record of another table
// (other key attributes than PK and SK) is a *table.InputError.
//
// Events of one task arrive in Seq order, at least once. One Seq can
// arrive more than once, always the same event: in the default layout
// each event of a plain life arrives as its item and as the META change
// that tells it; an event META told is written (again) as an item when a
// later change ends the state META told it from (a claim's PROCESSING
// event, when the lease ends by Fail, Release or expiry); and a claim
// whose lease was found running past its index entry's expiry moves that
// entry (META changes, still PROCESSING). A follower keeps the last per
// (TaskID, Seq).
//
// Retention (see the package documentation) adds two cases. Redrive
// sets the ttl of the event that made the task DEAD, so that event
// arrives again, unchanged but for its ttl. Once a task has expired, a
// Submit of its idempotency key starts a fresh task with the same id: its
// SUBMITTED event, Seq 1, begins a new history.
func EventFromChange(ch changes.Change[table.Item]) (ev Event, ok bool, err error) {
	if err := changes.CheckKeys(ch, attrPK, attrSK); err != nil {
		return Event{}, false, err
	}
	if ch.New == nil {
		return Event{}, false, nil
	}
	var head struct {
		Type string `dynamodbav:"type"`
	}
	if err := attributevalue.UnmarshalMap(*ch.New, &head); err != nil {
		return Event{}, false, fmt.Errorf("tasks: event from change %s: %w", ch.EventID, err)
	}
	ents, err := decoders()
	if err != nil {
		return Event{}, false, err
	}
	var it *eventItem
	switch ctx := context.Background(); head.Type {
	case typeEvent:
		var e eventItem
		e, err = ents.events.Decode(ctx, *ch.New)
		it = &e
	case typeTask:
		var m metaItem
		if m, err = ents.tasks.Decode(ctx, *ch.New); err == nil {
			it, err = toldEvent(&m)
		}
	}
	if it == nil || err != nil {
		if err != nil {
			err = fmt.Errorf("tasks: event from change %s: %w", ch.EventID, err)
		}
		return Event{}, false, err
	}
	ev, err = it.event()
	if err != nil {
		return Event{}, false, fmt.Errorf("tasks: event from change %s: %w", ch.EventID, err)
	}
	return ev, true, nil
}

// toldEvent is the event a META item tells as it stands: SUBMITTED for a
// new task, the claim's PROCESSING for a PROCESSING one, COMPLETED for a
// COMPLETED one; nil for any other.
func toldEvent(m *metaItem) (*eventItem, error) {
	switch {
	case m.Status == StatusPending && m.Events == 1,
		m.Status == StatusProcessing, m.Status == StatusCompleted:
	default:
		return nil, nil
	}
	if err := checkTaskID(m.TaskID); err != nil {
		return nil, fmt.Errorf("task item: %w", err)
	}
	var s Store // the events' items without a ttl: a follower reads events, not items
	told, err := s.metaEvents(m)
	if err != nil {
		return nil, err
	}
	if ev, ok := told[m.Events]; ok {
		return &ev, nil
	}
	return nil, nil // a claim from before META recorded claims wrote its event item
}
