// Package access declares how a service uses a DynamoDB table: its access
// patterns, each with the operation, key condition, item sizes and request
// rate that capacity planning needs.
//
// It is planning, not data access, and it is a leaf: it imports nothing of
// tablekit, so a store declares its patterns (in its patterns.go, as a
// package-level Patterns function) without pulling in the planner, and
// package table's Schema holds only what CreateTable needs. Package
// datamodel reads a store's table.Schema together with its []Pattern and
// turns them into capacity, cost and hot-partition estimates, the
// data-model document and a least-privilege IAM policy (cmd/datamodel
// writes them under docs/).
//
// A pattern is a plain value:
//
//	access.Pattern{
//		Name:            "List user jobs",
//		Operation:       access.Query,
//		Index:           "userId-createdAt-index",
//		KeyCondition:    "userId = :userId",
//		ItemSize:        2048,
//		ItemsPerRequest: 20,
//		RatePerSecond:   50, // the peak: partitions and capacity
//		AveragePerSecond: 5, // the month's average: the bill
//		Partition:       "{userId}",
//	}
//
// Each pattern declares two rates, as the seed asks ("RPS (Peak and
// Average)"): the peak sizes partitions and provisioned capacity, the
// average is what the month costs.
//
// A store also declares its entities (an Entities function beside
// Patterns): each kind of item with its size, the pattern whose requests
// create it, and how long it is kept (Retention, its TTL). Package
// datamodel derives the table's storage from them.
//
// A pattern also declares its latency target (Latency, the p99 the
// service needs: the data-modeling method's "latency SLO") and the entities it reads or
// writes (Entities); an entity its parent (Parent, with PerParent and
// MaxPerParent) and the partition it lives in (Partition). From them
// datamodel computes the data-modeling method's access correlation of related entities,
// the identifying-relationship check and the consolidation review, and
// ticks its checklist only when the declaration meets it.
//
// Requests whose items differ (a transaction over several entities, a mixed
// batch) list them in Items; writes list the GSI entries they touch in
// IndexWrites, so the planner can count DynamoDB's index write
// amplification.
package access
