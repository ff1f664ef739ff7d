package journey

import (
	"fmt"
	"time"

	"github.com/tablekit/tablekit/access"
)

// Averages, per second, for the bill: the seed's cost example is 100 jobs
// a day, each running about 2 minutes, so the patterns a running job
// drives (log summaries, polling its recent logs) run 200 minutes a day
// at their peak; dashboards are open a working day (8 of 24 hours); the
// per-job writes happen 100 times a day (a report per step, six steps);
// journey and rule administration a tenth of its peak. Where the seed
// describes a job's flow, the averages follow it: "during execution (each
// step)" a job updates its progress, so a step's progress and status move
// twice (running, then done); "after step completion" its log file and
// metadata are written, one flush a step; and a job's whole log is what
// one troubleshoots ("Scenario 2: troubleshoot failed job"), read once or
// twice a job, while dashboards poll its recent logs.
const (
	jobsPerDay       = 100.0
	secondsPerDay    = 24 * 3600.0
	runningFraction  = jobsPerDay * 2 * 60 / secondsPerDay
	dashboardHours   = 8.0 / 24
	perJob           = jobsPerDay / secondsPerDay
	adminFraction    = 0.1
	reportsPerJob    = 6
	defaultAvgReport = reportsPerJob * perJob
)

var defaultAverages = map[string]float64{
	PatternGetJourney:         2 * dashboardHours,
	PatternLoadJourney:        1 * dashboardHours,
	PatternListJourneys:       0.5 * dashboardHours,
	PatternJourneysByPriority: 1.0 / 60, // a scheduler polls its queue once a minute (at peak every 10 s)
	PatternStages:             0.5 * dashboardHours,
	PatternStageRules:         0.1 * dashboardHours,
	PatternStageJobs:          0.5 * dashboardHours,
	PatternLatestExecution:    0.1 * dashboardHours,
	PatternJobLogs:            2 * perJob,
	PatternRecentJobLogs:      1 * runningFraction,
	PatternJobReports:         0.1 * dashboardHours,
	PatternCreateJourney:      0.01 * adminFraction,
	PatternAddRule:            0.01 * adminFraction,
	PatternSetRuleStatus:      0.01 * adminFraction,
	PatternRetireRule:         0.01 * adminFraction,
	PatternStartJob:           perJob,
	PatternUpdateJobProgress:  2 * stepsPerJob * perJob,
	PatternFinishJob:          perJob,
	PatternJourneyStatus:      0.001 * adminFraction,
	PatternWriteLogSummaries:  80.0 / 25 * runningFraction,
	PatternCountLogEntries:    stepsPerJob * perJob,
	PatternWriteReport:        defaultAvgReport,
	PatternStartPastTimeout:   timedOutFraction * perJob,
	PatternRecoverJourneys:    1.0 / recoverEvery,
	PatternRecoverStages:      unfinishedJourneys / recoverEvery,
	PatternRecoverJob:         timedOutFraction * perJob,
	PatternDeleteMark:         0.001 * adminFraction,
	PatternDeleteKeys:         0.001 * adminFraction,
	PatternDeleteItems:        0.001 * adminFraction * 2,
	PatternDeleteMetadata:     0.001 * adminFraction,
	PatternImportClaim:        0.001 * adminFraction,
	PatternImportKeys:         0.001 * adminFraction,
	PatternImportItems:        0.001 * adminFraction,
	PatternImportPublish:      0.001 * adminFraction,
}

