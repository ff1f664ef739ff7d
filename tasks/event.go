package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/keys"
)

// EventType says what happened to a task.
type EventType string

// The seed names its events after the status they lead to (SUBMITTED,
// PROCESSING, COMPLETED); the others follow the same rule where a status
// exists, and say what happened where it does not.
const (
	EventSubmitted    EventType = "SUBMITTED"     // Submit: now PENDING
	EventProcessing   EventType = "PROCESSING"    // Claim: now PROCESSING under a new lease
	EventCompleted    EventType = "COMPLETED"     // Complete
	EventFailed       EventType = "FAILED"        // Fail with attempts left: PENDING again
	EventLeaseExpired EventType = "LEASE_EXPIRED" // the owner's lease ran out: PENDING again, or DEAD
	EventDead         EventType = "DEAD"          // Fail with no attempts left
	EventCancelled    EventType = "CANCELLED"     // Cancel
	EventReleased     EventType = "RELEASED"      // Release: PENDING again, claimable at once
	EventRedriven     EventType = "REDRIVEN"      // Redrive: a dead letter PENDING again, with fresh attempts
)

// Event is one entry of a task's history.
type Event struct {
	TaskID  string    `json:"taskId"`
	Seq     int       `json:"seq"` // 1, 2, ...: gap-free, in the order the changes happened
	Type    EventType `json:"type"`
	Status  Status    `json:"status"`            // the task's status after the event
	Attempt int       `json:"attempt"`           // the attempt the event belongs to (0 before the first claim)
	Worker  string    `json:"worker,omitempty"`  // the worker that caused it, when one did
	Message string    `json:"message,omitempty"` // Fail's reason, the expired lease's owner
	At      time.Time `json:"at"`
}

// Event items, the seed's rows 2-4:
//
//	PK TASK#t-123   SK EVENT#0001   (SUBMITTED)
//	PK TASK#t-123   SK EVENT#0002   (PROCESSING)
//	PK TASK#t-123   SK EVENT#0003   (COMPLETED)
//
// Every status change writes its event item, within the round trips the
// change takes (see the package documentation). With
// Options.CompactHistory the three events of a task that is submitted,
// claimed and completed are told by META (its creation, its claim, its
// completion) and not written, and every other change writes its own
// event, and the claim's it ends, in its transaction (see metaEvents).
//
// Four digits, as the seed writes them: a task has at most 9999 events. A
// change that would write event 10000 fails with keys.ErrOverflow before any
// request, rather than writing EVENT#10000, which sorts between EVENT#1000
// and EVENT#1001. With three events per attempt, that is ~3,300 attempts.
var eventSK = keys.MustSort("EVENT#{seq:04d}")

// putEvent writes ev, a Put: the change that writes it is the one writer
// of its number (see the callers).
func (s *Store) putEvent(ctx context.Context, ev *eventItem) error {
	_, err := s.ent.events.Put(ctx, *ev)
	return err
}

// eventPuts are the Puts of evs (nil ones left out), for a transaction
// that is the one writer of their numbers.
func (s *Store) eventPuts(evs ...*eventItem) []entity.Action {
	var out []entity.Action
	for _, ev := range evs {
		if ev != nil {
			out = append(out, s.ent.events.TxPut(*ev))
		}
	}
	return out
}

// MaxEvents is the most events one task's history holds.
const MaxEvents = 9999

// eventItem is an event item's attributes; its keys (TASK#<taskId>,
// EVENT#<seq>) and type are its declaration's (entities).
type eventItem struct {
	TaskID  string    `dynamodbav:"taskId"`
	Seq     int       `dynamodbav:"seq"`
	Event   EventType `dynamodbav:"event"`
	Status  Status    `dynamodbav:"status"`
	Attempt int       `dynamodbav:"attempt"`
	Worker  string    `dynamodbav:"worker,omitempty"`
	Message string    `dynamodbav:"message,omitempty"`
	At      string    `dynamodbav:"at"`
	// TTL is when the event expires (Unix seconds): its time plus
	// Options.Retention; none on the event that makes a task DEAD, which
	// stays with its dead letter until Redrive gives it one.
	TTL int64 `dynamodbav:"ttl,omitempty"`
}

// newEvent builds the item of event seq of task id, expiring Retention
// after at unless it makes the task DEAD. An overflowing seq is an error
// wrapping keys.ErrOverflow.
func (s *Store) newEvent(id string, seq int, typ EventType, status Status, attempt int, worker, message string, at time.Time) (*eventItem, error) {
	if _, err := eventSK.Build(seq); err != nil {
		return nil, fmt.Errorf("tasks: task %q: event %d: history is full (%d events): %w", id, seq, MaxEvents, err)
	}
	return &eventItem{
		TaskID: id, Seq: seq,
		Event: typ, Status: status, Attempt: attempt, Worker: worker, Message: message,
		At: keys.FormatTime(at), TTL: s.eventTTL(status, at),
	}, nil
}

