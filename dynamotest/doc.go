// Package dynamotest is an in-memory DynamoDB for tests and local
// development, which can keep its data in a directory across restarts
// (see Persistence). New returns a *DB that satisfies table.API, the subset of
// *dynamodb.Client tablekit uses, so code written against the real client
// runs against it unchanged:
//
//	db := dynamotest.New()
//	store, err := journey.NewStore(db, blobs)
//
// It behaves like DynamoDB where tests can notice: numbers sort as numbers
// and strings and binaries by bytes; items are limited to 400 KB as
// DynamoDB measures them; a Query or Scan page stops at 1 MB or Limit and
// returns a LastEvaluatedKey (carrying the index keys when reading an
// index); global and local secondary indexes are sparse, projected (ALL,
// KEYS_ONLY, INCLUDE) and kept in step with every write, and a local index
// serves consistent reads, fetches unprojected attributes from the table,
// reports ItemCollectionMetrics and refuses an item collection past 10 GB
// (Options.ItemCollectionSizeLimit); batches hold at most 25
// writes or 100 keys, transactions 100 actions on distinct items, with
// cancellation reasons per action and ClientRequestToken idempotency; TTL
// deletes expired items when the fake's clock moves; errors are the SDK's
// own types (*types.ConditionalCheckFailedException,
// *types.TransactionCanceledException, *types.ResourceNotFoundException, and
// a *smithy.GenericAPIError with code ValidationException) with DynamoDB's
// messages.
//
// The parameters DynamoDB had before expressions (Expected,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter,
// ConditionalOperator, AttributesToGet) work as DynamoDB documents them,
// translated into the expressions they mean, and mixing them with
// expressions in one request is refused as DynamoDB refuses it.
//
// PartiQL's ExecuteStatement, ExecuteTransaction and BatchExecuteStatement
// run SELECT, INSERT, UPDATE and DELETE (with RETURNING) and, in a
// transaction, EXISTS through the same requests (see DB.ExecuteStatement
// for what they parse). UpdateTable, the tagging
// operations and DescribeLimits are served too, in process and over HTTP.
//
// Storage is a tree per partition, so GetItem and Query cost O(log n +
// items returned) however large the table grows. Each operation is atomic
// and a DB is safe for concurrent use. Items returned are copies the caller
// may modify. A call whose context is already done fails with the context's
// error and changes nothing, as the SDK's client does.
//
// Streams: a StreamSpecification on CreateTable or UpdateTable (KEYS_ONLY,
// NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES) records one record per item
// change from every write path, in the order the changes were applied, and
// none for a write that changes nothing (a failed condition, a put of an
// identical item, a delete of a missing one); TTL deletions carry
// userIdentity {Type: Service, PrincipalId: dynamodb.amazonaws.com}. A DB
// serves the DynamoDB Streams API (ListStreams, DescribeStream,
// GetShardIterator, GetRecords) with *dynamodbstreams.Client's signatures,
// and NewHandler serves it over HTTP beside DynamoDB's (NewStreamsClient,
// Server.StreamsClient). On the fake's clock, shards roll over every four
// hours whether written to or not (a closed parent, an open child naming
// it as ParentShardId), iterators expire after 15 minutes and records
// after 24 hours; GetRecords returns at most 1,000 records and 1 MB.
//
// Beyond DynamoDB Local, a DB reports the capacity each call consumed by
// DynamoDB's rules (ReturnConsumedCapacity TOTAL or INDEXES, and running
// totals per table from Consumed; a failed conditional write and a
// cancelled transaction's prepare phase count there, though their answers
// carry none), counts calls per operation and table
// (Calls, CallsFor), and injects faults (Inject with Throttle, FailNth or
// UnprocessedFraction) so that retry paths can be tested. Its clock is
// injectable (Options.Clock) and movable (Advance, SetTime).
//
// A Meter (NewMeter) measures what a store's calls cost, per call or per
// benchmark operation (Usage.Report): requests, round trips (requests
// sent one after another; concurrent ones count once) and the read and
// write units DynamoDB bills, in front of the fake or any other API.
//
// Compare checks the fake against DynamoDB on a team's own calls: it
// returns a table.API that sends every call to a reference (DynamoDB, or
// DynamoDB Local) and to the fake, answers with the reference's result,
// and records each difference of answer, error and stored item as a
// Difference a test can assert on and a person can read. Differences a
// documented deviation of the reference explains (LocalDeviations, for
// DynamoDB Local) are counted apart. See Compare for what is compared and
// what is left out because correct stores differ there.
//
// Chaos runs a team's code against the failures DynamoDB shows under load,
// all drawn from one seed: throttling, responses lost before or after the
// write applied, unprocessed batch items, transaction conflicts, clock
// jumps and an eventual consistency lag. A failing test prints the seed
// (ChaosSeed), and the same seed replays the same faults for the same
// calls (Chaotic.Faults is the log); see Chaos for what concurrency and
// the wall clock do to replay. ChaosOn puts the faults in front of a fake
// of the test's own; ChaosOptions.API in front of another store (DynamoDB
// Local), without the clock jumps and the lag, which need the fake.
//
// Beyond every emulator, a DB keeps DynamoDB's consistency promise on
// demand. By default every read sees every write at once, as DynamoDB Local
// does; with EventualConsistency(lag) (cmd/dynamotest -eventual, or the
// EventualEnv variable for a whole test run) a write reaches global
// secondary index reads and reads without ConsistentRead only once lag has
// passed on the fake's clock, while consistent reads, transactions and
// conditions see it at once. Code that reads its own write through an
// index then fails in tests as it would in production.
//
// # Persistence
//
// With Persist(dir) (cmd/dynamotest -data dir) a DB keeps its data in a
// directory: tables with every setting DescribeTable, DescribeTimeToLive,
// DescribeContinuousBackups and ListTagsOfResource report, items, and
// stream records within their 24 hours survive a restart; indexes, the TTL
// order and item collection sizes are rebuilt from the items. Open reports
// a directory it cannot use as a *DataDirError (ErrDataUnusable: a file, or
// not writable; ErrDataLocked: another DB, in this process or another,
// has it open, held by flock on its LOCK file; ErrDataFormat: anything but
// dynamotest data of this format version, named by its FORMAT file and in
// every file's header; ErrDataCorrupt: damage a crash cannot explain), and
// changes nothing in it. New(Persist(dir)) returns a DB that fails every
// call with that error instead (see Err). Close writes a snapshot and
// releases the directory. Without Persist nothing changes: a DB in memory
// pays one nil check per write.
//
// Durability: a write is answered only once it is on disk. Every item
// write, whatever the request, ends in one place (the table's put and
// remove), which notes its effect: the new item whole, or the removed key.
// The table's write unlock turns an operation's effects into one log
// record, appends it, releases the lock and waits for the sync. Writers
// that arrive during a sync are written and synced together by the next
// (group commit: one sync answers them all). A transaction, over one table
// or several (TransactWriteItems, ExecuteTransaction), is one record; a
// BatchWriteItem is one record per table, as DynamoDB applies a batch item
// by item. Each record carries a CRC-32C: after a crash, a record torn at
// the end of the log is cut off and never half-applied; damage anywhere
// else refuses the start. Snapshots bound the log: once it has grown by
// 64 MB (or half the last snapshot), the state is captured (every table
// read-locked while references are copied: stored items are immutable)
// at the start of a new log segment, written to a temporary file, synced
// and renamed into place, and the segments before it are deleted, so a
// start reads one snapshot and at most that much log. A read may see a
// write whose sync is still in flight; a crash at that instant loses the
// write, which was never acknowledged.
//
// The storage is this log and these snapshots, not an embedded store,
// because the fake keeps every item in memory anyway, in its own trees, to
// answer as fast as it does: what it needs from the disk is an ordered,
// atomic, durable record of changes and a fast way to load everything at
// start, which a log and a snapshot are. Measured on the development
// machine (2 cores shared, 1 KB items, each write synced before the next
// from the same writer): a log with group commit made 510 durable writes a
// second from one writer and 2,070 from eight; pebble 485 and 1,890 (the
// same sync-bound figures, with an LSM's compactions on top); bbolt 49 and
// 443 (a B+tree commit writes pages and its meta page, two syncs). bbolt
// or pebble would also keep a second copy of every item in a format of its
// own, to be read back item by item at start; a transaction over several
// tables would still need the fake's own framing to stay one atomic
// record, and stream records, settings and the clock would need an
// encoding anyway. The log needs no dependency and stores items in the
// fake's own encoding, so loading a snapshot builds entries without
// re-encoding them.
//
// Format version 1: FORMAT (the marker), LOCK, log-N (a header, then
// records framed as length, CRC-32C, payload), snapshot-N (the state at the
// start of log-N, framed likewise, ending with a record of its counts).
// A restart keeps ClientRequestToken idempotency (a transaction's token is
// logged in the transaction's own record, so a client that retries after a
// crash is answered, not applied twice) and the fake's clock offset
// (Advance, SetTime); it finishes indexes UpdateTable left CREATING (as a
// clock move does) and forgets the eventual mode's lag, the call counters,
// consumed capacity and injected faults.
//
// Where it differs from DynamoDB, on purpose or not yet:
//   - Tables are ACTIVE at once and DescribeTable counts items live
//     (DynamoDB refreshes ItemCount about every six hours).
//   - TTL deletes happen when the clock moves, at once; DynamoDB's sweeper
//     takes up to a few days. As in DynamoDB, expired items stay readable
//     until deleted, and TTL values more than five years in the past are
//     ignored.
//   - Provisioned throughput is recorded, not enforced: throttling comes
//     only from injected faults.
//   - UpdateTable changes billing mode, throughput, global secondary indexes
//     and the stream; a new index is CREATING until the next DescribeTable
//     or clock move (see UpdateTable).
//
// Where DynamoDB Local departs from DynamoDB's API reference, the fake
// follows the reference: an invalid request on a missing table is a
// ValidationException; UPDATED_OLD and UPDATED_NEW return only the updated
// paths of nested attributes; a Limit page that ends on the last key a
// key condition allows still returns a LastEvaluatedKey, which is a valid
// ExclusiveStartKey; a Query matching nothing and a BatchGetItem key that
// finds nothing cost the minimum read. The conformance suite's cases say so
// beside each.
package dynamotest
