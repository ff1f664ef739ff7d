package tasks

import (
	"slices"
	"time"

	"github.com/tablekit/tablekit/access"
)

// The seed's plan: 500 tasks per second through submission and
// processing, items of about 1 KB (1 WCU each). The rates below are that
// plan; heartbeats assume a lease of 30 s renewed every 10 s with ~1,000
// tasks in flight, and the admin view a page every few seconds.
const (
	planTasksPerSecond = 500
	typicalMetaSize    = 1024
	typicalEventSize   = 200
	typicalClaimSize   = 200
	typicalIdemSize    = 150
	planHeartbeats     = 100
	planAdminLists     = 0.2
	planHistoryReads   = 5
	planFailures       = planTasksPerSecond / 20
	// A lease heartbeated past the expiry its claim put in the index is
	// read, and its index entry moved on, once per lease duration by the
	// claim that finds it: a third of the heartbeats (30 s leases renewed
	// every 10 s).
	planLeaseRefreshes = planHeartbeats / 3
	// The readiness signal is set at most once a second by each store
	// that places tasks: a fleet of 20 busy ones. Idle polls read it: 20
	// idle workers at the poll backoff's 5 s cap.
	planSignals   = 20
	planIdlePolls = 4
	// A store reads the table's shard count once, when it starts: a fleet
	// restarting a few dozen stores a day.
	planConfigReads   = 0.001
	typicalConfigSize = 80
	// Maintenance.Depth counts the queue once a minute (a service's metrics
	// timer): 3N+1 COUNT queries a call, each reading the entries it
	// counts, some hundred each (a backlog of about 1,300 tasks).
	planDepthQueries    = (3*DefaultShards + 1) / 60.0
	typicalDepthEntries = 100
)

// claimCandidatesPerShard is how many pending tasks a claim reads from
// each shard at the defaults.
const claimCandidatesPerShard = (DefaultClaimBatch + DefaultShards - 1) / DefaultShards

// The seed gives one figure, 500 tasks a second, as the load to design
// for and no quieter average: every pattern's average is declared equal
// to its peak, so the bill is that rate sustained all month. A service
// with a daily cycle declares its own with datamodel.WithAverages.

// Entities are the items the table keeps, for datamodel's storage
// estimate. A task is a META item and its idempotency item, expiring by
// TTL DefaultRetention after the task finishes (seconds after it is
// created at the seed's pace), which is the Retention declared. DynamoDB
// deletes expired items within a few days after that, so the table holds
// somewhat more than this. Its events are items, three for a task that is
// submitted, claimed and completed, declared as created three at a time
// by the submission (the declaration names one creating pattern); the
// rarer changes add two per failed attempt (a twentieth of tasks at the
// plan: some 3% more event items, left out), and Options.CompactHistory
// writes none of the three. Its WORKER claim item lives only while the
// task is claimed (Complete deletes it), and GSI1 holds a task only while
// it is pending, processing or dead, so no entity lists them. Dead letters
// never expire: a standing population the seed gives no rate for. The
// CONFIG item is one item of some 80 bytes for the table's life. The
// WORKER claim is declared with a claim's life, claimLife, so its few
// items count. With opts that set Options.CompactHistory the entities are
// a compact store's: event items only from the rarer changes, two per
// failed attempt.
func Entities(opts ...func(*Options)) []access.Entity {
	tp := taskPK.Pattern()
	es := []access.Entity{
		{Name: entityTask, Size: typicalMetaSize, CreatedBy: "Submit: META", Retention: DefaultRetention, Partition: tp, Sort: metaSK.Pattern()},
		{Name: entityEvent, Size: typicalEventSize, CreatedBy: patternSubmitEvent, PerRequest: 3, Retention: DefaultRetention,
			Partition: tp, Sort: eventSK.Pattern(), Parent: entityTask, PerParent: 3},
		{Name: entityIdem, Size: typicalIdemSize, CreatedBy: "Check idempotency", Retention: DefaultRetention,
			Partition: idemPK.Pattern(), Sort: taskSK.Pattern(), Parent: entityTask, PerParent: 1, MaxPerParent: 1},
		// A claim lives while its task is claimed: about a lease.
		{Name: entityClaim, Size: typicalClaimSize, CreatedBy: "Claim: WORKER item", Retention: claimLife,
			Partition: workerPK.Pattern(), Sort: taskSK.Pattern(), Parent: entityTask, PerParent: 1, MaxPerParent: 1},
		{Name: entityConfig, Size: typicalConfigSize, Count: 1, Partition: configPK.Pattern(), Sort: configSK.Pattern()},
	}
	if declaredOptions(opts).CompactHistory {
		for i := range es {
			if es[i].Name == entityEvent {
				es[i].CreatedBy, es[i].PerRequest, es[i].PerParent = "Fail, release or expire task", 2, 2
			}
		}
	}
	return es
}