// Entities are the items the table keeps, for datamodel's storage
// estimate, at the seed's sizes. Every journey item but stages and rules
// carries GSI1 keys and GSI1 projects ALL, so each is stored twice. Log summaries expire
// after DefaultLogSummaryRetention (they are copies of the S3 log files);
// the rest is kept, as the seed keeps journeys, jobs and their catalog
// entries, until the journey is deleted.
// Every item lives in its journey's partition (the seed's single-partition
// journey); each belongs to the item above it: stages to the journey (at
// most 99, what one creating transaction holds), rules to the journey,
// executions to their stage (one per attempt: unbounded, since
// retryAttempts is), log summaries (the seed's ~10,000 entries a job) and
// report entries (one per step) to their execution.
func Entities() []access.Entity {
	gsi := []string{IndexGSI1}
	jp := "JOURNEY#{journeyId}"
	return []access.Entity{
		{Name: entityJourney, Size: sizeJourney, CreatedBy: PatternCreateJourney, Indexes: gsi, Partition: jp, Sort: metadataSK},
		{Name: entityStage, Size: sizeStage, CreatedBy: PatternCreateJourney, PerRequest: 6, Partition: jp, Sort: stageSK.Pattern(),
			Parent: entityJourney, PerParent: 6, MaxPerParent: 99},
		{Name: entityRule, Size: sizeRule, CreatedBy: PatternAddRule, Partition: jp, Sort: ruleSK.Pattern(), Parent: entityJourney, PerParent: 15},
		{Name: entityJob, Size: sizeJob, CreatedBy: PatternStartJob, Indexes: gsi, Partition: jp, Sort: jobSK.Pattern(), Parent: entityStage, PerParent: 3},
		{Name: entityLog, Size: sizeLog, CreatedBy: PatternWriteLogSummaries, PerRequest: 25, Indexes: gsi, Partition: jp, Sort: logSK.Pattern(),
			Parent: entityJob, PerParent: 10_000, Retention: DefaultLogSummaryRetention},
		{Name: entityReport, Size: sizeReport, CreatedBy: PatternWriteReport, Indexes: gsi, Partition: jp, Sort: reportSK.Pattern(), Parent: entityJob, PerParent: reportsPerJob},
	}
}

// Entity names, for Entities and the patterns that read and write them.
const (
	entityJourney = "Journey"
	entityStage   = "Stage"
	entityRule    = "Rule"
	entityJob     = "Job execution"
	entityLog     = "Log summary"
	entityReport  = "Report catalog entry"
)

// patternEntities are the entities each pattern reads or writes.
var patternEntities = map[string][]string{
	PatternGetJourney:         {entityJourney},
	PatternLoadJourney:        {entityJourney, entityStage, entityRule, entityJob, entityReport},
	PatternListJourneys:       {entityJourney},
	PatternJourneysByPriority: {entityJourney},
	PatternStages:             {entityStage},
	PatternStageRules:         {entityRule},
	PatternStageJobs:          {entityJob},
	PatternLatestExecution:    {entityJob},
	PatternJobLogs:            {entityLog},
	PatternRecentJobLogs:      {entityLog},
	PatternJobReports:         {entityReport},
	PatternCreateJourney:      {entityJourney, entityStage},
	PatternAddRule:            {entityRule, entityStage, entityJourney},
	PatternSetRuleStatus:      {entityRule, entityJourney},
	PatternRetireRule:         {entityRule, entityJourney},
	PatternStartJob:           {entityJob, entityStage, entityJourney},
	PatternUpdateJobProgress:  {entityJob},
	PatternFinishJob:          {entityJob, entityStage, entityJourney},
	PatternJourneyStatus:      {entityJourney},
	PatternWriteLogSummaries:  {entityLog},
	PatternCountLogEntries:    {entityJob, entityJourney},
	PatternWriteReport:        {entityReport},
	PatternStartPastTimeout:   {entityJob, entityStage, entityJourney},
	PatternRecoverJourneys:    {entityJourney},
	PatternRecoverStages:      {entityStage},
	PatternRecoverJob:         {entityJob, entityStage, entityJourney},
	PatternDeleteMark:         {entityJourney, entityStage},
	PatternDeleteKeys:         {entityJourney, entityStage, entityRule, entityJob, entityLog, entityReport},
	PatternDeleteItems:        {entityStage, entityRule, entityJob, entityLog, entityReport},
	PatternDeleteMetadata:     {entityJourney},
	PatternImportClaim:        {entityJourney},
	PatternImportKeys:         {entityJourney, entityStage, entityRule, entityJob, entityLog, entityReport},
	PatternImportItems:        {entityStage, entityRule, entityJob, entityLog, entityReport},
	PatternImportPublish:      {entityJourney},
}

