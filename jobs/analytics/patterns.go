package analytics

import (
	"time"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/jobs"
)

// The access patterns' names, for Patterns and the documents built from
// them.
const (
	// PatternStartDay is the write that creates a day row: a user's first
	// counted change of a day.
	PatternStartDay = "Start a day row"
	// PatternAddToDay is a write to a day row that exists.
	PatternAddToDay = "Add to a day row"
	// PatternListDays is ListDays (and Days, page by page).
	PatternListDays = "List a user's days"
)

// entityDay is the view's one entity.
const entityDay = "User day"

// The view's load follows the jobs store's (jobs.Patterns, from the jobs
// design's 100k jobs a month, a peak ten times the average). A job's
// lifecycle puts four changes on the stream that move a count (created,
// started, editing, completed); a heartbeat of a store without jobs.Work
// adds one that changes nothing the view counts and writes nothing.
//
// Batching: a consumer hands Apply what one GetRecords returns, at most
// its BatchSize (100) records of one shard, polling every second when it
// finds none. At the jobs design's volume (0.2 changes a second on
// average, 2 at peak) a batch holds about one change, and a job's
// changes are seconds to minutes apart: Apply writes a row per counted
// change, declared here as changesPerRowWrite = 1, an upper bound
// (TestAtTheDeclaredRatesTheViewCostsAtMostItsDeclaredWritesPerJob
// measures 3.2 to 4 write units per job at these rates). Summing pays only on a
// busier table: batches of 100 changes of ten users write one row per
// user, 0.4 write units per job lifecycle instead of 4
// (BenchmarkApplyPerJobLifecycle). A service that busy declares its own
// rates (datamodel.WithRates, WithAverages).
const (
	countedChanges     = 4
	changesPerRowWrite = 1
	// jobsPerUserDay is how many jobs a user creates on a day they create
	// any: a session of a few uploads. The jobs design gives no figure;
	// it decides how many rows the view creates and keeps.
	jobsPerUserDay = 5
	// A day row: keys (USER#{userId}, DAY#{date}), userId, day, up to
	// five status counters, timedCount, processingMs, and the sequence
	// number of each stream shard that wrote it (a 13-byte name and a
	// 40-digit value, ~55 bytes; DynamoDB rolls a stream's shards over
	// every few hours, so a row of a day's session holds one or two).
	typicalRowSize = 256
	// A user's statistics page reads their days oldest first, up to the
	// default Limit of 100 a page: a few weeks of activity, ~20 rows.
	typicalDaysPerPage = 20
	// The statistics page is opened about once per ten jobs created.
	jobsPerStatsRead = 10
)

// jobRates are the jobs store's declared job creations a second, at peak
// and on average: the view's load is proportional.
func jobRates() (peak, average float64) {
	for _, ap := range jobs.Patterns() {
		if ap.Name == "Create job" {
			return ap.RatePerSecond, ap.AveragePerSecond
		}
	}
	return 0, 0
}

// Entities are the items the view's table keeps, for datamodel's storage
// estimate: one row per user and day with jobs, never deleted (the view
// is the history of the jobs created; the jobs themselves expire after 90
// days).
func Entities() []access.Entity {
	return []access.Entity{{
		Name:      entityDay,
		Partition: userPK.Pattern(),
		Sort:      daySK.Pattern(),
		Size:      typicalRowSize,
		CreatedBy: PatternStartDay,
	}}
}

// Patterns are the ways the view reads and writes its table, with the
// typical item sizes and request rates package datamodel turns into
// capacity, cost, hot-partition estimates and the IAM policy
// (cmd/datamodel writes them under docs/analytics/). Apply's writes are
// one UpdateItem per row and shard of a batch, declared as two patterns:
// the write that creates a user's day and the writes that add to it.
// Reading the jobs table's stream and keeping the consumer's leases are
// not the view table's: iam.StreamConsumer's policy covers them.
func Patterns() []access.Pattern {
	peakJobs, averageJobs := jobRates()
	write := func(name, desc string, jobsPerWrite float64) access.Pattern {
		return access.Pattern{
			Name:          name,
			Partition:     "USER#{userId}",
			Description:   desc,
			Operation:     access.UpdateItem,
			KeyCondition:  "pk = USER#{userId} AND sk = DAY#{day}",
			ItemSize:      typicalRowSize,
			RatePerSecond: peakJobs / jobsPerWrite, AveragePerSecond: averageJobs / jobsPerWrite,
			Latency:  20 * time.Millisecond,
			Entities: []string{entityDay},
		}
	}
	// Of a user-day's jobsPerUserDay × countedChanges counted changes,
	// one row write (at changesPerRowWrite) creates the row; the rest add.
	writesPerUserDay := float64(jobsPerUserDay*countedChanges) / changesPerRowWrite
	return []access.Pattern{
		write(PatternStartDay, "Apply's first write of a user's day: ADD the batch's counts (per status, completed jobs' processing time) to a row that does not exist yet, SET the shard's newest sequence number, on the condition that the row holds an older one (here, none).",
			jobsPerUserDay),
		write(PatternAddToDay, "Apply's other writes: the same UpdateItem on an existing row. A batch delivered again fails the condition (1 write unit, ALL_OLD returns the held sequence number) and is written again without the changes the row holds.",
			float64(jobsPerUserDay)/(writesPerUserDay-1)),
		{
			Name:            PatternListDays,
			Partition:       "USER#{userId}",
			Description:     "A user's statistics, oldest day first, consistent, up to 100 a page (ListDays, Days).",
			Operation:       access.Query,
			KeyCondition:    "pk = USER#{userId} AND begins_with(sk, DAY#)",
			Consistent:      true,
			ItemSize:        typicalRowSize,
			ItemsPerRequest: typicalDaysPerPage,
			RatePerSecond:   peakJobs / jobsPerStatsRead, AveragePerSecond: averageJobs / jobsPerStatsRead,
			Latency:  50 * time.Millisecond,
			Entities: []string{entityDay},
		},
	}
}
