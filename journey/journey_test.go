package journey

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// buildJourney writes the complete journey of the seed's dashboard: 1
// metadata item, 6 stages, 15 rules and 20 jobs.
func buildJourney(t testing.TB, e *env, id string) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.store.Journeys().Create(ctx, NewJourney{ID: id, Name: "Product Catalog Migration to TMF620",
		Description: "Transform legacy product catalog to TMF620 API standard", Priority: PriorityHigh, CreatedBy: "data_team",
		ODAComponentType: "PRODUCTCATALOG",
		Configuration:    Configuration{Timeout: 1800, MaxDepth: 5, TMFSpecVersion: "4.0.0", OutputFormat: "json", RetryAttempts: 3}}); err != nil {
		require.NoError(t, err)
	}
	stages := DefaultStages()
	prios := []Priority{PriorityLow, PriorityCritical, PriorityMedium, PriorityHigh}
	for i := range 15 {
		if _, err := e.store.Rules().Add(ctx, NewRule{JourneyID: id, StageID: stages[i%6].StageID,
			Title: fmt.Sprintf("Rule %d", i), Type: RuleFieldMapping, Priority: prios[i%4],
			Content: "Map 'sku' field to TMF 'productCode' with format validation"}); err != nil {
			require.NoError(t, err)
		}
	}
	for i := range 20 {
		e.db.Advance(time.Second)
		j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: id, StageID: stages[i/4].StageID})
		require.NoError(t, err)
		e.db.Advance(90 * time.Second)
		// Four executions of each of five stages, in stage order: three
		// failures (the journey allows three retries), then the
		// completion.
		status := JobFailed
		if i%4 == 3 {
			status = JobCompleted
		}
		if _, err := e.store.Jobs().Finish(ctx, j.Ref(), Finish{Status: status,
			Results: map[string]float64{"recordsProcessed": 10000, "recordsSucceeded": 9998}}); err != nil {
			require.NoError(t, err)
		}
	}
}

// TestLoadJourneyIsOneRoundTrip: the complete journey of 1 + 6 + 15 + 20
// items is two Queries side by side, around the log summaries' range, and
// consumes the read units the items' total size dictates, each Query
// rounding its own sum: one unit per 4 KB, halved for an eventually
// consistent read. With IncludeLogSummaries it is one Query of the
// whole partition.
func TestLoadJourneyIsOneRoundTrip(t *testing.T) {
	e := newEnv(t)
	buildJourney(t, e, "JRN-LOAD")
	// The items' size as DynamoDB counts it, below "LOG#" and above.
	below, above := 0, 0
	for item, err := range table.QueryAll[table.Item](context.Background(), e.store.t, table.Query{Partition: "JOURNEY#JRN-LOAD"}) {
		require.NoError(t, err)
		if stringAttr(item, attrSK) < "LOG#" {
			below += table.ItemSize(item)
		} else {
			above += table.ItemSize(item)
		}
	}
	units := func(size int) float64 { return math.Ceil(float64(size)/4096) / 2 }

	synctest.Test(t, func(t *testing.T) {
		m := dynamotest.NewMeter(e.db, func(o *dynamotest.MeterOptions) { o.Latency = time.Millisecond })
		s := mustStore(t, m, e.logs)
		var c *Complete
		var err error
		u := m.Measure(func() { c, err = s.Journeys().Load(context.Background(), "JRN-LOAD") })
		require.NoError(t, err)
		t.Logf("complete journey: 42 items, %d bytes, %d Queries in %d round trip, %.1f RCU eventually consistent", below+above, u.Requests, u.RoundTrips, u.ReadUnits)
		assert.Equal(t, map[string]int{"Query": 2}, u.Calls)
		assert.Equal(t, 1, u.RoundTrips)
		assert.Equal(t, units(below)+units(above), u.ReadUnits)
		require.Len(t, c.Stages, 6, "loaded stages")
		require.Len(t, c.Rules, 15, "loaded rules")
		require.Len(t, c.Jobs, 20, "loaded jobs")
		require.Equal(t, "JRN-LOAD", c.Journey.ID, "loaded journey")

		// Strongly consistent costs twice as much.
		u = m.Measure(func() { _, err = s.Journeys().Load(context.Background(), "JRN-LOAD", Consistent()) })
		require.NoError(t, err)
		assert.Equal(t, 2*(units(below)+units(above)), u.ReadUnits, "a consistent load's read units")

		// With the summaries: the whole partition in one Query.
		u = m.Measure(func() { _, err = s.Journeys().Load(context.Background(), "JRN-LOAD", IncludeLogSummaries()) })
		require.NoError(t, err)
		assert.Equal(t, map[string]int{"Query": 1}, u.Calls)
		assert.Equal(t, units(below+above), u.ReadUnits)
	})
}

