package journey

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
)

// priorityRig creates six journeys a second apart, oldest first, whose
// raw_analysis job's worker died: low, critical, high, medium, high,
// critical. Their processing order is critical (the older), critical,
// high (the older), high, medium, low.
func priorityRig(t *testing.T, s *Store, advance func(time.Duration)) (want []string) {
	t.Helper()
	ctx := context.Background()
	for i, p := range []Priority{PriorityLow, PriorityCritical, PriorityHigh, PriorityMedium, PriorityHigh, PriorityCritical} {
		id := "JRN-" + string(rune('A'+i)) + "-" + string(p)
		_, err := s.Journeys().Create(ctx, NewJourney{ID: id, Name: id, Priority: p, Configuration: Configuration{Timeout: 60, RetryAttempts: 1}})
		require.NoError(t, err)
		_, err = s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "raw_analysis"})
		require.NoError(t, err)
		advance(time.Second)
	}
	return []string{"JRN-B-critical", "JRN-F-critical", "JRN-C-high", "JRN-E-high", "JRN-D-medium", "JRN-A-low"}
}

func idsOf[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = id(v)
	}
	return out
}

// TestPriorityOrdersRecoverAndTheWorkList: the seed's "priority
// determines processing order": Journeys.ByPriority lists journeys by
// priority, then age; Jobs.TimedOut and Jobs.Recover go through them in
// that order, so the most urgent journey's dead worker is failed (and
// its stage freed) first.
func TestPriorityOrdersRecoverAndTheWorkList(t *testing.T) {
	e := newEnv(t)
	priorityOrder(t, e.store, e.db.Advance)
}

// TestIntegrationPriorityOrdersRecoverAndTheWorkList is
// TestPriorityOrdersRecoverAndTheWorkList on DynamoDB Local.
func TestIntegrationPriorityOrdersRecoverAndTheWorkList(t *testing.T) {
	clock := localClock()
	priorityOrder(t, localStore(t, Clock(clock.Now)), clock.Advance)
}

func priorityOrder(t *testing.T, s *Store, advance func(time.Duration)) {
	ctx := context.Background()
	want := priorityRig(t, s, advance)
	journeyID := func(j Journey) string { return j.ID }
	jobJourney := func(j Job) string { return j.JourneyID }

	all, err := s.Journeys().ByPriority(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, idsOf(all, journeyID))
	_, err = s.Journeys().Pause(ctx, "JRN-C-high")
	require.NoError(t, err)
	running, err := s.Journeys().ByPriority(ctx, OfStatus(StatusPending, StatusRunning))
	require.NoError(t, err)
	assert.Equal(t, []string{"JRN-B-critical", "JRN-F-critical", "JRN-E-high", "JRN-D-medium", "JRN-A-low"}, idsOf(running, journeyID),
		"the paused journey is not in the queue")

	advance(time.Minute)
	found, err := collect(s.Jobs().TimedOut(ctx))
	require.NoError(t, err)
	assert.Equal(t, want, idsOf(found, jobJourney), "TimedOut in processing order")
	res, err := s.Jobs().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, idsOf(res.Failed, jobJourney), "Recover fails them in processing order")
}

// TestProcessingOrderIsPriorityThenAgeThenID: the one order, and its ties.
func TestProcessingOrderIsPriorityThenAgeThenID(t *testing.T) {
	at := func(s int) Time { return Time{t0.Add(time.Duration(s) * time.Second)} }
	js := []Journey{
		{ID: "z", Priority: "urgent", CreatedAt: at(0)}, // not the seed's: after low
		{ID: "b", Priority: PriorityLow, CreatedAt: at(0)},
		{ID: "a", Priority: PriorityLow, CreatedAt: at(0)},
		{ID: "c", Priority: PriorityMedium, CreatedAt: at(9)},
		{ID: "d", Priority: PriorityMedium, CreatedAt: at(1)},
		{ID: "e", Priority: PriorityCritical, CreatedAt: at(5)},
		{ID: "f", Priority: PriorityHigh, CreatedAt: at(0)},
	}
	for range 3 {
		got := append([]Journey(nil), js...)
		rand.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		slices.SortFunc(got, processingOrder)
		assert.Equal(t, []string{"e", "f", "d", "c", "a", "b", "z"}, idsOf(got, func(j Journey) string { return j.ID }))
	}
}

