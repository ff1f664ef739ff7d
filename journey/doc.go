// Package journey stores the AI Job Engine's transformation journeys
// (docs/systems/journey.md; its original design is "the seed" below): one
// DynamoDB table, TransformationSystem, with one global
// secondary index, GSI1, holding journeys, their stages, Second Brain
// rules, job executions, and the catalog of their logs and reports; the
// logs and reports themselves are files in S3.
//
// # Layout
//
// Every item has the seed's attributes: PK, SK, EntityType, GSI1PK, GSI1SK
// (not on stages and rules, see "Stages and rules in GSI1" below),
// CreatedAt, UpdatedAt (not on log and report entries) and Data, a map
// with the seed's camelCase fields. Timestamps, in keys and in Data, are
// UTC with six fractional digits (2025-11-01T20:30:00.000000Z), the form
// of the seed's JSON examples, so they sort as strings.
//
//	entity            SK                                               GSI1PK                    GSI1SK
//	Journey           METADATA                                         JOURNEYS                  {createdAt}
//	StageDefinition   STAGE#{order:02d}#{stageId}                      (none)                    (none)
//	SecondBrainRule   RULE#{stageId}#{index:03d}#{ruleId}              (none)                    (none)
//	JobExecution      JOB#{order:02d}#{stageId}#{execution:03d}#{ts}   JOB#{jobId}               {startedAt}
//	LogEntry          LOG#{jobId}#{step}#{ts}#{logId}                  JOB#{jobId}               {timestamp}
//	JobReport         REPORT#{jobId}#{reportType}#{ts}#{reportId}      REPORTS#{jobId}           {generatedAt}
//
// All share PK JOURNEY#{journeyId}. Items a Backups.Import wrote (all but
// the metadata) also carry RestoredBy, the import's id, which tells the
// change feed they were restored rather than moved; Export leaves it out. Log files are at
// journeys/{journey_id}/stages/{stage_id}/executions/{job_id}/logs/{step_id}.json
// in the logs store (bucket transformation-journey-logs), report files
// at .../reports/{step_id}/{report_id}.json in the reports store
// (transformation-journey-reports; one object per report, where the seed's
// .../reports/{step_id}.json let a second report of a step replace the
// first), exports at journeys/{id}/backup.json in the backups store
// (Options.Backups, the seed's transformation-backups bucket).
// [Schema] declares the table with every access pattern of the seed.
//
// # The store and its handles
//
// [NewStore] takes the table's API, the logs store and options
// ([TableName], [WithReports], [WithBackups], [Clock], [Logger],
// [TracerProvider], and the fields of [Options]) and fails on a nil API or
// logs store. Calls on a nil Store or handle return [ErrNoStore].
// [Store.Setup] readies what the store runs on: the table
// ([Store.EnsureTable]) and the logs bucket's lifecycle rule
// ([Store.ApplyLifecycle]: the seed's "archival to Glacier after 90 days"
// of full logs, [Options.ArchiveLogsAfterDays]); [Store.Schema] describes
// the table. The calls are grouped in handles, as
// database/sql hands out Tx and Rows, each sharing the store's table,
// clock and logger:
//
//	store.Journeys()  Create, Get, Load, List, All, ByPriority, Pause, Resume, Cancel, Delete
//	store.Stages()    Get, List, All, Skip, Add, Move, Remove
//	store.Jobs()      Start, Finish, Get, Find, Latest, SetProgress, SetStepStatus, List, All, TimedOut, Recover
//	store.Rules()     Add, Get, SetStatus, ForStage
//	store.Library()   Create, Load, Add, Get, SetStatus, Export, Import, ImportFrom
//	store.Logs()      Logger, Read, ReadStep, ListSummaries, Summaries
//	store.Reports()   Write, Read, ListCatalog, Catalog
//	store.Backups()   Export, Import, ImportFrom
//
// Every list has the one shape of the module's stores:
// ListX(ctx, parent, cursor, opts...) returns a table.Page and the cursor
// of the next page, and X(ctx, parent, opts...) walks every page. Each
// documents its total order, ties included.
//
// Every read takes the options of [ReadOptions], and [ListOptions] is the
// same type, so one helper means one thing everywhere: [Consistent] asks a
// Get, [Journeys.Load], [Rules.ForStage] or a list of one journey's
// partition for strongly consistent reads; [Limit], [OfStage], [OfStatus],
// [NewestFirst] and [OldestFirst] shape a list; [IncludeLogSummaries]
// widens [Journeys.Load]. A read refuses an option it cannot honour (Limit on a
// Get, Consistent on a GSI1 list) with a *table.InputError before any
// request.
//
// # Reads
//
//   - [Journeys.Get]: one GetItem.
//   - [Journeys.Load]: the whole journey but its log summaries in two
//     Queries of its partition side by side (the seed's four queries in
//     one round trip, each billed once for its items' total size: a
//     journey with 6 stages, 15 rules and 20 jobs, 27 KB, costs about 3.5
//     read units), typed and grouped into a [Complete].
//   - [Journeys.List]: GSI1 JOURNEYS, newest first (or oldest first),
//     ties by PK, with cursors; [OfStatus] keeps the journeys of some
//     statuses (the dashboard's active journeys) with a filter on
//     Data.status, since GSI1SK holds the creation time, not the status.
//   - [Journeys.ByPriority]: the journeys (of some statuses) in processing
//     order, the seed's "priority determines processing order": priority
//     (critical, high, medium, low), then age (oldest first), then id.
//     No index holds priority, so it reads every listed journey (GSI1
//     JOURNEYS, filtered) and sorts them.
//   - [Jobs.List] and [Jobs.All]: a journey's jobs, or one stage's,
//     by stage order and execution number, one Query a page that reads job
//     items only (begins_with(SK, "JOB#")), never the log summaries.
//   - [Rules.ForStage], [Jobs.Latest], [Stages.List],
//     [Logs.ListSummaries] (time order or newest first),
//     [Reports.ListCatalog].
//   - [Logs.Read], [Logs.ReadStep] and [Reports.Read] read the
//     files from the blob stores, the seed's get_job_logs and get_job_reports.
//
// # Writes
//
// Every change that must not be lost or doubled is a conditional write or
// a transaction:
//
//   - [Journeys.Create] writes the metadata and the default six stages
//     in one transaction, each with attribute_not_exists.
//   - [Jobs.Start] reads the journey's stages and metadata side by side,
//     then creates the job, advances the stage's execution counter (and
//     keeps the job as the stage's lastJob) and updates the journey
//     (status running, current stage and job, totalJobs by ADD) in one
//     transaction: two round trips. Stages run in order, as the seed
//     says: a stage starts once every earlier stage is completed or
//     skipped ([ErrStageOrder]; [Options.StagesInAnyOrder] lifts that for
//     stages that do not depend on one another). A stage runs one
//     execution at a time, and a retry follows a failure: the stage's
//     status is part of the condition. A job runs with the journey's
//     configuration.timeout and retryAttempts unless it was given its own
//     (and with Options.JobTimeout when neither has a timeout).
//   - [Jobs.Finish] reads the stages, the journey and the job (two
//     requests in one round trip) and writes the job, its stage and the
//     journey's aggregates, progress, current stage and status in one
//     transaction, conditional on the journey's counts being as read, so
//     concurrent finishes are serialized and retried. Three requests; it
//     took five or six.
//   - [Stages.Skip] skips a stage with canSkip (the seed's StageSkipped),
//     which counts as done for progress.
//   - [Journeys.Pause], [Journeys.Resume] and [Journeys.Cancel] are
//     conditional on the status they start from; a refusal is a
//     [*StatusError] naming the status DynamoDB returned with it. Cancel
//     also cancels the running jobs and their stages in the same
//     transaction (JobCancelled).
//   - [Rules.Add] and [Rules.SetStatus] keep totalRules and
//     activeRules by ADD in the same transaction as the rule.
//   - [Backups.Import] restores a backup all or nothing although a journey
//     has more items than one transaction holds: it first claims the
//     METADATA item (conditional on no journey being there, unless
//     Overwrite), writes the items and deletes what the backup does not
//     hold in transactions guarded by the claim, then swaps the claim for
//     the backup's metadata. Meanwhile the journey reads as
//     [ErrImportInProgress], Journeys.Create fails and writes that touch the
//     metadata are refused; an import interrupted half way is completed by
//     the next Import. A journey is never part backup and part something
//     else.
//
// # Jobs that outlive their worker
//
// A job is running until its worker finishes it; a worker that dies
// leaves it running. configuration.timeout (seconds, the job's, else the
// journey's) bounds that: a job past its deadline ([Job.Deadline], start
// plus timeout) no longer blocks its stage. The next [Jobs.Start] of the
// stage fails it (status failed, timedOut true, errorMessage "timed out:
// ...", endTime the moment it was failed, failedJobs by ADD) in the same
// transaction that creates the retry, conditional on the old job still
// being active, so a worker that was only late and finished meanwhile
// keeps its result. The late worker's Finish is then refused with a
// [*StatusError]. A journey or job created without a timeout (0) takes
// [Options.JobTimeout], the seed's 1800 seconds by default
// ([DefaultJobTimeout]), so no job holds its stage for ever; with
// [NoJobTimeout] it has none (a stored timeout of 0), and its job holds
// its stage until it finishes.
//
// [Jobs.Recover] is the operator's sweep: it fails every job past its
// deadline (in every journey that has not completed, through GSI1
// JOURNEYS, in processing order as [Journeys.ByPriority] lists them, or
// in one with [OfJourney]) as Finish with JobFailed would,
// conditional on the job being unchanged since it was read, so a journey
// with no retry left fails and a stage nobody restarts shows its failure.
// [Jobs.TimedOut] finds the same jobs and writes nothing (the dry run).
//
// # Deleting a journey
//
// [Journeys.Delete] removes a journey's items. Its log and report files
// stay by default: the seed's full logs are "never deleted" (the audit
// trail) and the logs bucket's lifecycle rule archives them to Glacier
// after 90 days ([Store.Setup]); [Options.PurgeFilesOnDelete] deletes them too, and only
// a store with it needs s3:DeleteObject. Its export in the backups store
// stays either way. A journey has more
// items than one transaction holds, so Delete first marks the METADATA
// item (DeletingAt, out of GSI1) in one transaction with a check on every
// stage that no job runs ([ErrJobRunning] otherwise: Jobs.Start moves a
// stage and checks the metadata in one transaction too). Marked, the
// journey reads as not found ([ErrDeleteInProgress]), and every write
// that touches its metadata, Journeys.Create and Backups.Import are
// refused; Delete then deletes the items, the files (when it purges them),
// and the METADATA item last, so a delete interrupted half way is finished
// by the next.
//
// # Progress from the change feed
//
// A journey's progress is in its items: a job created running, a job moved
// to completed, failed or cancelled, a stage moved to completed or
// skipped, a journey moved to completed, failed or cancelled.
// [ProgressEvents] reads one change of the table's stream (package
// changes, with [DecodeItem] and a NEW_AND_OLD_IMAGES stream) and returns
// the [ProgressEvent] it means, so a dashboard or a notifier follows
// journeys without polling them; delivery is at least once, and each event
// carries its change's sequence number. A job failed past its timeout is a
// jobFailed event with TimedOut; Journeys.Delete reports one
// journeyDeleted (the removal of the marked metadata). [JobFromChange]
// and [JourneyFromChange] read a change's job or journey as Jobs.Get and
// Journeys.Get read it (ok false for other items and removals, an error
// wrapping changes.ErrDecode for an item they cannot read).
//
// # Logs and reports
//
// A [StepLogger] collects a step's entries in memory, as the seed's
// base_stage.py does. Flush and Close write the step's log file (a JSON
// array in the seed's shape) first, then, unless turned off, one LOG#
// summary item per entry through BatchWriteItem, 25 a request and
// [DefaultBatchWriteConcurrency] requests in flight (the seed's 10,000
// entries: 400 requests in 50 round trips), then add the per-level
// counts to the job's metrics and the journey's totals in one transaction.
// Each flush costs that transaction (88 write units at the seed's item
// sizes): flush at the end of a step, as the seed uploads a step's log
// "after step completion", not every second.
// [Reports.Write] writes the report file, then its REPORT# catalog
// item, which the seed saves "optionally": [SkipCatalog] writes the file
// only (Reports.Read finds it; the catalog does not). S3 is always written before DynamoDB, so no item points at a
// missing file. Log and report files are the records' bodies and live only
// in S3; no journey item carries a large attribute, so nothing needs the
// blobstore.Offloader.
//
// # Where the seed contradicts itself
//
// The stored layout is the seed's; where its examples disagree, this
// package reads them as follows.
//
// Jobs of a stage. The seed's dashboard queries GSI1 with
// GSI1PK = STAGE#{journeyId}#{stageId}, but no item is ever written with
// such a GSI1PK: jobs carry JOB#{jobId}. Its pattern 5 reads every job of
// the journey and filters on Data.stageId. The job's sort key already
// starts with the stage, so [Jobs.List] with [OfStage] queries
// begins_with(SK, "JOB#{order}#{stageId}#") and reads exactly the stage's
// jobs; the trailing "#" keeps stage raw from matching raw_2. The latest
// execution is the same query, descending, Limit 1.
//
// Jobs and logs under one GSI1PK. The seed gives a job item and its log
// entries the same GSI1PK, JOB#{jobId}, and says that partition returns
// "ONLY logs". The layout is kept (services built from the seed find jobs
// by id there, and so does [Jobs.Find]); [Logs.ListSummaries] drops
// the one job item with a filter on EntityType, which costs reading that
// single item. Their GSI1SKs have the same shape, so no key condition can
// separate them.
//
// Stages and rules in GSI1. The seed gives stages GSI1 keys
// JOURNEY#{id}#STAGES / {order:02d} and rules JOURNEY#{id}#RULES /
// {stageId}#{priority}#{index:03d}, but its own query strategy reads both
// from the table (begins_with(SK, "STAGE#"), begins_with(SK, "RULE#")),
// and so does every call here: the table's sort key already orders stages
// by execution, a read of it can be strongly consistent (Stages.List,
// Jobs.Recover and every edit need that; an index cannot be), and
// [Rules.ForStage] needs rules other stages file under applicableStages
// and the library's global rules, which no one GSI1 partition holds.
// Their index entries were written and never read: an index write (and
// storage) on every stage and rule write, among them every Jobs.Start and
// Jobs.Finish. So stages and rules are stored without GSI1PK and GSI1SK.
// Items written by earlier versions keep their entries until the item is
// next put (no call reads them); a restored backup keeps what it holds.
//
// Rule priority. The seed's rule GSI1SK {stageId}#{priority}#{index}
// would sort priorities alphabetically (critical, high, low, medium),
// though rules run by priority; no such key is written (above).
// [Rules.ForStage] reads the journey's rules from the table with
// begins_with(SK, "RULE#") and orders them critical, high, medium, low,
// then by index in memory; a journey has a handful of rules.
// [Complete.Rules] are ordered the same way, stage by stage in execution
// order.
//
// Rule scope. The seed's scope says where a rule applies (global, project,
// stage) without saying where a rule of wider scope is kept: every rule
// key it gives lives under one journey. A journey is read as the project
// (the seed names no other), so a project rule applies to every stage of
// its journey; a stage rule to its stage and to metadata.applicableStages;
// and global rules are kept in the rule library, a partition of its own
// shaped like a journey (PK JOURNEY#GLOBAL, with stages to file rules
// under), whose global-scope rules [Rules.ForStage] adds to every
// journey's (a second Query). applicableStages narrows a project or global
// rule when it names stages. The library is reached through
// [Store.Library] only: its id, [GlobalRules], is reserved, and every call
// that takes a journey id refuses it with a *table.InputError, so no
// journey id, chosen by mistake or by an adversary, names the library's
// partition or adds rules to every journey.
//
// Execution numbers and rule indexes. "Failed jobs don't overwrite previous
// attempts", but the job's key also holds its start time, so two
// concurrent starts of execution 2 would create two items. The stage item
// therefore keeps lastExecution and lastRuleIndex (fields the seed does
// not have; absent ones count as 0 and the latest key is consulted too),
// advanced by a conditional write in the same transaction as the job or
// rule. The loser of a race takes the next number.
//
// Total execution time. aggregates.totalExecutionTime is a display
// string ("125m") and cannot be added to. Jobs.Finish keeps
// aggregates.totalExecutionSeconds (a field the seed does not have) and
// sets both from the seconds it read plus the job's duration, in its one
// transaction; the transaction's condition that the journey's counts are
// as read makes that exact under concurrent finishes. Reads derive the
// string from the seconds too. Items written by others without the
// seconds keep their string.
//
// Log summaries in the partition. LOG# sorts between JOB# and METADATA,
// so one Query of the partition would read them too: a job of the seed's
// size leaves 10,000. Journeys.Load therefore reads around them in two
// Queries (SK < "LOG#" and SK >= "LOG$"), and [IncludeLogSummaries] reads
// them as well; [Logs.ListSummaries] pages one job's. They are the seed's
// optional entries, copies of what the S3 log file keeps, so they expire:
// each carries a ttl (the table's TTL attribute, which the seed does not
// have) [Options.LogSummaryRetention] after its entry, a week by default
// ([DefaultLogSummaryRetention]; [KeepLogSummaries] keeps them), and
// [Options.DisableLogSummaries] turns them off.
//
// What remains above the seed's $10 a month. At the seed's 100 jobs a day
// the table costs about $48 a month at the declared average rates
// (docs/costs.md, computed from the store's declarations): $36 of it is
// the summaries, a million a day at two write units each (the item and
// its GSI1 entry), which the seed's cost figure leaves out (its DynamoDB
// keeps metadata only), and $2.7 their week of storage. Without summaries
// (DisableLogSummaries) the rest, about $10, is the seed's figure.
//
// Levels and ids. Log files write levels upper case ("INFO") and
// summaries lower case ("info"), as the seed's two examples do. A report
// file's reportId is "{jobId}_{stepId}" as in the seed's file, its catalog
// entry's a new "RPT-..." id as in the seed's catalog item. The job item
// also holds s3Config {logsBucket, reportsBucket}, from the seed's job
// start record.
//
// Progress and status. overallProgress is the share of stages done
// (completed or skipped: n of 6 done is n*100/6), counted from the
// journey's completedStages list (a field the seed does not have, written
// with progress in Jobs.Finish's and Stages.Skip's transaction), so a retried
// stage never moves it backwards. When every stage is done a running
// journey becomes completed; when a job fails with no retry left
// (configuration.retryAttempts of the job, else of the journey) a running
// journey becomes failed, from which Resume or Cancel lead on.
//
// # Input
//
// Ids must be 1 to 128 letters, digits, '_' and '-' (every id of the
// seed is), because they become key parts, object key segments and
// update expression paths. Object keys are also built with
// blobstore.KeyTemplate, which escapes each id into one segment, so every
// key is a one-to-one function of its ids. A journey id may not be
// GLOBAL ([GlobalRules]): that partition is the rule library's, reached
// through [Store.Library] only. Bad input of any call returns a
// *table.InputError (errors.Is table.ErrInvalidInput) naming the field,
// before any request is sent; a nil option is skipped.
package journey
