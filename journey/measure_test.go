package journey

import (
	"cmp"
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
)

// TestFinishJobIsThreeRequestsInTwoRoundTrips: FinishJob reads the stages
// (Query) and the journey and job (TransactGetItems) side by side, then
// writes one transaction. It took five or six requests, one after another,
// before (Query, TransactWriteItems, GetItem and UpdateItem for the
// display string, UpdateItem to complete the journey, GetItem to return
// the job).
func TestFinishJobIsThreeRequestsInTwoRoundTrips(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	buildJourney(t, e, "JRN-M")
	j, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-M", StageID: "verification_validation"})
	require.NoError(t, err)
	e.db.Advance(90 * time.Second)
	e.db.ResetCalls()
	done, err := e.store.Jobs().Finish(ctx, j.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	t.Logf("FinishJob: %d requests (Query %d, TransactGetItems %d, TransactWriteItems %d)", e.calls(),
		e.db.Calls("Query"), e.db.Calls("TransactGetItems"), e.db.Calls("TransactWriteItems"))
	assert.Equal(t, 3, e.calls())
	assert.Equal(t, 1, e.db.Calls("Query"))
	assert.Equal(t, 1, e.db.Calls("TransactGetItems"))
	assert.Equal(t, 1, e.db.Calls("TransactWriteItems"))

	// What it returned is what it stored.
	stored, err := e.store.Jobs().Get(ctx, j.Ref(), Consistent())
	require.NoError(t, err)
	assert.Equal(t, stored, done)
	jr, err := e.store.Journeys().Get(ctx, "JRN-M", Consistent())
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, jr.Status, "the last stage completed every stage")
	assert.Equal(t, 100, jr.OverallProgress)
	assert.Equal(t, formatMinutes(jr.Aggregates.TotalExecutionSeconds), jr.Aggregates.TotalExecutionTime)
}

// TestListJobsReadsNoLogSummaries: listing a journey's 20 jobs, 7 a page,
// reads job items only, where loading the journey with its summaries
// reads its 500 log summaries too.
func TestListJobsReadsNoLogSummaries(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	buildJourney(t, e, "JRN-M")
	c, err := e.store.Journeys().Load(ctx, "JRN-M")
	require.NoError(t, err)
	l, err := e.store.Logs().Logger(c.Jobs[0].Ref(), "s")
	require.NoError(t, err)
	for i := range 500 {
		l.Info("entry", map[string]any{"i": i})
	}
	require.NoError(t, l.Close(ctx))

	e.db.ResetCalls()
	e.db.ResetConsumed()
	_, err = e.store.Journeys().Load(ctx, "JRN-M", IncludeLogSummaries())
	require.NoError(t, err)
	loadRequests, loadUnits := e.calls(), e.db.Consumed(DefaultTableName).ReadUnits

	e.db.ResetCalls()
	e.db.ResetConsumed()
	var jobs []Job
	for cursor := ""; ; {
		page, err := e.store.Jobs().List(ctx, "JRN-M", cursor, Limit(7))
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.Items), 7)
		jobs = append(jobs, page.Items...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	listRequests, listUnits := e.calls(), e.db.Consumed(DefaultTableName).ReadUnits
	t.Logf("all jobs: LoadJourney %d request(s), %.1f read units; ListJobs(Limit 7) %d requests, %.1f read units",
		loadRequests, loadUnits, listRequests, listUnits)
	require.Len(t, jobs, 20)
	for i := 1; i < len(jobs); i++ {
		a, b := jobs[i-1], jobs[i]
		// One fact: (stage order, execution number) increases.
		assert.Negative(t, cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.ExecutionNumber, b.ExecutionNumber)),
			"job %d (%d/%d) after (%d/%d)", i, b.Order, b.ExecutionNumber, a.Order, a.ExecutionNumber)
	}
	assert.Less(t, listUnits, loadUnits/4, "the listing read more than job items")

	stage, err := e.store.Jobs().List(ctx, "JRN-M", "", OfStage("raw_analysis"))
	require.NoError(t, err)
	require.Len(t, stage.Items, 4)
	n := 0
	for j, err := range e.store.Jobs().All(ctx, "JRN-M", OfStage("tmf_mapping")) {
		require.NoError(t, err)
		assert.Equal(t, "tmf_mapping", j.StageID)
		n++
	}
	assert.Equal(t, 4, n)
}

// TestIngestLogsRoundTrips: a step's 10,000 entries (the seed's figure for
// a job) are written as 400 BatchWriteItem requests of 25, eight in
// flight, and one counts transaction: 401 requests in 51 round trips,
// where they took 401 one after another. Each summary costs its item's
// write and its GSI1 entry's: 2 write units.
func TestIngestLogsRoundTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return t0 } })
		require.NoError(t, Schema("").Create(ctx, db))
		m := dynamotest.NewMeter(db, func(o *dynamotest.MeterOptions) { o.Latency = 5 * time.Millisecond })
		s := mustStore(t, m, blobstore.NewMemory(), Clock(db.Now))
		_, err := s.Journeys().Create(ctx, NewJourney{ID: "JRN-T", Name: "t"})
		require.NoError(t, err)
		job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-T", StageID: "raw_analysis"})
		require.NoError(t, err)
		l, err := s.Logs().Logger(job.Ref(), "schema_extraction")
		require.NoError(t, err)
		for i := range 10_000 {
			l.Info("Processed batch of table products", map[string]any{"i": i})
		}
		u := m.Measure(func() { err = l.Close(ctx) })
		require.NoError(t, err)
		t.Logf("10,000 entries: %d requests, %d round trips, %.0f WCU", u.Requests, u.RoundTrips, u.WriteUnits)
		assert.Equal(t, 401, u.Requests)
		assert.Equal(t, 51, u.RoundTrips)
		assert.Equal(t, map[string]int{"BatchWriteItem": 400, "TransactWriteItems": 1}, u.Calls)
		n := 0
		for _, err := range s.Logs().Summaries(ctx, job.JobID) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 10_000, n, "every summary written")
	})
}
