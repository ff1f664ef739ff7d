package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/tasks"
)

// TestALeaseWhoseClaimItemExpiredIsTakenOverBeforeDynamoDBDeletesIt: a
// PROCESSING task whose worker's claim item is past its ttl (no heartbeat
// for longer than Retention) but not yet deleted by DynamoDB is taken over
// by the next claim: the claim item is gone for the lease read, as for
// every read, and the takeover's condition on "no claim item" admits it.
func TestALeaseWhoseClaimItemExpiredIsTakenOverBeforeDynamoDBDeletesIt(t *testing.T) {
	f := newFixture(t, tasks.Retention(day))
	f.stopSweeper(t)
	task := f.submit(t, "resize")
	f.claim(t, "worker-1")
	f.db.Advance(day + time.Minute)
	require.NotNil(t, f.raw(t, "WORKER#worker-1", "TASK#"+task.ID), "the fake still holds the expired claim item")

	c, err := f.store.Claim(context.Background(), "worker-2")
	require.NoError(t, err)
	assert.Equal(t, task.ID, c.Task.ID)
	assert.Equal(t, 2, c.Lease.Attempt, "taken over")
	assert.Equal(t, "worker-2", c.Task.Owner)
}
