package tasks

import "github.com/tablekit/tablekit/access"

// The seed's plan: 500 tasks per second through submission and
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
	planFailures       = planTasksPerSecond / 20
	// A store reads the table's shard count once, when it starts: a fleet
	// restarting a few dozen stores a day.
	planConfigReads   = 0.001
	typicalConfigSize = 60
)

// The seed gives one figure, 500 tasks a second, as the load to design
// for and no quieter average: every pattern's average is declared equal
// to its peak, so the bill is that rate sustained all month. A service
// with a daily cycle declares its own with datamodel.WithAverages.

// Entities are the items the table keeps, for datamodel's storage
// estimate. A task is a META item, three events (submitted, processing,
// completed) and its idempotency item, all expiring by TTL
// DefaultRetention after the task finishes (seconds after it is created at
// the seed's pace), which is the Retention declared. DynamoDB deletes
// expired items within a few days after that, so the table holds somewhat
// more than this. Its WORKER claim item lives only while the task is
// claimed (Complete deletes it), and GSI1 holds a task only while it is
// pending, processing or dead, so no entity lists them. Dead letters never
// expire: a standing population the seed gives no rate for. The CONFIG
// item is one item of some 60 bytes for the table's life.
func Entities() []access.Entity {
	return []access.Entity{
		{Name: "Task", Size: typicalMetaSize, CreatedBy: "Submit: META", Retention: DefaultRetention},
		{Name: "Task event", Size: typicalEventSize, CreatedBy: "Submit: SUBMITTED event", PerRequest: 3, Retention: DefaultRetention},
		{Name: "Idempotency key", Size: typicalIdemSize, CreatedBy: "Submit: IDEM item", Retention: DefaultRetention},
	}
}