// TestLoadJourneyGroupsAndOrders: stages by order, rules by stage then
// priority critical → low then index, jobs by stage and execution.
func TestLoadJourneyGroupsAndOrders(t *testing.T) {
	e := newEnv(t)
	buildJourney(t, e, "JRN-LOAD")
	c := must[*Complete](t)(e.store.Journeys().Load(context.Background(), "JRN-LOAD"))
	for i, st := range c.Stages {
		assert.Equal(t, i+1, st.Order, "stage %d: order", i)
		assert.Equal(t, "JRN-LOAD", st.JourneyID, "stage %d: journey", i)
	}
	order := map[string]int{}
	for _, st := range c.Stages {
		order[st.StageID] = st.Order
	}
	for i := 1; i < len(c.Rules); i++ {
		a, b := c.Rules[i-1], c.Rules[i]
		// One fact: the pair is in (stage order, priority rank, index) order.
		assert.LessOrEqual(t, cmp.Or(cmp.Compare(order[a.StageID], order[b.StageID]), cmp.Compare(a.Priority.rank(), b.Priority.rank()), cmp.Compare(a.Index, b.Index)), 0,
			"rule %s/%s/%d before %s/%s/%d", a.StageID, a.Priority, a.Index, b.StageID, b.Priority, b.Index)
	}
	jobs := c.StageJobs("raw_analysis")
	if assert.Len(t, jobs, 4, "raw_analysis jobs") {
		assert.Equal(t, 4, jobs[3].ExecutionNumber, "StageJobs in execution order")
	}
	if latest := c.LatestJob("raw_analysis"); assert.NotNil(t, latest, "LatestJob(raw_analysis)") {
		assert.Equal(t, 4, latest.ExecutionNumber, "LatestJob(raw_analysis)")
	}
	assert.Nil(t, c.LatestJob("verification_validation"), "LatestJob of a stage without jobs")
	assert.Nil(t, c.Stage("nope"), "Stage of an unknown id")
	assert.Len(t, c.RecentJobs(3), 3, "RecentJobs(3)")
	rj := c.RecentJobs(1)
	assert.False(t, rj[0].StartTime.Before(c.Jobs[0].StartTime.Time), "RecentJobs(1) = %v, not the newest", rj[0].StartTime)
	agg := c.Journey.Aggregates
	assert.Equal(t, 20, agg.TotalJobs, "totalJobs")
	assert.Equal(t, 5, agg.CompletedJobs, "completedJobs")
	assert.Equal(t, 15, agg.FailedJobs, "failedJobs")
	assert.Equal(t, 15, agg.TotalRules, "totalRules")
	assert.Equal(t, "30m", agg.TotalExecutionTime, "totalExecutionTime")
}

