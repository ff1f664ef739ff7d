package tasks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// followEvents reads every change the stream holds so far and keeps the
// last event per task and Seq, as EventFromChange says a follower should.
func followEvents(t *testing.T, c *changes.Consumer[table.Item], into map[string]tasks.Event) {
	t.Helper()
	for {
		n, err := c.Step(context.Background(), func(_ context.Context, batch []changes.Change[table.Item]) error {
			for _, ch := range batch {
				ev, ok, err := tasks.EventFromChange(ch)
				if err != nil {
					return err
				}
				if ok {
					into[fmt.Sprintf("%s/%04d", ev.TaskID, ev.Seq)] = ev
				}
			}
			return nil
		})
		require.NoError(t, err)
		if n == 0 {
			return
		}
	}
}

func TestAFollowerOfTheStreamSeesEveryTaskEventAsHistoryHasIt(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) {
		o.MaxAttempts = 3
		o.RetryBackoff = table.Backoff{Initial: time.Second, Max: time.Second}
	})
	ctx := context.Background()
	name := f.store.Schema().Name
	_, err := changes.EnableStream(ctx, f.db, name, types.StreamViewTypeNewImage)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, f.db))
	c, err := changes.New[table.Item](f.db, f.db, name, changes.Decode(changes.DecodeItem),
		changes.Name("task-events"), changes.Clock(f.db.Now), changes.PollInterval(0))
	require.NoError(t, err)

	// One task fails once, then completes; a stale Complete of its first
	// lease is refused and leaves nothing in the history.
	task := f.submit(t, "resize")
	first := f.claim(t, "worker-1")
	_, err = f.store.Fail(ctx, first.Lease, "provider timeout")
	require.NoError(t, err)
	f.db.Advance(2 * time.Second)
	second := f.claim(t, "worker-2")
	require.ErrorIs(t, f.store.Complete(ctx, first.Lease, nil), tasks.ErrLeaseLost)
	require.NoError(t, f.store.Complete(ctx, second.Lease, []byte("ok")))

	followed := map[string]tasks.Event{}
	followEvents(t, c, followed)

	history, err := f.store.History(ctx, task.ID)
	require.NoError(t, err)
	var got []tasks.Event
	for seq := 1; seq <= len(history); seq++ {
		ev, ok := followed[fmt.Sprintf("%s/%04d", task.ID, seq)]
		require.True(t, ok, "event %d of %v not followed", seq, history)
		got = append(got, ev)
	}
	assert.Equal(t, history, got, "the follower sees the history, event for event")
	assert.Len(t, followed, len(history), "and nothing else")
	var kinds []tasks.EventType
	for _, ev := range got {
		kinds = append(kinds, ev.Type)
	}
	assert.Equal(t, []tasks.EventType{tasks.EventSubmitted, tasks.EventProcessing, tasks.EventFailed,
		tasks.EventProcessing, tasks.EventCompleted}, kinds)
}

func TestEventFromChangeIgnoresOtherItemsAndRemovals(t *testing.T) {
	keys := func(it table.Item) table.Item {
		it["PK"] = &types.AttributeValueMemberS{Value: "TASK#t-1"}
		it["SK"] = &types.AttributeValueMemberS{Value: "META"}
		return it
	}
	claim := keys(table.Item{"type": &types.AttributeValueMemberS{Value: "CLAIM"}})
	_, ok, err := tasks.EventFromChange(changes.Change[table.Item]{New: &claim})
	require.NoError(t, err)
	assert.False(t, ok, "a claim item's change is no event")
	failed := keys(table.Item{"type": &types.AttributeValueMemberS{Value: "TASK"}, "status": &types.AttributeValueMemberS{Value: "PENDING"},
		"events": &types.AttributeValueMemberN{Value: "3"}, "createdAt": &types.AttributeValueMemberS{Value: "2026-09-23T10:00:00.000000Z"}})
	_, ok, err = tasks.EventFromChange(changes.Change[table.Item]{New: &failed})
	require.NoError(t, err)
	assert.False(t, ok, "META back to PENDING tells no event: Fail writes its own")
	other := table.Item{"pk": &types.AttributeValueMemberS{Value: "USER#1"}, "type": &types.AttributeValueMemberS{Value: "EVENT"}}
	_, _, err = tasks.EventFromChange(changes.Change[table.Item]{New: &other, Keys: table.Item{"pk": other["pk"]}})
	assert.ErrorIs(t, err, table.ErrInvalidInput, "a record of another table")
	_, ok, err = tasks.EventFromChange(changes.Change[table.Item]{})
	require.NoError(t, err)
	assert.False(t, ok, "a removal (no new image) is no event")
	bad := keys(table.Item{"type": &types.AttributeValueMemberS{Value: "EVENT"}, "at": &types.AttributeValueMemberS{Value: "yesterday"}})
	_, _, err = tasks.EventFromChange(changes.Change[table.Item]{New: &bad})
	assert.Error(t, err, "an event item with an unreadable time is an error, not a silent skip")
}

func TestEventFromChangeFailsAnItemItCannotRead(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	for name, item := range map[string]table.Item{
		"META whose events is no number": {"PK": s("TASK#t-1"), "SK": s("META"), "type": s("TASK"), "taskId": s("t-1"),
			"status": s("PENDING"), "events": s("one"), "createdAt": s("2026-09-23T10:00:00.000000Z")},
		"event whose seq is no number": {"PK": s("TASK#t-1"), "SK": s("EVENT#000001"), "type": s("EVENT"), "taskId": s("t-1"),
			"seq": s("one"), "event": s("SUBMITTED"), "status": s("PENDING"), "at": s("2026-09-23T10:00:00.000000Z")},
	} {
		_, ok, err := tasks.EventFromChange(changes.Change[table.Item]{New: &item})
		assert.Errorf(t, err, "%s: an item that does not decode is an error, not a silent skip", name)
		assert.False(t, ok, name)
	}
}