// Patterns are the ways the store reads and writes its table, with the
// typical item sizes and request rates package datamodel turns into
// capacity, cost, hot-partition estimates and the IAM policy
// (cmd/datamodel writes them under docs/tasks/). The STATUS#PENDING and
// STATUS#PROCESSING partitions are split over DefaultShards. Submit, Claim
// and Complete send single-item requests one after another, each declared
// as a pattern of its own, named after the call.
func Patterns() []access.Pattern {
	p := []access.Pattern{
		{
			Name:         "Check idempotency",
			Partition:    "IDEM#{key}",
			Description:  "GetItem of the IDEM item before submitting (the task id is derived from the key, so the full key is known).",
			Operation:    access.GetItem,
			KeyCondition: "PK = IDEM#{key} AND SK = TASK#{taskId}",
			ItemSize:     typicalIdemSize,
		},
		{
			Name:         "Submit: IDEM item",
			Partition:    "IDEM#{key}",
			Description:  "The idempotency item, attribute_not_exists: the submission's decision (only with an idempotency key).",
			Operation:    access.PutItem,
			KeyCondition: "PK = IDEM#{key} AND SK = TASK#{taskId}",
			ItemSize:     typicalIdemSize,
		},
		{
			Name:         "Submit: SUBMITTED event",
			Partition:    "TASK#{taskId}",
			Description:  "EVENT#0001, before META so a claimable task always has its history's start.",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = EVENT#0001",
			ItemSize:     typicalEventSize,
		},
		{
			Name:         "Submit: META",
			Partition:    "TASK#{taskId}",
			Description:  "META, attribute_not_exists, entering GSI1 at STATUS#PENDING / CREATED#time: the task is claimable.",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PENDING"}},
		},
		{
			Name:            "Find claim candidates",
			Partition:       "STATUS#PENDING",
			Description:     "The pending tasks claimable longest (a task in retry backoff sorts after now); one query per shard until one has candidates.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PENDING AND GSI1SK <= CREATED#{now}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: DefaultClaimBatch,
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
		},
		{
			Name:         "Claim task (atomic)",
			Partition:    "TASK#{taskId}",
			Description:  "META update conditioned on status, attempt and event count as read: the claim's decision; the GSI1 entry moves from STATUS#PENDING to STATUS#PROCESSING.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Move: true, From: "STATUS#PENDING", Partition: "STATUS#PROCESSING"}},
		},
		{
			Name:         "Claim: PROCESSING event",
			Partition:    "TASK#{taskId}",
			Description:  "The claim's event, after META (a takeover rebuilds it if the claimer died first; History rebuilds it until then).",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = EVENT#{seq}",
			ItemSize:     typicalEventSize,
		},
		{
			Name:         "Claim: WORKER item",
			Partition:    "WORKER#{workerId}",
			Description:  "The worker's claim item, last.",
			Operation:    access.PutItem,
			KeyCondition: "PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:     typicalClaimSize,
		},
		{
			Name:         "Heartbeat",
			Partition:    "TASK#{taskId}",
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Move: true, Partition: "STATUS#PROCESSING"}},
			Description:  "Extend a lease: META update conditioned on owner, attempt and PROCESSING; moves GSI1SK LEASE#expiry.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
		},
		{
			Name:         "Complete: COMPLETED event",
			Partition:    "TASK#{taskId}",
			Description:  "The COMPLETED event, attribute_not_exists (a takeover's events take the number first).",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = EVENT#{seq}",
			ItemSize:     typicalEventSize,
		},
		{
			Name:         "Complete task",
			Partition:    "TASK#{taskId}",
			Description:  "META update conditioned on the lease and the event count: the decision; the entry leaves GSI1.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			// Completing removes the GSI1 keys: the entry leaves the index.
			IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PROCESSING"}},
		},
		{
			Name:         "Complete: WORKER item",
			Partition:    "WORKER#{workerId}",
			Description:  "Delete of the worker's claim item, after META says COMPLETED.",
			Operation:    access.DeleteItem,
			KeyCondition: "PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:     typicalClaimSize,
		},
		{
			Name:      "Fail, release or expire task",
			Partition: "TASK#{taskId}",
			Items: []access.Item{
				{Operation: access.UpdateItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
					IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Move: true, From: "STATUS#PROCESSING", Partition: "STATUS#PENDING"}}},
				{Operation: access.PutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
				{Operation: access.DeleteItem, Size: typicalClaimSize, Partition: "WORKER#{workerId}"},
			},
			Description:     "The rarer ends of a lease, each one transaction: META update conditioned on the lease (or, for an expired one, on META as read), the FAILED/RELEASED/LEASE_EXPIRED event, delete of the WORKER item. Declared at a twentieth of the tasks.",
			Operation:       access.TransactWriteItems,
			KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#{seq}; PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 3,
			Transactional:   true,
		},
		{
			Name:         "Get task metadata",
			Partition:    "TASK#{taskId}",
			Description:  "GetItem of META, strongly consistent.",
			Operation:    access.GetItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			Consistent:   true,
		},
		{
			Name:            "Get task history",
			Partition:       "TASK#{taskId}",
			Description:     "The task's partition: events in sequence order, then META, whose event count ends the history.",
			Operation:       access.Query,
			KeyCondition:    "PK = TASK#{taskId}",
			ItemSize:        (3*typicalEventSize + typicalMetaSize) / 4,
			ItemsPerRequest: 4,
			Consistent:      true,
		},
		{
			Name:            "List pending tasks",
			Partition:       "STATUS#PENDING",
			Description:     "The admin view, oldest first, 100 a page; one query per shard, merged.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PENDING",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: DefaultPageSize,
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
		},
		{
			Name:         "Read the shard count",
			Partition:    "CONFIG",
			Description:  "The table's CONFIG item, strongly consistent, once per store: the shard count every client of the table follows.",
			Operation:    access.GetItem,
			KeyCondition: "PK = CONFIG AND SK = QUEUE",
			ItemSize:     typicalConfigSize,
			Consistent:   true,
		},
		{
			Name:         "Record the shard count",
			Partition:    "CONFIG",
			Description:  "The CONFIG item, attribute_not_exists, by the first store on a new table (EnsureTable).",
			Operation:    access.PutItem,
			KeyCondition: "PK = CONFIG AND SK = QUEUE",
			ItemSize:     typicalConfigSize,
		},
		{
			Name:            "List worker claims",
			Partition:       "WORKER#{workerId}",
			Description:     "The claim items of a worker; WorkerTasks then reads each one's META (Get task metadata) and keeps those still held.",
			Operation:       access.Query,
			KeyCondition:    "PK = WORKER#{workerId} AND begins_with(SK, TASK#)",
			ItemSize:        typicalClaimSize,
			ItemsPerRequest: 1,
			Consistent:      true,
		},
	}
	rates := map[string]float64{
		"Fail, release or expire task": planFailures,
		"Heartbeat":                    planHeartbeats,
		"Get task metadata":            planHistoryReads,
		"Get task history":             planHistoryReads,
		"List pending tasks":           planAdminLists,
		"List dead tasks":              planAdminLists,
		"List worker claims":           planAdminLists,
		"Read the shard count":         planConfigReads,
		"Record the shard count":       planConfigReads,
	}
	for i := range p {
		rate, ok := rates[p[i].Name]
		if !ok {
			rate = planTasksPerSecond
		}
		p[i].RatePerSecond, p[i].AveragePerSecond = rate, rate
		if p[i].Partition != "STATUS#DEAD" && (p[i].Index == IndexGSI1 || len(p[i].IndexWrites) > 0 || hasIndexWrites(p[i].Items)) {
			p[i].Partitions = DefaultShards
		}
	}
	return p
}

func hasIndexWrites(items []access.Item) bool {
	for _, it := range items {
		if len(it.IndexWrites) > 0 {
			return true
		}
	}
	return false
}
