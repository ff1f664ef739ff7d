package datamodel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/journey"
)

// runJourney drives a journey store at the journey design's declared peaks
// (journey.Patterns) multiplied by scale, all on one journey and its one
// running job: the seed's ~100 jobs a day of ~2 minutes run one at a
// time, so the per-entity key values of that job and its journey take
// every request, datamodel's PerEntity bound. Every 100 ms of the fake's
// clock: the tick's share of the dashboard's reads (journey, complete
// journey, list, stages, rules, jobs, latest execution), of the job's
// progress updates, of its log entries and their flushes (summaries and
// counts) and of the reads of its logs and reports. The rarer writes (create, start, rules,
// finish; a few a minute at most) are the setup. It returns the simulation and
// what the journey's and the job's key values drew.
func runJourney(t *testing.T, scale float64, seconds int) (*sim, map[partitionKey]keyLoad) {
	ctx := context.Background()
	s := newSim(t)
	st, err := journey.NewStore(s.api, blobstore.NewMemory(), journey.Clock(s.db.Now),
		func(o *journey.Options) { o.Table = append(o.Table, noRetries) })
	require.NoError(t, err)
	require.NoError(t, st.EnsureTable(ctx))
	ps := journey.Patterns()
	rate := func(name string) float64 { return scale * rateOf(t, ps, name) }

	// The seed's sizes where the API lets a caller choose them: journey
	// metadata of about 7 KB, log summaries of about 768 B.
	c, err := st.Journeys().Create(ctx, journey.NewJourney{Name: "Product Catalog Migration to TMF620",
		Description: strings.Repeat("Transform legacy product catalog to TMF620 API standard. ", 110)})
	require.NoError(t, err)
	stage := c.Stages[0].StageID
	job, err := st.Jobs().Start(ctx, journey.NewJob{JourneyID: c.Journey.ID, StageID: stage})
	require.NoError(t, err)
	ref := job.Ref()
	logger, err := st.Logs().Logger(ref, "schema_extraction", func(o *journey.LoggerOptions) { o.Source = "schema_analyzer" })
	require.NoError(t, err)
	message := strings.Repeat("Processing table products: 1,024 rows profiled, index on product_id missing. ", 2)
	journeyID, jobID := c.Journey.ID, job.JobID
	s.entities = map[string]string{"journeyId": journeyID, "jobId": jobID}

	tableName := st.Schema().Name
	keysOf := []partitionKey{{"", "JOURNEY#" + journeyID}, {journey.IndexGSI1, "JOB#" + jobID}, {journey.IndexGSI1, "JOURNEYS"}}
	measured := s.measure(tableName, keysOf...)
	pace := pacer{}
	progress, logged := 0, 0
	s.run(seconds, func() {
		for range pace.take("get", rate(journey.PatternGetJourney), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Journeys().Get(ctx, journeyID); return err })
		}
		for range pace.take("load", rate(journey.PatternLoadJourney), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Journeys().Load(ctx, journeyID); return err })
		}
		for range pace.take("list", rate(journey.PatternListJourneys), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Journeys().List(ctx, "", journey.Limit(20)); return err })
		}
		for range pace.take("stages", rate(journey.PatternStages), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Stages().List(ctx, journeyID, ""); return err })
		}
		for range pace.take("rules", rate(journey.PatternStageRules), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Rules().ForStage(ctx, journeyID, stage); return err })
		}
		for range pace.take("jobs", rate(journey.PatternStageJobs), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Jobs().List(ctx, journeyID, "", journey.OfStage(stage))
				return err
			})
		}
		for range pace.take("latest", rate(journey.PatternLatestExecution), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Jobs().Latest(ctx, journeyID, stage); return err })
		}
		for range pace.take("progress", rate(journey.PatternUpdateJobProgress), simTick) {
			progress = min(progress+1, 99)
			s.call(func(ctx context.Context) error {
				_, err := st.Jobs().SetProgress(ctx, ref, progress, "schema_extraction")
				return err
			})
		}
		// The declared entries (25 a BatchWriteItem), flushed at the
		// declared count transactions' rate.
		for range pace.take("log", 25*rate(journey.PatternWriteLogSummaries), simTick) {
			logged++
			logger.Info(fmt.Sprintf("%s (%d)", message, logged), nil)
		}
		for range pace.take("flush", rate(journey.PatternCountLogEntries), simTick) {
			s.call(logger.Flush)
		}
		for range pace.take("logs", rate(journey.PatternJobLogs), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Logs().ListSummaries(ctx, jobID, "", journey.Limit(1000))
				return err
			})
		}
		for range pace.take("recent", rate(journey.PatternRecentJobLogs), simTick) {
			s.call(func(ctx context.Context) error {
				_, err := st.Logs().ListSummaries(ctx, jobID, "", journey.NewestFirst(), journey.Limit(100))
				return err
			})
		}
		for range pace.take("reports", rate(journey.PatternJobReports), simTick) {
			s.call(func(ctx context.Context) error { _, err := st.Reports().ListCatalog(ctx, jobID, ""); return err })
		}
	})
	require.Positive(t, logged)
	return s, measured()
}

