// Package tasks is the task queue of seed 003: a single DynamoDB table that
// holds every task's metadata, its event history, the idempotency map and
// the workers' current claims, with one global secondary index, GSI1, that
// workers and admins read the queue from.
//
// # Layout
//
// The seed's columns and keys, unchanged:
//
//	PK                SK            GSI1PK              GSI1SK
//	TASK#t-123        META          STATUS#PENDING      CREATED#2026-09-23T10:00:00.000000Z
//	TASK#t-123        EVENT#0001    -                   -          (SUBMITTED)
//	TASK#t-123        EVENT#0002    -                   -          (PROCESSING)
//	TASK#t-123        EVENT#0003    -                   -          (COMPLETED)
//	IDEM#client-uuid  TASK#t-123    -                   -          (idempotency map)
//	WORKER#w-abc      TASK#t-123    -                   -          (current claim)
//
// Times in keys are fixed-width UTC with microseconds (keys.TimeLayout), so
// text order is time order. [Schema] declares the table, GSI1 (projecting
// ALL) and the access patterns with seed 003's rate of 500 tasks per second.
//
// Where the seed leaves a choice open, this package decides:
//
//   - GSI1 holds a task while it is PENDING (STATUS#PENDING /
//     CREATED#<availableAt>), PROCESSING (STATUS#PROCESSING / LEASE#<lease
//     expiry>) and DEAD (STATUS#DEAD / CREATED#<when it died>, the dead
//     letters, listed by [Store.ListDead]). COMPLETED and CANCELLED tasks
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
//     SHA-256): every submission of the key writes the same three items, and
//     the transaction's attribute_not_exists conditions let one through.
//     Tasks submitted without a key get a ULID.
//   - The same key with another payload is an error ([ErrIdempotencyMismatch]),
//     as DynamoDB answers a reused ClientRequestToken with other parameters:
//     a key names one request. The IDEM item keeps the payload's SHA-256.
//   - The event sequence is the META item's events counter. Every change
//     is one transaction: META updated on the condition that it is as read
//     (status, attempt, event count; for a lease also the owner), counters
//     moved with ADD, the next event created with attribute_not_exists. So
//     histories have no gaps and no duplicates, whoever races. Four digits,
//     as the seed writes them: the 10,000th event is refused (keys.ErrOverflow)
//     before anything is sent.
//   - The seed claims with a single conditional UpdateItem ("atomic without
//     transactions"). Here a claim is a transaction, because the PROCESSING
//     event and the WORKER item must appear with it or not at all: a worker
//     that crashed between two separate writes would leave a history with a
//     gap, or a task nobody's claim list shows. The price is the doubled
//     write cost below.
//   - Event times never go backwards within a history, even when workers'
//     clocks disagree by a little: a change is dated no earlier than the
//     change before it.
//
// # Life of a task
//
// [Store.Submit] writes META, EVENT#0001 SUBMITTED and the IDEM item in one
// transaction; [Store.SubmitTx] adds the same three writes to a transaction
// the caller builds, on this table or another (table.WriteTx.On), so a
// job's status move and the task carrying its work apply together or not
// at all. [Store.Claim] reads the oldest candidates and claims one in a
// transaction: META to PROCESSING (conditioned on the status, attempt and
// event count it read), the PROCESSING event and the WORKER item. It hands
// back a [Claim] with a [Lease]: owner, attempt (the fencing token) and
// expiry. The worker extends the lease with [Store.Heartbeat] and ends it
// with [Store.Complete] or [Store.Fail]; each of those is conditioned on the
// lease (status PROCESSING, owner, attempt) and deletes the WORKER item in
// the same transaction. A failed task returns to PENDING, claimable after
// its retry backoff, until it has had Options.MaxAttempts claims, then it
// is DEAD. [Store.Redrive] (one task) and [Store.RedriveDead] (every dead
// letter a filter matches) give DEAD tasks fresh attempts, each in one
// conditional transaction with a REDRIVEN event. [Store.Cancel] withdraws
// a PENDING task.
//
// # Leases
//
// A worker that dies holding a task leaves it PROCESSING with a lease that
// runs out. The next Claim looks for expired leases before it looks at
// pending tasks, and takes such a task over in one transaction: a
// LEASE_EXPIRED event, a PROCESSING event for the new attempt, the old
// owner's WORKER item deleted, the new one written: the expired lease was
// the task's wait. [Store.ReclaimExpired] does the same for a sweeper,
// returning the tasks to PENDING, claimable after the retry backoff.
// lost when the task is taken over, not at the instant it expires: work
// that finishes late, but before anyone took it, still counts. After a
// takeover the attempt number has moved on, so the old owner's Heartbeat,
// Complete or Fail is refused by its condition with a [*LeaseLostError]
// ([ErrLeaseLost]), whatever the clocks say. Expiry is judged by the
// claiming worker's clock, so leases should be far longer than clock skew.
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
// # Write sharding
//
// All submissions write one GSI1 partition, STATUS#PENDING, and every claim
// writes it again (the entry leaves). DynamoDB takes about 1,000 writes per
// second per partition, and a throttled index throttles the table's writes,
// so at seed 003's 500 tasks per second that partition runs at its limit.
// Options.Shards = N splits it, and STATUS#PROCESSING with it, as seed 002's
// "write sharding" describes: a task's index partition is
// STATUS#PENDING#<fnv32a(task id) mod N>. Claims visit the shards starting
// at one derived from the worker's id, so workers spread over the shards.
// The cost is on the read side: [Store.ListPending] sends N queries per page
// and merges them by creation time (plus one for each shard the page ends
// inside of, to get a cursor there), [Store.ReclaimExpired] N queries, and
// an idle worker's Claim up to 2N queries before it learns there is no work.
// The default, 1, is the seed's exact layout. All stores on one table must
// use the same N.
//
// # Capacity
//
// Measured with dynamotest's capacity meter (see the package tests), one
// small task costs 8 WCU to submit (three items, doubled by the transaction,
// and the GSI1 entry), 10 to claim (three items doubled, the GSI1 entry
// moving from STATUS#PENDING to STATUS#PROCESSING: a delete and a put), 8 to
// complete (three items doubled, the entry leaving GSI1), and 3 per
// heartbeat: 26 per task. The fake doubles a transaction's index writes as
// well as its item writes; should DynamoDB bill those once, a task costs 22.
// Seed 003 plans 6 (3 + 3), counting neither the transactions, nor the
// index, nor the WORKER item: at 500 tasks per second the queue needs
// 11,000 to 13,000 WCU/s, not 3,000. Claim also reads: the expired-lease
// query and the candidate query, half a read unit each when they return
// little. A lost claim race is a canceled transaction, a wasted request
// (which the fake's meter charges nothing); ClaimBatch keeps them rare.
//
// # Input
//
// Every call checks its input before sending anything: ids, worker ids and
// idempotency keys must be non-empty UTF-8 without "#" (they become key
// parts) and at most 256 bytes; payloads and results at most 128 KB;
// reasons at most 4 KB. Bad input is a *table.InputError (errors.Is
// table.ErrInvalidInput) naming the field.
package tasks
