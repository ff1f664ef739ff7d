// Package tasks is the task queue of the seed: a single DynamoDB table that
// holds every task's metadata, its event history, the idempotency map and
// the workers' current claims, with one global secondary index, GSI1, that
// workers and admins read the queue from.
//
// # Layout
//
// The seed's columns and keys, and by default its rows: every status
// change of a task writes its event item, so a task submitted, claimed
// and completed has EVENT#0001 to EVENT#0003, read with SK begins_with
// EVENT# (Options.CompactHistory is the cheaper option that writes only
// the events META cannot tell; see below):
//
//	PK                SK            GSI1PK              GSI1SK
//	TASK#t-123        META          STATUS#PENDING      CREATED#2026-09-23T10:00:00.000000Z
//	TASK#t-123        EVENT#0001    -                   -          (SUBMITTED)
//	TASK#t-123        EVENT#0002    -                   -          (PROCESSING)
//	TASK#t-123        EVENT#0003    -                   -          (COMPLETED)
//	IDEM#client-uuid  TASK#t-123    -                   -          (idempotency map)
//	WORKER#w-abc      TASK#t-123    -                   -          (current claim)
//	CONFIG            QUEUE         -                   -          (the table's shard count)
//
// Times in keys are fixed-width UTC with microseconds (keys.TimeLayout), so
// text order is time order. [Schema] declares the table, GSI1 (projecting
// ALL) and the access patterns with the seed's rate of 500 tasks per second.
// The items are declared with package entity (schema.go), as jobs' and
// pipeline's are, on the seed's "type" attribute: the store reads, writes,
// pages and decodes them through it, and every state move is one
// conditional Patch (an UpdateItem, or the first action of a transaction)
// that sets the new status and the task's GSI1 keys without reading the
// item first. Those keys are META's own attributes in a sparse index,
// since their template depends on the status.
//
// Where the seed leaves a choice open, this package decides:
//
//   - GSI1 holds a task while it is PENDING (STATUS#PENDING /
//     CREATED#<availableAt>), PROCESSING (STATUS#PROCESSING / LEASE#<lease
//     expiry>) and DEAD (STATUS#DEAD / CREATED#<when it died>, the dead
//     letters, listed by [Maintenance.Dead]). COMPLETED and CANCELLED tasks
//     leave the index: nothing lists them, and removing an entry costs one
//     index write where moving it would cost two and build the hottest
//     partition of all.
//   - The PENDING sort key carries the time the task becomes claimable,
//     not only its creation. For a new task the two are the same, so the
//     seed's key is unchanged; after a failed attempt it is the end of the
//     task's retry backoff (exponential, full jitter, capped:
//     Options.RetryBackoff through table.Backoff). So the queue's order is
//     the order tasks become claimable, and a claim reads candidates with
//     the key condition GSI1SK <= CREATED#<now>: a task in backoff is never
//     read, let alone handed out, before its time. A separate attribute
//     with a filter would read (and bill) every task in backoff on every
//     claim; a new key prefix would break the seed's layout, so the key
//     keeps its name, CREATED#.
//   - Expired leases are found by a key condition, GSI1PK = STATUS#PROCESSING
//     AND GSI1SK <= LEASE#<now>, which reads only the expired entries: no
//     scan, no filter.
//   - The seed checks idempotency with a GetItem on IDEM#key before it
//     submits, and guards the IDEM item with attribute_not_exists. Both need
//     the item's full key, and a guard on an item keyed by a fresh random
//     task id guards nothing. So a task submitted with an idempotency key
//     gets an id derived from the key ("k-" and 26 base32 digits of its
//     SHA-256): every submission of the key writes the same items, and
//     their attribute_not_exists conditions let one through. The check and
//     the guard are one request: the IDEM item's conditional put, whose
//     refusal returns the item a repeated key wrote
//     (ReturnValuesOnConditionCheckFailure), so a submission saves the
//     seed's GetItem and a round trip; a repeated key costs the refused
//     write (billed 1 WCU) instead of a read. Tasks submitted without a key
//     get a ULID.
//   - The same key with another payload is an error ([ErrIdempotencyMismatch]),
//     as DynamoDB answers a reused ClientRequestToken with other parameters:
//     a key names one request. The IDEM item keeps the payload's SHA-256.
//   - The event sequence is the META item's events counter, and META
//     decides every change: it is updated on the condition that it is as
//     read (status, attempt, event count; for a lease also the owner),
//     counters moved with ADD. Four digits, as the seed writes them: the
//     10,000th event is refused (keys.ErrOverflow) before anything is sent.
//   - Every status change is an event item (EVENT#<seq>), the seed's event
//     store, written within the round trips the change takes anyway: the
//     SUBMITTED event beside META's put, a claim's PROCESSING event beside
//     its WORKER item, the COMPLETED event beside the WORKER item's delete,
//     and every other change's events (Fail, Release, a lease's expiry or
//     takeover, Cancel, Redrive) in its transaction. One write unit per
//     event of a plain life, no round trip more.
//   - Options.CompactHistory trades the layout for cost: META records the
//     task's creation, its current claim (time, owner, attempt) and its
//     completion, so the three events of a task that is submitted, claimed
//     and completed are META's to tell and are not written; every other
//     change writes its own event, and the PROCESSING event of the claim
//     it ends, in its transaction, before META forgets them. That saves
//     three writes a task (1,500 WCU/s at the seed's rate), and a tool that
//     reads the event rows directly sees them only for tasks whose life
//     was not plain. [Store.History] and [EventFromChange] give every
//     event in either layout: History takes each event from its item, and
//     from META where no item holds it (a task written compactly, a claim
//     cut off before its event).
//   - The seed's hot path is single-item writes, and so is this one
//     ("Capacity" below says what that saves): Submit, Claim and Complete
//     write one item per request, in an order that leaves nothing a later
//     call cannot finish or a reader would see half done. Submit writes the
//     IDEM item first (the decision between racing submissions), then META
//     and its event, so any submission of the key finishes one that was
//     cut off. Claim updates META first (the seed's "conditional UpdateItem
//     ... atomic without transactions"), then writes the WORKER item, which
//     holds the lease, and its event; a claimer cut off between the two
//     leaves a lease that runs out at the expiry in META's index entry, and
//     is taken over (the takeover writes the event the claimer may not
//     have). Complete updates META on the lease's condition, then deletes
//     the WORKER item and writes its event; a retried Complete whose first
//     answer was lost finds the task completed under its own lease and
//     finishes. So histories have no gaps and no duplicates, whoever races
//     or dies.
//   - The lease is on the WORKER item, not on META: a heartbeat then writes
//     one small item in no index (1 WCU), where on META it would bill the
//     payload's size and move META's index entry (3 WCU for a small task).
//     META's index entry keeps the expiry its claim gave it; a claim that
//     finds that expiry passed reads the lease, and takes the task over
//     only if the lease ran out too, else moves the entry to the lease's
//     expiry (once per lease duration for a task heartbeated that long).
//   - The rarer changes stay transactions, where the writes cost double
//     but nothing needs finishing: Fail, Release, the takeover or reclaim
//     of an expired lease, Cancel, Redrive, and SubmitTx (a caller's
//     transaction).
//   - Event times never go backwards within a history, even when workers'
//     clocks disagree by a little: a change is dated no earlier than the
//     change before it.
//   - The CONFIG item is this package's one addition to the seed's rows.
//     It records the table's shard count (see "Write sharding"), which
//     every client of the table must share and so is the table's to keep,
//     not each caller's to repeat, and the readiness signal idle workers
//     poll (see "Workers").
//
// # Life of a task
//
// [Store.Submit] writes the IDEM item, then META; a submission may ask
// for a delay (SubmitInput.AvailableAt: the task's place in the pending
// queue is that time, which claims never read past, as a retry's
// backoff; a time in the past is bad input). [Store.SubmitTx] adds
// the same writes to a transaction the caller builds, on this table or
// another (table.WriteTx.On), so a job's status move and the task carrying
// its work apply together or not at all; with a key the caller's own
// condition proves new ([FreshKey]: package jobs' queuings) it reads
// nothing first, and the transaction is the submission's one request.
// [Store.Claim] reads the oldest
// candidates and claims one: META to PROCESSING (conditioned on the
// status, attempt and event count it read), then the WORKER item. It hands
// back a [Claim] with a [Lease]: owner, attempt (the fencing token) and
// expiry. The worker extends the lease with [Store.Heartbeat] and ends it
// with [Store.Complete] or [Store.Fail]; each of those is conditioned on
// the lease (status PROCESSING, owner, attempt). Fail deletes the WORKER
// item in its transaction, Complete after its META update. A failed task
// returns to PENDING, claimable after its retry backoff, until it has had
// its MaxAttempts claims, then it is DEAD. The bound is the submitting
// store's Options.MaxAttempts, kept on META (maxAttempts): every store and
// the CLI's reclaim count a task's attempts against its own bound, not
// theirs, so an operator's sweep cannot make a job's task (which jobs
// gives MaxAttemptsLimit) a dead letter early. [Maintenance.Redrive] (one task)
// and [Maintenance.RedriveDead] (every dead letter a filter matches) give DEAD
// tasks fresh attempts, each in one conditional transaction with a
// REDRIVEN event. [Store.Cancel] withdraws a PENDING task.
//
// # Calls by role
//
// The store's methods are a producer's calls (Submit, SubmitTx, Get,
// History, Cancel) and a worker's (Claim, Heartbeat, Complete, Fail,
// Release, and NewWorker's runtime over them). What an operator, an admin
// view or a scheduled job runs is behind [Store.Maintenance]: the pending
// and dead listings, the queue's depth, the expired leases, the re-drive
// of dead letters, a worker's claims and the table's shard count. Each
// listing is one table.List, read a page at a time or whole:
//
//	page, err := store.Maintenance().Pending(tasks.Limit(50)).Page(ctx, cursor)
//	for t, err := range store.Maintenance().Dead().All(ctx) { ... }
//
// # Leases
//
// A worker that dies holding a task leaves it PROCESSING with a lease that
// runs out. Claims look for expired leases (one shard's a claim, in turn)
// before pending tasks, and take such a task over in one transaction: the
// old claim's PROCESSING event and a LEASE_EXPIRED event (META is about to
// forget the old claim), the old owner's WORKER item marked lost, the new
// one written: the expired lease was the task's wait. The mark, not a
// delete, refuses the old owner's heartbeats and a claim item its claimer
// writes late (a claimer stalled past its lease between its two writes).
// [Maintenance.ReclaimExpired] does the same for a sweeper, returning the tasks
// to PENDING, claimable after the retry backoff; [Maintenance.Expired] lists
// them without a write. A lease is lost when the task is taken over, not
// at the instant it expires: work that finishes late, but before anyone
// took it, still counts. After a takeover the attempt number has moved on,
// so the old owner's writes are refused by their conditions, whatever the
// clocks say. Expiry is judged by the claiming worker's clock, so leases
// should be far longer than clock skew.
//
// Claims race too: workers read the same candidates, and a claim's
// conditional write (META unchanged since the read) lets one through. A
// worker that loses moves on to its next candidate; one that loses every
// race gets a [*ClaimConflictError] (errors.Is [ErrNoTask]) naming the
// task it lost last with its status, owner and attempt as DynamoDB
// returned them with the refusal (ReturnValuesOnConditionCheckFailure
// ALL_OLD, free), the seed's "returns old status for conflict detection".
//
// What a late worker gets, exactly: its Heartbeat, Complete, Fail or
// Release is a [*LeaseLostError] (errors.Is [ErrLeaseLost]), whose Status,
// Owner and Attempt say where the task stands (Owner is the worker that
// holds it now, empty unless it is PROCESSING), and nothing is written; if
// the task has expired and is gone, the error is [ErrNotFound] instead. A
// Complete retried under the lease that completed the task is no error.
// The worker runtime cancels the handler's context when a heartbeat gets
// either, and settles nothing.
//
// # Workers
//
// [Store.NewWorker] and [Worker.Run] are the worker runtime, so services do
// not each write their own poll loop: Run claims tasks and runs up to
// WorkerOptions.Concurrency [Handler]s at once, each under its own lease,
// which a heartbeat extends every HeartbeatInterval while the handler
// runs. A handler's result completes the task; its error fails the
// attempt (retried after the backoff, DEAD after MaxAttempts); its panic
// fails the attempt with the panic's message, and the worker goes on. A
// lease lost to a takeover cancels the handler's context and writes
// nothing. An empty queue is polled less and less often
// (WorkerOptions.PollBackoff, through table.Backoff), and a claimed task
// resets the wait. When Run's context ends it claims nothing more, gives
// running handlers ShutdownGrace to finish, then cancels them and
// [Store.Release]s what they did not finish, so no task waits out a lease
// because its worker stopped; Run returns when every task it held is
// settled.
//
// What a worker does is visible. The runtime logs (Options.Logger, or
// WorkerOptions.Logger) every failed attempt at Warn with the handler's
// error and at Error when it made the task a dead letter, a lost lease at
// Warn, a panic at Error with its stack; the store logs every takeover of
// an expired lease and every lease that expired into a dead letter at
// Warn. With [MeterProvider] the store counts attempts by outcome,
// takeovers and dead letters (tablekit.tasks.*), whoever drives it, and
// [Maintenance.Depth], which counts the queue by state (claimable, waiting for
// a backoff or a delay, processing, dead), records the queue-depth gauge
// tablekit.tasks.queue.depth: call it on a timer in one process (it reads
// every entry it counts). With
// [TracerProvider] each task the runtime runs is one span, tasks.Process
// (kind consumer), in which the handler runs and the heartbeats and the
// settling write nest; it starts a trace of its own and links to the span
// that submitted the task, whose W3C traceparent Submit and SubmitTx keep
// on META ([Task].TraceParent). Polls make no span: the runtime claims
// without the tasks.Claim span, under an unsampled parent, so a sampler
// that follows its parent (the SDK's default) records none of their
// requests' spans either; an empty queue costs a worker no telemetry.
//
// A Claim that finds nothing marks its store idle, and the store's next
// Claims send two requests at once, whatever the shard count: a strongly
// consistent GetItem of the CONFIG item, whose activeAt is the readiness
// signal, and a query of one partition, a different one each time (every
// shard's pending and lease partitions in turn). Every store that makes a
// task claimable (Submit, SubmitTx, Fail, Release, Redrive, a lease's
// expiry) sets activeAt to its clock, at most once a second: 1 WCU a
// second per busy store, nothing per task. The idle store reads every
// shard again when activeAt has moved since its last full read (within a
// margin of 2 seconds for the index's lag and clock skew), when the time
// it learned then comes (a task leaving its backoff, a lease running out),
// or when its probe finds something; the probe covers what the signal
// cannot (a SubmitTx committed long after it was built, clocks further
// apart than the margin), within 2N polls. A claim that succeeds ends the
// idle state.
//
// # The worker path
//
// The seed lists pending tasks on GSI1 (PK = STATUS#PENDING) "for admin
// UI; not the worker path", and claims with an UpdateItem on META
// conditioned on status PENDING, which needs the task's id. The seed does
// not say where a worker learns ids: its plan has no queue beside the
// table. Claim takes them from GSI1, for three reasons. The index is
// already written for the admin view, so reading it costs a worker no
// write; a second structure (an SQS queue, a stream consumer, a list in
// the table) would cost at least a write and a delete per task and could
// disagree with the table, where GSI1 is the table's own view. The index's
// sort key orders candidates by when they become claimable, so retry
// backoff and fairness are a key condition. And the same index, under
// STATUS#PROCESSING, finds dead workers' leases, which any worker path
// needs. What it costs: a claim reads ClaimBatch index entries (about 1 KB
// each with the ALL projection, so about 4 RCU a claim at the defaults:
// 2,000 RCU/s at the seed's rate, docs/tasks) and the entry's move from
// STATUS#PENDING to STATUS#PROCESSING is two index writes; the index is
// eventually consistent, so a worker may read a task another has just
// claimed, and its conditional update, not the read, decides (a refused
// write, 1 WCU; ClaimBatch random order keeps them rare). The admin view
// (Maintenance.Pending) reads the same partitions, so its pages show what workers
// see.
//
// # Write sharding
//
// All submissions write one GSI1 partition, STATUS#PENDING, and every claim
// writes it again (the entry leaves). DynamoDB takes about 1,000 writes per
// second per partition, and a throttled index throttles the table's writes,
// so at the seed's 500 tasks per second that partition runs at its limit
// (and STATUS#PROCESSING, with the heartbeats, over it). Options.Shards = N
// splits it, and STATUS#PROCESSING with it, as the data-modelling design (docs/systems/datamodel.md)'s
// "write sharding" describes: a task's index partition is
// STATUS#PENDING#<fnv32a(task id) mod N>. A claim reads every shard's
// pending partition at once (ClaimBatch candidates in all, split over the
// shards) and one shard's lease partition, in turn: N+1 queries in one
// round trip. The cost is on the read side: [Maintenance.Pending] sends N
// queries per page and merges them by creation time (plus one for each
// shard the page ends inside of, to get a cursor there),
// [Maintenance.ReclaimExpired] N queries, a claim N+1, and the Claim that finds
// the queue empty 2N+1 (then an idle store polls with two requests; see
// "Workers"). The default, DefaultShards = 4, keeps each shard of both
// partitions under a third of the write limit at the seed's rate
// (docs/tasks): 2 would carry 500 tasks per second at about 60% of it,
// with little room for a burst. Shards = 1 is the seed's exact layout
// (STATUS#PENDING, no suffix).
//
// The count is the table's, not each caller's: a service on one shard
// would never see a task another client (the CLI's tasks redrive, say)
// wrote under four. So the table records it in one item, PK CONFIG, SK
// QUEUE, attribute shards, created with attribute_not_exists by the first
// store that needs it (EnsureTable, or else the first call that places or
// moves a task: of stores racing on a new table, one decides). Every store
// reads it once, a strongly consistent GetItem on its first call that
// needs the count, and keeps it: leaving Options.Shards zero follows the
// table, and setting it to another count than the table's makes every
// such call a *ShardsError (ErrShardsMismatch) that writes nothing. The
// CLI's tasks commands open their store without a count, so they list,
// reclaim and re-drive where the table's services look. Maintenance.Pending alone
// records nothing (a dashboard's policy may allow no writes): on a table
// that records no count it lists with the store's own. The count never
// changes: another one would mean moving every queued task's index entry.
// A table that held tasks before this item existed records none; open its
// first store (or EnsureTable) with the count its tasks were written with.
//
// # Capacity
//
// Measured with dynamotest's Meter on the fake, by DynamoDB's billing rules
// (TestTaskLifecycleCostsEightRoundTripsAndFifteenWriteUnits,
// BenchmarkTaskLifecycle), one small task submitted with an idempotency
// key, claimed, heartbeated once and completed costs 8 round trips and 15
// WCU at the default 4 shards: submit 4 WCU (the IDEM item, META and its
// GSI1 entry, the SUBMITTED event) in 2 round trips, plus 1 for the
// readiness signal when it is due (at most once a second per store);
// claim 5 (META, its GSI1 entry moving from STATUS#PENDING to
// STATUS#PROCESSING: a delete and a put, the WORKER item, the PROCESSING
// event) in 3 round trips (every shard read at once, META, the WORKER item
// and the event together); a heartbeat 1 (the WORKER item alone) in 1;
// complete 4 (META, the entry leaving GSI1, the WORKER item's delete and
// the COMPLETED event together) in 2. So 13 WCU a task at the seed's rate,
// where the signal is one write a second. With Options.CompactHistory the
// three event items are not written: 12 WCU in the same 8 round trips, 10
// a task at the seed's rate. It was 16 WCU and 16 round trips before the
// lease moved to the WORKER item (13 + 3 per heartbeat), and 26 when every
// change was a transaction. A Claim on an empty queue is 2 requests
// once the store knows it idle (TestClaimOnAnEmptyQueueSendsTwoRequests,
// BenchmarkClaimEmptyQueue), at any shard count. Retention adds no write:
// the ttl rides on these (see "Retention"). Leaving the WORKER item to its
// ttl instead of deleting it would save one, but then a worker's claim
// items would pile up for a whole Retention (hundreds of thousands a day
// for a busy worker) and WorkerTasks would read them all.
//
// The seed plans 6 (3 + 3): the three event items, the IDEM item, META and
// the claim. The 13 are those 6 and what the seed's list leaves out: 4 are
// GSI1 writes (the pending
// queue and the lease index are what make claims a key condition and
// expired leases findable at all; the seed counts no index), 2 are the
// WORKER item's put and delete (the seed's own row, which its plan
// forgets, and which holds the lease), and 1 is the COMPLETED update of
// META (the seed's processing path writes the claim and two events, so the
// task's own status would never say COMPLETED). That is also the floor of
// any design that keeps the seed's rows and finds work and dead workers'
// leases through an index: an index entry written in, across and out (4),
// the IDEM, META (created, claimed, completed) and WORKER rows (6) and the
// three events (3). So at 500 tasks per second, with heartbeats, lease
// refreshes, the readiness signal and a twentieth of tasks failing, the
// queue writes about 7,000 WCU/s (docs/tasks and docs/costs.md; 5,500
// with CompactHistory), not the seed's 3,500; going lower means dropping
// rows the seed specifies (the event items, as CompactHistory does; the
// IDEM item: the derived task id already makes META's create the
// decision; the WORKER rows) or finding expired leases without an index.
// What the 13 do not buy is atomicity: that comes from the order of the
// writes, each decided by one conditional write, and from History reading
// META with the events, not from transactions, which double every write.
//
// Claim also reads: the candidate queries and one expired-lease query,
// half a read unit each when they return little, about 2.5 RCU a claim at
// the defaults. A lost claim race is a refused conditional update (1 WCU,
// which DynamoDB and the Meter bill); ClaimBatch keeps them rare.
//
// # Retention
//
// Finished work expires by DynamoDB TTL on the attribute ttl (Unix epoch
// seconds, as the jobs design (docs/systems/jobs.md) names it; [Schema] declares it, so EnsureTable
// turns TTL on and Schema.Check reports a table without it).
// Options.Retention says how long, DefaultRetention (a week) unless set.
// The seed is silent; the jobs design (docs/systems/jobs.md) keeps jobs 90 days. At the seed's 500 tasks
// per second, some 43M tasks a day of about 2.2 KB each as DynamoDB bills
// storage (META, the IDEM item and three event items), a week keeps the
// table near 640 GB ($160 a month, docs/tasks; with CompactHistory, whose
// tasks keep META and the IDEM item, 400 GB and $100), 90 days near 8 TB,
// and no retention at all grows it by some 33 TB a year. DynamoDB deletes expired items within a few days of their ttl, so
// the table holds somewhat more than Retention's worth. A week is what investigating a
// failure needs (an incident on a Friday can still be traced on Monday),
// and the failures that most need it, dead letters, never expire.
//
// The rule is that no write is added for it: the 13 WCU per task stay 13
// (10 with CompactHistory).
// So the ttl rides on the writes a task's life already makes:
//
//   - Items written once carry ttl = their own time + Retention: every
//     event item, the IDEM item (from the submission) and the WORKER claim
//     item (from the claim, and from each heartbeat, which writes it
//     anyway; one a Complete cut off before its delete leaves behind
//     expires with it). For a task that finishes in seconds or minutes
//     that is about Retention after it finishes.
//   - META gets its ttl only when the task finishes, from the update that
//     finishes it: Complete and Cancel set ttl = now + Retention. PENDING,
//     PROCESSING and DEAD tasks carry none, so nothing live is ever lost,
//     and a dead letter can be re-driven however old it is.
//   - The event that makes a task DEAD (a Fail on its last attempt, or the
//     expiry of its last lease) carries no ttl, so a dead letter always
//     keeps the event that says why it died; [Maintenance.Redrive] gives it one
//     in its transaction (ttl = the re-drive + Retention), as the task is
//     live again and will finish.
//
// A task that stays live longer than Retention (a backlog that old, a dead
// letter waiting a month, a handler that heartbeats for weeks) outlives
// its older events and its IDEM item. Preventing that would mean
// rewriting every item of the task when it lingers, writes on paths that
// cannot know it will linger; instead the readers say what is kept:
//
//   - [Store.History] returns the events that are kept: those META tells
//     (its SUBMITTED event for the task's whole life, its current claim:
//     in either layout, as META records them) and the event items written
//     within Retention, which are the newest,
//     since event times never go backwards. It returns the run of events
//     that ends at the task's last event without a missing number, so a
//     history may start late (its first Seq above 1) but never has a gap.
//   - The idempotency key still names its task while the task exists: its
//     id is derived from the key, so a Submit of the key finds the task
//     by its META (whose payload, not the expired IDEM item, decides an
//     [ErrIdempotencyMismatch]) and returns it with created false, having
//     written only a new IDEM item. A SUBMITTED event item an older version
//     wrote in that case is not the task's (its time is not the task's
//     creation), and History leaves it out.
//   - A claim held longer than Retention keeps its WORKER item, which
//     holds the lease: each heartbeat moves its ttl on.
//
// Once a finished task has expired, its items are gone for every call
// from the second their ttl passes, though DynamoDB's TTL process deletes
// them only within days: Get, History, Cancel and Redrive answer
// [ErrNotFound], WorkerTasks skips expired claim items, and a Submit of
// its idempotency key creates a fresh task (created true) with the same
// id, written over whatever of the old one DynamoDB has not deleted yet:
// every create of this package is conditioned on "no item, or an expired
// one" (table.IfNotExistsOrExpired, the rule jobs follows too), and
// History ignores expired items left among the new task's. All stores on
// one table should use the same Retention. Items written before this
// package set a ttl carry none and are kept until deleted.
//
// # Input
//
// Every call checks its input before sending anything: ids, worker ids and
// idempotency keys must be non-empty UTF-8 without "#" (they become key
// parts) and at most 256 bytes; payloads and results at most 128 KB;
// reasons at most 4 KB. Bad input is a *table.InputError (errors.Is
// table.ErrInvalidInput) naming the field.
package tasks