// TestLoadJourneyPaginatesPastOneMegabyte: a partition larger than one
// DynamoDB page is read to the end.
func TestLoadJourneyPaginatesPastOneMegabyte(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	j := must[*Job](t)(e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"}))
	l := must[*StepLogger](t)(e.store.Logs().Logger(j.Ref(), "schema_extraction"))
	msg := string(make([]byte, 1000))
	for range 1500 { // 1500 summaries of ~1.3 KB: about 2 MB
		l.Info(msg, nil)
	}
	require.NoError(t, l.Close(ctx))
	e.db.ResetCalls()
	c := must[*Complete](t)(e.store.Journeys().Load(ctx, "JRN-T", IncludeLogSummaries()))
	require.Len(t, c.Logs, 1500, "loaded log summaries")
	require.Len(t, c.Stages, 6, "loaded stages")
	require.Len(t, c.Jobs, 1, "loaded jobs")
	q := e.db.Calls("Query")
	assert.GreaterOrEqual(t, q, 2, "a 2 MB partition takes more than one 1 MB page")
	// By default Load reads around them: two small queries.
	e.db.ResetCalls()
	e.db.ResetConsumed()
	c = must[*Complete](t)(e.store.Journeys().Load(ctx, "JRN-T"))
	assert.Empty(t, c.Logs, "skipping log summaries: logs")
	assert.Len(t, c.Stages, 6, "skipping log summaries: stages")
	assert.Len(t, c.Jobs, 1, "skipping log summaries: jobs")
	assert.Equal(t, 2, e.db.Calls("Query"), "skipping log summaries: queries")
	ru := e.db.Consumed(DefaultTableName).ReadUnits
	assert.False(t, ru > 2, "skipping logs read %.1f RCU: the summaries were read", ru)
}

func TestCreateJourneyWritesMetadataAndSixStagesAtomically(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.newJourney(t)
	assert.Equal(t, 1, e.db.Calls("TransactWriteItems"), "Create's transactions")
	assert.Equal(t, 1, e.calls(), "Create's requests")
	want := []string{"raw_analysis", "stripped_schema", "tmf_mapping", "migration_planning", "data_migration", "verification_validation"}
	require.Equal(t, 6, len(c.Stages), "%d stages", len(c.Stages))
	for i, st := range c.Stages {
		assert.Equal(t, want[i], st.StageID, "stage %d: id", i)
		assert.Equal(t, i+1, st.Order, "stage %d: order", i)
		assert.Equal(t, StagePending, st.Status, "stage %d: status", i)
	}
	assert.Len(t, c.Stages[0].Steps, 3, "the first stage's steps")
	assert.Equal(t, StatusPending, c.Journey.Status, "a new journey's status")
	assert.Equal(t, "raw_analysis", c.Journey.CurrentStageID, "a new journey's current stage")
	stored := must[[]Stage](t)(collect(e.store.Stages().All(ctx, "JRN-T")))
	if assert.Len(t, stored, 6, "stored stages") {
		assert.Equal(t, "verification_validation", stored[5].StageID, "the last stored stage")
	}

	// The same id again: nothing is written, not even the stages.
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "again", Stages: []Stage{{StageID: "other"}}})
	require.ErrorIs(t, err, ErrJourneyExists, "second create")
	require.ErrorIs(t, err, table.ErrAlreadyExists, "second create")
	j := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T"))
	assert.Equal(t, "Test journey", j.Name, "journey overwritten: %q", j.Name)
	st := must[[]Stage](t)(collect(e.store.Stages().All(ctx, "JRN-T")))
	assert.Equal(t, 6, len(st), "%d stages after the refused create", len(st))
}

func TestCreateJourneyCustomStagesAndGeneratedID(t *testing.T) {
	e := newEnv(t)
	c, err := e.store.Journeys().Create(context.Background(), NewJourney{Name: "custom",
		Stages: []Stage{{StageID: "a", Name: "A"}, {StageID: "b", Name: "B", CanSkip: true}}})
	require.NoError(t, err)
	assert.Equal(t, "JRN-1", c.Journey.ID, "the generated id")
	if assert.Len(t, c.Stages, 2, "the custom stages") {
		assert.Equal(t, 2, c.Stages[1].Order, "the second stage's order")
	}
	assert.Equal(t, PriorityMedium, c.Journey.Priority, "the default priority")
}

func TestGetJourneyMissingIsNotFound(t *testing.T) {
	e := newEnv(t)
	_, err := e.store.Journeys().Get(context.Background(), "JRN-NONE")
	require.ErrorIs(t, err, ErrJourneyNotFound)
	require.ErrorIs(t, err, table.ErrNotFound, "package table's sentinel too")
	_, err = e.store.Journeys().Load(context.Background(), "JRN-NONE")
	require.ErrorIs(t, err, ErrJourneyNotFound, "load: %v", err)
}

