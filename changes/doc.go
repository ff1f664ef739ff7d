// Package changes turns a table's DynamoDB Stream into typed change events
// and delivers them to a handler at least once, with per-shard leases and
// checkpoints kept in DynamoDB.
//
// A Consumer reads the stream of one table and decodes each image, old and
// new, into T with Options.Decode (attributevalue.UnmarshalMap unless set).
//
// The tablekit stores' items are not their Go types with attributevalue
// tags: times are stored as numbers or fixed-width text, results may be
// offloaded to a blob store, and a single table holds several kinds of
// item. So a consumer of a store's table keeps each image as DynamoDB sent
// it (T = table.Item, Decode(DecodeItem)) and lets the store read it, as
// the store's own Get would:
//
//	c, err := changes.New[table.Item](db, streams, jobs.DefaultTableName,
//		changes.Decode(changes.DecodeItem),
//		changes.Name("analytics"), changes.LeaseTable("tablekit-changes"))
//	...
//	err = c.EnsureTable(ctx) // the lease table
//	err = c.Run(ctx, func(ctx context.Context, batch []changes.Change[table.Item]) error {
//		for _, ch := range batch {
//			job, ok, err := jobs.JobFromChange(ch) // ok false: a removal
//			...
//		}
//		return nil
//	})
//
// Each store names its decoder: jobs.JobFromChange (and
// Store.JobFromChange, which follows offloaded results),
// tasks.EventFromChange, journey.ProgressEvents, pipeline.ExecutionFromChange
// and pipeline.PipelineFromChange. They return ok false for items they do
// not describe, and jobs' and pipeline's an error wrapping ErrDecode for
// one of their items they cannot read and a *table.InputError for a record
// of another table ([CheckKeys], the test a decoder starts with). Decoding a
// store's table straight into its type (changes.New[jobs.Job]) does not
// work: jobs.Job's fields do not carry the stored names, so every job
// would decode with an empty id and a createdAt 56,000 years away, and no
// error.
//
// For a table of your own whose items are a Go type with dynamodbav tags,
// T is that type and the default Decode reads it.
//
// Changes can also be read as an iterator, for ch, err := range
// c.Changes(ctx) { ... }.
//
// streams is a *dynamodbstreams.Client, or the in-memory fake
// (*dynamotest.DB), which serves the same API.
//
// A test waits for what it wrote with CatchUp, which reads every shard up
// to the records present when it was called (a Step reads one batch per
// shard, and one that reads nothing is not the end of the stream). On the
// fake a consumer needs no Clock: it measures leases by the fake's time
// (table.ClockOf), which the test moves with db.Advance.
//
// DynamoDB Local's streams depart from DynamoDB's in one way a decoder
// meets: an empty map in an image (an attribute or a nested value) comes
// as {} with no type, and the SDK reads it as the value just before it in
// the same map, or nil. A store's decoder run against Local must tolerate
// that where its items hold empty maps; DynamoDB and the fake send the map
// (dynamotest's TestStreamRecordsKeepEmptyMapsTyped).
//
// # Delivery
//
// A shard is processed by one consumer at a time: the consumer holds a
// lease on it, an item in the lease table (partition key LeaseKey of the
// source table and the consumer's Name, so each group's leases are one
// partition its IAM policy can be confined to; sort key the stream label
// and shard id) with an owner and an
// expiry, taken and renewed by conditional writes. A consumer that crashes
// stops renewing; once its lease has expired another consumer with the
// same Name takes the shard over. A consumer that finds its lease taken
// (its renewal or checkpoint refused) drops the shard at once. Leases are
// kept only while the handler runs well within LeaseDuration; a handler
// slower than that can overlap with the next holder, so choose the
// duration accordingly.
//
// The checkpoint (the sequence number of the last record handled) is
// written only after the handler returns nil for a batch, so every change
// is handled at least once: after a crash, the next holder starts after
// the last checkpoint and may see the changes of an unfinished batch
// again. Handlers must therefore be idempotent, for example by recording
// the sequence number they applied per item and refusing older ones in a
// condition (see examples/analytics).
//
// Changes of one item arrive in the order they were made. Shards are read
// parent first: a child shard is taken only once its parent is finished
// (or has aged out of the stream). A handler error is retried with jittered
// backoff (Options.Backoff) up to MaxAttempts times, each retry logged;
// then Run returns it and the shard stays at its last checkpoint. A round
// that fails on a DynamoDB or Streams call (throttling, a network error) is
// retried the same way. When the table's stream is turned off and on again,
// a consumer finishes the old stream's shards and follows the table to its
// new stream; with no stream left, Run returns ErrNoStream.
//
// Records older than 24 hours leave the stream: a consumer stopped for
// longer loses them, and says so in its log when it finds its checkpoint
// trimmed (it restarts the shard at its oldest record).
package changes
