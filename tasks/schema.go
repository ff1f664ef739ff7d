package tasks

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// IndexGSI1 is the seed's one global secondary index: GSI1PK, GSI1SK,
// projecting ALL so Claim takes the payload from the index entry (the
// payload never changes, so the index's eventual consistency cannot hand
// out a stale one) instead of a second read.
const IndexGSI1 = "GSI1"

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

// Schema is the seed's single table named name: PK and SK (S), GSI1 on
// GSI1PK and GSI1SK (S), with the seed's access patterns and the ones this
// package adds (leases, reclaim), each with its item size and the rate of
// seed 003's plan of 500 tasks per second.
func Schema(name string) table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name:         name,
		PartitionKey: s(attrPK),
		SortKey:      s(attrSK),
		Indexes: []table.Index{{
			Name:         IndexGSI1,
			PartitionKey: s(attrGSI1PK),
			SortKey:      s(attrGSI1SK),
			Projection:   types.ProjectionTypeAll,
		}},
		AccessPatterns: []table.AccessPattern{
			{
				Name:          "Check idempotency",
				Partition:     "IDEM#{key}",
				Description:   "GetItem of the IDEM item before submitting (the task id is derived from the key, so the full key is known).",
				Operation:     table.OpGetItem,
				KeyCondition:  "PK = IDEM#{key} AND SK = TASK#{taskId}",
				ItemSize:      typicalIdemSize,
				RatePerSecond: planTasksPerSecond,
			},
			{
				Name:      "Submit task",
				Partition: "TASK#{taskId}",
				Items: []table.ItemAccess{
					{Operation: table.OpPutItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
						IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PENDING"}}},
					{Operation: table.OpPutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
					{Operation: table.OpPutItem, Size: typicalIdemSize, Partition: "IDEM#{key}"},
				},
				Description:     "META (GSI1 STATUS#PENDING / CREATED#time), EVENT#0001 SUBMITTED and the IDEM item, each attribute_not_exists, in one transaction.",
				Operation:       table.OpTransactWriteItems,
				KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#0001; PK = IDEM#{key} AND SK = TASK#{taskId}",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: 3,
				RatePerSecond:   planTasksPerSecond,
				Transactional:   true,
			},
			{
				Name:            "Find claim candidates",
				Partition:       "STATUS#PENDING",
				Description:     "The oldest pending tasks; with Shards > 1 one query per shard until one has candidates.",
				Operation:       table.OpQuery,
				Index:           IndexGSI1,
				KeyCondition:    "GSI1PK = STATUS#PENDING",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: DefaultClaimBatch,
				RatePerSecond:   planTasksPerSecond,
			},
			{
				Name:            "Find expired leases",
				Partition:       "STATUS#PROCESSING",
				Description:     "PROCESSING tasks whose lease ran out, by key condition on the lease expiry; before every claim and in ReclaimExpired.",
				Operation:       table.OpQuery,
				Index:           IndexGSI1,
				KeyCondition:    "GSI1PK = STATUS#PROCESSING AND GSI1SK <= LEASE#{now}",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: 1,
				RatePerSecond:   planTasksPerSecond,
			},
			{
				Name:      "Claim task (atomic)",
				Partition: "TASK#{taskId}",
				Items: []table.ItemAccess{
					{Operation: table.OpUpdateItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
						IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Move: true, From: "STATUS#PENDING", Partition: "STATUS#PROCESSING"}}},
					{Operation: table.OpPutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
					{Operation: table.OpPutItem, Size: typicalClaimSize, Partition: "WORKER#{workerId}"},
				},
				Description:     "META update conditioned on status = PENDING and the event count, the PROCESSING event and the WORKER item, in one transaction.",
				Operation:       table.OpTransactWriteItems,
				KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#{seq}; PK = WORKER#{workerId} AND SK = TASK#{taskId}",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: 3,
				RatePerSecond:   planTasksPerSecond,
				Transactional:   true,
			},
			{
				Name:          "Heartbeat",
				Partition:     "TASK#{taskId}",
				IndexWrites:   []table.IndexWrite{{Index: IndexGSI1, Move: true, Partition: "STATUS#PROCESSING"}},
				Description:   "Extend a lease: META update conditioned on owner, attempt and PROCESSING; moves GSI1SK LEASE#expiry.",
				Operation:     table.OpUpdateItem,
				KeyCondition:  "PK = TASK#{taskId} AND SK = META",
				ItemSize:      typicalMetaSize,
				RatePerSecond: planHeartbeats,
			},
			{
				Name:      "Complete or fail task",
				Partition: "TASK#{taskId}",
				Items: []table.ItemAccess{
					// Completing removes the GSI1 keys: the entry leaves the index.
					{Operation: table.OpUpdateItem, Size: typicalMetaSize, Partition: "TASK#{taskId}",
						IndexWrites: []table.IndexWrite{{Index: IndexGSI1, Partition: "STATUS#PROCESSING"}}},
					{Operation: table.OpPutItem, Size: typicalEventSize, Partition: "TASK#{taskId}"},
					{Operation: table.OpDeleteItem, Size: typicalClaimSize, Partition: "WORKER#{workerId}"},
				},
				Description:     "META update conditioned on the lease, the COMPLETED/FAILED/DEAD event, delete of the WORKER item, in one transaction.",
				Operation:       table.OpTransactWriteItems,
				KeyCondition:    "PK = TASK#{taskId} AND SK = META; PK = TASK#{taskId} AND SK = EVENT#{seq}; PK = WORKER#{workerId} AND SK = TASK#{taskId}",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: 3,
				RatePerSecond:   planTasksPerSecond,
				Transactional:   true,
			},
			{
				Name:          "Get task metadata",
				Partition:     "TASK#{taskId}",
				Description:   "GetItem of META, strongly consistent.",
				Operation:     table.OpGetItem,
				KeyCondition:  "PK = TASK#{taskId} AND SK = META",
				ItemSize:      typicalMetaSize,
				RatePerSecond: planHistoryReads,
				Consistent:    true,
			},
			{
				Name:            "Get task history",
				Partition:       "TASK#{taskId}",
				Description:     "Events in sequence order.",
				Operation:       table.OpQuery,
				KeyCondition:    "PK = TASK#{taskId} AND begins_with(SK, EVENT#)",
				ItemSize:        typicalEventSize,
				ItemsPerRequest: 3,
				RatePerSecond:   planHistoryReads,
				Consistent:      true,
			},
			{
				Name:            "List pending tasks",
				Partition:       "STATUS#PENDING",
				Description:     "The admin view, oldest first, 100 a page; with Shards > 1 one query per shard, merged.",
				Operation:       table.OpQuery,
				Index:           IndexGSI1,
				KeyCondition:    "GSI1PK = STATUS#PENDING",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: DefaultPageSize,
				RatePerSecond:   planAdminLists,
			},
			{
				Name:            "List dead tasks",
				Partition:       "STATUS#DEAD",
				Description:     "The dead letters, oldest first, 100 a page; one partition whatever the sharding.",
				Operation:       table.OpQuery,
				Index:           IndexGSI1,
				KeyCondition:    "GSI1PK = STATUS#DEAD",
				ItemSize:        typicalMetaSize,
				ItemsPerRequest: DefaultPageSize,
				RatePerSecond:   planAdminLists,
			},
			{
				Name:            "List worker claims",
				Partition:       "WORKER#{workerId}",
				Description:     "The tasks a worker holds.",
				Operation:       table.OpQuery,
				KeyCondition:    "PK = WORKER#{workerId} AND begins_with(SK, TASK#)",
				ItemSize:        typicalClaimSize,
				ItemsPerRequest: 1,
				RatePerSecond:   planAdminLists,
				Consistent:      true,
			},
		},
	}
}