// declaredOptions are the options a declaration is made for (only
// CompactHistory changes it).
func declaredOptions(opts []func(*Options)) Options {
	var o Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// Entity names, for Entities and the patterns that read and write them.
// A task's event items (its history; redrives add attempts, so they are
// unbounded) live in its partition; its idempotency item and its
// worker's claim (one each at most) in partitions keyed by what their
// reads have, the key and the worker.
const (
	entityTask   = "Task"
	entityEvent  = "Task event"
	entityIdem   = "Idempotency key"
	entityClaim  = "Worker claim"
	entityConfig = "Table configuration"
	// claimLife is how long a WORKER item lives: a task's processing,
	// about one lease.
	claimLife = 30 * time.Second
)

// The patterns that write the event items of a plain life, each beside a
// write its call makes anyway (Options.CompactHistory leaves them out).
const (
	patternSubmitEvent   = "Submit: SUBMITTED event"
	patternClaimEvent    = "Claim: PROCESSING event"
	patternCompleteEvent = "Complete: COMPLETED event"
)

// patternEntities are the entities each pattern reads or writes.
var patternEntities = map[string][]string{
	"Check idempotency":            {entityIdem},
	"Submit: META":                 {entityTask},
	patternSubmitEvent:             {entityEvent},
	patternClaimEvent:              {entityEvent},
	patternCompleteEvent:           {entityEvent},
	"Set the readiness signal":     {entityConfig},
	"Find claim candidates":        {entityTask},
	"Find expired leases":          {entityTask},
	"Claim task (atomic)":          {entityTask},
	"Claim: WORKER item":           {entityClaim},
	"Heartbeat":                    {entityClaim},
	"Read a lease":                 {entityClaim},
	"Move a lease's index entry":   {entityTask},
	"Complete task":                {entityTask},
	"Complete: WORKER item":        {entityClaim},
	"Fail, release or expire task": {entityTask, entityEvent, entityClaim},
	"Get task metadata":            {entityTask},
	"Get task history":             {entityEvent, entityTask},
	"List pending tasks":           {entityTask},
	"List dead tasks":              {entityTask},
	"Count the queue":              {entityTask},
	"List worker claims":           {entityClaim},
	"Read the readiness signal":    {entityConfig},
	"Read the shard count":         {entityConfig},
	"Record the shard count":       {entityConfig},
}

// latencies are the patterns' latency targets (p99, the data-modeling
// method's "latency SLO"): a worker's claim path and a submission are
// single-item requests at 500 a second, 10 ms for a read and 20 ms for a
// conditional write or a GSI1 page; a transaction 50 ms; the admin views
// 50 ms a page.
var latencies = map[string]time.Duration{
	"Check idempotency":            20 * time.Millisecond,
	"Submit: META":                 20 * time.Millisecond,
	patternSubmitEvent:             20 * time.Millisecond,
	patternClaimEvent:              20 * time.Millisecond,
	patternCompleteEvent:           20 * time.Millisecond,
	"Set the readiness signal":     20 * time.Millisecond,
	"Find claim candidates":        20 * time.Millisecond,
	"Find expired leases":          20 * time.Millisecond,
	"Claim task (atomic)":          20 * time.Millisecond,
	"Claim: WORKER item":           20 * time.Millisecond,
	"Heartbeat":                    20 * time.Millisecond,
	"Read a lease":                 10 * time.Millisecond,
	"Move a lease's index entry":   20 * time.Millisecond,
	"Complete task":                20 * time.Millisecond,
	"Complete: WORKER item":        20 * time.Millisecond,
	"Fail, release or expire task": 50 * time.Millisecond,
	"Get task metadata":            10 * time.Millisecond,
	"Get task history":             20 * time.Millisecond,
	"List pending tasks":           50 * time.Millisecond,
	"List dead tasks":              50 * time.Millisecond,
	"Count the queue":              50 * time.Millisecond,
	"List worker claims":           20 * time.Millisecond,
	"Read the readiness signal":    10 * time.Millisecond,
	"Read the shard count":         10 * time.Millisecond,
	"Record the shard count":       20 * time.Millisecond,
}

// Patterns are the ways the store reads and writes its table, with the
// typical item sizes and request rates package datamodel turns into
// capacity, cost, hot-partition estimates and the IAM policy
// (cmd/datamodel writes them under docs/tasks/). The STATUS#PENDING and
// STATUS#PROCESSING partitions are split over DefaultShards. Submit, Claim
// and Complete send single-item requests, each declared as a pattern of
// its own, named after the call. With opts that set
// Options.CompactHistory they are a compact store's: without the three
// event writes of a plain life.
func Patterns(opts ...func(*Options)) []access.Pattern {
	p := []access.Pattern{
		{
			Name:         "Check idempotency",
			Partition:    "IDEM#{key}",
			Description:  "The seed's GetItem before SubmitTask and its attribute_not_exists PutItem in one request: the IDEM item is put on that condition, and its refusal returns the item a repeated key wrote (only with an idempotency key; SubmitTx reads it first, strongly consistent, unless its caller vouches for a new key with FreshKey).",
			Operation:    access.PutItem,
			KeyCondition: "PK = IDEM#{key} AND SK = TASK#{taskId}",
			ItemSize:     typicalIdemSize,
		},
		{
			Name:         "Submit: META",
			Partition:    "TASK#{taskId}",
			Description:  "META, attribute_not_exists, entering GSI1 at STATUS#PENDING / CREATED#time (or the later time a delayed submission asks): the task is claimable then.",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PENDING"}},
		},
		{
			Name:         patternSubmitEvent,
			Partition:    "TASK#{taskId}",
			Description:  "EVENT#0001 (SUBMITTED), beside META's put in the same round trip, on the condition that its key is free (or holds an expired item). Not with Options.CompactHistory: META tells it.",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = EVENT#{seq}",
			ItemSize:     typicalEventSize,
		},
		{
			Name:         "Set the readiness signal",
			Partition:    "CONFIG",
			Description:  "activeAt on the CONFIG item, at most once a second per store that places tasks (Submit, Fail, Release, Redrive, expiry), so idle workers look again.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = CONFIG AND SK = QUEUE",
			ItemSize:     typicalConfigSize,
		},
		{
			Name:            "Find claim candidates",
			Partition:       "STATUS#PENDING",
			Description:     "The oldest pending tasks of every shard at once (one query per shard, one round trip), ClaimBatch in all.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PENDING",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: claimCandidatesPerShard,
		},
		{
			Name:            "Find expired leases",
			Partition:       "STATUS#PROCESSING",
			Description:     "PROCESSING tasks whose index entry's lease expiry passed, by key condition; one shard per claim, in turn, and every shard in ReclaimExpired.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PROCESSING AND GSI1SK <= LEASE#{now}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 1,
		},
		{
			Name:         "Claim task (atomic)",
			Partition:    "TASK#{taskId}",
			Description:  "META update conditioned on status, attempt and event count as read: the claim's decision; the GSI1 entry moves from STATUS#PENDING to STATUS#PROCESSING. A refusal returns the task as it stands (ALL_OLD): the status the losing claim reports.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Move: true, From: "STATUS#PENDING", Partition: "STATUS#PROCESSING"}},
		},
		{
			Name:         "Claim: WORKER item",
			Partition:    "WORKER#{workerId}",
			Description:  "The worker's claim item, which holds the lease; never over a takeover's mark.",
			Operation:    access.PutItem,
			KeyCondition: "PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:     typicalClaimSize,
		},
		{
			Name:         patternClaimEvent,
			Partition:    "TASK#{taskId}",
			Description:  "The claim's PROCESSING event, beside the WORKER item in the same round trip. Not with Options.CompactHistory: META tells it until the lease ends.",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = EVENT#{seq}",
			ItemSize:     typicalEventSize,
		},
		{
			Name:         "Heartbeat",
			Partition:    "WORKER#{workerId}",
			Description:  "Extend a lease: the claim item's expiry, conditioned on the attempt and no takeover's mark. One small item in no index.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:     typicalClaimSize,
		},
		{
			Name:         "Read a lease",
			Partition:    "WORKER#{workerId}",
			Description:  "The claim item of a task whose index entry says its lease expired, strongly consistent: taken over if it did, its index entry moved on if it was heartbeated.",
			Operation:    access.GetItem,
			KeyCondition: "PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:     typicalClaimSize,
			Consistent:   true,
		},
		{
			Name:         "Move a lease's index entry",
			Partition:    "TASK#{taskId}",
			Description:  "META's GSI1SK moved to the expiry of a lease heartbeated past it, conditioned on META as read.",
			Operation:    access.UpdateItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			IndexWrites:  []access.IndexWrite{{Index: IndexGSI1, Move: true, Partition: "STATUS#PROCESSING"}},
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
			Name:         patternCompleteEvent,
			Partition:    "TASK#{taskId}",
			Description:  "The COMPLETED event, beside the WORKER item's delete in the same round trip. Not with Options.CompactHistory: META tells it.",
			Operation:    access.PutItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = EVENT#{seq}",
			ItemSize:     typicalEventSize,
		},
		{
			Name:      "Fail, release or expire task",
			Partition: "TASK#{taskId}",
			Items: []access.Item{
				{Operation: access.UpdateItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
					IndexWrites: []access.IndexWrite{{Index: IndexGSI1, Move: true, From: "STATUS#PROCESSING", Partition: "STATUS#PENDING"}}},
				{Operation: access.PutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
				{Operation: access.PutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
				{Operation: access.DeleteItem, Size: typicalClaimSize, Partition: "WORKER#{workerId}"},
			},
			Description:     "The rarer ends of a lease, each one transaction: META update conditioned on the lease (or, for an expired one, on META and the lease as read), the claim's PROCESSING event (again: the claim wrote it, unless cut off first or under Options.CompactHistory) and the FAILED/RELEASED/LEASE_EXPIRED event, the WORKER item deleted (or marked lost). Declared at a twentieth of the tasks.",
			Operation:       access.TransactWriteItems,
			KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#{seq}; PK = WORKER#{workerId} AND SK = TASK#{taskId}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 4,
			Transactional:   true,
		},
		{
			Name:         "Get task metadata",
			Partition:    "TASK#{taskId}",
			Description:  "GetItem of META, strongly consistent (and, for a PROCESSING task, Read a lease).",
			Operation:    access.GetItem,
			KeyCondition: "PK = TASK#{taskId} AND SK = META",
			ItemSize:     typicalMetaSize,
			Consistent:   true,
		},
		{
			Name:            "Get task history",
			Partition:       "TASK#{taskId}",
			Description:     "The task's partition: the event items in sequence order, then META, whose event count ends the history and which tells the events no item holds.",
			Operation:       access.Query,
			KeyCondition:    "PK = TASK#{taskId}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: 1,
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
			Name:            "Count the queue",
			Partition:       "STATUS#PENDING",
			Description:     "Maintenance.Depth: COUNT queries of every queue partition at once (each shard's pending partition split at now into claimable and waiting, its processing partition, the dead letters'), each reading every entry it counts. Declared once a minute.",
			Operation:       access.Query,
			Index:           IndexGSI1,
			KeyCondition:    "GSI1PK = STATUS#PENDING AND GSI1SK <= CREATED#{now}",
			ItemSize:        typicalMetaSize,
			ItemsPerRequest: typicalDepthEntries,
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
		{
			Name:         "Read the readiness signal",
			Partition:    "CONFIG",
			Description:  "An idle worker's poll, beside one probed partition (Find claim candidates or Find expired leases): the CONFIG item, strongly consistent.",
			Operation:    access.GetItem,
			KeyCondition: "PK = CONFIG AND SK = QUEUE",
			ItemSize:     typicalConfigSize,
			Consistent:   true,
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
	}
	rates := map[string]float64{
		"Find claim candidates":        planTasksPerSecond * DefaultShards,
		"Fail, release or expire task": planFailures,
		"Heartbeat":                    planHeartbeats,
		"Read a lease":                 planLeaseRefreshes,
		"Move a lease's index entry":   planLeaseRefreshes,
		"Set the readiness signal":     planSignals,
		"Read the readiness signal":    planIdlePolls,
		"Get task metadata":            planHistoryReads,
		"Get task history":             planHistoryReads,
		"List pending tasks":           planAdminLists,
		"List dead tasks":              planAdminLists,
		"Count the queue":              planDepthQueries,
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
		p[i].Entities = append([]string(nil), patternEntities[p[i].Name]...)
		p[i].Latency = latencies[p[i].Name]
	}
	if declaredOptions(opts).CompactHistory {
		p = slices.DeleteFunc(p, func(ap access.Pattern) bool {
			return ap.Name == patternSubmitEvent || ap.Name == patternClaimEvent || ap.Name == patternCompleteEvent
		})
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
