package jobs

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// The seed's two global secondary indexes, both projecting ALL.
const (
	// IndexUserCreatedAt is GSI1, "User Job History": userId, createdAt.
	IndexUserCreatedAt = "userId-createdAt-index"
	// IndexStatusCreatedAt is GSI2, "Status-Based Queries (Admin)": status, createdAt.
	IndexStatusCreatedAt = "status-createdAt-index"
)

// DefaultTableName is the table a Store uses unless Options.TableName says
// otherwise: the seed's name in the dev environment.
const DefaultTableName = "photoeditor-dev-jobs"

// TableNameForEnv is the seed's table name for env: photoeditor-{env}-jobs.
func TableNameForEnv(env string) string {
	return "photoeditor-" + env + "-jobs"
}

// Typical sizes and rates for the access patterns, from the seed's
// capacity plan: about 100k jobs a month in production (0.04 jobs/s on
// average); the rates below assume a peak ten times the average, and a
// client polling its job about ten times while it runs. A job item is about
// 1 KB with its analysis result (ids, keys, file metadata, a dozen labels).
const (
	typicalJobSize = 1024
	peakCreates    = 0.4  // jobs created per second at peak
	peakPolls      = 4    // GetItem per second: ~10 polls per job
	peakMoves      = 1.2  // three status moves per job
	peakUserLists  = 0.4  // one history view per upload
	peakAdminLists = 0.01 // an admin checking the failed list a few times an hour
	peakDeletes    = 0.04 // users deleting a job now and then
	// Backfill reads the table in 1 MB Scan pages. It runs rarely: the
	// rate is one full pass a month over the ~300k jobs a 90-day TTL
	// keeps, 300 pages spread over the month, not the burst a running
	// backfill makes (4 segments reading a page each as fast as they can).
	// Heartbeats: a job is in flight for about half a minute, its worker
	// renewing every third of a lease (DefaultLeaseDuration / 3, so one
	// heartbeat per job at most) - say one heartbeat per job.
	peakHeartbeats = peakCreates
	// Recover runs about once a minute and reads the few in-flight jobs
	// older than a lease (a dead worker's): a page of ~10.
	recoverRuns       = 1.0 / 60
	recoverItems      = 10
	backfillPageItems = 1 << 20 / typicalJobSize
	backfillPages     = 300.0 / (30 * 24 * 3600)
)

