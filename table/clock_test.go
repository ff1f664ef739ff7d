package table_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

var _ table.Clock = (*dynamotest.DB)(nil)

// The fake tells the time its tests move; anything else (the SDK's
// client, nil, a nil fake) is the wall clock.
func TestClockOfIsTheFakesTimeAndOtherwiseTheWallClock(t *testing.T) {
	t0 := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
	now := table.ClockOf(db)
	assert.Equal(t, t0, now())
	db.Advance(time.Hour)
	assert.Equal(t, t0.Add(time.Hour), now(), "the clock follows the fake")

	for name, v := range map[string]any{
		"sdk client": dynamodb.New(dynamodb.Options{Region: "us-east-1"}),
		"nil":        nil,
		"nil fake":   (*dynamotest.DB)(nil),
	} {
		before := time.Now()
		got := table.ClockOf(v)()
		assert.False(t, got.Before(before) || got.After(time.Now()), "%s: the wall clock", name)
	}
}