// TestListJourneysNewestFirstInPages walks 7 journeys three at a time.
func TestListJourneysNewestFirstInPages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range 7 {
		e.db.Advance(time.Minute)
		_, err := e.store.Journeys().Create(ctx, NewJourney{ID: fmt.Sprintf("JRN-%d", i), Name: "j"})
		require.NoError(t, err)
	}
	var got []string
	cursor := ""
	pages := 0
	for {
		p, err := e.store.Journeys().List(ctx, cursor, Limit(3))
		require.NoError(t, err)
		pages++
		for _, j := range p.Items {
			got = append(got, j.ID)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	assert.Equal(t, []string{"JRN-6", "JRN-5", "JRN-4", "JRN-3", "JRN-2", "JRN-1", "JRN-0"}, got, "newest first")
	assert.Equal(t, 3, pages, "pages of 3")
	var all []string
	for j, err := range e.store.Journeys().All(ctx) {
		require.NoError(t, err)
		all = append(all, j.ID)
	}
	assert.Equal(t, fmt.Sprint(got), fmt.Sprint(all), "Journeys = %v", all)
	_, err := e.store.Journeys().List(ctx, "garbage", Limit(3))
	assert.ErrorIs(t, err, table.ErrInvalidCursor, "bad cursor: %v", err)
}

// TestStatusMovesAreGuarded: pause, resume and cancel move only from the
// statuses they start from, and a refusal names the current status.
func TestStatusMovesAreGuarded(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	j := must[*Journey](t)(e.store.Journeys().Pause(ctx, "JRN-T"))
	require.Equal(t, StatusPaused, j.Status, "paused: %s", j.Status)
	_, err := e.store.Journeys().Pause(ctx, "JRN-T")
	var se *StatusError
	require.ErrorAs(t, err, &se, "second pause")
	require.Equal(t, "paused", se.Current, "second pause: the status it names")
	require.ErrorIs(t, err, ErrInvalidStatus, "second pause")
	require.ErrorIs(t, err, table.ErrConditionFailed, "second pause")
	// A paused journey starts no job.
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.ErrorAs(t, err, &se, "start on paused")
	require.Equal(t, "paused", se.Current, "start on paused: the status it names")
	jobs := must[[]Job](t)(collect(e.store.Jobs().All(ctx, "JRN-T", OfStage("raw_analysis"), Consistent())))
	require.Equal(t, 0, len(jobs), "refused start left %d jobs", len(jobs))
	j = must[*Journey](t)(e.store.Journeys().Resume(ctx, "JRN-T"))
	require.Equal(t, StatusRunning, j.Status, "resumed: %s", j.Status)
	_, err = e.store.Journeys().Resume(ctx, "JRN-T")
	require.ErrorAs(t, err, &se, "resume running")
	require.Equal(t, "running", se.Current, "resume running: the status it names")
	j = must[*Journey](t)(e.store.Journeys().Cancel(ctx, "JRN-T"))
	require.Equal(t, StatusCancelled, j.Status, "cancelled: %s", j.Status)
	for name, move := range map[string]func(context.Context, string) (*Journey, error){
		"pause": e.store.Journeys().Pause, "resume": e.store.Journeys().Resume} {
		_, err := move(ctx, "JRN-T")
		if assert.ErrorAs(t, err, &se, "%s after cancel", name) {
			assert.Equal(t, "cancelled", se.Current, "%s after cancel: the status it names", name)
		}
		_, err = move(ctx, "JRN-NONE")
		assert.ErrorIs(t, err, ErrJourneyNotFound, "%s of a missing journey: %v", name, err)
	}
	_, err = e.store.Journeys().Pause(ctx, "JRN-T")
	got := err.Error()
	assert.Equal(t, `journey: cannot pause journey "JRN-T": its status is "cancelled", not "pending" or "running"`, got, "message %q", got)
	// Cancel again completes a cascade and changes nothing else.
	j, err = e.store.Journeys().Cancel(ctx, "JRN-T")
	require.NoError(t, err)
	assert.Equal(t, StatusCancelled, j.Status)
	_, err = e.store.Journeys().Cancel(ctx, "JRN-NONE")
	assert.ErrorIs(t, err, ErrJourneyNotFound)
}

// TestCancelCancelsRunningJobs: cancelling a running journey writes
// JobCancelled on its running jobs and cancelled on their stages, in the
// journey's transaction; finished jobs keep their status, and the
// cancelled stage's job cannot finish afterwards.
func TestCancelCancelsRunningJobs(t *testing.T) {
	e := newEnv(t, inAnyOrder) // two stages running at once
	ctx := context.Background()
	e.newJourney(t)
	done, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = e.store.Jobs().Finish(ctx, done.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	var running []*Job
	for _, st := range []string{"stripped_schema", "tmf_mapping"} {
		j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: st})
		require.NoError(t, err)
		running = append(running, j)
	}
	e.db.ResetCalls()
	j, err := e.store.Journeys().Cancel(ctx, "JRN-T")
	require.NoError(t, err)
	assert.Equal(t, StatusCancelled, j.Status)
	assert.Equal(t, 1, e.db.Calls("TransactWriteItems"), "the journey and its jobs in one transaction")

	for _, r := range running {
		got, err := e.store.Jobs().Get(ctx, r.Ref(), Consistent())
		require.NoError(t, err)
		assert.Equal(t, JobCancelled, got.Status)
		assert.False(t, got.EndTime.IsZero())
		_, err = e.store.Jobs().Finish(ctx, r.Ref(), Finish{Status: JobCompleted})
		var se *StatusError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, string(JobCancelled), se.Current)
	}
	first, err := e.store.Jobs().Get(ctx, done.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, JobCompleted, first.Status)
	stages, err := collect(e.store.Stages().All(ctx, "JRN-T", Consistent()))
	require.NoError(t, err)
	assert.Equal(t, StageCompleted, stages[0].Status)
	assert.Equal(t, StageCancelled, stages[1].Status)
	assert.Equal(t, StageCancelled, stages[2].Status)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "migration_planning"})
	assert.ErrorIs(t, err, ErrInvalidStatus, "a cancelled journey starts no job")
}

