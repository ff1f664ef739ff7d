package tasks

import "github.com/tablekit/tablekit/access"

// Seed 003's plan: 500 tasks per second through submission and
// processing, items of about 1 KB (1 WCU each). The rates below are that
// plan; heartbeats assume a lease of 30 s renewed every 10 s with ~1,000
// tasks in flight, and the admin view a page every few seconds.
const (
	planTasksPerSecond = 500
	typicalMetaSize    = 1024
	typicalEventSize   = 200
	typicalClaimSize   = 150
	typicalIdemSize    = 150
	planHeartbeats     = 100
	planAdminLists     = 0.2
	planHistoryReads   = 5
)

// Seed 003 gives one figure, 500 tasks a second, as the load to design
// for and no quieter average: every pattern's average is declared equal
// to its peak, so the bill is that rate sustained all month. A service
// with a daily cycle declares its own with datamodel.WithAverages.

// Entities are the items the table keeps, for datamodel's storage
// estimate. A task is a META item, three events (submitted, processing,
// completed) and its idempotency item; a WORKER claim lives only while
// the task is processed (about the ~1,000 tasks in flight). GSI1 holds a
// task only while it is pending or processing, so no entity lists it.
// Retention 0: finished tasks are kept until deleted.
func Entities() []access.Entity {
	return []access.Entity{
		{Name: "Task", Size: typicalMetaSize, CreatedBy: "Submit task"},
		{Name: "Task event", Size: typicalEventSize, CreatedBy: "Submit task", PerRequest: 3},
		{Name: "Idempotency key", Size: typicalIdemSize, CreatedBy: "Submit task"},
		{Name: "Worker claim", Size: typicalClaimSize, Count: 1000},
	}
}

