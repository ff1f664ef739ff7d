// Package dynamotest is an in-memory DynamoDB for tests and local
// development. New returns a *DB that satisfies table.API, the subset of
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
// Beyond every emulator, a DB keeps DynamoDB's consistency promise on
// demand. By default every read sees every write at once, as DynamoDB Local
// does; with EventualConsistency(lag) (cmd/dynamotest -eventual, or the
// EventualEnv variable for a whole test run) a write reaches global
// secondary index reads and reads without ConsistentRead only once lag has
// passed on the fake's clock, while consistent reads, transactions and
// conditions see it at once. Code that reads its own write through an
// index then fails in tests as it would in production.
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