// TestListJourneysOfStatus: the dashboard's active journeys, by a filter on
// the status (GSI1SK holds the creation time): newest first as ever, full
// pages across the journeys filtered out, cursors that resume; on the
// fake.
func TestListJourneysOfStatus(t *testing.T) {
	e := newEnv(t)
	listOfStatus(t, e.store, e.db.Advance)
}

// TestIntegrationListJourneysOfStatus is TestListJourneysOfStatus on
// DynamoDB Local.
func TestIntegrationListJourneysOfStatus(t *testing.T) {
	clock := localClock()
	listOfStatus(t, localStore(t, Clock(clock.Now)), clock.Advance)
}

func listOfStatus(t *testing.T, s *Store, advance func(time.Duration)) {
	ctx := context.Background()
	var running, paused []string
	for i := range 9 {
		id := "JRN-" + string(rune('A'+i))
		_, err := s.Journeys().Create(ctx, NewJourney{ID: id, Name: id})
		require.NoError(t, err)
		switch i % 3 {
		case 0:
			_, err = s.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: "raw_analysis"})
			running = append([]string{id}, running...) // newest first
		case 1:
			_, err = s.Journeys().Pause(ctx, id)
			paused = append([]string{id}, paused...)
		}
		require.NoError(t, err)
		advance(time.Second)
	}
	journeyID := func(j Journey) string { return j.ID }

	p, err := s.Journeys().List(ctx, "", OfStatus(StatusRunning), Limit(2))
	require.NoError(t, err)
	assert.Equal(t, running[:2], idsOf(p.Items, journeyID), "a full page of running journeys, newest first")
	require.NotEmpty(t, p.Next)
	p, err = s.Journeys().List(ctx, p.Next, OfStatus(StatusRunning), Limit(2))
	require.NoError(t, err)
	assert.Equal(t, running[2:], idsOf(p.Items, journeyID), "the cursor resumes after the last running journey")

	active, err := collect(s.Journeys().All(ctx, OfStatus(StatusRunning, StatusPaused), OldestFirst()))
	require.NoError(t, err)
	assert.Len(t, active, len(running)+len(paused))
	for i, j := range active {
		assert.Contains(t, []Status{StatusRunning, StatusPaused}, j.Status)
		if i > 0 {
			assert.False(t, j.CreatedAt.Before(active[i-1].CreatedAt.Time), "oldest first")
		}
	}
	none, err := s.Journeys().List(ctx, "", OfStatus(StatusCancelled))
	require.NoError(t, err)
	assert.Empty(t, none.Items)
}

// TestOfStatusRefusesBadInputBeforeAnyRequest: an unknown status, none,
// and OfStatus on a read that lists no journeys are *table.InputErrors
// that send nothing.
func TestOfStatusRefusesBadInputBeforeAnyRequest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"unknown":          func() error { _, err := e.store.Journeys().List(ctx, "", OfStatus("in_progress")); return err },
		"none":             func() error { _, err := e.store.Journeys().List(ctx, "", OfStatus()); return err },
		"on jobs":          func() error { _, err := e.store.Jobs().List(ctx, "JRN-T", "", OfStatus(StatusRunning)); return err },
		"on a get":         func() error { _, err := e.store.Journeys().Get(ctx, "JRN-T", OfStatus(StatusRunning)); return err },
		"by priority, bad": func() error { _, err := e.store.Journeys().ByPriority(ctx, OfStatus("urgent")); return err },
		"by priority, limit": func() error {
			_, err := e.store.Journeys().ByPriority(ctx, Limit(5))
			return err
		},
		"by priority, consistent": func() error { _, err := e.store.Journeys().ByPriority(ctx, Consistent()); return err },
	} {
		err := call()
		var ie *table.InputError
		assert.ErrorAs(t, err, &ie, name)
	}
	assert.Zero(t, e.calls())
}