// latencies are the patterns' latency targets (p99, the data-modeling method's "latency
// SLO"), from the journey design's figures: journey metadata ~5 ms, a journey's
// stages ~10 ms, the journey list and a job's dashboard rows ~15-20 ms,
// so 10 ms for a GetItem and 20 ms for a page of a partition or of GSI1;
// 50 ms to load a whole journey (~200 KB) and for a transaction; 100 ms
// for a job's whole log (a 1 MB page); recovery, deletion and import, an
// operator's or a background call, a second a request.
var latencies = map[string]time.Duration{
	PatternGetJourney:         10 * time.Millisecond,
	PatternLoadJourney:        50 * time.Millisecond,
	PatternListJourneys:       20 * time.Millisecond,
	PatternJourneysByPriority: 100 * time.Millisecond,
	PatternStages:             20 * time.Millisecond,
	PatternStageRules:         20 * time.Millisecond,
	PatternStageJobs:          20 * time.Millisecond,
	PatternLatestExecution:    20 * time.Millisecond,
	PatternJobLogs:            100 * time.Millisecond,
	PatternRecentJobLogs:      20 * time.Millisecond,
	PatternJobReports:         20 * time.Millisecond,
	PatternCreateJourney:      50 * time.Millisecond,
	PatternAddRule:            50 * time.Millisecond,
	PatternSetRuleStatus:      50 * time.Millisecond,
	PatternRetireRule:         50 * time.Millisecond,
	PatternStartJob:           50 * time.Millisecond,
	PatternUpdateJobProgress:  20 * time.Millisecond,
	PatternFinishJob:          50 * time.Millisecond,
	PatternJourneyStatus:      20 * time.Millisecond,
	PatternWriteLogSummaries:  50 * time.Millisecond,
	PatternCountLogEntries:    50 * time.Millisecond,
	PatternWriteReport:        20 * time.Millisecond,
	PatternStartPastTimeout:   50 * time.Millisecond,
	PatternRecoverJourneys:    time.Second,
	PatternRecoverStages:      time.Second,
	PatternRecoverJob:         time.Second,
	PatternDeleteMark:         time.Second,
	PatternDeleteKeys:         time.Second,
	PatternDeleteItems:        time.Second,
	PatternDeleteMetadata:     time.Second,
	PatternImportClaim:        time.Second,
	PatternImportKeys:         time.Second,
	PatternImportItems:        time.Second,
	PatternImportPublish:      time.Second,
}

// Access pattern names, for PatternsWithRates.
const (
	PatternGetJourney   = "Get journey"
	PatternLoadJourney  = "Load complete journey"
	PatternListJourneys = "List journeys"
	// PatternJourneysByPriority is a scheduler's queue: the journeys in
	// processing order (Journeys.ByPriority).
	PatternJourneysByPriority = "Journeys by priority"
	PatternStages             = "List stages"
	PatternStageRules         = "Rules of a stage"
	PatternStageJobs          = "Jobs of a stage"
	PatternLatestExecution    = "Latest execution of a stage"
	PatternJobLogs            = "Logs of a job"
	PatternRecentJobLogs      = "Recent logs of a job"
	PatternJobReports         = "Reports of a job"
	PatternCreateJourney      = "Create journey"
	PatternAddRule            = "Add rule"
	PatternSetRuleStatus      = "Set rule status"
	PatternRetireRule         = "Set rule status, count unchanged"
	PatternStartJob           = "Start job"
	PatternUpdateJobProgress  = "Update job progress"
	PatternFinishJob          = "Finish job"
	PatternJourneyStatus      = "Pause, resume or cancel journey"
	PatternWriteLogSummaries  = "Write log summaries"
	PatternCountLogEntries    = "Count log entries"
	PatternWriteReport        = "Write report catalog entry"

	// A job whose worker died: the next Start of its stage fails it past
	// its timeout, or Jobs.Recover, an operator's sweep, does.
	PatternStartPastTimeout = "Start job past a timed-out one"
	PatternRecoverJourneys  = "Recover: unfinished journeys"
	PatternRecoverStages    = "Recover: stages of a journey"
	PatternRecoverJob       = "Recover: fail a timed-out job"

	// Journeys.Delete, an operator's call.
	PatternDeleteMark     = "Delete: mark journey"
	PatternDeleteKeys     = "Delete: keys of the partition"
	PatternDeleteItems    = "Delete: items"
	PatternDeleteMetadata = "Delete: metadata"

	// Backups.Import, an operator's call: four requests.
	PatternImportClaim   = "Import: claim journey"
	PatternImportKeys    = "Import: keys of the partition"
	PatternImportItems   = "Import: replace items"
	PatternImportPublish = "Import: publish journey"
)

