package journey

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// DefaultTableName is the seed's table.
const DefaultTableName = "TransformationSystem"

// IndexGSI1 is the seed's one global secondary index, on GSI1PK and GSI1SK
// (both S), projecting every attribute.
const IndexGSI1 = "GSI1"

// Access pattern names, for SchemaWithRates.
const (
	PatternGetJourney        = "Get journey"
	PatternLoadJourney       = "Load complete journey"
	PatternListJourneys      = "List journeys"
	PatternStages            = "List stages"
	PatternStageRules        = "Rules of a stage"
	PatternStageJobs         = "Jobs of a stage"
	PatternLatestExecution   = "Latest execution of a stage"
	PatternJobLogs           = "Logs of a job"
	PatternRecentJobLogs     = "Recent logs of a job"
	PatternJobReports        = "Reports of a job"
	PatternCreateJourney     = "Create journey"
	PatternAddRule           = "Add rule"
	PatternSetRuleStatus     = "Set rule status"
	PatternStartJob          = "Start job"
	PatternUpdateJobProgress = "Update job progress"
	PatternFinishJob         = "Finish job"
	PatternJourneyStatus     = "Pause, resume or cancel journey"
	PatternWriteLogSummaries = "Write log summaries"
	PatternWriteReport       = "Write report catalog entry"
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
// while it runs. Services set their own with SchemaWithRates.
var defaultRates = map[string]float64{
	PatternGetJourney:        2,
	PatternLoadJourney:       1,
	PatternListJourneys:      0.5,
	PatternStages:            0.5,
	PatternStageRules:        0.1,
	PatternStageJobs:         0.5,
	PatternLatestExecution:   0.1,
	PatternJobLogs:           0.5,
	PatternRecentJobLogs:     1,
	PatternJobReports:        0.1,
	PatternCreateJourney:     0.01,
	PatternAddRule:           0.01,
	PatternSetRuleStatus:     0.01,
	PatternStartJob:          0.01,
	PatternUpdateJobProgress: 0.5,
	PatternFinishJob:         0.01,
	PatternJourneyStatus:     0.001,
	PatternWriteLogSummaries: 80.0 / 25, // requests: 80 entries a second, 25 per BatchWriteItem
	PatternWriteReport:       0.03,
}

// Schema is the seed's table under name (DefaultTableName when ""): PK and
// SK (S), GSI1 on GSI1PK and GSI1SK (S, projection ALL), and every access
// pattern of the seed with its item size and a default rate.
func Schema(name string) table.Schema {
	s, _ := SchemaWithRates(name, nil)
	return s
}

// SchemaWithRates is Schema with the access patterns' RatePerSecond taken
// from rates (by pattern name, the Pattern* constants) where given. An
// unknown name or a negative rate is an error.
func SchemaWithRates(name string, rates map[string]float64) (table.Schema, error) {
	if name == "" {
		name = DefaultTableName
	}
	for _, n := range sortedKeys(rates) {
		if _, ok := defaultRates[n]; !ok {
			return table.Schema{}, inputError("rates", fmt.Sprintf("%q", n), "no access pattern of that name")
		}
		if r := rates[n]; r < 0 {
			return table.Schema{}, inputError("rates["+n+"]", r, "must not be negative")
		}
	}
	rate := func(n string) float64 {
		if r, ok := rates[n]; ok {
			return r
		}
		return defaultRates[n]
	}
	s := func(a string) table.Attribute { return table.Attribute{Name: a, Type: types.ScalarAttributeTypeS} }
	p := func(name, desc string, op table.Operation, index, cond string, size, n int) table.AccessPattern {
		return table.AccessPattern{Name: name, Description: desc, Operation: op, Index: index,
			KeyCondition: cond, ItemSize: size, ItemsPerRequest: n, RatePerSecond: rate(name)}
	}
	patterns := []table.AccessPattern{
		p(PatternGetJourney, "Journey metadata by id.", table.OpGetItem, "",
			"PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
		p(PatternLoadJourney, "Metadata, stages, rules, jobs and catalog entries of one journey in one Query of its partition.",
			table.OpQuery, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage+15*sizeRule+20*sizeJob)/42, 42),
		p(PatternListJourneys, "Dashboard of all journeys, newest first, 20 a page.", table.OpQuery, IndexGSI1,
			"GSI1PK = JOURNEYS", sizeJourney, 20),
		p(PatternStages, "Stages of a journey in execution order.", table.OpQuery, "",
			"PK = JOURNEY#{journeyId} AND begins_with(SK, STAGE#)", sizeStage, 6),
		p(PatternStageRules, "Rules of the executing stage, ordered by priority in memory.", table.OpQuery, "",
			"PK = JOURNEY#{journeyId} AND begins_with(SK, RULE#{stageId}#)", sizeRule, 3),
		p(PatternStageJobs, "Executions of one stage, by key condition (the seed's filter on Data.stageId is not needed).",
			table.OpQuery, "", "PK = JOURNEY#{journeyId} AND begins_with(SK, JOB#{order}#{stageId}#)", sizeJob, 3),
		p(PatternLatestExecution, "Latest execution of a stage: descending, Limit 1.", table.OpQuery, "",
			"PK = JOURNEY#{journeyId} AND begins_with(SK, JOB#{order}#{stageId}#)", sizeJob, 1),
		p(PatternJobLogs, "Log summaries of a job in time order.", table.OpQuery, IndexGSI1,
			"GSI1PK = JOB#{jobId}", sizeLog, 1000),
		p(PatternRecentJobLogs, "Newest log summaries of a running job: descending, Limit 100.", table.OpQuery, IndexGSI1,
			"GSI1PK = JOB#{jobId}", sizeLog, 100),
		p(PatternJobReports, "Report catalog of a job.", table.OpQuery, IndexGSI1,
			"GSI1PK = REPORTS#{jobId}", sizeReport, 3),
		p(PatternCreateJourney, "Metadata and six stages, all or nothing, each attribute_not_exists.",
			table.OpTransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJourney+6*sizeStage)/7, 7),
		p(PatternAddRule, "Rule, stage's rule counter and journey's rule aggregates.", table.OpTransactWriteItems, "",
			"PK = JOURNEY#{journeyId}", (sizeRule+sizeStage+sizeJourney)/3, 3),
		p(PatternSetRuleStatus, "Rule status and activeRules, conditional on the old status.", table.OpTransactWriteItems, "",
			"PK = JOURNEY#{journeyId}", (sizeRule+sizeJourney)/2, 2),
		p(PatternStartJob, "Job created with the stage's next execution number; journey aggregates.",
			table.OpTransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJob+sizeStage+sizeJourney)/3, 3),
		p(PatternUpdateJobProgress, "Progress, current step and step status of a running job.", table.OpUpdateItem, "",
			"PK = JOURNEY#{journeyId} AND SK = JOB#...", sizeJob, 1),
		p(PatternFinishJob, "Job, stage and journey aggregates and progress in one transaction, counters by ADD.",
			table.OpTransactWriteItems, "", "PK = JOURNEY#{journeyId}", (sizeJob+sizeStage+sizeJourney)/3, 3),
		p(PatternJourneyStatus, "Guarded status move of the journey.", table.OpUpdateItem, "",
			"PK = JOURNEY#{journeyId} AND SK = METADATA", sizeJourney, 1),
		p(PatternWriteLogSummaries, "Optional log summaries after a step, 25 per BatchWriteItem.", table.OpBatchWriteItem, "",
			"PK = JOURNEY#{journeyId}", sizeLog, 25),
		p(PatternWriteReport, "Report catalog entry after the report file is in S3.", table.OpPutItem, "",
			"PK = JOURNEY#{journeyId}", sizeReport, 1),
	}
	// Partitions, GSI1 writes and transaction contents, for package
	// datamodel. Every journey item carries GSI1 keys and GSI1 projects ALL,
	// so every write of an item is also a write of its GSI1 entry; no write
	// here changes a GSI1 key.
	jp := "JOURNEY#{journeyId}"
	gsi := func(gpk string) []table.IndexWrite { return []table.IndexWrite{{Index: IndexGSI1, Partition: gpk}} }
	item := func(op table.Operation, size int, gpk string) table.ItemAccess {
		return table.ItemAccess{Operation: op, Size: size, Partition: jp, IndexWrites: gsi(gpk)}
	}
	const (
		gJourneys = "JOURNEYS"
		gStages   = "JOURNEY#{journeyId}#STAGES"
		gRules    = "JOURNEY#{journeyId}#RULES"
		gJob      = "JOB#{jobId}"
		gReports  = "REPORTS#{jobId}"
	)
	details := map[string]table.AccessPattern{
		PatternGetJourney:      {Partition: jp},
		PatternLoadJourney:     {Partition: jp},
		PatternListJourneys:    {Partition: gJourneys},
		PatternStages:          {Partition: jp},
		PatternStageRules:      {Partition: jp},
		PatternStageJobs:       {Partition: jp},
		PatternLatestExecution: {Partition: jp},
		PatternJobLogs:         {Partition: gJob},
		PatternRecentJobLogs:   {Partition: gJob},
		PatternJobReports:      {Partition: gReports},
		PatternCreateJourney: {Partition: jp, Items: []table.ItemAccess{
			item(table.OpPutItem, sizeJourney, gJourneys),
			{Operation: table.OpPutItem, Size: sizeStage, Count: 6, Partition: jp, IndexWrites: gsi(gStages)},
		}},
		PatternAddRule: {Partition: jp, Items: []table.ItemAccess{
			item(table.OpUpdateItem, sizeStage, gStages),
			item(table.OpPutItem, sizeRule, gRules),
			item(table.OpUpdateItem, sizeJourney, gJourneys),
		}},
		PatternSetRuleStatus: {Partition: jp, Items: []table.ItemAccess{
			item(table.OpUpdateItem, sizeRule, gRules),
			item(table.OpUpdateItem, sizeJourney, gJourneys),
		}},
		PatternStartJob: {Partition: jp, Items: []table.ItemAccess{
			item(table.OpUpdateItem, sizeStage, gStages),
			item(table.OpPutItem, sizeJob, gJob),
			item(table.OpUpdateItem, sizeJourney, gJourneys),
		}},
		PatternUpdateJobProgress: {Partition: jp, IndexWrites: gsi(gJob)},
		PatternFinishJob: {Partition: jp, Items: []table.ItemAccess{
			item(table.OpUpdateItem, sizeJob, gJob),
			item(table.OpUpdateItem, sizeStage, gStages),
			item(table.OpUpdateItem, sizeJourney, gJourneys),
		}},
		PatternJourneyStatus:     {Partition: jp, IndexWrites: gsi(gJourneys)},
		PatternWriteLogSummaries: {Partition: jp, IndexWrites: gsi(gJob)},
		PatternWriteReport:       {Partition: jp, IndexWrites: gsi(gReports)},
	}
	for i := range patterns {
		d := details[patterns[i].Name]
		patterns[i].Partition, patterns[i].IndexWrites, patterns[i].Items = d.Partition, d.IndexWrites, d.Items
	}
	return table.Schema{
		Name:         name,
		PartitionKey: s(attrPK),
		SortKey:      s(attrSK),
		Indexes: []table.Index{{
			Name:         IndexGSI1,
			PartitionKey: s(attrGSI1PK),
			SortKey:      s(attrGSI1SK),
			Projection:   types.ProjectionTypeAll,
		}},
		AccessPatterns: patterns,
	}, nil
}