// History returns the task's events in order, oldest first: the seed's
// "PK=TASK#id, SK begins_with EVENT#" query, widened to the whole
// partition (the events, then META: "EVENT#" sorts before "META"), strongly
// consistent so it shows every change that has returned. META's event
// count says where the history ends, and META tells the events no item
// holds (under Options.CompactHistory, or a call cut off before its event
// item): a task's submission (its creation), its current claim (while
// PROCESSING) and its completion with the claim before it (once
// COMPLETED); see metaEvents. So it reads the same events whichever layout
// wrote them. A task without META does not exist: ErrNotFound.
func (s *Store) History(ctx context.Context, taskID string) (_ []Event, err error) {
	ctx, span := s.start(ctx, "tasks.History")
	defer span.End(&err)
	if err := s.check(checkTaskID(taskID)); err != nil {
		return nil, err
	}
	var (
		items []eventItem
		meta  *metaItem
	)
	// The task's partition, each item as its entity's (an expired one left
	// out, as for every read).
	for v, err := range s.ent.task.Items(ctx, metaItem{TaskID: taskID}, entity.Consistent()) {
		if err != nil {
			return nil, fmt.Errorf("tasks: history of %q: %w", taskID, err)
		}
		switch v := v.(type) {
		case metaItem:
			meta = &v
		case eventItem:
			items = append(items, v)
		}
	}
	if meta == nil {
		return nil, notFound(taskID, nil)
	}
	return s.kept(meta, items)
}

// kept is the history META and the event items read with it show: for
// each number up to META's event count, the item that holds it, else the
// event META tells (metaEvents); of those, the run that ends at the last
// event without a missing number. Events older than Retention expire
// while their task may live on (a long backlog, a dead letter), so a
// history may lose its oldest events, never one in the middle: that would
// read as a broken history.
func (s *Store) kept(meta *metaItem, items []eventItem) ([]Event, error) {
	bySeq := map[int]eventItem{}
	for _, it := range items {
		switch {
		case it.Seq < 1 || it.Seq > meta.Events:
			// past META's count: an event written by an older version
			// whose META update was refused; the next change writes over
			// it
		case it.Seq == 1 && it.At != meta.CreatedAt:
			// not this task's SUBMITTED event: written by a Submit of the
			// task's idempotency key after the first one had expired,
			// which found this task still there (see Submit)
		default:
			bySeq[it.Seq] = it
		}
	}
	told, err := s.metaEvents(meta)
	if err != nil {
		return nil, err
	}
	// The run that ends at META's last event, without a missing number.
	var run []eventItem
	for seq := meta.Events; seq >= 1; seq-- {
		it, ok := bySeq[seq]
		if !ok {
			if it, ok = told[seq]; !ok {
				break
			}
		}
		run = append(run, it)
	}
	events := make([]Event, 0, len(run))
	for i := len(run) - 1; i >= 0; i-- {
		ev, err := run[i].event()
		if err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
	return events, nil
}

// metaEvents are the events META tells by itself, which a compact store
// does not write as items, by number: the SUBMITTED event (number 1, at
// the task's creation); while the task is PROCESSING, its claim's
// PROCESSING event (the last number); once it is COMPLETED, the COMPLETED
// event (the last number) and the PROCESSING event of the claim it
// completed (the one before). They are exactly the items the default
// layout writes for those numbers. Whatever changes META otherwise (Fail,
// Release, Cancel, a lease's expiry, Redrive) writes its own event, and
// the claim's, in its transaction, in both layouts.
func (s *Store) metaEvents(m *metaItem) (map[int]eventItem, error) {
	told := map[int]eventItem{}
	at, err := parseTime("createdAt", m.CreatedAt)
	if err != nil {
		return nil, err
	}
	sub, err := s.newEvent(m.TaskID, 1, EventSubmitted, StatusPending, 0, "", "", at)
	if err != nil {
		return nil, err
	}
	told[1] = *sub
	claimSeq := m.Events
	if m.Status == StatusCompleted {
		claimSeq = m.Events - 1
		at, err := parseTime("updatedAt", m.UpdatedAt)
		if err != nil {
			return nil, err
		}
		done, err := s.newEvent(m.TaskID, m.Events, EventCompleted, StatusCompleted, m.Attempt, m.Owner, "", at)
		if err != nil {
			return nil, err
		}
		told[m.Events] = *done
	}
	if ev, err := s.claimEventAt(m, claimSeq); err != nil {
		return nil, err
	} else if ev != nil {
		told[claimSeq] = *ev
	}
	return told, nil
}

// event is the Event the item records.
func (it eventItem) event() (Event, error) {
	at, err := parseTime("at", it.At)
	if err != nil {
		return Event{}, err
	}
	return Event{
		TaskID: it.TaskID, Seq: it.Seq, Type: it.Event, Status: it.Status,
		Attempt: it.Attempt, Worker: it.Worker, Message: it.Message, At: at,
	}, nil
}