// Patterns are the ways the store reads and writes its table, with the
// typical item sizes and request rates package datamodel turns into
// capacity, cost, hot-partition estimates and the IAM policy
// (cmd/datamodel writes them under docs/tasks/).
func Patterns() []access.Pattern {
	return []access.Pattern{
		{
			Name:          "Check idempotency",
			Partition:     "IDEM#{key}",
			Description:   "GetItem of the IDEM item before submitting (the task id is derived from the key, so the full key is known).",
			Operation:     access.GetItem,
			KeyCondition:  "PK = IDEM#{key} AND SK = TASK#{taskId}",
			ItemSize:      typicalIdemSize,
			RatePerSecond: planTasksPerSecond, AveragePerSecond: planTasksPerSecond,
		},
		{
			Name:      "Submit task",
			Partition: "TASK#{taskId}",
			Items: []access.Item{
				{Operation: access.PutItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
					IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PENDING"}}},
				{Operation: access.PutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
				{Operation: access.PutItem, Size: typicalIdemSize, Partition: "IDEM#{key}"},
			},
			Description:     "META (GSI1 STATUS#PENDING / CREATED#time), EVENT#0001 SUBMITTED and the IDEM item, each attribute_not_exists, in one transaction.",
			Operation:       access.TransactWriteItems,
			KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#0001; PK = IDEM#{key} AND SK = TASK#{taskId}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 3,
			RatePerSecond:   planTasksPerSecond, AveragePerSecond: planTasksPerSecond,
			Transactional: true,
		},
		{
			Name:            "Find claim candidates",
			Partition:       "STATUS#PENDING",
			Description:     "The pending tasks claimable longest (a task in retry backoff sorts after now); with Shards > 1 one query per shard until one has candidates.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PENDING AND GSI1SK <= CREATED#{now}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: DefaultClaimBatch,
			RatePerSecond:   planTasksPerSecond, AveragePerSecond: planTasksPerSecond,
		},
		{
			Name:            "Find expired leases",
			Partition:       "STATUS#PROCESSING",
			Description:     "PROCESSING tasks whose lease ran out, by key condition on the lease expiry; before every claim and in ReclaimExpired.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PROCESSING AND GSI1SK <= LEASE#{now}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 1,
			RatePerSecond:   planTasksPerSecond, AveragePerSecond: planTasksPerSecond,
		},
		{
			Name:      "Claim task (atomic)",
			Partition: "TASK#{taskId}",
			Items: []access.Item{
				{Operation: access.UpdateItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
					IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Move: true, From: "STATUS#PENDING", Partition: "STATUS#PROCESSING"}}},
				{Operation: access.PutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
				{Operation: access.PutItem, Size: typicalClaimSize, Partition: "WORKER#{workerId}"},
			},
			Description:     "META update conditioned on status = PENDING and the event count, the PROCESSING event and the WORKER item, in one transaction.",
			Operation:       access.TransactWriteItems,
			KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#{seq}; PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 3,
			RatePerSecond:   planTasksPerSecond, AveragePerSecond: planTasksPerSecond,
			Transactional: true,
		},
		{
			Name:          "Heartbeat",
			Partition:     "TASK#{taskId}",
			IndexWrites:   []access.IndexWrite{{Index: IndexGSI1, Move: true, Partition: "STATUS#PROCESSING"}},
			Description:   "Extend a lease: META update conditioned on owner, attempt and PROCESSING; moves GSI1SK LEASE#expiry.",
			Operation:     access.UpdateItem,
			KeyCondition:  "PK = TASK#{taskId} AND SK = META",
			ItemSize:      typicalMetaSize,
			RatePerSecond: planHeartbeats, AveragePerSecond: planHeartbeats,
		},
		{
			Name:      "Complete or fail task",
			Partition: "TASK#{taskId}",
			Items: []access.Item{
				// Completing removes the GSI1 keys: the entry leaves the index.
				{Operation: access.UpdateItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
					IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PROCESSING"}}},
				{Operation: access.PutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
				{Operation: access.DeleteItem, Size: typicalClaimSize, Partition: "WORKER#{workerId}"},
			},
			Description:     "META update conditioned on the lease, the COMPLETED/FAILED/DEAD event, delete of the WORKER item, in one transaction.",
			Operation:       access.TransactWriteItems,
			KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#{seq}; PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 3,
			RatePerSecond:   planTasksPerSecond, AveragePerSecond: planTasksPerSecond,
			Transactional: true,
		},
		{
			Name:          "Get task metadata",
			Partition:     "TASK#{taskId}",
			Description:   "GetItem of META, strongly consistent.",
			Operation:     access.GetItem,
			KeyCondition:  "PK = TASK#{taskId} AND SK = META",
			ItemSize:      typicalMetaSize,
			RatePerSecond: planHistoryReads, AveragePerSecond: planHistoryReads,
			Consistent: true,
		},
		{
			Name:            "Get task history",
			Partition:       "TASK#{taskId}",
			Description:     "Events in sequence order.",
			Operation:       access.Query,
			KeyCondition:    "PK = TASK#{taskId} AND begins_with(SK, EVENT#)",
			ItemSize:        typicalEventSize,
			ItemsPerRequest: 3,
			RatePerSecond:   planHistoryReads, AveragePerSecond: planHistoryReads,
			Consistent: true,
		},
		{
			Name:            "List pending tasks",
			Partition:       "STATUS#PENDING",
			Description:     "The admin view, oldest first, 100 a page; with Shards > 1 one query per shard, merged.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PENDING",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: DefaultPageSize,
			RatePerSecond:   planAdminLists, AveragePerSecond: planAdminLists,
		},
		{
			Name:            "List dead tasks",
			Partition:       "STATUS#DEAD",
			Description:     "The dead letters, oldest first, 100 a page; one partition whatever the sharding.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#DEAD",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: DefaultPageSize,
			RatePerSecond:   planAdminLists, AveragePerSecond: planAdminLists,
		},
		{
			Name:            "List worker claims",
			Partition:       "WORKER#{workerId}",
			Description:     "The tasks a worker holds.",
			Operation:       access.Query,
			KeyCondition:    "PK = WORKER#{workerId} AND begins_with(SK, TASK#)",
			ItemSize:        typicalClaimSize,
			ItemsPerRequest: 1,
			RatePerSecond:   planAdminLists, AveragePerSecond: planAdminLists,
			Consistent: true,
		},
	}
}
