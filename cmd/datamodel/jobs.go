package main

import (
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/tasks"
)

// jobsWork is the option the modelled jobs store is opened with: its jobs'
// work queued on the tasks table the CLI's tasks commands read, run by job
// workers (the library's way of running jobs; examples/photoeditor).
var jobsWork = jobs.Work(tasks.DefaultTableName)

// jobsModel is the jobs design's photo-editor jobs table, for the prod
// environment, of a store with jobs.Work: its patterns on the jobs table,
// and what its work sends the tasks table.
func jobsModel() datamodel.Model {
	return datamodel.Model{
		Store:       "jobs",
		Design:      "../systems/jobs.md",
		Package:     "github.com/tablekit/tablekit/jobs",
		Schema:      jobs.Schema(jobs.TableNameForEnv("prod")),
		Patterns:    jobs.Patterns(jobsWork),
		Entities:    jobs.Entities(),
		OtherTables: []datamodel.OtherTable{{Schema: tasks.Schema(jobs.WorkTableName(jobsWork)), Patterns: jobs.WorkPatterns(), Entities: jobs.WorkEntities()}},
		// What each index read shows (the jobs design's history and admin views,
		// Recover's lease check): the projection analysis's INCLUDE list.
		Attributes: map[string][]string{
			"List user jobs":         {"status", "originalFileName", "fileSize", "s3FinalKey", "updatedAt"},
			"List failed jobs":       {"status", "userId", "originalFileName", "fileSize", "error", "updatedAt"},
			"Recover expired leases": {"status", "attempt", "leaseExpiresAt"},
		},
		Popularity: map[string]datamodel.Popularity{
			"{jobId}":  {Keys: 12, Exponent: 0, Why: "jobs in flight at the seed's peak (0.4 created a second, about half a minute each), each polled by its own client alike"},
			"{userId}": {Exponent: 1, Why: "the seed counts jobs, not users: a power user's batch of uploads is the hot key, Zipf's law with exponent 1"},
			"{status}": {Keys: int64(len(jobs.Statuses())), Exponent: 1, Why: "the seed's five statuses, the in-flight ones most moved"},
		},
		Plans: []datamodel.Plan{{Name: "jobs.ProductionCapacity() (the seed's production plan)", Capacity: jobs.ProductionCapacity()}},
		Prose: datamodel.Prose{
			Alternatives: map[string]string{
				"capacity": "the seed bills dev and staging on demand (\"no capacity planning required\"), the default; production opens with `jobs.Provisioning(jobs.ProductionProvisioning())`, the seed's planned 25 RCU / 10 WCU scaled to 100 / 50, priced beside it: its floor costs more than this traffic on demand, and buys a throughput ceiling the seed planned for",
			},
			Philosophy: "One table per bounded context, `photoeditor-{env}-jobs`, one item per job: the job is read and written as a whole (status polling, status moves, the admin view), so it is a single-item aggregate keyed by its ULID. " +
				"Every status move is one conditional `UpdateItem` on the status it starts from, the seed's idempotency rule for workers that receive a queue message more than once.",
			Aggregates: "Job (metadata, file facts, analysis and edit results, error record) is one item: >90% of reads want all of it and it is bounded (~1 KB; results that would push it past the offload threshold go to S3 through blobstore's Offloader, leaving a pointer). " +
				"A user's jobs and the jobs in a status are not item collections of a parent item: the two GSIs serve those lists, because the job id is what clients hold.",
			Purpose:           "Processing jobs of the photo editor, from upload to result.",
			AggregateBoundary: "One job per item; no item collections.",
			PartitionKey:      "a ULID per job: uniformly distributed, the id clients poll with.",
			SortKey:           "the seed's table has none: every access by id is a GetItem.",
			BoundedReads:      "lists are GSI queries newest first (`ScanIndexForward=false`) with `Limit` and opaque cursors: 20 a page for users, 100 for the admin view; expired items are filtered on `ttl` until DynamoDB deletes them.",
			Indexes: map[string]datamodel.IndexProse{
				jobs.IndexUserCreatedAt: {
					Purpose:      "a user's job history, newest first (the jobs design's GSI1, \"User Job History\").",
					PartitionKey: "the user id: many users, each with few jobs.",
					SortKey:      "creation time in Unix milliseconds, so pages come newest first.",
					Projection:   "the history shows status, file name, thumbnails and results, i.e. most of the item; ALL saves a GetItem per row.",
					Sparse:       "every job has a user, so the index holds every job",
				},
				jobs.IndexStatusCreatedAt: {
					Purpose:      "the admin's status views (FAILED jobs to replay), newest first (the jobs design's GSI2).",
					PartitionKey: "the status: six values, so low cardinality; acceptable because the admin reads it a few times an hour and writes land there at the job creation rate.",
					SortKey:      "creation time in Unix milliseconds.",
					Projection:   "the admin view shows the error record and file facts; ALL avoids a read per row.",
					Sparse:       "a job without status (written by an older service) stays out",
				},
			},
			TradeOffs: []string{
				"**Status as a GSI partition key**: low cardinality (QUEUED, PROCESSING, EDITING, COMPLETED, FAILED); every status move moves the item in status-createdAt-index (a delete and a put). At the seed's 100k jobs a month this is far below a partition's 1,000 WCU; a service at 1,000x that volume would shard the status key (the data-modelling design's write sharding).",
				"**ALL projections** double storage and index write cost, bought to answer both lists without a GetItem per row.",
				"**TTL** (90 days) garbage-collects jobs; reads filter on `ttl` because DynamoDB deletes expired items up to 48 hours late.",
				"**Backups**: point-in-time recovery covers 35 days; the seed's year of on-demand backups is AWS Backup's, by the plan beside this file (`aws-backup-plan.json`: monthly, each kept 365 days), whose lifecycle and vault lock keep the promise without any credential of the service's holding `dynamodb:DeleteBackup`.",
			},
			Denormalization: []string{
				"**Taken: whole jobs in both indexes** (ALL projections): the user's list and the admin's list read their rows from the index, no GetItem per row; every job write pays the index writes (trade-offs above).",
				"**Taken: per-user, per-day statistics in their own table** (the analytics view, docs/analytics): counters kept from the jobs table's stream, so the statistics page reads a user's days instead of counting their jobs.",
				"**Declined: the user's job count on a user item**: the table has no user item (users are another service's), and a counter moved by every job would serialise a user's writes on one item; the analytics view answers it.",
			},
			Integration: "uploaded and edited files live in S3 (`s3TempKey`, `s3FinalKey`); large analysis results are offloaded to the blob store before the DynamoDB write, so no item points at a missing object. " +
				"Each job's work is a task on the tasks table (`jobs.Work`, modelled here): queued in the transaction that makes the job QUEUED, claimed, heartbeated and completed by the job worker under the task's one lease, so the job has no heartbeat of its own; what that costs on the tasks table is under Other Tables.",
		},
		Items: []datamodel.Sample{
			{{"jobId", "01JBX7Q2M4T5V6W7X8Y9Z0A1B2"}, {"userId", "user-123"}, {"createdAt", "1730492400000"}, {"status", "QUEUED"}, {"originalFileName", "beach.jpg"}, {"fileSize", "2048576"}, {"ttl", "1738268400"}},
			{{"jobId", "01JBX7R3N5U6W7X8Y9Z0A1B2C3"}, {"userId", "user-123"}, {"createdAt", "1730492460000"}, {"status", "PROCESSING"}, {"originalFileName", "dog.png"}, {"fileSize", "845120"}, {"ttl", "1738268460"}},
			{{"jobId", "01JBX7S4P6V7X8Y9Z0A1B2C3D4"}, {"userId", "user-456"}, {"createdAt", "1730492520000"}, {"status", "EDITING"}, {"originalFileName", "mountain.jpg"}, {"fileSize", "3145728"}, {"ttl", "1738268520"}},
			{{"jobId", "01JBX7T5Q7W8Y9Z0A1B2C3D4E5"}, {"userId", "user-456"}, {"createdAt", "1730492580000"}, {"status", "COMPLETED"}, {"originalFileName", "city.jpg"}, {"fileSize", "1572864"}, {"s3FinalKey", "final/user-456/01JBX7T5.jpg"}, {"ttl", "1738268580"}},
			{{"jobId", "01JBX7V6R8X9Z0A1B2C3D4E5F6"}, {"userId", "user-789"}, {"createdAt", "1730492640000"}, {"status", "FAILED"}, {"originalFileName", "scan.tiff"}, {"fileSize", "9437184"}, {"error", "{code: PROVIDER_TIMEOUT, retryCount: 1}"}, {"ttl", "1738268640"}},
		},
	}
}
