package access

import "time"

// Op names a DynamoDB operation an access pattern uses.
type Op string

// The operations a Pattern can name. ConditionCheck is an action inside a
// TransactWriteItems request and appears only in Pattern.Items.
const (
	GetItem            Op = "GetItem"
	PutItem            Op = "PutItem"
	UpdateItem         Op = "UpdateItem"
	DeleteItem         Op = "DeleteItem"
	Query              Op = "Query"
	Scan               Op = "Scan"
	BatchGetItem       Op = "BatchGetItem"
	BatchWriteItem     Op = "BatchWriteItem"
	TransactGetItems   Op = "TransactGetItems"
	TransactWriteItems Op = "TransactWriteItems"

	// ConditionCheck is a ConditionCheck action inside a TransactWriteItems
	// request. It appears only in Pattern.Items (it is not a request of its
	// own): it costs write units like a write and needs its own IAM action,
	// dynamodb:ConditionCheckItem.
	ConditionCheck Op = "ConditionCheck"
)

// IsRequest reports whether o is an operation a request can have (every Op
// but ConditionCheck, which is an action inside a transaction).
func (o Op) IsRequest() bool {
	switch o {
	case GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan,
		BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems:
		return true
	}
	return false
}

// Pattern documents one way a service reads or writes a table, with the
// numbers capacity planning needs (package datamodel turns them into
// capacity, cost and hot-partition estimates).
type Pattern struct {
	Name            string
	Description     string
	Operation       Op
	Index           string // "" for the table itself
	KeyCondition    string // e.g. "PK = JOURNEY#{id} AND begins_with(SK, STAGE#)"
	ItemSize        int    // typical item size in bytes
	ItemsPerRequest int
	// RatePerSecond is the peak request rate: what the busiest second
	// sends. Package datamodel sizes partitions with it (hot-partition
	// analysis, provisioned capacity), never the bill.
	RatePerSecond float64
	// AveragePerSecond is the request rate averaged over a month: what
	// the bill is computed from. It is at most RatePerSecond; 0 means not
	// declared, and datamodel then bills the peak as if it were constant
	// and says so in the document (the seed asks for both: "RPS (Peak and
	// Average)").
	AveragePerSecond float64
	Consistent       bool
	Transactional    bool
	// Maintenance marks an operator's call rather than the service's: a
	// backfill's Scan, an orphan sweep, an import. Package iam leaves it
	// out of the service's runtime policy and grants it in the operator
	// policy; its rates still count in the estimates.
	Maintenance bool
	// Latency is the latency target of one request of the pattern (data-modeling
	// method's "Key Requirements: <50ms latency", its checklist's "latency
	// SLO"): the time the service needs the request answered within, at
	// the 99th percentile, as the caller measures it. 0 means not
	// declared, which package datamodel's checklist reports.
	Latency time.Duration
	// Entities names the entities (Entity.Name) the pattern reads, for a
	// read, or writes, for a write: package datamodel derives from them
	// the access correlation of related entities (the share of reads
	// that need both), whether every entity read is also written, and
	// which reads of a child go through an index.
	Entities []string

	// The fields below are what package datamodel needs beyond the figures
	// above to estimate capacity per key value and GSI write amplification
	// (the seed: "GSI write amplification", "Hot partitions"). All are
	// optional; a pattern without them is costed from ItemSize and
	// ItemsPerRequest alone, as writing no index and hitting many
	// partitions.

	// Partition is the partition key value the requests hit (on Index when
	// set, else on the table): a constant such as "JOURNEYS" or
	// "STATUS#PENDING" when every request hits that one value, or a
	// template such as "JOURNEY#{journeyId}" when each entity has its own.
	Partition string
	// Partitions is how many shards the pattern's constant key values
	// (Partition and the index partitions it writes) are split over,
	// the seed's write sharding: STATUS#PENDING#0 .. STATUS#PENDING#{N-1}.
	// 0 means 1. Templates are keyed per entity and never concentrate.
	Partitions int
	// IndexWrites lists, for a write, the GSI entries each written item
	// costs: one write each, two where the item's index key moves.
	IndexWrites []IndexWrite
	// Items details a request whose items differ in size, operation, key
	// or indexes (a transaction over several entities, a mixed batch).
	// When set it replaces ItemSize, ItemsPerRequest and IndexWrites.
	Items []Item
}

// IndexWrite is one GSI entry a write touches. DynamoDB charges an index
// write when an item enters or leaves the index or a projected attribute
// changes, and two (a delete and a put) when the index key value moves.
type IndexWrite struct {
	Index string
	// Partition is the index partition key value the item lands on (or
	// leaves, for a delete): a constant or a template, as in
	// Pattern.Partition.
	Partition string
	// Move says the write changes the item's key in this index: two index
	// writes, the delete of the old entry and the put of the new one.
	Move bool
	// From is, for a Move, the partition value the item leaves ("" when
	// the key moves within Partition).
	From string
}

// Item is one kind of item a request reads or writes.
type Item struct {
	// Operation is what the request does to the item: GetItem, PutItem,
	// UpdateItem, DeleteItem or ConditionCheck ("" means the pattern's own
	// Operation).
	Operation Op
	Size      int // bytes; for an update the larger of the old and new item
	Count     int // items of this kind per request; 0 means 1
	// Partition is the item's partition key value in the table.
	Partition   string
	IndexWrites []IndexWrite
}

// Entity is one kind of item a table keeps, with what storage planning
// needs: its size, how fast new ones arrive and how long each is kept.
// Package datamodel derives the table's and its indexes' stored bytes
// from a store's entities instead of a hand-set figure.
//
// Growth comes from a pattern, not a second rate: the entity's CreatedBy
// pattern's AveragePerSecond times PerRequest items a second (so a
// service's own rates change its storage too).
type Entity struct {
	Name string
	// Size is the item's typical size in bytes, as DynamoDB counts it
	// (attribute names and values).
	Size int
	// CreatedBy names the access pattern whose requests create the item.
	// "" means no pattern creates it at a steady rate: only Count items.
	CreatedBy string
	// PerRequest is how many of these items one CreatedBy request
	// creates; 0 means 1.
	PerRequest int
	// Count is a standing population kept whatever the growth (workers,
	// tag aggregates, journeys), added to the items growth keeps.
	Count int64
	// Retention is how long an item is kept after it is created: its TTL,
	// or how long the store's cleanup leaves it. 0 means kept until the
	// application deletes it; datamodel then reports the growth and the
	// storage after its planning horizon.
	Retention time.Duration
	// Parent names the entity each of these items belongs to (the data-modeling method's
	// one-to-many relationships: a stage belongs to a journey), "" for an
	// aggregate root. The child cannot exist without its parent.
	Parent string
	// PerParent is how many of these items one parent typically has,
	// MaxPerParent the most it may have (0: unbounded, as an append-only
	// history is): the size of the item collection they would make.
	PerParent, MaxPerParent int
	// Partition is the item's partition key value in the table, a
	// template as in Pattern.Partition ("JOURNEY#{journeyId}"). A child
	// in its parent's partition is an identifying relationship (data-modeling
	// method: partition key = parent id, sort key = child id).
	Partition string
	// Sort is the item's sort key template in the table ("META",
	// "EVENT#{seq:04d}"), "" for a table without a sort key. With
	// Partition it is the item's declared key shape: package datamodel
	// checks a store's representative items against it.
	Sort string
	// Indexes lists the GSIs that hold an entry for the item for most of
	// its life; each entry is stored at the size the index's projection
	// keeps. An entity that passes through an index briefly (a task while
	// it is pending) leaves it out: the entries at any moment are few.
	Indexes []string
}
