package jobs

import (
	"time"

	"github.com/tablekit/tablekit/access"
)

// Typical sizes and rates for the access patterns, from the seed's
// capacity plan: about 100k jobs a month in production (0.04 jobs/s on
// average); the rates below assume a peak ten times the average, and a
// client polling its job about ten times while it runs. A job item is about
// 1 KB with its analysis result (ids, keys, file metadata, a dozen labels).
const (
	typicalJobSize = 1024
	peakCreates    = 0.4  // jobs created per second at peak
	peakPolls      = 4    // GetItem per second: ~10 polls per job
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

// The averages the bill is computed from: the seed's 100k jobs over a
// 30-day month, the user-driven patterns a tenth of their peak (the
// rates above are ten times the average). The background patterns
// (Recover once a minute, the monthly backfill) run at one steady rate,
// and the admin view is read a few times a day rather than an hour.
const (
	averageCreates   = 100_000.0 / (30 * 24 * 3600)
	peakToAverage    = peakCreates / averageCreates
	averageAdminList = 0.001
	// jobRetention is the seed's TTL: 90 days from creation.
	jobRetention = 90 * 24 * time.Hour
)

// Entities are the items the table keeps, for datamodel's storage
// estimate: one job item per job, in both indexes (ALL projections),
// deleted by TTL after the seed's 90 days.
func Entities() []access.Entity {
	return []access.Entity{{
		Name:      entityJob,
		Partition: "{jobId}",
		Size:      typicalJobSize,
		CreatedBy: "Create job",
		Retention: jobRetention,
		Indexes:   []string{IndexUserCreatedAt, IndexStatusCreatedAt},
	}}
}

// Patterns are the ways the store reads and writes its table, with the
// typical item sizes and request rates package datamodel turns into
// capacity, cost, hot-partition estimates and the IAM policy
// (cmd/datamodel writes them under docs/jobs/).
//
// opts are the store's options; only Options.Work changes the patterns.
// With Work (see "Work" in the package documentation), Create is a
// TransactWriteItems that also queues the job's task, the job worker
// reads each job it claims strongly consistent and heartbeats only its
// task (no job heartbeat), the moves that queue a job again (Replay,
// Recover, Sweep) are transactions too, and Sweep queries the status
// index: the jobs table's side of the Work flows. Their tasks table side
// is WorkPatterns.
func Patterns(opts ...func(*Options)) []access.Pattern {
	work := WorkTableName(opts...) != ""
	create := access.Pattern{
		Name:      "Create job",
		Partition: "{jobId}",
		IndexWrites: []access.IndexWrite{
			{Index: IndexUserCreatedAt, Partition: "{userId}"},
			{Index: IndexStatusCreatedAt, Partition: "QUEUED"},
		},
		Description:   "Store a new QUEUED job; attribute_not_exists(jobId) so an id is never reused.",
		Operation:     access.PutItem,
		KeyCondition:  "jobId = :jobId",
		ItemSize:      typicalJobSize,
		RatePerSecond: peakCreates, AveragePerSecond: averageCreates,
	}
	if work {
		create.Description = "Store a new QUEUED job (attribute_not_exists(jobId), so an id is never reused) in one TransactWriteItems with its task's items on the tasks table (WorkPatterns' " + patternQueueWork + "): no job exists without its work."
		create.Operation, create.Transactional = access.TransactWriteItems, true
		create.Items = []access.Item{{Operation: access.PutItem, Size: typicalJobSize, Partition: "{jobId}", IndexWrites: create.IndexWrites}}
		create.IndexWrites = nil
	}
	ps := []access.Pattern{
		create,
		{
			Name:          "Get job by ID",
			Partition:     "{jobId}",
			Description:   "A client polling its job's status.",
			Operation:     access.GetItem,
			KeyCondition:  "jobId = :jobId",
			ItemSize:      typicalJobSize,
			RatePerSecond: peakPolls, AveragePerSecond: peakPolls / peakToAverage,
		},
		{
			Name:            "List user jobs",
			Partition:       "{userId}",
			Description:     "A user's job history, newest first (ScanIndexForward false), 20 a page.",
			Operation:       access.Query,
			Index:           IndexUserCreatedAt,
			KeyCondition:    "userId = :userId",
			ItemSize:        typicalJobSize,
			ItemsPerRequest: 20,
			RatePerSecond:   peakUserLists, AveragePerSecond: peakUserLists / peakToAverage,
		},
		{
			Name:            "List failed jobs",
			Partition:       "FAILED",
			Description:     "The admin view: jobs by status (FAILED), newest first, 100 a page.",
			Operation:       access.Query,
			Index:           IndexStatusCreatedAt,
			KeyCondition:    "status = :status",
			ItemSize:        typicalJobSize,
			ItemsPerRequest: 100,
			RatePerSecond:   peakAdminLists, AveragePerSecond: averageAdminList,
		},
		statusMove("Update job status", "QUEUED to PROCESSING (the seed's example, StartProcessing): one status move, conditional on the expected current status. Each status is a constant key of the status index, so each move is declared with the values it leaves and enters.", StatusQueued, StatusProcessing),
		statusMove("Start editing", "PROCESSING to EDITING under the worker's lease.", StatusProcessing, StatusEditing),
		statusMove("Complete job", "EDITING to COMPLETED under the worker's lease (a Fail, to FAILED, is rarer and moves the same way).", StatusEditing, StatusCompleted),
		{
			Name:      "Heartbeat job lease",
			Partition: "{jobId}",
			// leaseExpiresAt and updatedAt are projected into both
			// indexes: one write each, no key moves; declared on
			// PROCESSING, where a worker holds the lease longest.
			IndexWrites: []access.IndexWrite{
				{Index: IndexUserCreatedAt, Partition: "{userId}"},
				{Index: IndexStatusCreatedAt, Partition: "PROCESSING"},
			},
			Description:   "A worker renews its in-flight job's lease: conditional on status and attempt.",
			Operation:     access.UpdateItem,
			KeyCondition:  "jobId = :jobId",
			ItemSize:      typicalJobSize,
			RatePerSecond: peakHeartbeats, AveragePerSecond: peakHeartbeats / peakToAverage,
		},
		{
			Name:            "Recover expired leases",
			Partition:       "PROCESSING",
			Description:     "In-flight jobs older than one lease whose lease expired (createdAt <= now - lease, filter on leaseExpiresAt), one query per in-flight status; each is moved by a conditional UpdateItem as in Update job status.",
			Operation:       access.Query,
			Index:           IndexStatusCreatedAt,
			KeyCondition:    "status = :status AND createdAt <= :cutoff",
			ItemSize:        typicalJobSize,
			ItemsPerRequest: recoverItems,
			RatePerSecond:   recoverRuns * 2, AveragePerSecond: recoverRuns * 2,
		},
		{
			Name: "Backfill jobs",
			// An operator's call (tablekit jobs backfill): the operator
			// policy grants the Scan, the service's runtime one does not.
			Maintenance: true,
			// A Scan reads every partition in turn: per job, never one
			// key value.
			Partition:       "{jobId}",
			Description:     "The migration playbook's backfill: a parallel Scan of the whole table, 1 MB a page, rarely (one pass a month). Its writes are conditional UpdateItems, as in Update job status.",
			Operation:       access.Scan,
			ItemSize:        typicalJobSize,
			ItemsPerRequest: backfillPageItems,
			RatePerSecond:   backfillPages, AveragePerSecond: backfillPages,
		},
		{
			Name:      "Delete job",
			Partition: "{jobId}",
			IndexWrites: []access.IndexWrite{
				{Index: IndexUserCreatedAt, Partition: "{userId}"},
				{Index: IndexStatusCreatedAt, Partition: "{status}"},
			},
			Description:   "Remove a job before its TTL.",
			Operation:     access.DeleteItem,
			KeyCondition:  "jobId = :jobId",
			ItemSize:      typicalJobSize,
			RatePerSecond: peakDeletes, AveragePerSecond: peakDeletes / peakToAverage,
		},
	}
	if work {
		ps = withWork(ps)
	}
	for i := range ps {
		// Every pattern reads or writes the job, the table's one entity.
		ps[i].Entities = []string{entityJob}
		ps[i].Latency = latencies[ps[i].Name]
		if ps[i].Transactional {
			// Create with work: a transaction across two tables.
			ps[i].Latency = transactionLatency
		}
	}
	return ps
}

// transactionLatency is the latency target of a TransactWriteItems (p99),
// as tasks declares its own.
const transactionLatency = 50 * time.Millisecond

// Names of the jobs table's patterns of a store with Work.
const (
	patternReadClaimedJob = "Read the job of a claimed task"
	patternRequeueWork    = "Queue a job's work again"
	patternFindStranded   = "Find jobs without work"
)

// Rates of the Work flows. A job's work is queued again when it is
// replayed, recovered or swept: say one job in a hundred. Sweep runs
// about once a minute, like Recover, one query per status it reads
// (QUEUED, PROCESSING, EDITING), and finds a page of ~10 jobs old enough
// to look at, whose tasks it reads.
const (
	peakRequeues = peakCreates / 100
	sweepRuns    = 1.0 / 60
	sweepItems   = 10
)

// withWork turns ps, the patterns of a store without Work, into those of
// a store with it: no job heartbeat (the task's lease is the job's), and
// the worker's read, the moves that queue work again and Sweep's query.
func withWork(ps []access.Pattern) []access.Pattern {
	out := make([]access.Pattern, 0, len(ps)+3)
	for _, ap := range ps {
		if ap.Name != "Heartbeat job lease" {
			out = append(out, ap)
		}
	}
	return append(out,
		access.Pattern{
			Name:          patternReadClaimedJob,
			Partition:     "{jobId}",
			Description:   "The job worker reads the job its claimed task carries, strongly consistent, before it starts it (QUEUED) or takes it over from a dead worker (in flight); its moves are then Update job status, Start editing and Complete job, under the task's lease.",
			Operation:     access.GetItem,
			KeyCondition:  "jobId = :jobId",
			ItemSize:      typicalJobSize,
			Consistent:    true,
			RatePerSecond: peakCreates, AveragePerSecond: averageCreates,
		},
		access.Pattern{
			Name:      patternRequeueWork,
			Partition: "{jobId}",
			Description: "Replay (FAILED), Recover and Sweep (in flight, or QUEUED without work) move the job to QUEUED in one TransactWriteItems with its next task's items on the tasks table (WorkPatterns' " + patternQueueWork + "), conditioned on the job as read and its taskCount. " +
				"Replay reads the job strongly consistent before and after; Recover and Sweep read it from their queries.",
			Operation:    access.TransactWriteItems,
			KeyCondition: "jobId = :jobId",
			Items: []access.Item{{Operation: access.UpdateItem, Size: typicalJobSize, Partition: "{jobId}", IndexWrites: []access.IndexWrite{
				{Index: IndexUserCreatedAt, Partition: "{userId}"},
				{Index: IndexStatusCreatedAt, Move: true, From: string(StatusFailed), Partition: string(StatusQueued)},
			}}},
			Transactional: true,
			RatePerSecond: peakRequeues, AveragePerSecond: peakRequeues / peakToAverage,
		},
		access.Pattern{
			Name:            patternFindStranded,
			Partition:       string(StatusQueued),
			Description:     "Sweep and Stranded: the QUEUED, PROCESSING and EDITING jobs created at least MinAge ago (one query per status), filtered to those unchanged for MinAge and under no lease of their own; each job's task is then read on the tasks table (Get task metadata).",
			Operation:       access.Query,
			Index:           IndexStatusCreatedAt,
			KeyCondition:    "status = :status AND createdAt <= :cutoff",
			ItemSize:        typicalJobSize,
			ItemsPerRequest: sweepItems,
			RatePerSecond:   sweepRuns * 3, AveragePerSecond: sweepRuns * 3,
		},
	)
}

// entityJob is the table's one entity.
const entityJob = "Job"

// latencies are the patterns' latency targets (p99, the data-modeling method's "latency
// SLO"): a client polling its job or a worker moving it waits on one
// single-item request, 10 ms for a read and 20 ms for a conditional
// write; a list page, 50 ms; the background reads (Recover once a minute,
// a Backfill page of 1 MB) a second, since nobody waits on them.
var latencies = map[string]time.Duration{
	"Create job":             20 * time.Millisecond,
	"Get job by ID":          10 * time.Millisecond,
	"List user jobs":         50 * time.Millisecond,
	"List failed jobs":       50 * time.Millisecond,
	"Update job status":      20 * time.Millisecond,
	"Start editing":          20 * time.Millisecond,
	"Complete job":           20 * time.Millisecond,
	"Heartbeat job lease":    20 * time.Millisecond,
	"Recover expired leases": time.Second,
	"Backfill jobs":          time.Second,
	"Delete job":             20 * time.Millisecond,
	patternReadClaimedJob:    10 * time.Millisecond,
	patternRequeueWork:       transactionLatency,
	patternFindStranded:      time.Second,
}

// statusMove declares one status move of a job at the jobs' creation
// rate: the user index sees a projected attribute change (one write); the
// status index key moves from one constant value to another (a delete and
// a put).
func statusMove(name, desc string, from, to Status) access.Pattern {
	return access.Pattern{
		Name:      name,
		Partition: "{jobId}",
		IndexWrites: []access.IndexWrite{
			{Index: IndexUserCreatedAt, Partition: "{userId}"},
			{Index: IndexStatusCreatedAt, Move: true, From: string(from), Partition: string(to)},
		},
		Description:   desc,
		Operation:     access.UpdateItem,
		KeyCondition:  "jobId = :jobId",
		ItemSize:      typicalJobSize,
		RatePerSecond: peakCreates, AveragePerSecond: averageCreates,
	}
}
