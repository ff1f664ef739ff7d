package jobs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/tasks"
)

// TestWorkPatternsAreTheTasksTablesOwnDeclarations: every pattern
// WorkPatterns declares on the tasks table but its own transaction part
// is one tasks.Patterns declares, with the same request shape (only the
// rates are the jobs'), and every tasks pattern the work queue is said to
// send is there: a pattern tasks renames or drops fails here instead of
// leaving the jobs policy without the grant.
func TestWorkPatternsAreTheTasksTablesOwnDeclarations(t *testing.T) {
	declared := map[string]access.Pattern{}
	for _, ap := range tasks.Patterns() {
		declared[ap.Name] = ap
	}
	got := map[string]access.Pattern{}
	for _, ap := range WorkPatterns() {
		require.NotContains(t, got, ap.Name, "declared twice")
		got[ap.Name] = ap
		assert.Positive(t, ap.RatePerSecond, "%s: peak rate", ap.Name)
		assert.Positive(t, ap.AveragePerSecond, "%s: average rate", ap.Name)
		assert.LessOrEqual(t, ap.AveragePerSecond, ap.RatePerSecond, "%s: average above peak", ap.Name)
		assert.Positive(t, ap.Latency, "%s: latency target", ap.Name)
		assert.NotEmpty(t, ap.Entities, "%s: entities", ap.Name)
		if ap.Name == patternQueueWork {
			continue
		}
		want, ok := declared[ap.Name]
		require.True(t, ok, "%q is not a tasks pattern", ap.Name)
		want.RatePerSecond, want.AveragePerSecond = ap.RatePerSecond, ap.AveragePerSecond
		assert.Equal(t, want, ap, "%s: the tasks declaration, at the jobs' rates", ap.Name)
	}
	for _, names := range []map[string]float64{workPerJob, workSteady} {
		for name := range names {
			_, ok := got[name]
			assert.True(t, ok, "the work queue sends %q: WorkPatterns declares it", name)
		}
	}
	_, ok := got["Set the readiness signal"]
	assert.True(t, ok, "the readiness signal is set beside each queuing")
	require.Contains(t, declared, "Check idempotency", "the queuing's IDEM item")
	require.Contains(t, declared, "Submit: META", "the queuing's META item")
	require.Contains(t, declared, "Submit: SUBMITTED event", "the queuing's SUBMITTED event")

	q := got[patternQueueWork]
	assert.Equal(t, access.TransactWriteItems, q.Operation)
	require.Len(t, q.Items, 3)
	assert.Equal(t, access.Item{Operation: access.PutItem, Size: declared["Check idempotency"].ItemSize, Partition: declared["Check idempotency"].Partition}, q.Items[0])
	assert.Equal(t, declared["Submit: META"].IndexWrites, q.Items[1].IndexWrites, "META enters GSI1")
	ev := declared["Submit: SUBMITTED event"]
	assert.Equal(t, access.Item{Operation: access.PutItem, Size: ev.ItemSize, Partition: ev.Partition}, q.Items[2])
}

// TestPatternsWithWorkDeclareTheWorkFlowsOnTheJobsTable: without Work the
// patterns are the store's own; with it Create is a transaction, the job's
// heartbeat is gone (the task's lease is the job's), and the worker's read,
// the requeue transaction and Sweep's query are declared, each with its
// entity and latency target.
func TestPatternsWithWorkDeclareTheWorkFlowsOnTheJobsTable(t *testing.T) {
	byName := func(ps []access.Pattern) map[string]access.Pattern {
		out := map[string]access.Pattern{}
		for _, ap := range ps {
			out[ap.Name] = ap
		}
		return out
	}
	plain, work := byName(Patterns()), byName(Patterns(Work("")))
	assert.Equal(t, byName(Patterns(nil, TableName("x"))), plain, "options other than Work change nothing")

	assert.Equal(t, access.PutItem, plain["Create job"].Operation)
	assert.Contains(t, plain, "Heartbeat job lease")
	for _, name := range []string{patternReadClaimedJob, patternRequeueWork, patternFindStranded} {
		assert.NotContains(t, plain, name)
		assert.Contains(t, work, name)
	}
	assert.NotContains(t, work, "Heartbeat job lease")

	create := work["Create job"]
	assert.Equal(t, access.TransactWriteItems, create.Operation)
	require.Len(t, create.Items, 1)
	assert.Equal(t, access.PutItem, create.Items[0].Operation)
	assert.Equal(t, plain["Create job"].IndexWrites, create.Items[0].IndexWrites)
	assert.True(t, work[patternReadClaimedJob].Consistent)
	for name, ap := range work {
		assert.Positive(t, ap.Latency, "%s: latency target", name)
		assert.Equal(t, []string{entityJob}, ap.Entities, name)
		assert.Positive(t, ap.RatePerSecond, "%s: rate", name)
	}
}

// TestWorkTableNameIsTheTableTheStoresWorkGoesTo: "" without Work, the
// tasks table CLI commands read by default, else the one named; the
// store's queue is on it.
func TestWorkTableNameIsTheTableTheStoresWorkGoesTo(t *testing.T) {
	assert.Empty(t, WorkTableName())
	assert.Empty(t, WorkTableName(nil, TableName("jobs-x")))
	assert.Equal(t, tasks.DefaultTableName, WorkTableName(Work("")))
	assert.Equal(t, "queue-x", WorkTableName(TableName("jobs-x"), Work("queue-x")))

	s, err := NewStore(dynamotest.New(), nil, Work("queue-x"))
	require.NoError(t, err)
	assert.Equal(t, "queue-x", s.Tasks().Options().TableName)
}

// TestWorkEntitiesAreTheTasksEntitiesCreatedByTheQueuings: the task, its
// IDEM item and its events are created by the queuing's transaction (the
// SUBMITTED event, and as tasks declares them the other two of a plain
// life), every other entity as tasks declares it, and each creating
// pattern is declared.
func TestWorkEntitiesAreTheTasksEntitiesCreatedByTheQueuings(t *testing.T) {
	names := map[string]bool{}
	for _, ap := range WorkPatterns() {
		names[ap.Name] = true
	}
	want := tasks.Entities()
	got := WorkEntities()
	require.Len(t, got, len(want))
	queued := 0
	for i, e := range got {
		if e.CreatedBy == patternQueueWork {
			queued++
			want[i].CreatedBy = patternQueueWork
		}
		assert.Equal(t, want[i], e)
		assert.True(t, e.CreatedBy == "" || names[e.CreatedBy], "%s: created by %q, not a work pattern", e.Name, e.CreatedBy)
	}
	assert.Equal(t, 3, queued, "the task's META, IDEM and event items")
}