// Item sizes from the seed's "Data Size Limits" (the middle of each range:
// journey metadata 5-10 KB, stage 2-5 KB, rule 1-3 KB, job 10-20 KB, log
// entry 0.5-1 KB); a report catalog entry is about a log entry's size.
const (
	sizeJourney = 7 * 1024
	sizeStage   = 3 * 1024
	sizeRule    = 2 * 1024
	sizeJob     = 15 * 1024
	sizeLog     = 768
	sizeReport  = 768
)

// Default rates, per second, for a service running about 100 jobs a day
// (the seed's cost example) with dashboards open: a job writes ~10,000 log
// entries (the seed's figure) over its ~2 minutes, i.e. about 80 a second
// while it runs. Services set their own with PatternsWithRates.
var defaultRates = map[string]float64{
	PatternGetJourney:         2,
	PatternLoadJourney:        1,
	PatternListJourneys:       0.5,
	PatternJourneysByPriority: 0.1,
	PatternStages:             0.5,
	PatternStageRules:         0.1,
	PatternStageJobs:          0.5,
	PatternLatestExecution:    0.1,
	PatternJobLogs:            0.5,
	PatternRecentJobLogs:      1,
	PatternJobReports:         0.1,
	PatternCreateJourney:      0.01,
	PatternAddRule:            0.01,
	PatternSetRuleStatus:      0.01,
	PatternRetireRule:         0.01,
	PatternStartJob:           0.01,
	PatternUpdateJobProgress:  0.5,
	PatternFinishJob:          0.01,
	PatternJourneyStatus:      0.001,
	PatternWriteLogSummaries:  80.0 / 25, // requests: 80 entries a second, 25 per BatchWriteItem
	PatternCountLogEntries:    logFlushesPerSecond,
	PatternWriteReport:        0.03,
	PatternStartPastTimeout:   0.01,
	PatternRecoverJourneys:    1.0 / 60,
	PatternRecoverStages:      unfinishedJourneys / 60,
	PatternRecoverJob:         0.01,
	PatternDeleteMark:         0.001,
	PatternDeleteKeys:         0.001,
	PatternDeleteItems:        0.002,
	PatternDeleteMetadata:     0.001,
	PatternImportClaim:        0.001,
	PatternImportKeys:         0.001,
	PatternImportItems:        0.001,
	PatternImportPublish:      0.001,
}

// Jobs whose worker dies, and Recover's sweep: one job in a hundred times
// out; an operator (or a cron job) sweeps every five minutes (peak: every
// minute), over about 20 journeys that have not completed.
const (
	timedOutFraction   = 0.01
	recoverEvery       = 300.0
	unfinishedJourneys = 20.0
)

// logFlushesPerSecond is the peak rate of a running step's flushes: once a
// second, as fresh as the recent-logs view polling it. Every flush sends
// one counts transaction (PatternCountLogEntries) besides its summaries;
// flushing each batch of 25 instead (3.2 a second) would make the counts
// cost more than the summaries.
const logFlushesPerSecond = 1.0

