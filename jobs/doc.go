// Package jobs stores the photo editor's processing jobs, the system
// docs/systems/jobs.md describes (its original design is "the seed" below): the
// table photoeditor-{env}-jobs, its two indexes, TTL, and the guarded status
// machine workers use to move a job from upload to result.
//
// # Layout
//
// Items follow the seed exactly, so tables and services built from the seed
// work unchanged: partition key jobId (S, a ULID), userId, status,
// createdAt and updatedAt (Unix milliseconds), fileSize, fileType,
// originalFileName, s3TempKey, s3FinalKey, provider, processingStartedAt,
// processingCompletedAt, analysisResult, editResult, error {code, message,
// stack, retryCount}, correlationId, traceId and ttl (Unix seconds). The
// global secondary indexes userId-createdAt-index and status-createdAt-index
// (createdAt N, projection ALL) serve a user's history and the admin's
// status view, both newest first. [Schema] declares all of it, with the
// seed's access patterns, and creates the table. The item is an entity of
// package entity (schema.go: its own jobId as the key, its own attributes
// as the indexes' keys, ttl as its TTL, unknown attributes kept in Extra):
// Get, Delete and the lists read and write through it, and every read
// decodes through it.
//
// A failure's error.stack is kept in dev and staging only, as the seed
// says: [Options.Environment] (by default the {env} of
// photoeditor-{env}-jobs) decides, and in every other environment Fail and
// the job worker store the error without it.
//
// # Table settings
//
// As the seed asks of production, the table has point-in-time recovery and
// encryption with the AWS managed KMS key ([table.RecoveryAndKMS] in
// [Schema]); the option [Provisioning] replaces them (a development table
// passes table.Provisioning{}). Its Terraform tags the table Name =
// photoeditor-{env}-jobs ([DefaultTags]); the option [Tags] replaces them.
// [Store.EnsureTable] creates the table with all of them and reports an
// existing table that lacks one as drift, as `tablekit tables check` does,
// changing nothing. DynamoDB Local has no recovery or tagging API, so
// there those are not compared.
//
// # Status machine
//
//	QUEUED ──> PROCESSING ──> EDITING ──> COMPLETED
//	  ^  ^         │   │         │  │
//	  │  └─Recover─┴───┼─────────┘  │
//	  │                v            v
//	  └───── Replay ─ FAILED <──────┘   (Fail, or Recover after the last attempt)
//
// Each move ([Store.StartProcessing], [Store.StartEditing], [Store.Complete],
// [Store.Fail], [Maintenance.Replay], and [Maintenance.Recover] per job) is one
// conditional UpdateItem on the status the move starts from, the seed's
// idempotency rule: of fifty workers that receive the same queue message,
// one moves the job and forty-nine get a [*TransitionError] (errors.Is
// ErrInvalidTransition) naming the status the job was found in and carrying
// the job itself. Both come from the item DynamoDB returns with the refused
// write (ReturnValuesOnConditionCheckFailure), not from a second read. A
// refused move changes nothing; a missing job is [ErrNotFound].
//
// # Work
//
// A job is work to do, and the seed's worker Lambda takes it from a queue.
// With [Options.Work] ([Work]) the store binds each job to a task of the
// tasks package, on a tasks table of the same DynamoDB
// (tasks.DefaultTableName unless set, the table `tablekit tasks` reads, so
// an operator sees a job's work with `tablekit tasks list`; the jobs
// commands' -tasks-table names it for both):
//
//   - What a job's task is: its payload names the jobs table and the job
//     ({"jobsTable": ..., "jobId": ...}); its idempotency key names the
//     job's n-th queuing ("<jobs table>/<job id>/<createdAt ms>/<n>"), so
//     a retried write queues the same task and no two queuings share one;
//     its shard is the tasks table's (tasks hashes the task id). The job
//     records its current task in taskId and the queuings in taskCount.
//   - Every write that makes a job QUEUED queues its work in the same
//     transaction: [Store.Create] (the job's Put and the task's three
//     items: no job exists without its work), [Maintenance.Replay] and
//     [Maintenance.Recover] (the move and a new task). [Maintenance.Sweep] finds the
//     jobs left QUEUED, or in flight, with no live task (created by a store
//     without Work, or whose task was cancelled or died) and queues their
//     work; [Maintenance.Stranded] lists them without writing.
//   - [Store.NewWorker] runs the jobs on the tasks runtime (tasks.Worker):
//     it claims a job's task and holds the job under that task's one lease,
//     which the runtime heartbeats (the job has no lease of its own, so a
//     heartbeat writes the task only). The [Handler] gets the job
//     PROCESSING ([Attempt]), may StartEditing, and returns the result
//     (the job completes) or an error: the job goes back to QUEUED and its
//     task fails its attempt, retried after the queue's backoff, until the
//     job has had Options.MaxAttempts attempts; then the job is FAILED and
//     its task completed (the job, not the task, is the dead letter;
//     `tablekit jobs replay` queues it again). A worker that dies leaves
//     its task's lease to run out; the runtime hands the task to another
//     worker, which takes the job over from whatever step it was at: a
//     job already COMPLETED or FAILED only has its task completed, one in
//     flight starts a new attempt (the dead one counts) or, after the last,
//     fails (LEASE_EXPIRED). A worker stopped by its context gives its
//     jobs back (QUEUED, the attempt not counted) and its tasks to the
//     queue. Each job move under a worker is conditioned on the job's
//     attempt, which only the start of an attempt changes, and the start
//     on the attempt it read and on the task being the job's, so of a late
//     holder of a task and the one that took it over exactly one moves the
//     job, and a job ends COMPLETED or FAILED exactly once
//     (TestAJobWorkerThatDiesAtAnyStepLeavesItsJobTerminalExactlyOnce).
//
// The task queue's MaxAttempts is set to tasks.MaxAttemptsLimit: the job's
// MaxAttempts decides when its work is given up, and a task must not die
// of redeliveries first. Give each jobs table a tasks table of its own: a
// worker refuses (fails the attempt of) a task of another jobs table.
// [MeterProvider] and [Options.Logger] make the worker's failed
// attempts, failures and takeovers visible.
//
// # Leases and recovery
//
// A worker that dies after StartProcessing must not strand its job, so an
// in-flight job (PROCESSING, EDITING) is held under a lease.
// StartProcessing increments the job's attempt and sets leaseExpiresAt to
// now plus [Options.LeaseDuration]; the worker takes [Job.Lease] and passes
// it to [Store.Heartbeat] (renew), StartEditing (which renews too),
// Complete and Fail. Those are conditioned on the lease's attempt, so they
// are refused ([ErrLeaseLost]) once the job was recovered, even if its new
// attempt is in the same status. [Maintenance.Recover] finds in-flight jobs whose
// lease expired through status-createdAt-index (cost: the in-flight jobs
// older than one lease) and moves each, with one UpdateItem conditioned on
// the status, attempt and lease it read, back to QUEUED, or to FAILED
// (error code LEASE_EXPIRED) once the job has had [Options.MaxAttempts]
// attempts. A heartbeat or move that lands between Recover's read and write
// wins; Recover leaves that job alone. [Maintenance.Expired] lists what Recover
// would move, with the same bounded query and no write (the CLI's
// `tablekit jobs recover -dry-run`).
//
// Where the seed is silent, this package chooses:
//
//   - FAILED is reachable from both in-flight statuses: a download or
//     analysis failure in PROCESSING needs no hop through EDITING. An
//     expired lease moves an in-flight job back to QUEUED. COMPLETED is
//     final.
//   - Leases need three attributes the seed does not have: attempt (N, the
//     attempt counter that fences a lease; never reset), leaseExpiresAt
//     (N, Unix ms, present only in flight) and attemptsAtReplay (N, the
//     attempt counter at the last replay, so a replay grants fresh attempts
//     without reusing attempt numbers an old lease may still carry). The
//     seed's error.retryCount keeps its meaning, the number of replays:
//     recoveries are attempts, not retries of a failed job.
//   - "FAILED (DLQ): Manual replay" is the move FAILED → QUEUED, which
//     increments error.retryCount, keeps the last error's code and message
//     for the record, and removes the processing times of the failed attempt.
//   - StartProcessing sets processingStartedAt; Complete and Fail set
//     processingCompletedAt (a failure completes the processing too), and
//     so does Recover when it fails a job. Recover re-queuing a job removes
//     processingStartedAt. Every move sets updatedAt. Complete copies the
//     edit result's s3Key into s3FinalKey.
//   - The analysis result is stored when the job enters EDITING (analysis
//     precedes the edit call), the edit result when it completes.
//   - Create takes an optional idempotency key, scoped to the user. The job
//     id is then derived from user and key ("k-" and 26 base32 characters,
//     not a ULID: a retried request must find the same id), so a keyed
//     create is still one conditional PutItem, with nothing to strand
//     between steps; the key is kept in idempotencyKey.
//   - Fail keeps error.retryCount from earlier replays. For a job that has
//     failed before this costs a second conditional write; see [Store.Fail].
//
// # Expiry
//
// ttl is createdAt plus [Options.Retention] (90 days by default, as the seed
// says). DynamoDB deletes expired items up to days late; until then they
// would still be read. Get compares ttl with the store's clock, the lists
// filter on it, and moves and Delete require it, so an expired job is gone
// for this package the second its ttl passes (ErrNotFound), whatever the
// background deletion does. The clock is [Options.Clock], so tests share it
// with dynamotest's fake.
//
// # Large results
//
// Analysis results can be large (label lists, descriptions). Those that
// could push an item past [Options.OffloadThreshold] are written to the blob
// store first, through blobstore's Offloader, the one hybrid-storage
// mechanism every tablekit package uses; the item keeps a pointer and every
// read follows it. How the threshold is kept without reading the item first
// is explained in offload.go. Object keys are a one-to-one function of the
// job id: the id is escaped with blobstore.EscapeSegment ('/', "..", '%' and
// non-ASCII bytes are percent-escaped), and an id too long for S3's keys
// once escaped is replaced by "!sha256-" and its hash. Objects are never overwritten (their keys
// carry a content hash), so a refused move or a deleted job leaves objects
// nothing points at; [Maintenance.RemoveOrphans] deletes them.
//
// # Change feed
//
// The seed leaves the table's stream off ("future: enable for analytics").
// Once it is on, [JobFromChange] reads a job from each record as Get
// would (times from Unix milliseconds, unknown attributes in Extra), and
// [Store.JobFromChange] also follows offloaded results. A removal is no
// job (ok false); a record of another table or a job item it cannot read
// is an error, never a job of zero values.
//
// # Migrations
//
// The seed's migration playbook ("add as optional, handle null on read,
// backfill; rename by dual write; remove by ignoring, then backfill") needs
// two things from the code:
//
// Reading items written before a field existed. Every attribute may be
// absent and reads as its zero value, with these rules: a missing updatedAt
// reads as createdAt; a missing error.retryCount as 0; a missing ttl as "never
// expires" (ExpiresAt zero); missing labels as none (a nil slice); a missing
// status keeps the item out of status-createdAt-index and fails every move
// with a [*TransitionError] whose Current is "". Attributes the package
// does not know are kept in [Job.Extra], so renamed or newer fields survive
// a read and can be migrated.
//
// Backfilling. [Maintenance.Backfill] walks the table with table.ParallelScan in
// N segments, calls a function per job, reports progress, and writes back
// only the attributes the function changed, on the condition that status
// and updatedAt are still what the scan saw, so a backfill never overwrites
// a concurrent status move.
//
// Renaming. The playbook's rename ("add new field alongside old field;
// dual-write to both fields; migrate read path to new field; backfill old
// items; stop writing to old field") is the option [RenameAttribute]
// (Options.Renames): while it is set, every write path (Create, the status
// moves, Recover, Sweep, the job worker, Backfill) writes the attribute
// under its old and its new name and removes both together; every read
// (Get, the lists, a move's returned job, a refusal's job, JobFromChange)
// takes the new name first and falls back to the old one; and a Backfill,
// even one whose function changes nothing, writes the new name on the jobs
// that lack it. The keys of the table and indexes, ttl and error cannot be
// renamed so (see [Rename]). A renamed attribute is stored twice, which
// the offload budget counts.
//
// # Input
//
// Every call checks its input before sending anything: empty or oversized
// ids, negative sizes, unknown statuses, formats and likelihoods, confidences
// outside [0, 1] return a *table.InputError (errors.Is
// table.ErrInvalidInput) naming the field and value. A job's provider is
// the seed's "gemini | seedream | stub" ([SeedProviders]) or one
// [Providers] adds; Create refuses any other with [ErrUnknownProvider].
package jobs
