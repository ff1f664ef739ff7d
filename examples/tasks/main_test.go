package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// TestExampleRunsTwiceInOneProcess runs the whole example twice: on the
// in-memory fake, or on the DynamoDB TABLEKIT_DYNAMODB_ENDPOINT names. It
// fails when the program would exit non-zero, and when a second run in the
// same process fails (flags registered globally panic there).
func TestExampleRunsTwiceInOneProcess(t *testing.T) {
	require.NoError(t, run(nil), "first run")
	require.NoError(t, run(nil), "second run")
}

// storedEvent is an event item as the table holds it: the seed's row
// (PK TASK#<id>, SK EVENT#<seq>), read as any reader of the table would,
// without package tasks.
type storedEvent struct {
	SK      string `dynamodbav:"SK"`
	Seq     int    `dynamodbav:"seq"`
	Event   string `dynamodbav:"event"`
	Status  string `dynamodbav:"status"`
	Attempt int    `dynamodbav:"attempt"`
	Worker  string `dynamodbav:"worker"`
}

// TestIntegrationExampleStoresEveryTasksFullEventHistory: the table the
// example leaves on DynamoDB Local holds, for every task it ran, the
// seed's event store: one EVENT#<seq> item per status change, numbered
// without a gap up to the task's event count, SUBMITTED first, every
// claim's PROCESSING, the rescued task's LEASE_EXPIRED, COMPLETED last,
// and the same events History returns.
func TestIntegrationExampleStoresEveryTasksFullEventHistory(t *testing.T) {
	if os.Getenv(testenv.DynamoDBEndpointVar) == "" {
		t.Skip(testenv.DynamoDBEndpointVar + " not set: this test reads the example's table on DynamoDB Local")
	}
	q, err := runQueue([]string{"-table", testenv.TableName(t, "tasks-example"), "-tasks", "20", "-workers", "3"})
	require.NoError(t, err)
	ctx := context.Background()
	require.Len(t, q.ids, 20)
	for id := range q.ids {
		task, err := q.store.Get(ctx, id)
		require.NoError(t, err)
		query := table.Query{Partition: "TASK#" + id, Sort: table.SortBeginsWith("EVENT#"), Consistent: true}
		var items []storedEvent
		for it, err := range table.QueryAll[storedEvent](ctx, q.store.Table(), query) {
			require.NoError(t, err)
			items = append(items, it)
		}
		require.Len(t, items, task.Events, "task %s: one event item per status change", id)
		for i, it := range items {
			assert.Equal(t, i+1, it.Seq, "task %s: numbered without a gap", id)
			assert.Equal(t, fmt.Sprintf("EVENT#%04d", i+1), it.SK)
		}
		assert.Equal(t, "SUBMITTED", items[0].Event, "task %s", id)
		assert.Equal(t, "COMPLETED", items[len(items)-1].Event, "task %s", id)
		assert.Equal(t, "PROCESSING", items[len(items)-2].Event, "task %s: the claim it completed", id)
		assert.Equal(t, q.completed[id], items[len(items)-1].Worker, "task %s: completed by the worker the example saw", id)
		history, err := q.store.History(ctx, id)
		require.NoError(t, err)
		require.Len(t, history, len(items))
		for i, e := range history {
			assert.Equal(t, string(e.Type), items[i].Event, "task %s event %d: History reads what the table holds", id, i+1)
			assert.Equal(t, string(e.Status), items[i].Status)
			assert.Equal(t, e.Attempt, items[i].Attempt)
			assert.Equal(t, e.Worker, items[i].Worker)
		}
		if id == q.abandoned {
			var kinds []string
			for _, it := range items {
				kinds = append(kinds, it.Event)
			}
			assert.Contains(t, kinds, string(tasks.EventLeaseExpired), "the killed worker's task: its lease's expiry is an item too")
		} else if task.Attempt == 1 {
			assert.Len(t, items, 3, "task %s: a plain life, EVENT#0001-0003", id)
		}
	}
}
