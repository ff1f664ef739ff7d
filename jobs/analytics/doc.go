// Package analytics keeps the analytics the jobs design asks for
// (docs/systems/jobs.md; "the seed" below) for the jobs store: per
// user and per UTC day of creation, how many jobs are in each status and
// how long the completed ones took to process, maintained from the jobs
// table's change stream (DynamoDB Streams, read with the changes package).
//
// A View is a table of its own: one row per user and day. Each change
// moves the job's contribution from its old image to its new one (a job
// created counts +1 in its status; a move counts -1 in the old status and
// +1 in the new). Apply sums a batch's changes per row and writes each row
// once, with the sequence number of the newest change of the stream shard
// it adds (an attribute per shard), on the condition that the row holds an
// older one: a job's lifecycle of four counted changes costs at most four
// write units, and a batch of many changes one per user and day. The
// stream delivers at least once, in order within a shard, so the changes
// of a batch delivered again that a row already holds are dropped and
// count once: after a consumer dies mid-batch and another resumes from its
// checkpoint, the view still equals a recount of the jobs (Recount).
//
// TTL deletions (the service's own) are not counted down: the view is the
// history of the jobs created, not of the jobs still kept. A job deleted
// by a caller (jobs.Store.Delete) is.
//
//	view, err := analytics.NewView(db, analytics.TableName("photoeditor-prod-analytics"))
//	consumer, err := view.Consumer(streams, jobs.TableNameForEnv("prod"))
//	go consumer.Run(ctx, view.Apply)
//	for day, err := range view.Days(ctx, "user-1") { ... }
//
// The jobs table needs a stream with both images (changes.EnableStream with
// NEW_AND_OLD_IMAGES).
//
// Patterns and Entities declare the view's table for package datamodel
// (docs/analytics/, and its row in docs/costs.md) and for its IAM policies
// (iam/policies.Analytics, with iam.StreamConsumer's policy of the jobs
// table in the group ConsumerName), at rates that follow the jobs store's
// declared job rate.
package analytics
