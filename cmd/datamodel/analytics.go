package main

import (
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
)

// analyticsModel is the jobs design's analytics view (package
// jobs/analytics), beside the prod jobs table it is fed from.
func analyticsModel() datamodel.Model {
	return datamodel.Model{
		Store:    "analytics",
		Design:   "../systems/jobs.md",
		Package:  "github.com/tablekit/tablekit/jobs/analytics",
		Schema:   analytics.Schema(analytics.TableNameForEnv("prod")),
		Patterns: analytics.Patterns(),
		Entities: analytics.Entities(),
		Prose: datamodel.Prose{
			Philosophy: "A materialised view of the jobs table, in a table of its own (`photoeditor-{env}-analytics`): per user and UTC day of creation, how many jobs are in each status and how long the completed ones took. " +
				"It is written only by a `changes.Consumer` of the jobs table's stream (consumer group `" + analytics.ConsumerName + "`), whose handler `View.Apply` sums a batch's changes per user and day and writes each day row once: one conditional `UpdateItem` per row and stream shard, no transaction and no marker item. " +
				"The condition (the row holds an older sequence number of the shard) makes a batch delivered again count once, so the view equals a recount of the jobs (`analytics.Recount`) after a consumer dies mid-batch.",
			Aggregates:        "A user's day is one item: its counters change together (a status move is -1 and +1 on the same row) and the statistics page reads them together. A user's days are an item collection under `USER#{userId}`, read in one Query; the user is the jobs table's, not an item here.",
			Purpose:           "Per-user, per-day job statistics (jobs by status, processing time of completed jobs) for the photo editor, kept from the jobs table's change stream.",
			AggregateBoundary: "one row per user and day; a user's rows share `pk = USER#{userId}` and are read together.",
			PartitionKey:      "`USER#{userId}`: one value per user, so as many partitions as users; a user writes their own rows only as fast as they create jobs.",
			SortKey:           "`DAY#{YYYY-MM-DD}`, the UTC day the jobs were created, so a user's days come in date order.",
			SortKeyTaxonomy: []string{
				"`DAY#{YYYY-MM-DD}`: the user's jobs created that day: a counter per status (`QUEUED`, `PROCESSING`, `EDITING`, `COMPLETED`, `FAILED`), `timedCount` and `processingMs` of the completed ones, and per stream shard that wrote it the newest sequence number it holds (`s` + 12 hex digits of the shard id's hash)",
			},
			BoundedReads: "`ListDays` pages a user's rows with `Limit` (100 by default, at most 1,000) and opaque cursors; a row per active day keeps a page small.",
			TradeOffs: []string{
				"**A table of its own, not items in the jobs table**: the jobs table expires jobs after 90 days and its stream would carry the view's own writes back to its consumer; the view is kept for good (it is the history of the jobs created, so TTL deletions are not counted down) and is billed apart.",
				"**Batching**: Apply writes one row per user, day and shard of a batch. A consumer's batch is what one GetRecords returns (at most 100 records) after polling every second, so at the jobs design's 100k jobs a month a batch holds about one change and each of a job's four counted changes is one write: 4 WCU per job lifecycle (a job heartbeat's change, written by a store without `jobs.Work`, writes nothing), declared above as an upper bound (measured at the declared rates: 3.24-4, `go test -run '^$' -bench ApplyAtTheDeclaredRates -benchtime 1x ./jobs/analytics`). Batches of 100 changes of ten users cost 0.4 WCU per lifecycle (`go test -run '^$' -bench ApplyPerJobLifecycle -benchtime 3x ./jobs/analytics`).",
				"**Eventually consistent**: the view trails the jobs table by the stream's delay and the consumer's poll (about a second); `ListDays` reads consistently what the view holds.",
				"**Sequence numbers per shard on the row**: about 55 bytes for each stream shard that wrote the row; DynamoDB rolls a stream's shards over every few hours, so a user active all day grows their row by a few hundred bytes, still one write unit.",
			},
			Denormalization: []string{
				"**Taken: the whole table is a denormalized view** of the jobs table: per user and day, counters by status and the completed jobs' processing time, kept from the stream so that reading them costs one Query per user instead of counting jobs.",
				"**Declined: per-user totals over all days on a summary item**: every change would write the day row and the total (two items, a second write per change); a user's days are few rows and the page sums them.",
			},
			Integration: "fed by the jobs table's stream (`changes.EnableStream` with NEW_AND_OLD_IMAGES on `" + jobs.TableNameForEnv("prod") + "`); the consumer's leases and checkpoints live in the shared lease table (`tablekit-changes`, one partition per consumer group): a checkpoint costs 1 WCU per batch that had records, which at this volume is about one per change of a job (costs.md derives the rate from the jobs store's declared writes). The stream consumer policy beside this file (`iam-stream-consumer-policy.json`) grants the stream, the jobs table's description and that partition.",
		},
		Items: []datamodel.Sample{
			{{"pk", "USER#user-123"}, {"sk", "DAY#2026-11-26"}, {"userId", "user-123"}, {"day", "2026-11-26"}, {"COMPLETED", "4"}, {"FAILED", "1"}, {"timedCount", "4"}, {"processingMs", "118400"}, {"s1f0c3a9b2d4e", "0000000000000000004170000000001234567890"}},
			{{"pk", "USER#user-123"}, {"sk", "DAY#2026-11-27"}, {"userId", "user-123"}, {"day", "2026-11-27"}, {"QUEUED", "1"}, {"PROCESSING", "1"}, {"COMPLETED", "2"}, {"timedCount", "2"}, {"processingMs", "61250"}, {"s7b21e0c4a9f3", "0000000000000000004180000000002345678901"}},
			{{"pk", "USER#user-456"}, {"sk", "DAY#2026-11-27"}, {"userId", "user-456"}, {"day", "2026-11-27"}, {"EDITING", "1"}, {"COMPLETED", "6"}, {"timedCount", "6"}, {"processingMs", "170300"}, {"s7b21e0c4a9f3", "0000000000000000004180000000002345679012"}},
			{{"pk", "USER#user-456"}, {"sk", "DAY#2026-11-28"}, {"userId", "user-456"}, {"day", "2026-11-28"}, {"FAILED", "2"}, {"s7b21e0c4a9f3", "0000000000000000004180000000002345680123"}, {"s2c94d7e1b058", "0000000000000000004190000000000012345678"}},
			{{"pk", "USER#user-789"}, {"sk", "DAY#2026-11-28"}, {"userId", "user-789"}, {"day", "2026-11-28"}, {"QUEUED", "2"}, {"s2c94d7e1b058", "0000000000000000004190000000000012346789"}},
			{{"pk", "USER#user-789"}, {"sk", "DAY#2026-11-29"}, {"userId", "user-789"}, {"day", "2026-11-29"}, {"PROCESSING", "1"}, {"COMPLETED", "3"}, {"timedCount", "3"}, {"processingMs", "90150"}, {"s2c94d7e1b058", "0000000000000000004190000000000012347890"}},
		},
	}
}