// TestJourneyFailsWhenAJobFailsWithNoRetryLeft: the journey's
// retryAttempts (here 1) allow one retry; the second failure fails the
// journey, and Resume lets an operator retry anyway.
func TestJourneyFailsWhenAJobFailsWithNoRetryLeft(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-F", Name: "f", Configuration: Configuration{RetryAttempts: 1}})
	require.NoError(t, err)
	for attempt := 1; attempt <= 2; attempt++ {
		j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-F", StageID: "raw_analysis"})
		require.NoError(t, err)
		_, err = e.store.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobFailed})
		require.NoError(t, err)
		jr, err := e.store.Journeys().Get(ctx, "JRN-F", Consistent())
		require.NoError(t, err)
		want := StatusRunning
		if attempt == 2 {
			want = StatusFailed
		}
		assert.Equal(t, want, jr.Status, "after failure %d", attempt)
	}
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-F", StageID: "raw_analysis"})
	assert.ErrorIs(t, err, ErrInvalidStatus)
	_, err = e.store.Journeys().Resume(ctx, "JRN-F")
	require.NoError(t, err)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-F", StageID: "raw_analysis"})
	require.NoError(t, err)
}

// TestSkipStageCountsAsDone: a stage with canSkip is skipped (the seed's
// StageSkipped), counts for progress, and moves the journey on; a stage
// without canSkip is refused; skipping the last open stage completes a
// running journey.
func TestSkipStageCountsAsDone(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	stages := []Stage{{StageID: "a"}, {StageID: "b", CanSkip: true}}
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-S", Name: "s", Stages: stages})
	require.NoError(t, err)
	_, err = e.store.Stages().Skip(ctx, "JRN-S", "a")
	assert.ErrorIs(t, err, ErrStageNotSkippable)
	j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-S", StageID: "a"})
	require.NoError(t, err)
	_, err = e.store.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	jr, err := e.store.Journeys().Get(ctx, "JRN-S", Consistent())
	require.NoError(t, err)
	assert.Equal(t, 50, jr.OverallProgress)
	assert.Equal(t, "b", jr.CurrentStageID)

	st, err := e.store.Stages().Skip(ctx, "JRN-S", "b")
	require.NoError(t, err)
	assert.Equal(t, StageSkipped, st.Status)
	jr, err = e.store.Journeys().Get(ctx, "JRN-S", Consistent())
	require.NoError(t, err)
	assert.Equal(t, 100, jr.OverallProgress)
	assert.Equal(t, StatusCompleted, jr.Status)
	assert.Equal(t, []string{"a", "b"}, jr.CompletedStages)
	_, err = e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-S", StageID: "b"})
	assert.ErrorIs(t, err, ErrInvalidStatus, "a skipped stage starts no job")
}

// TestLastStageCompletesJourney: completing the last stage's job moves a
// running journey to completed with progress 100.
func TestLastStageCompletesJourney(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.newJourney(t)
	for i, st := range DefaultStages() {
		j := must[*Job](t)(e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: st.StageID}))
		e.db.Advance(time.Minute)
		must[*Job](t)(e.store.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobCompleted}))
		jr := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T"))
		want := (i + 1) * 100 / 6
		assert.Equal(t, want, jr.OverallProgress, "after stage %d progress %d, want %d", i+1, jr.OverallProgress, want)
	}
	raw := storedItem(t, e.store, "JOURNEY#JRN-T", "METADATA")
	got := raw["Data"].(map[string]any)["aggregates"].(map[string]any)["totalExecutionTime"]
	assert.Equal(t, "6m", got, "stored totalExecutionTime %v, want the 6 minutes of the six jobs", got)
	jr := must[*Journey](t)(e.store.Journeys().Get(ctx, "JRN-T"))
	assert.Equal(t, StatusCompleted, jr.Status, "finished journey: status")
	assert.Equal(t, 100, jr.OverallProgress, "finished journey: progress")
	assert.Equal(t, "verification_validation", jr.CurrentStageID, "finished journey: current stage")
	assert.Equal(t, "6m", jr.Aggregates.TotalExecutionTime, "finished journey: totalExecutionTime")
}
