package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/tasks"
)

// A store on the fake, given no Clock, keeps the fake's time
// (table.ClockOf): a test moves one clock and passes it nowhere.
func TestAStoreOnTheFakeKeepsTheFakesTime(t *testing.T) {
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	store := newStore(t, db, nil)
	require.NoError(t, store.EnsureTable(context.Background()))
	db.Advance(time.Hour)
	task, _, err := store.Submit(context.Background(), tasks.SubmitInput{Payload: []byte("p")})
	require.NoError(t, err)
	assert.True(t, task.CreatedAt.Equal(epoch.Add(time.Hour)), "created at the fake's time: %v", task.CreatedAt)
}