// Schema is the seed's table named tableName (see TableNameForEnv): jobId
// (S) partition key, no sort key,
// TTL on ttl, and the two indexes keyed on createdAt (N, Unix ms). Its
// access patterns are the seed's table of them, with the typical item size
// and rates datamodel uses for capacity and cost.
func Schema(tableName string) table.Schema {
	createdAt := table.Attribute{Name: attrCreatedAt, Type: types.ScalarAttributeTypeN}
	return table.Schema{
		Name:         tableName,
		PartitionKey: table.Attribute{Name: attrJobID, Type: types.ScalarAttributeTypeS},
		Indexes: []table.Index{
			{
				Name:         IndexUserCreatedAt,
				PartitionKey: table.Attribute{Name: attrUserID, Type: types.ScalarAttributeTypeS},
				SortKey:      createdAt,
				Projection:   types.ProjectionTypeAll,
			},
			{
				Name:         IndexStatusCreatedAt,
				PartitionKey: table.Attribute{Name: attrStatus, Type: types.ScalarAttributeTypeS},
				SortKey:      createdAt,
				Projection:   types.ProjectionTypeAll,
			},
		},
		TTLAttribute: attrTTL,
		AccessPatterns: []table.AccessPattern{
			{
				Name:      "Create job",
				Partition: "{jobId}",
				IndexWrites: []table.IndexWrite{
					{Index: IndexUserCreatedAt, Partition: "{userId}"},
					{Index: IndexStatusCreatedAt, Partition: "QUEUED"},
				},
				Description:   "Store a new QUEUED job; attribute_not_exists(jobId) so an id is never reused.",
				Operation:     table.OpPutItem,
				KeyCondition:  "jobId = :jobId",
				ItemSize:      typicalJobSize,
				RatePerSecond: peakCreates,
			},
			{
				Name:          "Get job by ID",
				Partition:     "{jobId}",
				Description:   "A client polling its job's status.",
				Operation:     table.OpGetItem,
				KeyCondition:  "jobId = :jobId",
				ItemSize:      typicalJobSize,
				RatePerSecond: peakPolls,
			},
			{
				Name:            "List user jobs",
				Partition:       "{userId}",
				Description:     "A user's job history, newest first (ScanIndexForward false), 20 a page.",
				Operation:       table.OpQuery,
				Index:           IndexUserCreatedAt,
				KeyCondition:    "userId = :userId",
				ItemSize:        typicalJobSize,
				ItemsPerRequest: 20,
				RatePerSecond:   peakUserLists,
			},
			{
				Name:            "List failed jobs",
				Partition:       "FAILED",
				Description:     "The admin view: jobs by status (FAILED), newest first, 100 a page.",
				Operation:       table.OpQuery,
				Index:           IndexStatusCreatedAt,
				KeyCondition:    "status = :status",
				ItemSize:        typicalJobSize,
				ItemsPerRequest: 100,
				RatePerSecond:   peakAdminLists,
			},
			{
				Name:      "Update job status",
				Partition: "{jobId}",
				// The user index sees a projected attribute change (one
				// write); the status index key moves (a delete and a put).
				IndexWrites: []table.IndexWrite{
					{Index: IndexUserCreatedAt, Partition: "{userId}"},
					{Index: IndexStatusCreatedAt, Move: true, From: "{oldStatus}", Partition: "{newStatus}"},
				},
				Description:   "One status move, conditional on the expected current status.",
				Operation:     table.OpUpdateItem,
				KeyCondition:  "jobId = :jobId",
				ItemSize:      typicalJobSize,
				RatePerSecond: peakMoves,
			},
			{
				Name:      "Heartbeat job lease",
				Partition: "{jobId}",
				// leaseExpiresAt and updatedAt are projected into both
				// indexes: one write each, no key moves.
				IndexWrites: []table.IndexWrite{
					{Index: IndexUserCreatedAt, Partition: "{userId}"},
					{Index: IndexStatusCreatedAt, Partition: "{status}"},
				},
				Description:   "A worker renews its in-flight job's lease: conditional on status and attempt.",
				Operation:     table.OpUpdateItem,
				KeyCondition:  "jobId = :jobId",
				ItemSize:      typicalJobSize,
				RatePerSecond: peakHeartbeats,
			},
			{
				Name:            "Recover expired leases",
				Partition:       "PROCESSING",
				Description:     "In-flight jobs older than one lease whose lease expired (createdAt <= now - lease, filter on leaseExpiresAt), one query per in-flight status; each is moved by a conditional UpdateItem as in Update job status.",
				Operation:       table.OpQuery,
				Index:           IndexStatusCreatedAt,
				KeyCondition:    "status = :status AND createdAt <= :cutoff",
				ItemSize:        typicalJobSize,
				ItemsPerRequest: recoverItems,
				RatePerSecond:   recoverRuns * 2,
			},
			{
				Name: "Backfill jobs",
				// A Scan reads every partition in turn: per job, never one
				// key value.
				Partition:       "{jobId}",
				Description:     "The migration playbook's backfill: a parallel Scan of the whole table, 1 MB a page, rarely (one pass a month). Its writes are conditional UpdateItems, as in Update job status.",
				Operation:       table.OpScan,
				ItemSize:        typicalJobSize,
				ItemsPerRequest: backfillPageItems,
				RatePerSecond:   backfillPages,
			},
			{
				Name:      "Delete job",
				Partition: "{jobId}",
				IndexWrites: []table.IndexWrite{
					{Index: IndexUserCreatedAt, Partition: "{userId}"},
					{Index: IndexStatusCreatedAt, Partition: "{status}"},
				},
				Description:   "Remove a job before its TTL.",
				Operation:     table.OpDeleteItem,
				KeyCondition:  "jobId = :jobId",
				ItemSize:      typicalJobSize,
				RatePerSecond: peakDeletes,
			},
		},
	}
}
