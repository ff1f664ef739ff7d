package jobs

import (
	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/tasks"
)

// patternQueueWork is the tasks table's side of the transactions that
// queue a job's work.
const patternQueueWork = "Queue a job's work"

// Rates of the work queue's own calls for jobs. A job worker that finds
// no task polls the table's readiness signal and one partition at the
// poll backoff's cap (tasks.DefaultPollBackoff, 5 s): a fleet of four
// idle job workers. A failed attempt retried, a worker's graceful stop
// or a task whose lease expired ends a task's attempt in a transaction
// (tasks' "Fail, release or expire task"): say one job in twenty. A
// job runs well within its lease (DefaultLeaseDuration, 5 minutes), so a
// claim finds a lease heartbeated past its index entry's expiry for about
// one job in a hundred. A store reads the table's shard count once, when
// it starts: a fleet restarting a few dozen stores a day.
const (
	workIdlePolls       = 4.0 / 5
	workFailureShare    = 1.0 / 20
	workLeaseRefreshes  = 1.0 / 100
	workConfigReads     = 0.001
	workHeartbeatsOfJob = 1 // as the job's own heartbeat was declared
)

// workPerJob are the tasks patterns the work queue sends per job (its
// claim, lease and completion), by how many requests a job makes of each.
// A claim reads every shard's candidates and one shard's expired leases.
var workPerJob = map[string]float64{
	"Find claim candidates":        tasks.DefaultShards,
	"Find expired leases":          1,
	"Claim task (atomic)":          1,
	"Claim: WORKER item":           1,
	"Claim: PROCESSING event":      1,
	"Heartbeat":                    workHeartbeatsOfJob,
	"Read a lease":                 workLeaseRefreshes,
	"Move a lease's index entry":   workLeaseRefreshes,
	"Complete task":                1,
	"Complete: WORKER item":        1,
	"Complete: COMPLETED event":    1,
	"Fail, release or expire task": workFailureShare,
}

// workSteady are the tasks patterns sent at a steady rate whatever the
// jobs' (peak and average alike), added to their per-job rate: idle polls
// (the readiness signal and one probed partition), Sweep's reads of the
// tasks of the jobs it finds, the shard count.
var workSteady = map[string]float64{
	"Read the readiness signal": workIdlePolls,
	"Find claim candidates":     workIdlePolls,
	"Get task metadata":         sweepRuns * sweepItems,
	"Read the shard count":      workConfigReads,
	"Record the shard count":    workConfigReads,
}

// WorkPatterns are the ways a store with Options.Work uses its tasks
// table (tasks.Schema), at the jobs' rates: the task of each queuing,
// written in the transaction that makes the job QUEUED (Create, Replay,
// Recover, Sweep: "Queue a job's work"; its jobs table side is Patterns'
// "Create job" and "Queue a job's work again", declared with the store's
// options); the readiness signal set beside it; and the work queue's own
// calls, declared by tasks.Patterns and named as there: the job worker's
// claims, heartbeats, completions and failed attempts (tasks.Worker),
// Sweep's reads of tasks. The tasks table's other calls (History's and
// WorkerTasks' queries of the table, Redrive, the lists, Cancel) are not
// the Work flows': a runtime policy made from these does not grant them
// (package iam/policies, Jobs with jobs.Work).
func WorkPatterns() []access.Pattern {
	declared := map[string]access.Pattern{}
	for _, ap := range tasks.Patterns() {
		declared[ap.Name] = ap
	}
	queuings, averageQueuings := peakCreates+peakRequeues, averageCreates+peakRequeues/peakToAverage
	idem, meta, event := declared["Check idempotency"], declared["Submit: META"], declared["Submit: SUBMITTED event"]
	out := []access.Pattern{{
		Name:      patternQueueWork,
		Partition: meta.Partition,
		Description: "The job's task, in the TransactWriteItems that makes the job QUEUED (Create job, Queue a job's work again, on the jobs table): its IDEM item and its META item, each attribute_not_exists, " +
			"META entering GSI1's pending queue, and its SUBMITTED event (EVENT#0001). The task's idempotency key names the job's n-th queuing, which the job's own condition proves new (it does not exist yet, or its taskCount is n-1): tasks.SubmitTx reads nothing first (tasks.FreshKey).",
		Operation:    access.TransactWriteItems,
		KeyCondition: idem.KeyCondition + "; " + meta.KeyCondition + "; " + event.KeyCondition,
		Items: []access.Item{
			{Operation: access.PutItem, Size: idem.ItemSize, Partition: idem.Partition},
			{Operation: access.PutItem, Size: meta.ItemSize, Partition: meta.Partition, IndexWrites: meta.IndexWrites},
			{Operation: access.PutItem, Size: event.ItemSize, Partition: event.Partition},
		},
		Transactional: true,
		Partitions:    meta.Partitions,
		RatePerSecond: queuings, AveragePerSecond: averageQueuings,
		Latency:  transactionLatency,
		Entities: append(append(append([]string(nil), idem.Entities...), meta.Entities...), event.Entities...),
	}}
	// The tasks table's own declarations (tests keep every name declared),
	// in tasks.Patterns' order so the documents list them as tasks' do.
	for _, ap := range tasks.Patterns() {
		perJob, steady := workPerJob[ap.Name], workSteady[ap.Name]
		switch {
		case ap.Name == "Set the readiness signal":
			// At most once a second per store, beside each queuing.
			ap.RatePerSecond, ap.AveragePerSecond = queuings, averageQueuings
		case perJob > 0 || steady > 0:
			ap.RatePerSecond, ap.AveragePerSecond = perJob*peakCreates+steady, perJob*averageCreates+steady
		default:
			continue
		}
		out = append(out, ap)
	}
	return out
}

// WorkEntities are the items WorkPatterns keep on the tasks table, for
// their storage: tasks' own (tasks.Entities), each task's META, IDEM and
// event items created by a queuing of a job's work (WorkPatterns' "Queue
// a job's work") where tasks' own are created by Submit.
func WorkEntities() []access.Entity {
	es := tasks.Entities()
	for i := range es {
		switch es[i].CreatedBy {
		case "Submit: META", "Check idempotency", "Submit: SUBMITTED event":
			es[i].CreatedBy = patternQueueWork
		}
	}
	return es
}
