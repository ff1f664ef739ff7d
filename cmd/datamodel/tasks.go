package main

import (
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/tasks"
)

// tasksModel is the task-queue design's task queue table.
func tasksModel() datamodel.Model {
	return datamodel.Model{
		Store:    "tasks",
		Design:   "../systems/tasks.md",
		Package:  "github.com/tablekit/tablekit/tasks",
		Schema:   tasks.Schema(tasks.DefaultTableName),
		Patterns: tasks.Patterns(),
		Entities: tasks.Entities(),
		Prose: datamodel.Prose{
			Philosophy:        "A durable task queue on one table: each task is an item collection (`TASK#{taskId}`: its metadata and its event history), the pending and processing sets are GSI1 partitions ordered by creation time and lease expiry, and every state change is decided by one conditional write of the metadata: submit, claim and complete are single-item writes in an order that any later call can finish (a task is never claimed twice, lost, or left with a gap in its history), the rarer changes are transactions.",
			Aggregates:        "Task + events: an item collection (the history is read with the metadata for audits, appended on every move, unbounded in principle). Idempotency keys (`IDEM#{key}`) and worker claims (`WORKER#{workerId}`) are their own partitions: they are looked up by a different id than the task's.",
			Purpose:           "Tasks of the queue, their event history, idempotency keys and worker claims.",
			AggregateBoundary: "a task's metadata and events share `PK=TASK#{taskId}`; idempotency and claims are separate collections.",
			PartitionKey:      "`TASK#{taskId}`, `IDEM#{key}` or `WORKER#{workerId}`: high cardinality, one value per task, key or worker.",
			SortKey:           "`META`, `EVENT#{seq:04d}` (history in order), `TASK#{taskId}` (the task an idempotency key or a claim points at).",
			SortKeyTaxonomy: []string{
				"`META`: the task's state, lease and payload",
				"`EVENT#{seq:04d}`: one per state change, in order (overflow past 9999 is an error)",
				"`TASK#{taskId}` under `IDEM#{key}`: the task an idempotency key created",
				"`TASK#{taskId}` under `WORKER#{workerId}`: a task the worker claims (deleted when its lease ends; one a cut-off Complete leaves expires by its ttl)",
			},
			BoundedReads: "claims read `Limit` candidates from the oldest pending; history pages by sequence; admin lists page with cursors, merged across shards.",
			Indexes: map[string]datamodel.IndexProse{
				tasks.IndexGSI1: {
					Purpose:      "claim candidates (oldest pending first), expired leases by key condition, dead letters and the admin's pending list.",
					PartitionKey: "`STATUS#{status}` (with Shards > 1, `STATUS#{status}#{shard}`): the queue's states, deliberately low cardinality; see the hot-partition analysis for the write load at the seed's 500 tasks per second.",
					SortKey:      "`CREATED#{createdAt}` while pending or dead (FIFO), `LEASE#{expiresAt}` while processing, so `GSI1SK <= LEASE#{now}` finds expired leases without a filter.",
					Projection:   "a claim takes the payload from the index entry (it never changes) instead of a second read.",
					Sparse:       "completed and cancelled tasks remove their GSI1 keys and leave the index",
				},
			},
			TradeOffs: []string{
				"**Low-cardinality GSI1 partitions, write-sharded**: the pending set must be read in order, so it is one partition unless `Options.Shards` splits it. At the task-queue design's 500 tasks/s a single `STATUS#PENDING` runs at its 1,000 WCU/s limit and `STATUS#PROCESSING` (with heartbeats) past it; the default `Options.Shards = 4` keeps each shard under a third of the limit (above), at the price of one query per shard for admin lists and an idle worker's poll.",
				"**Single-item writes on the hot path, transactions for the rest**: submit, claim and complete cost 13 WCU per task (26 when every move was a transaction); each is decided by one conditional write and ordered so a crash leaves nothing a later call cannot finish. Fail, release, lease takeover, cancel and redrive stay transactions.",
				"**Sparse index**: finished tasks leave GSI1, so its size tracks the live queue, not the history.",
				"**Retention by TTL, with no write of its own**: events, idempotency and claim items carry `ttl` = their time + `Options.Retention` (a week by default), and META gets one from the Complete or Cancel that finishes the task, so a finished task expires whole about a week later and storage stays at a week of tasks instead of growing without bound. Live and dead tasks' META never expire; a task live longer than the retention loses its oldest events (History starts late, never with a gap).",
			},
			Integration: "payloads and results stay in the item (small by the seed's plan); no S3.",
		},
		Items: []datamodel.Sample{
			{{"PK", "TASK#t-123"}, {"SK", "META"}, {"GSI1PK", "STATUS#PENDING"}, {"GSI1SK", "CREATED#2026-09-23T10:00:00.000000Z"}, {"status", "PENDING"}, {"events", "1"}, {"payload", "{...}"}},
			{{"PK", "TASK#t-123"}, {"SK", "EVENT#0001"}, {"type", "SUBMITTED"}, {"at", "2026-09-23T10:00:00.000000Z"}},
			{{"PK", "TASK#t-124"}, {"SK", "META"}, {"GSI1PK", "STATUS#PROCESSING"}, {"GSI1SK", "LEASE#2026-09-23T10:01:30.000000Z"}, {"status", "PROCESSING"}, {"events", "2"}, {"owner", "worker-7"}, {"payload", "{...}"}},
			{{"PK", "TASK#t-124"}, {"SK", "EVENT#0002"}, {"type", "PROCESSING"}, {"at", "2026-09-23T10:01:00.000000Z"}, {"owner", "worker-7"}},
			{{"PK", "TASK#t-125"}, {"SK", "META"}, {"status", "COMPLETED"}, {"events", "3"}, {"payload", "{...}"}, {"ttl", "1790762460"}},
			{{"PK", "IDEM#order-991"}, {"SK", "TASK#t-123"}},
			{{"PK", "WORKER#worker-7"}, {"SK", "TASK#t-124"}, {"at", "2026-09-23T10:01:00.000000Z"}},
		},
	}
}