// stepsPerJob is how many step logs a job writes on average: the seed's
// raw_analysis has three steps, and the seed's flow uploads a step's log
// file and writes its metadata "after step completion", one flush (Close)
// per step. The bill's average counts that flow; a service that flushes
// every second while a job runs pays one counts transaction (88 WCU at the
// seed's item sizes) a second for it.
const stepsPerJob = 3

// Patterns are the ways the store reads and writes its table: every access
// pattern of the seed with its item size and a default rate, for package
// datamodel (cmd/datamodel writes docs/journey/ from them).
func Patterns() []access.Pattern {
	ps, _ := PatternsWithRates(nil)
	return ps
}

// PatternsWithRates is Patterns with the patterns' peak RatePerSecond taken
// from rates (by pattern name, the Pattern* constants) where given; a
// default average above a given peak is lowered to it. An unknown name or
// a negative rate is an error.
func PatternsWithRates(rates map[string]float64) ([]access.Pattern, error) {
	for _, n := range sortedKeys(rates) {
		if _, ok := defaultRates[n]; !ok {
			return nil, inputError("rates", fmt.Sprintf("%q", n), "no access pattern of that name")
		}
		if r := rates[n]; r < 0 {
			return nil, inputError("rates["+n+"]", r, "must not be negative")
		}
	}
	rate := func(n string) float64 {
		if r, ok := rates[n]; ok {
			return r
		}
		return defaultRates[n]
	}
	p := func(name, desc string, op access.Op, index, cond string, size, n int) access.Pattern {
		return access.Pattern{Name: name, Description: desc, Operation: op, Index: index,
			KeyCondition: cond, ItemSize: size, ItemsPerRequest: n, RatePerSecond: rate(name),
			AveragePerSecond: min(defaultAverages[name], rate(name))}
	}
	patterns := []access.Pattern{
		p(PatternGetJourney, "Journey metadata by id.", access.GetItem, "",
			"PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
		p(PatternLoadJourney, "Metadata, stages, rules, jobs and catalog entries of one journey: two Queries of its partition side by side, around the log summaries (SK < LOG#, SK >= LOG$).",
			access.Query, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage+15*sizeRule+20*sizeJob)/42, 42),
		p(PatternListJourneys, "Dashboard of all journeys, newest first, 20 a page, or of the active ones (OfStatus: a filter on Data.status, since GSI1SK holds the creation time).", access.Query, IndexGSI1,
			"GSI1PK = JOURNEYS", sizeJourney, 20),
		p(PatternJourneysByPriority, "A scheduler's queue: the journeys of some statuses in processing order, priority then age (Journeys.ByPriority): every page of GSI1 JOURNEYS, filtered on Data.status, sorted in memory; no index orders journeys by priority.", access.Query, IndexGSI1,
			"GSI1PK = JOURNEYS", sizeJourney, 20),
		p(PatternStages, "Stages of a journey in execution order.", access.Query, "",
			"PK = JOURNEY#{journeyId} AND begins_with(SK, STAGE#)", sizeStage, 6),
		p(PatternStageRules, "Rules that apply to the executing stage (its own, applicableStages, project-wide), picked and ordered by priority in memory; a second Query reads the global rules of the rule library (Library, partition JOURNEY#GLOBAL).", access.Query, "",
			"PK = JOURNEY#{journeyId} AND begins_with(SK, RULE#)", sizeRule, 15),
		p(PatternStageJobs, "Executions of one stage, by key condition (the seed's filter on Data.stageId is not needed).",
			access.Query, "", "PK = JOURNEY#{journeyId} AND begins_with(SK, JOB#{order}#{stageId}#)", sizeJob, 3),
		p(PatternLatestExecution, "Latest execution of a stage: descending, Limit 1.", access.Query, "",
			"PK = JOURNEY#{journeyId} AND begins_with(SK, JOB#{order}#{stageId}#)", sizeJob, 1),
		p(PatternJobLogs, "Log summaries of a job in time order.", access.Query, IndexGSI1,
			"GSI1PK = JOB#{jobId}", sizeLog, 1000),
		p(PatternRecentJobLogs, "Newest log summaries of a running job: descending, Limit 100.", access.Query, IndexGSI1,
			"GSI1PK = JOB#{jobId}", sizeLog, 100),
		p(PatternJobReports, "Report catalog of a job.", access.Query, IndexGSI1,
			"GSI1PK = REPORTS#{jobId}", sizeReport, 3),
		p(PatternCreateJourney, "Metadata and six stages, all or nothing, each attribute_not_exists.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage)/7, 7),
		p(PatternAddRule, "Rule, stage's rule counter and journey's rule aggregates.", access.TransactWriteItems, "",
			"PK = JOURNEY#{journeyId}", (sizeRule+sizeStage+sizeJourney)/3, 3),
		p(PatternSetRuleStatus, "Rule status and activeRules, conditional on the old status.", access.TransactWriteItems, "",
			"PK = JOURNEY#{journeyId}", (sizeRule+sizeJourney)/2, 2),
		p(PatternRetireRule, "Rule status between inactive and deprecated: activeRules does not move, so a ConditionCheck on the journey's metadata fences the rule against an import instead.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeRule+sizeJourney)/2, 2),
		p(PatternStartJob, "Job created with the stage's next execution number; journey aggregates.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJob+sizeStage+sizeJourney)/3, 3),
		p(PatternUpdateJobProgress, "Progress, current step and step status of a running job.", access.UpdateItem, "",
			"PK = JOURNEY#{journeyId} AND SK = JOB#...", sizeJob, 1),
		p(PatternFinishJob, "Job, stage and journey aggregates and progress in one transaction, counters by ADD.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJob+sizeStage+sizeJourney)/3, 3),
		p(PatternJourneyStatus, "Guarded status move of the journey.", access.UpdateItem, "",
			"PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
		p(PatternWriteLogSummaries, "Optional log summaries of the entries a flush writes, 25 per BatchWriteItem.", access.BatchWriteItem, "",
			"PK = JOURNEY#{journeyId}", sizeLog, 25),
		p(PatternCountLogEntries, "Per-level counts of a flush's entries, ADDed to the job's metrics and the journey's aggregates in one transaction: one per StepLogger.Flush or Close.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJob+sizeJourney)/2, 2),
		p(PatternWriteReport, "Report catalog entry after the report file is in S3.", access.PutItem, "",
			"PK = JOURNEY#{journeyId}", sizeReport, 1),
		p(PatternStartPastTimeout, "Start of a stage whose job ran past its configuration.timeout: the job created, the stage's counter and lastJob, the journey's aggregates (failedJobs too), and the timed-out job failed, conditional on it still being active.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (2*sizeJob+sizeStage+sizeJourney)/4, 4),
		p(PatternRecoverJourneys, "Jobs.Recover (and TimedOut) lists the journeys that have not completed: GSI1 JOURNEYS, filtered on status, then goes through them in processing order (priority, then age).",
			access.Query, IndexGSI1, "GSI1PK = JOURNEYS", sizeJourney, 20),
		p(PatternRecoverStages, "Jobs.Recover reads each unfinished journey's stages, strongly consistent: a running stage's lastJob says which job and when it times out.",
			access.Query, "", "PK = JOURNEY#{journeyId} AND begins_with(SK, STAGE#)", sizeStage, 6),
		p(PatternRecoverJob, "Jobs.Recover fails a job past its timeout as Finish fails one: job, stage and journey in one transaction, the job conditional on being unchanged since read.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJob+sizeStage+sizeJourney)/3, 3),
		p(PatternDeleteMark, "Journeys.Delete marks the metadata (DeletingAt, out of GSI1) with a ConditionCheck on every stage that no job runs.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage)/7, 7),
		p(PatternDeleteKeys, "Journeys.Delete reads the keys of the journey's partition, strongly consistent.",
			access.Query, "", "PK = JOURNEY#{journeyId}", 100, 42),
		p(PatternDeleteItems, "Journeys.Delete deletes the partition's items, 25 per BatchWriteItem (their GSI1 entries with them).",
			access.BatchWriteItem, "", "PK = JOURNEY#{journeyId}", (6*sizeStage+15*sizeRule+20*sizeJob)/41, 25),
		p(PatternDeleteMetadata, "Journeys.Delete deletes the marked metadata last, conditional on the mark.",
			access.DeleteItem, "", "PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
		p(PatternImportClaim, "Backups.Import claims the journey: its metadata put with an import id and out of GSI1, so no write lands while its items are replaced.",
			access.PutItem, "", "PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
		p(PatternImportKeys, "Backups.Import reads the keys of the journey's partition, strongly consistent, to find the items the backup does not have.",
			access.Query, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage+15*sizeRule+20*sizeJob)/42, 42),
		p(PatternImportItems, "Backups.Import puts the backup's items and deletes stale ones, up to 99 a transaction, each transaction fenced by a ConditionCheck on the claim.",
			access.TransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage+16*sizeRule+20*sizeJob)/43, 43),
		p(PatternImportPublish, "Backups.Import publishes the journey: the backup's metadata, conditional on the claim, back in GSI1.",
			access.PutItem, "", "PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
	}
	// Partitions, GSI1 writes and transaction contents, for package
	// datamodel. Every journey item but stages and rules carries GSI1 keys
	// and GSI1 projects ALL, so every write of such an item is also a
	// write of its GSI1 entry; no write here changes a GSI1 key. Stages and
	// rules have no GSI1 entry (see the package doc).
	jp := "JOURNEY#{journeyId}"
	gsi := func(gpk string) []access.IndexWrite { return []access.IndexWrite{{Index: IndexGSI1, Partition: gpk}} }
	item := func(op access.Op, size int, gpk string) access.Item {
		return access.Item{Operation: op, Size: size, Partition: jp, IndexWrites: gsi(gpk)}
	}
	// plain is a stage or rule write: no GSI1 entry.
	plain := func(op access.Op, size int) access.Item {
		return access.Item{Operation: op, Size: size, Partition: jp}
	}
	const (
		gJourneys = "JOURNEYS"
		gJob      = "JOB#{jobId}"
		gReports  = "REPORTS#{jobId}"
	)
	details := map[string]access.Pattern{
		PatternGetJourney:         {Partition: jp},
		PatternLoadJourney:        {Partition: jp},
		PatternListJourneys:       {Partition: gJourneys},
		PatternJourneysByPriority: {Partition: gJourneys},
		PatternStages:             {Partition: jp},
		PatternStageRules:         {Partition: jp},
		PatternStageJobs:          {Partition: jp},
		PatternLatestExecution:    {Partition: jp},
		PatternJobLogs:            {Partition: gJob},
		PatternRecentJobLogs:      {Partition: gJob},
		PatternJobReports:         {Partition: gReports},
		PatternCreateJourney: {Partition: jp, Items: []access.Item{
			item(access.PutItem, sizeJourney, gJourneys),
			{Operation: access.PutItem, Size: sizeStage, Count: 6, Partition: jp},
		}},
		PatternAddRule: {Partition: jp, Items: []access.Item{
			plain(access.UpdateItem, sizeStage),
			plain(access.PutItem, sizeRule),
			item(access.UpdateItem, sizeJourney, gJourneys),
		}},
		PatternSetRuleStatus: {Partition: jp, Items: []access.Item{
			plain(access.UpdateItem, sizeRule),
			item(access.UpdateItem, sizeJourney, gJourneys),
		}},
		PatternRetireRule: {Partition: jp, Items: []access.Item{
			plain(access.UpdateItem, sizeRule),
			{Operation: access.ConditionCheck, Size: sizeJourney, Partition: jp},
		}},
		PatternStartJob: {Partition: jp, Items: []access.Item{
			plain(access.UpdateItem, sizeStage),
			item(access.PutItem, sizeJob, gJob),
			item(access.UpdateItem, sizeJourney, gJourneys),
		}},
		PatternUpdateJobProgress: {Partition: jp, IndexWrites: gsi(gJob)},
		PatternFinishJob: {Partition: jp, Items: []access.Item{
			item(access.UpdateItem, sizeJob, gJob),
			plain(access.UpdateItem, sizeStage),
			item(access.UpdateItem, sizeJourney, gJourneys),
		}},
		PatternJourneyStatus:     {Partition: jp, IndexWrites: gsi(gJourneys)},
		PatternWriteLogSummaries: {Partition: jp, IndexWrites: gsi(gJob)},
		PatternCountLogEntries: {Partition: jp, Items: []access.Item{
			item(access.UpdateItem, sizeJob, gJob),
			item(access.UpdateItem, sizeJourney, gJourneys),
		}},
		PatternWriteReport: {Partition: jp, IndexWrites: gsi(gReports)},
		PatternStartPastTimeout: {Partition: jp, Items: []access.Item{
			plain(access.UpdateItem, sizeStage),
			item(access.PutItem, sizeJob, gJob),
			item(access.UpdateItem, sizeJourney, gJourneys),
			item(access.UpdateItem, sizeJob, gJob),
		}},
		PatternRecoverJourneys: {Partition: gJourneys},
		PatternRecoverStages:   {Partition: jp, Consistent: true},
		PatternRecoverJob: {Partition: jp, Items: []access.Item{
			item(access.UpdateItem, sizeJob, gJob),
			plain(access.UpdateItem, sizeStage),
			item(access.UpdateItem, sizeJourney, gJourneys),
		}},
		// The mark takes the metadata out of GSI1 (one index write).
		PatternDeleteMark: {Partition: jp, Items: []access.Item{
			item(access.UpdateItem, sizeJourney, gJourneys),
			{Operation: access.ConditionCheck, Size: sizeStage, Count: 6, Partition: jp},
		}},
		PatternDeleteKeys:     {Partition: jp, Consistent: true},
		PatternDeleteItems:    {Partition: jp, IndexWrites: gsi(gJob)},
		PatternDeleteMetadata: {Partition: jp},
		// The claim takes the metadata out of GSI1 (one index write), the
		// publish puts it back (one).
		PatternImportClaim: {Partition: jp, IndexWrites: gsi(gJourneys)},
		PatternImportKeys:  {Partition: jp, Consistent: true},
		PatternImportItems: {Partition: jp, Items: []access.Item{
			{Operation: access.ConditionCheck, Size: sizeJourney, Partition: jp},
			{Operation: access.PutItem, Size: sizeStage, Count: 6, Partition: jp},
			{Operation: access.PutItem, Size: sizeRule, Count: 15, Partition: jp},
			{Operation: access.PutItem, Size: sizeJob, Count: 20, Partition: jp, IndexWrites: gsi(gJob)},
			{Operation: access.DeleteItem, Size: sizeRule, Partition: jp},
		}},
		PatternImportPublish: {Partition: jp, IndexWrites: gsi(gJourneys)},
	}
	for i := range patterns {
		d := details[patterns[i].Name]
		patterns[i].Partition, patterns[i].IndexWrites, patterns[i].Items = d.Partition, d.IndexWrites, d.Items
		patterns[i].Consistent = patterns[i].Consistent || d.Consistent
		patterns[i].Entities = append([]string(nil), patternEntities[patterns[i].Name]...)
		patterns[i].Latency = latencies[patterns[i].Name]
		// Backups.Import is an operator's call: the operator policy
		// grants it, the service's runtime one does not.
		switch patterns[i].Name {
		case PatternImportClaim, PatternImportKeys, PatternImportItems, PatternImportPublish:
			patterns[i].Maintenance = true
		}
	}
	return patterns, nil
}
