package main

import (
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/journey"
)

// journeyModel is the journey design's TransformationSystem table.
func journeyModel() datamodel.Model {
	return datamodel.Model{
		Store:    "journey",
		Design:   "../systems/journey.md",
		Package:  "github.com/tablekit/tablekit/journey",
		Schema:   journey.Schema(""),
		Patterns: journey.Patterns(),
		Entities: journey.Entities(),
		Popularity: map[string]datamodel.Popularity{
			// The seed: 100 jobs a day of about 2 minutes each (rarely two at
			// once) and "large journeys (1000s of jobs) stay on single
			// partition": the running job's journey takes it all.
			"JOURNEY#{journeyId}": {Keys: 1, Why: "the seed's 100 jobs a day of about 2 minutes run one at a time, and 'large journeys (1000s of jobs) stay on single partition': the running job's journey takes it all"},
			"JOB#{jobId}":         {Keys: 1, Why: "the running job takes all its log entries (about 80 a second while it runs)"},
			"REPORTS#{jobId}":     {Keys: 1, Why: "the running job's steps write their reports"},
		},
		Offloads: []datamodel.Offload{{
			// The seed: ~10,000 entries a job, 100 jobs a day, "full logs
			// are never deleted"; read once or twice a job (troubleshooting).
			What: "a job's full log", Parts: 10_000, PartBytes: 768,
			Writes: 100.0 / 86400, Reads: 1.5 * 100 / 86400, Kept: 100 * 365,
		}},
		Prose: datamodel.Prose{
			Alternatives: map[string]string{
				"capacity":                 "a job runs about 2 minutes, 100 times a day: the load comes in bursts (80 log entries a second while a job runs) that auto-scaling, which reacts in minutes, would throttle or hold capacity for all day; on demand bills only what runs",
				"offload:a job's full log": "the seed's hybrid design: full logs in S3 (moved to Glacier after 90 days, cheaper still than the S3 Standard priced here), summaries in the table",
			},
			Philosophy: "A journey is the unit of work, display and backup: its metadata, six stages, Second Brain rules, job executions and the catalog of logs and reports all share the partition `JOURNEY#{journeyId}`, so the whole journey loads in one Query billed once for the items' total size. " +
				"Bodies (log files, report files, exports) live in S3; DynamoDB keeps the metadata and the object locations, written after the object.",
			Aggregates: "Item collection aggregate per journey: entities are read together (the dashboard loads the complete journey) but updated independently (a job's progress, a rule's status), and the collection grows with executions and logs, so each entity is its own item under the journey's partition rather than one large item. " +
				"Counters that span entities (totalJobs, completedJobs, activeRules) are kept by `ADD` in the same transaction as the entity that changes them.",
			Purpose:           "Journeys of the AI Job Engine and everything that belongs to one journey.",
			AggregateBoundary: "the journey: metadata, stages, rules, jobs, log and report catalog entries share `PK`.",
			PartitionKey:      "`JOURNEY#{journeyId}`: one partition per journey, an identifying relationship (no entity exists without its journey).",
			SortKey:           "entity type and position: prefixes give each entity its range and order (stages by order, jobs by stage, execution and start time).",
			SortKeyTaxonomy: []string{
				"`METADATA`: the journey",
				"`STAGE#{order:02d}#{stageId}`: stage definitions in execution order",
				"`RULE#{stageId}#{index:03d}#{ruleId}`: Second Brain rules of a stage",
				"`JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt}`: job executions, a stage's in execution order",
				"`LOG#{jobId}#{step}#{timestamp}#{logId}`: optional log summaries",
				"`REPORT#{jobId}#{reportType}#{timestamp}#{reportId}`: report catalog entries",
			},
			BoundedReads: "`begins_with(SK, ...)` on the entity prefix (a stage's jobs: `JOB#{order}#{stageId}#`, never a filter); the latest execution is the same query descending with Limit 1; lists page with opaque cursors.",
			Indexes: map[string]datamodel.IndexProse{
				journey.IndexGSI1: {
					Purpose:      "the journeys dashboard (`JOURNEYS`, newest first), a job's log summaries in time order (`JOB#{jobId}`), a job's reports (`REPORTS#{jobId}`). The seed also lists `JOURNEY#{id}#STAGES` (all stages of a journey) and `JOURNEY#{id}#RULES` (all rules of a journey) here, but its own query strategy reads stages and rules from the table by sort key prefix, and so does every call (`STAGE#` orders stages and can be read strongly consistent; a stage's rules include other stages' `applicableStages` and the library's global rules, which no one index partition holds): the store writes no GSI1 keys on stages and rules, so no index write is paid for entries nothing reads (and the seed's rule key `{stageId}#{priority}#{index}`, which orders priorities by name rather than rank, is not written).",
					PartitionKey: "`GSI1PK`, overloaded: `JOURNEYS` (one value for every journey: a low-cardinality partition, see the hot-partition analysis), `JOB#{jobId}`, `REPORTS#{jobId}`.",
					SortKey:      "`GSI1SK`: creation time, timestamps; fixed-width UTC microseconds sort as strings.",
					Projection:   "the dashboard and log views show most attributes; ALL avoids a GetItem per row, paid for by an index write on every item write.",
					Sparse:       "every entity but stages and rules carries GSI1 keys, so the index holds journeys, jobs, log summaries and report entries",
				},
			},
			TradeOffs: []string{
				"**One round trip for the whole journey** instead of the seed's four queries: log summaries sort between `JOB#` and `METADATA`, so the load is two range queries side by side around them (`SK < LOG#`, `SK >= LOG$`); a job's summaries are paged through GSI1 instead.",
				"**Log summaries expire** after a week (`ttl`; the S3 log files keep every entry): a year of the seed's million summaries a day would otherwise be most of the table.",
				"**Overloaded GSI1 with ALL projection**: one index serves five listings; every item write costs a second write in GSI1.",
				"**`JOURNEYS` is one GSI1 partition for all journeys**: fine at the seed's scale (a few journeys created a day, dashboards reading pages of 20); a service creating journeys at hundreds per second would shard it.",
				"**Jobs and logs share `GSI1PK=JOB#{jobId}`** as the seed writes them; the log listing filters out the one job item.",
				"**Counters by ADD inside transactions** keep totals exact under 100 concurrent job finishes, at double write cost.",
			},
			// Where the design departs from the data-modeling method's consolidation
			// rules (computed in dynamodb_requirement.md), and why.
			Relationships: map[string]string{
				"Stage":                "the journey design keeps a journey's stages in its partition so that loading a journey is one Query (its \"86% fewer reads\"); the journey-only reads are a GetItem of METADATA and a GSI1 page, which address their items by key, so the stages beside them cost those reads nothing. Stages are bounded (99).",
				"Rule":                 "in the journey's partition with its stages, for the same one-Query load; a stage's rules are read by sort key prefix (`RULE#`), so the journey-only reads never touch them. Rules are added by administrators, a few a journey; the load pages through them.",
				"Job execution":        "its stage's executions are read by sort key prefix (`JOB#{order}#{stageId}#`) and its counters move in the same transactions as the stage's and the journey's (Start job, Finish job); executions number one per attempt, bounded in practice by `retryAttempts`, and the overlap is just under the 50% line.",
				"Log summary":          "the journey design's layout: `LOG#` items live in the journey's partition, under their job. Every read of them is by job id through GSI1 (`JOB#{jobId}`), so a partition of their own would need that GSI just the same; the journey's reads address items by sort key (and `Journeys.Load` reads around them unless asked, `IncludeLogSummaries`), so they do not slow the reads that do not want them. Their growth is the cost the S3 log files do not carry: see docs/costs.md.",
				"Report catalog entry": "catalog entries sit beside their execution in the journey's partition and are read by job id through GSI1 (`REPORTS#{jobId}`), as log summaries are; one per step, they are few, and the journey load reads them with the execution they belong to.",
			},
			Denormalization: []string{
				"**Taken: the journey's aggregates on its METADATA item** (stage and job counts, progress), moved in the same transactions as the stages and jobs they count: the dashboard reads one item per journey from GSI1 `JOURNEYS`.",
				"**Taken: the job id as GSI1 partition of its log summaries and reports** (`JOB#{jobId}`, `REPORTS#{jobId}`): a job's logs and reports are one query without the journey's id.",
				"**Declined: a stage's rules copied onto the stage item**: rules are added and switched on and off by administrators independently of the stage; a copy would need every rule write to rewrite the stage (up to 400 KB), where the rules' own items under `RULE#{stageId}#` are read by prefix.",
			},
			Integration: "log files, report files and exports are written to S3 first (`transformation-journey-logs`, `transformation-journey-reports`), then the DynamoDB item with their location, so no item points at a missing object.",
		},
		Items: []datamodel.Sample{
			{{"PK", "JOURNEY#j-001"}, {"SK", "METADATA"}, {"GSI1PK", "JOURNEYS"}, {"GSI1SK", "2025-11-01T20:30:00.000000Z"}, {"EntityType", "Journey"}, {"Data", "{name, status: running, aggregates, progress}"}},
			{{"PK", "JOURNEY#j-001"}, {"SK", "STAGE#01#raw_analysis"}, {"EntityType", "StageDefinition"}, {"Data", "{stageId, order: 1, lastExecution: 2}"}},
			{{"PK", "JOURNEY#j-001"}, {"SK", "RULE#raw_analysis#001#rule-7"}, {"EntityType", "SecondBrainRule"}, {"Data", "{priority: critical, status: active}"}},
			{{"PK", "JOURNEY#j-001"}, {"SK", "JOB#01#raw_analysis#002#2025-11-01T20:40:00.000000Z"}, {"GSI1PK", "JOB#job-42"}, {"GSI1SK", "2025-11-01T20:40:00.000000Z"}, {"EntityType", "JobExecution"}, {"Data", "{status: completed, progress: 100}"}},
			{{"PK", "JOURNEY#j-001"}, {"SK", "LOG#job-42#extract#2025-11-01T20:41:00.000000Z#log-9"}, {"GSI1PK", "JOB#job-42"}, {"GSI1SK", "2025-11-01T20:41:00.000000Z"}, {"EntityType", "LogEntry"}, {"Data", "{level: info, message}"}},
			{{"PK", "JOURNEY#j-001"}, {"SK", "REPORT#job-42#quality#2025-11-01T20:45:00.000000Z#RPT-3"}, {"GSI1PK", "REPORTS#job-42"}, {"GSI1SK", "2025-11-01T20:45:00.000000Z"}, {"EntityType", "JobReport"}, {"Data", "{reportType: quality, s3Location}"}},
		},
	}
}
