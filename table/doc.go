// Package table is what every tablekit store needs from DynamoDB, written
// once: typed reads and writes, conditions, queries with opaque cursors,
// batches that never drop an item, transactions whose errors say which
// action failed, and errors that map to sentinels.
//
// # Tables and schemas
//
// A Schema declares a table's keys, secondary indexes (global, and local
// ones with Index.Local: created with the table only, read strongly
// consistent on request, capping a partition at 10 GB), TTL attribute, stream view, Provisioning (point-in-time recovery, the
// encryption key, deletion protection, capacity, the table class) and
// Tags: what CreateTable needs (access patterns and rates, for capacity
// planning, are declared with package access). Schema.EnsureTable creates
// the table (tagged in its CreateTable), waits until it is ACTIVE and
// enables TTL, a missing stream and point-in-time recovery; it accepts an
// existing table with the same keys and reports settings and tags that
// differ as a *DriftError, changing none of them (it never calls
// TagResource). Schema.Check reports every difference and changes nothing
// (tablekit tables check). New binds a Schema to an API — a
// *dynamodb.Client, or dynamotest's in-memory fake — and returns a *Table.
//
// # Items
//
// Items are Go structs marshaled with the SDK's attributevalue package
// (field tag `dynamodbav`), or raw Item maps. Before any request, tablekit
// checks what DynamoDB would reject: a nil or empty key, a missing or
// mistyped key attribute, an empty string key, an item over 400 KB
// (ItemSize follows DynamoDB's size rules). Those are *InputError values,
// and nothing is sent.
//
// # Conditions
//
// Put, Update and Delete take options: If(condition) with a condition built
// with feature/dynamodb/expression, IfNotExists (a create: ErrAlreadyExists
// when the item is there), IfExists (ErrNotFound when it is not),
// ReturnOld/ReturnNew and ItemOnConditionFailure. Every failure is an
// *Error whose Err is the sentinel and whose Cause is the SDK's error, so
// errors.Is(err, table.ErrConditionFailed) works and errors.As still
// reaches the SDK's *types.ConditionalCheckFailedException. WrapError
// applies the same mapping to errors of calls a store makes directly.
//
// Expressions are rendered once per shape: the first request of a shape
// (the same operators and names, whatever the values) runs the expression
// package's Build, later ones reuse its strings and names and marshal only
// their values. Build offers the same to a store that sends its own
// requests.
//
// # Queries and cursors
//
// QueryPage returns one Page of at most Query.Limit items and the cursor of
// the next; Next is "" exactly when nothing follows, because tablekit reads
// one item ahead. QueryAll is an iter.Seq2 over every item. Cursors are
// base64url, carry the last item's key, and are bound by an HMAC to the
// table, index, partition value, sort condition and direction: a cursor
// that was altered or comes from another query fails with ErrInvalidCursor
// before anything is read. The default HMAC key is derived from the table
// name, which catches mistakes but not forgery: set Options.CursorKey to a
// secret when cursors reach untrusted clients.
//
// Sort keys are unique in a table's partition but not in an index's: ties
// come back in an order DynamoDB does not define. Query.TieBreak names
// attributes unique together among ties (the table's key, partition and
// sort key: an index partition gathers several table partitions, whose
// sort keys may repeat) and makes the order total — sort key, then
// tie-break, a descending query being the exact reverse of the ascending
// one — and its cursors resume inside a run of ties; see Query for the
// rules and the cost. Query.Keep is a filter in Go for what a
// FilterExpression cannot say; pages still never end with a cursor that
// leads to nothing.
//
// # Listings
//
// A store hands out each listing as one List: made with its arguments,
// read a page at a time (List.Page with a cursor, for a client that pages)
// or whole (List.All, an iter.Seq2 built on Walk). The stores follow one
// recipe, so a reader who knows one listing knows them all:
//
//   - One method per listing, on the handle of the kind it returns, taking
//     the listing's arguments and its options and returning List[T]:
//     s.Executions().List(pipelineID, opts...). A handle's plain listing
//     is List; another access path to the same kind is named for the path
//     (Pipelines().ByTags(tags), Pipelines().InGroup(groupID)). No ListX
//     beside X, no iterator method beside the page method.
//   - The arguments and options are checked when the List is made, once; a
//     bad one, or a nil or zero store, makes FailedList(err) with the typed
//     error (*InputError, the store's ErrNoStore), which Page returns and
//     All yields first and only, before anything is read.
//   - The page function (NewList) starts the store call's span, named
//     "<package>.<Handle>.List" (Table.Start), and reads one page with
//     QueryPage, ScanPage or the store's own merge, turning stored items
//     into the caller's type. List checks the context before calling it.
//   - Cursors mean one thing everywhere ("" is the first page, Next "" the
//     last; see List): table's own, or a store's own bound by an HMAC to
//     the listing and its arguments the same way.
//
// # Batches and transactions
//
// BatchWrite and BatchGet split work into DynamoDB's 25 and 100 item
// requests and retry unprocessed items and throttling with exponential
// backoff and full jitter (Options.Backoff) until done or until the context
// ends; an early stop is an *Error that wraps the context's error and lists
// the keys not yet done in Unprocessed. A key may appear once per call.
// WriteTx
// collects up to 100 actions, one per item, and Run retries conflicts and
// throttling under a single ClientRequestToken so a retry cannot apply
// twice; a cancellation becomes a *TxError with one TxReason per failed
// action (its index, kind, key, DynamoDB's code and message).
//
// # Retries
//
// Each retry belongs to one layer. An SDK client (*dynamodb.Client) already
// retries a throttled or failed request itself (its standard retryer: three
// attempts with jittered backoff, configured with the client's
// RetryMaxAttempts and Retryer), so Get, Put, Update, Delete and each page
// of a Query or Scan send one request through it and report throttling
// that outlasted those attempts as ErrThrottled, without a second loop of
// their own that would multiply the SDK's. Table retries only what the
// SDK cannot see as a failure: the unprocessed items of a batch (an answer
// that succeeded) and a transaction canceled by a conflict or throttling
// (TransactionCanceledException, which the SDK does not retry), each
// bounded, jittered by Options.Backoff and logged to Options.Logger. The
// in-process fake has no SDK in front of it, so a fault injected there
// (dynamotest's Inject, LimitPartitions) reaches the caller as DynamoDB's
// last answer after the SDK's retries would.
package table
