package tasks_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// The seed's event store: every status change of a task is an item,
// EVENT#<seq>, read with SK begins_with EVENT#. These tests run tasks
// through every move the queue has and read the table as a tool that
// knows only the seed's layout would: in the default layout the event
// items alone are each task's whole history, and the compact layout's
// History is the same, told partly by META.

// lifeClock is what the lives below need of a clock.
type lifeClock interface {
	Now() time.Time
	Advance(time.Duration)
}

// lives runs one task through each kind of life the queue has, one task
// at a time (so each claim takes the task meant), and returns their ids.
// Keys make the ids the same for every store, and the clock alone dates
// every event, so two layouts run the same lives.
func lives(t *testing.T, store *tasks.Store, clock lifeClock) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	submit := func(key string) string {
		clock.Advance(time.Second)
		task, created, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: key, Payload: []byte(key)})
		require.NoError(t, err, key)
		require.True(t, created, key)
		ids = append(ids, task.ID)
		return task.ID
	}
	claim := func(id, worker string) tasks.Lease {
		clock.Advance(time.Second)
		c, err := store.Claim(ctx, worker)
		require.NoError(t, err, "claim of %s", id)
		require.Equal(t, id, c.Task.ID)
		return c.Lease
	}
	complete := func(l tasks.Lease) {
		clock.Advance(time.Second)
		require.NoError(t, store.Complete(ctx, l, []byte("ok")))
	}
	fail := func(l tasks.Lease, reason string) tasks.Status {
		clock.Advance(time.Second)
		to, err := store.Fail(ctx, l, reason)
		require.NoError(t, err)
		clock.Advance(10 * time.Minute) // past any retry backoff
		return to
	}

	// Plain: submitted, claimed, completed.
	id := submit("plain")
	complete(claim(id, "w1"))

	// Failed once, its next lease expired and was taken over, released
	// at a shutdown, claimed again and completed.
	id = submit("eventful")
	require.Equal(t, tasks.StatusPending, fail(claim(id, "w1"), "provider timeout"))
	claim(id, "w2")
	clock.Advance(tasks.DefaultLeaseDuration + time.Second)
	l := claim(id, "w3")
	clock.Advance(time.Second)
	require.NoError(t, store.Release(ctx, l, "shutting down"))
	complete(claim(id, "w3"))

	// Failed every attempt, a dead letter, re-driven and completed.
	id = submit("doomed")
	for range tasks.DefaultMaxAttempts - 1 {
		require.Equal(t, tasks.StatusPending, fail(claim(id, "w1"), "bad input"))
	}
	require.Equal(t, tasks.StatusDead, fail(claim(id, "w1"), "bad input"))
	_, err := store.Maintenance().Redrive(ctx, id, "fixed the input")
	require.NoError(t, err)
	complete(claim(id, "w2"))

	// Its lease expired and a sweeper moved it back; then completed.
	id = submit("swept")
	claim(id, "w1")
	clock.Advance(tasks.DefaultLeaseDuration + time.Second)
	n, err := store.Maintenance().ReclaimExpired(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	clock.Advance(10 * time.Minute)
	complete(claim(id, "w2"))

	// Withdrawn before anyone claimed it.
	id = submit("withdrawn")
	require.NoError(t, store.Cancel(ctx, id, "not needed"))

	// Its worker died; another took it over and works on it.
	id = submit("taken over")
	claim(id, "w5")
	clock.Advance(tasks.DefaultLeaseDuration + time.Second)
	claim(id, "w6")

	// Still being worked on.
	id = submit("in flight")
	claim(id, "w4")
	return ids
}

// eventItems reads a task's event items as stored (PK TASK#id, SK
// begins_with EVENT#, in order), as any reader of the table can.
func eventItems(t testing.TB, tb *table.Table, id string) []tasks.Event {
	t.Helper()
	q := table.Query{Partition: "TASK#" + id, Sort: table.SortBeginsWith("EVENT#"), Consistent: true}
	var out []tasks.Event
	for it, err := range table.QueryAll[table.Item](context.Background(), tb, q) {
		require.NoError(t, err)
		seq, err := strconv.Atoi(numAttr(it, "seq"))
		require.NoError(t, err)
		attempt, err := strconv.Atoi(numAttr(it, "attempt"))
		require.NoError(t, err)
		at, err := time.Parse("2006-01-02T15:04:05.000000Z", str(it, "at"))
		require.NoError(t, err)
		require.Equal(t, "EVENT#"+strconv.Itoa(10000 + seq)[1:], str(it, "SK"), "the event's number is its key's")
		out = append(out, tasks.Event{TaskID: str(it, "taskId"), Seq: seq, Type: tasks.EventType(str(it, "event")),
			Status: tasks.Status(str(it, "status")), Attempt: attempt, Worker: str(it, "worker"), Message: str(it, "message"), At: at})
	}
	return out
}

func numAttr(it table.Item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}

// wantEventStore asserts that every task's event items are its whole
// history, as History reads it: every status change is an item.
func wantEventStore(t *testing.T, store *tasks.Store, ids []string) {
	t.Helper()
	for _, id := range ids {
		h, err := store.History(context.Background(), id)
		require.NoError(t, err)
		require.NotEmpty(t, h)
		items := eventItems(t, store.Table(), id)
		assert.Equal(t, h, items, "task %s: its event items are its history", id)
		task, err := store.Get(context.Background(), id)
		require.NoError(t, err)
		assert.Len(t, items, task.Events, "task %s: one item per event META counts", id)
	}
}

func TestEveryStatusChangeWritesItsEventItem(t *testing.T) {
	f := newFixture(t)
	ids := lives(t, f.store, f.db)
	wantEventStore(t, f.store, ids)
	wantHistory(t, f.history(t, ids[0]), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
	wantHistory(t, f.history(t, ids[1]), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventReleased, tasks.EventProcessing, tasks.EventCompleted)
	wantHistory(t, f.history(t, ids[2]), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed, tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventDead, tasks.EventRedriven, tasks.EventProcessing, tasks.EventCompleted)
	wantHistory(t, f.history(t, ids[3]), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
	wantHistory(t, f.history(t, ids[4]), tasks.EventSubmitted, tasks.EventCancelled)
	wantHistory(t, f.history(t, ids[5]), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)
	wantHistory(t, f.history(t, ids[6]), tasks.EventSubmitted, tasks.EventProcessing)
}

func TestIntegrationEveryStatusChangeWritesItsEventItem(t *testing.T) {
	clock := localClock()
	store := localStore(t, tasks.Clock(clock.Now))
	wantEventStore(t, store, lives(t, store, clock))
}

// TestCompactHistoryReadsTheSameEvents: the same lives under both
// layouts have the same histories; the compact layout writes fewer items,
// exactly the events META tells.
func TestCompactHistoryReadsTheSameEvents(t *testing.T) {
	full, compact := newFixture(t), newFixture(t, tasks.CompactHistory())
	fullIDs, compactIDs := lives(t, full.store, full.db), lives(t, compact.store, compact.db)
	require.Equal(t, fullIDs, compactIDs, "keys make the ids")
	fewer := 0
	for _, id := range fullIDs {
		assert.Equal(t, full.history(t, id), compact.history(t, id), "task %s: the same history in both layouts", id)
		fewer += len(eventItems(t, full.store.Table(), id)) - len(eventItems(t, compact.store.Table(), id))
	}
	// META tells the SUBMITTED event of every task, the PROCESSING event
	// of the claims in flight and of the claims that completed, and the
	// COMPLETED events: 7 + 2 + 2*4.
	assert.Equal(t, 17, fewer, "event items the compact layout does not write")
}
