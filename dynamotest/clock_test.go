package dynamotest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// A store built on one of dynamotest's wrappers keeps the fake's clock
// (table.ClockOf sees through them): a test moves db.Advance once and
// every stamp, TTL and lease follows, however the fake is wrapped.
func TestWrappersTellTheFakesTime(t *testing.T) {
	db := dynamotest.New()
	db.Advance(72 * time.Hour) // far from the wall clock: a wrapper that fell back to time.Now would show
	wrapped := map[string]table.API{
		"Chaos":          dynamotest.Chaos(1, dynamotest.ChaosOn(db)),
		"Chaos API":      dynamotest.Chaos(1, func(o *dynamotest.ChaosOptions) { o.API = db }),
		"Meter":          dynamotest.NewMeter(db),
		"Meter of Chaos": dynamotest.NewMeter(dynamotest.Chaos(1, dynamotest.ChaosOn(db))),
		"Compare":        dynamotest.Compare(db, dynamotest.New()),
	}
	for name, api := range wrapped {
		t.Run(name, func(t *testing.T) {
			now := table.ClockOf(api)
			// The fake's clock runs (an offset on the wall clock): equal
			// within a second, where the wall clock is 72 hours away.
			require.WithinDuration(t, db.Now(), now(), time.Second, "the fake's time, not the wall clock")
			db.Advance(time.Hour)
			assert.WithinDuration(t, db.Now(), now(), time.Second, "and it follows Advance")
		})
	}
}

// A wrapper in front of another store has that store's clock: the wall
// clock in front of an SDK client. Nil wrappers say time.Now, never panic.
func TestWrappersOfAnotherStoreTellTheWallClock(t *testing.T) {
	for name, api := range map[string]table.API{
		"Meter of nothing clocked":          dynamotest.NewMeter(noClock{}),
		"Compare of a wall-clock reference": dynamotest.Compare(noClock{}, dynamotest.New()),
		"nil Chaotic":                       (*dynamotest.Chaotic)(nil),
		"nil Meter":                         (*dynamotest.Meter)(nil),
		"nil Comparison":                    (*dynamotest.Comparison)(nil),
		"zero Comparison":                   &dynamotest.Comparison{},
	} {
		t.Run(name, func(t *testing.T) {
			assert.WithinDuration(t, time.Now(), table.ClockOf(api)(), time.Minute)
		})
	}
}

// noClock is an API with no clock of its own, as the SDK's client.
type noClock struct{ table.API }
