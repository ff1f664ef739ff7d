package changes_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
)

// CatchUp reads every record written before it, across batches and a
// shard rollover, where a Step reads one batch per shard and can read
// nothing while records wait (the parent shard read to its end, its child
// not taken yet).
func TestCatchUpReadsEveryRecordWrittenBeforeItWhereAStepStopsShort(t *testing.T) {
	db := setup(t)
	var got []changes.Change[counter]
	h := func(_ context.Context, batch []changes.Change[counter]) error {
		got = append(got, batch...)
		return nil
	}
	c := consumer(t, db, changes.BatchSize(3))
	writeRound(t, db, 1) // 10 records (its delete finds no item)
	n, err := c.Step(context.Background(), h)
	require.NoError(t, err)
	require.Equal(t, 3, n, "one batch per shard")

	n, err = c.CatchUp(context.Background(), h)
	require.NoError(t, err)
	assert.Equal(t, 7, n, "the rest of the shard")
	assert.Len(t, got, 10)

	db.Advance(5 * time.Hour) // the fake rolls its shard over every four hours
	writeRound(t, db, 2)      // 10 records in the child shard
	n, err = c.Step(context.Background(), h)
	require.NoError(t, err)
	assert.Zero(t, n, "the parent is read out: an empty Step, with records waiting in its child")

	n, err = c.CatchUp(context.Background(), h)
	require.NoError(t, err)
	assert.Equal(t, 10, n)
	assert.Len(t, got, 20)

	n, err = c.CatchUp(context.Background(), h)
	require.NoError(t, err)
	assert.Zero(t, n, "caught up: nothing new")

	// Read out by a Step before CatchUp is no catching up with what came
	// after it.
	n, err = c.Step(context.Background(), h)
	require.NoError(t, err)
	require.Zero(t, n)
	writeRound(t, db, 3)
	n, err = c.CatchUp(context.Background(), h)
	require.NoError(t, err)
	assert.Equal(t, 10, n)
	assert.Len(t, got, 30)
}

// Shards another consumer of the group holds are its to read: CatchUp
// reads the rest and says which it could not.
func TestCatchUpReportsShardsAnotherConsumerHolds(t *testing.T) {
	db := setup(t)
	writeRound(t, db, 1)
	nop := func(context.Context, []changes.Change[counter]) error { return nil }
	a := consumer(t, db, changes.Owner("a"), changes.BatchSize(2))
	_, err := a.Step(context.Background(), nop)
	require.NoError(t, err)
	b := consumer(t, db, changes.Owner("b"))
	n, err := b.CatchUp(context.Background(), nop)
	require.ErrorIs(t, err, changes.ErrNotCaughtUp)
	assert.Zero(t, n)

	n, err = a.CatchUp(context.Background(), nop)
	require.NoError(t, err, "a holds the shard and reads it out")
	assert.Equal(t, 8, n)
}

func TestCatchUpRefusesBadInput(t *testing.T) {
	db := setup(t)
	c := consumer(t, db)
	_, err := c.CatchUp(context.Background(), nil)
	require.ErrorIs(t, err, changes.ErrInvalidInput)
	var nilCtx context.Context
	_, err = c.CatchUp(nilCtx, func(context.Context, []changes.Change[counter]) error { return nil })
	require.ErrorIs(t, err, changes.ErrInvalidInput)
	var none *changes.Consumer[counter]
	_, err = none.CatchUp(context.Background(), func(context.Context, []changes.Change[counter]) error { return nil })
	require.ErrorIs(t, err, changes.ErrInvalidInput)
}
