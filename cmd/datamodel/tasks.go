package main

import (
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/tasks"
)

// tasksModel is the seed's task queue table.
func tasksModel() datamodel.Model {
	return datamodel.Model{
		Store:    "tasks",
		Package:  "github.com/tablekit/tablekit/tasks",
		Schema:   tasks.Schema(tasks.DefaultTableName),
		Patterns: tasks.Patterns(),
		Entities: tasks.Entities(),
		Popularity: map[string]datamodel.Popularity{
			"TASK#{taskId}":     {Exponent: 0, Why: "the seed's 500 tasks a second each run the same life (submit, claim, complete), so no task is requested more than another"},
			"IDEM#{key}":        {Exponent: 0, Why: "one idempotency key per submission, written once"},
			"WORKER#{workerId}": {Exponent: 0, Why: "the seed's workers each hold one claim at a time and take the next in turn"},
			"STATUS#PENDING":    {Exponent: 0, Why: "shard = hash(task id) % shards (tasks/shard.go), whatever the submitter"},
			"STATUS#PROCESSING": {Exponent: 0, Why: "shard = hash(task id) % shards (tasks/shard.go), whatever the worker"},
		},
		Plans:    []datamodel.Plan{{Name: "tasks.ProductionCapacity() (the design's production plan)", Capacity: tasks.ProductionCapacity()}},
		Offloads: []datamodel.Offload{tasksPayload()},
		Prose: datamodel.Prose{
			Alternatives: map[string]string{
				"capacity":                 "the design: \"use on-demand capacity mode during development\", the default; production opens with `tasks.Provisioning(tasks.ProductionProvisioning())`, the design's 2,000 WCU floor with auto-scaling, priced beside it (cheaper at a steady 500 tasks a second)",
				"offload:a task's payload": "the seed's payloads are small: inside META's 1 KB they add no write or read unit, only storage; an S3 object per task would cost a PUT per submission and a GET per claim",
			},
			Philosophy:        "A durable task queue on one table: each task is an item collection (`TASK#{taskId}`: its metadata and its event history), the pending and processing sets are GSI1 partitions ordered by creation time and lease expiry, and every state change is decided by one conditional write of the metadata: submit, claim and complete are single-item writes in an order that any later call can finish (a task is never claimed twice, lost, or left with a gap in its history), the rarer changes are transactions. Every status change writes its event item (`EVENT#0001` SUBMITTED, `EVENT#0002` PROCESSING, `EVENT#0003` COMPLETED, ...), beside a write the change makes anyway; with `tasks.CompactHistory` the metadata tells the events of a plain life and only the others are items.",
			Aggregates:        "Task + events: an item collection (the history is read with the metadata for audits, appended on every move, unbounded in principle). Idempotency keys (`IDEM#{key}`) and worker claims (`WORKER#{workerId}`) are their own partitions: they are looked up by a different id than the task's.",
			Purpose:           "Tasks of the queue, their event history, idempotency keys and worker claims.",
			AggregateBoundary: "a task's metadata and events share `PK=TASK#{taskId}`; idempotency and claims are separate collections.",
			PartitionKey:      "`TASK#{taskId}`, `IDEM#{key}` or `WORKER#{workerId}`: high cardinality, one value per task, key or worker; and `CONFIG`, one item.",
			SortKey:           "`META`, `EVENT#{seq:04d}` (history in order), `TASK#{taskId}` (the task an idempotency key or a claim points at).",
			SortKeyTaxonomy: []string{
				"`META`: the task's state, its current claim and payload (with `CompactHistory` it tells the SUBMITTED, PROCESSING and COMPLETED events of a plain life, which are then not written)",
				"`EVENT#{seq:04d}`: every status change, in order (overflow past 9999 is an error): submitted, claimed, completed, failed, released, expired, dead, re-driven, cancelled",
				"`TASK#{taskId}` under `IDEM#{key}`: the task an idempotency key created",
				"`TASK#{taskId}` under `WORKER#{workerId}`: a task the worker claims, holding its lease (heartbeats extend it there: 1 WCU); deleted when the lease ends, marked lost by a takeover; one a cut-off Complete leaves expires by its ttl",
				"`QUEUE` under `CONFIG`: the table's shard count and the readiness signal idle workers poll",
			},
			BoundedReads: "claims read `Limit` candidates from the oldest pending; history pages by sequence; admin lists page with cursors, merged across shards.",
			Indexes: map[string]datamodel.IndexProse{
				tasks.IndexGSI1: {
					Purpose:      "claim candidates (oldest pending first), expired leases by key condition, dead letters and the admin's pending list.",
					PartitionKey: "`STATUS#{status}` (with Shards > 1, `STATUS#{status}#{shard}`): the queue's states, deliberately low cardinality; see the hot-partition analysis for the write load at the seed's 500 tasks per second.",
					SortKey:      "`CREATED#{createdAt}` while pending or dead (FIFO), `LEASE#{expiresAt}` while processing (the claim's expiry, moved on when a claim finds a lease heartbeated past it), so `GSI1SK <= LEASE#{now}` finds expired leases without a filter.",
					Projection:   "a claim takes the payload from the index entry (it never changes) instead of a second read.",
					Sparse:       "completed and cancelled tasks remove their GSI1 keys and leave the index",
				},
			},
			TradeOffs: []string{
				"**Low-cardinality GSI1 partitions, write-sharded**: the pending set must be read in order, so it is one partition unless `Options.Shards` splits it. At the seed's 500 tasks/s a single `STATUS#PENDING` runs at its 1,000 WCU/s limit and `STATUS#PROCESSING` (with heartbeats) past it; the default `Options.Shards = 4` keeps each shard under a third of the limit (above), at the price of one query per shard for admin lists and for each claim (all at once, one round trip); an idle worker polls with two requests whatever the shard count (the readiness signal and one partition in turn).",
				"**Single-item writes on the hot path, transactions for the rest**: submit, claim and complete cost 13 WCU per task and a heartbeat 1, in 8 round trips (16 and 3 when the lease was on META; 26 when every move was a transaction); each is decided by one conditional write and ordered so a crash leaves nothing a later call cannot finish, each event item written beside a write its call makes anyway. Fail, release, lease takeover, cancel and redrive stay transactions.",
				"**The seed's event store by default, META's compact history as an option**: every status change is an `EVENT#` item, so any reader of the table sees every history. `tasks.CompactHistory` writes no event item for a task submitted, claimed and completed (META records its creation, its claim and its completion; History and EventFromChange read them there): 3 WCU a task less (10), 1,500 WCU/s and some 250 GB of a week's storage at the seed's rate, priced in docs/costs.md.",
				"**Sparse index**: finished tasks leave GSI1, so its size tracks the live queue, not the history.",
				"**Retention by TTL, with no write of its own**: event, idempotency and claim items carry `ttl` = their time + `Options.Retention` (a week by default), and META gets one from the Complete or Cancel that finishes the task, so a finished task expires whole about a week later and storage stays at a week of tasks instead of growing without bound. Live and dead tasks' META never expire; a task live longer than the retention loses its oldest event items (History starts late, never with a gap).",
			},
			// Where the design departs from the data-modeling method's consolidation
			// rules (computed in dynamodb_requirement.md), and why.
			Declined: map[string]string{
				"Idempotency key": "written by a conditional PutItem whose refusal returns the item a repeated key wrote, so the write is its read",
			},
			Relationships: map[string]string{
				"Task event": "the task queue design keeps a task's history in its partition (`TASK#{taskId}`, `EVENT#nnnn`) so History is one Query that ends at META; the 500-a-second claim path reads META by key (a GetItem, a GSI1 page) and never the events, so sharing the partition costs it nothing, which is why the overlap is low. Events expire with their task (TTL).",
			},
			Denormalization: []string{
				"**Taken: the payload in GSI1's entries** (ALL projection): a claim takes the payload from the index entry, no GetItem; safe because a task's payload never changes after Submit.",
				"**Taken: the current claim on META** (owner, lease expiry) beside the WORKER item that holds it: Get reads one item; both are written by the same calls.",
				"**Declined: queue-depth counters on the CONFIG item**, moved by every status change: Depth would be one GetItem instead of a COUNT query per queue partition, but at 500 tasks a second three moves a task put 1,500 WCU/s on one item, past a partition's 1,000 (the hot-partition analysis); Depth counts instead.",
			},
			Integration: "payloads and results stay in the item (small by the seed's plan); no S3.",
		},
		Items: []datamodel.Sample{
			{{"PK", "TASK#t-123"}, {"SK", "META"}, {"GSI1PK", "STATUS#PENDING#2"}, {"GSI1SK", "CREATED#2026-09-23T10:00:00.000000Z"}, {"status", "PENDING"}, {"events", "1"}, {"payload", "{...}"}},
			{{"PK", "TASK#t-124"}, {"SK", "META"}, {"GSI1PK", "STATUS#PROCESSING#0"}, {"GSI1SK", "LEASE#2026-09-23T10:01:30.000000Z"}, {"status", "PROCESSING"}, {"events", "4"}, {"owner", "worker-7"}, {"claimedAt", "2026-09-23T10:01:00.000000Z"}, {"payload", "{...}"}},
			{{"PK", "TASK#t-124"}, {"SK", "EVENT#0002"}, {"type", "EVENT"}, {"event", "PROCESSING"}, {"at", "2026-09-23T10:00:10.000000Z"}, {"worker", "worker-3"}},
			{{"PK", "TASK#t-124"}, {"SK", "EVENT#0003"}, {"type", "EVENT"}, {"event", "FAILED"}, {"at", "2026-09-23T10:00:20.000000Z"}, {"worker", "worker-3"}},
			{{"PK", "TASK#t-125"}, {"SK", "META"}, {"status", "COMPLETED"}, {"events", "3"}, {"owner", "worker-7"}, {"payload", "{...}"}, {"ttl", "1790762460"}},
			{{"PK", "TASK#t-125"}, {"SK", "EVENT#0003"}, {"type", "EVENT"}, {"event", "COMPLETED"}, {"at", "2026-09-23T10:00:41.000000Z"}, {"worker", "worker-7"}, {"ttl", "1790762441"}},
			{{"PK", "IDEM#order-991"}, {"SK", "TASK#t-123"}},
			{{"PK", "WORKER#worker-7"}, {"SK", "TASK#t-124"}, {"leaseExpiresAt", "2026-09-23T10:01:40.000000Z"}},
			{{"PK", "CONFIG"}, {"SK", "QUEUE"}, {"shards", "4"}, {"activeAt", "2026-09-23T10:01:00.000000Z"}},
		},
	}
}

// tasksPayload is a task's payload, inline in META by the design: one a
// task at the patterns' average submission rate, rewritten by every META
// write, read by the claim, kept for the retention.
func tasksPayload() datamodel.Offload {
	avg := map[string]float64{}
	for _, p := range tasks.Patterns() {
		avg[p.Name] = p.AveragePerSecond
	}
	submits := avg["Submit: META"]
	metaWrites := submits + avg["Claim task (atomic)"] + avg["Move a lease's index entry"] + avg["Complete task"] + avg["Fail, release or expire task"]
	return datamodel.Offload{What: "a task's payload", PartBytes: 800, HostBytes: 224, Inline: true,
		Writes: submits, HostWrites: metaWrites, Reads: avg["Claim task (atomic)"], Kept: submits * tasks.DefaultRetention.Seconds()}
}