// TestJourneyAtSeedPeakDoesNotThrottle: at the journey design's declared peaks, all
// on one journey and its running job, datamodel calls no key value hot,
// neither the constant JOURNEYS nor, with every request on that one
// entity, JOURNEY#{journeyId} or JOB#{jobId}; the fake throttles nothing,
// and what each of those key values drew is within datamodel's figure
// for it.
func TestJourneyAtSeedPeakDoesNotThrottle(t *testing.T) {
	est, err := datamodel.EstimateSchema(journey.Schema(journey.DefaultTableName), journey.Patterns())
	require.NoError(t, err)
	require.Empty(t, hotSet(est))
	require.Empty(t, est.HotPerEntity())

	s, drew := runJourney(t, 1, 10)
	assertHeld(t, est, s, drew)
}

// TestJourneyLoadOfASeedSizedJourneyThrottlesOnlyWithLogSummaries: the
// declared "Load complete journey" reads the journey's metadata, stages,
// rules, jobs and catalog (44.5 RCU), and so does Load by default, which
// reads around the log summaries. With IncludeLogSummaries it reads them
// too, as they sort inside the partition: a journey whose six stages'
// jobs kept the journey design's 10,000 summaries each (60,000, more than 3,000 RCU
// a Load) takes more than a partition's 3,000 RCU/s at the declared one
// Load a second, and the fake throttles its key value.
func TestJourneyLoadOfASeedSizedJourneyThrottlesOnlyWithLogSummaries(t *testing.T) {
	ctx := context.Background()
	est, err := datamodel.EstimateSchema(journey.Schema(journey.DefaultTableName), journey.Patterns())
	require.NoError(t, err)
	require.Empty(t, est.HotPerEntity())
	load, ok := est.Pattern(journey.PatternLoadJourney)
	require.True(t, ok)

	// The journey and its summaries are written past the limiter: only the
	// loads are measured.
	db := newSim(t).db
	seed, err := journey.NewStore(db, blobstore.NewMemory(), journey.Clock(db.Now))
	require.NoError(t, err)
	require.NoError(t, seed.EnsureTable(ctx))
	c, err := seed.Journeys().Create(ctx, journey.NewJourney{Name: "Product Catalog Migration to TMF620"})
	require.NoError(t, err)
	job, err := seed.Jobs().Start(ctx, journey.NewJob{JourneyID: c.Journey.ID, StageID: c.Stages[0].StageID})
	require.NoError(t, err)
	logger, err := seed.Logs().Logger(job.Ref(), "schema_extraction")
	require.NoError(t, err)
	message := strings.Repeat("Processing table products: 1,024 rows profiled, index on product_id missing. ", 2)
	for i := range 6 * 10_000 {
		logger.Info(fmt.Sprintf("%s (%d)", message, i), nil)
	}
	require.NoError(t, logger.Close(ctx))

	// loads sends the declared Loads for seconds through a limiter of its
	// own on db (fresh partitions, a second of credit).
	loads := func(seconds int, opts ...func(*journey.ReadOptions)) (*sim, map[partitionKey]keyLoad) {
		l, err := dynamotest.LimitPartitions(db)
		require.NoError(t, err)
		s := &sim{t: t, db: db, l: l, api: &simAPI{PartitionLimiter: l, cancel: func() {}},
			entities: map[string]string{"journeyId": c.Journey.ID}}
		st, err := journey.NewStore(s.api, blobstore.NewMemory(), journey.Clock(db.Now),
			func(o *journey.Options) { o.Table = append(o.Table, noRetries) })
		require.NoError(t, err)
		measured := s.measure(st.Schema().Name, s.instantiate(partitionKey{"", "JOURNEY#{journeyId}"}))
		pace := pacer{}
		s.run(seconds, func() {
			for range pace.take("load", load.Pattern.RatePerSecond, simTick) {
				s.call(func(ctx context.Context) error { _, err := st.Journeys().Load(ctx, c.Journey.ID, opts...); return err })
			}
		})
		return s, measured()
	}

	s, drew := loads(3)
	assert.Zero(t, s.throttled, "Load")
	for k, got := range drew {
		assert.LessOrEqual(t, got.Read, load.ReadPerSecond, "%s: Load read more than the declared load", k)
	}
	// Each Load takes more than the second of credit it waited for, until
	// one runs out part way through.
	s, drew = loads(3, journey.IncludeLogSummaries())
	for k, got := range drew {
		t.Logf("%s: Load with the summaries drew %.0f RCU/s; datamodel's figure %.1f", k, got.Read, load.ReadPerSecond)
	}
	assert.Positive(t, s.throttled, "Load reading 60,000 log summaries")
	assert.Equal(t, []partitionKey{s.instantiate(partitionKey{"", "JOURNEY#{journeyId}"})}, throttledSet(est, s.l))
}
