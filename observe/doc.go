// Package observe makes a tablekit service visible to its operators:
// OpenTelemetry spans and metrics, and structured logs, for every request a
// store sends to DynamoDB and to its blob store.
//
// It works by wrapping the two interfaces every store is built on, so it
// needs nothing from the stores themselves and costs nothing when it is not
// used:
//
//	db, err := observe.DynamoDB(dynamodb.NewFromConfig(cfg),
//		observe.TracerProvider(tp), observe.MeterProvider(mp), observe.Logger(log))
//	blobs, err := observe.Blobs(s3store, observe.TracerProvider(tp)) // s3store from s3blob.New, or any blobstore.Store
//	store, err := jobs.NewStore(db, blobs)
//
// A service that does not wrap its clients pays for none of this. A wrapped
// client with no providers set uses the global ones (otel.GetTracerProvider,
// otel.GetMeterProvider), which are no-ops until the service installs an SDK.
//
// # Spans
//
// Each DynamoDB request is a client span named after its operation
// ("DynamoDB.GetItem"), a child of whatever span the caller's context holds:
// a store call's span when the store was given a TracerProvider (every store
// has that option; it reaches table.Table.Start), else the caller's own, with the OpenTelemetry semantic
// conventions' attributes: db.system.name aws.dynamodb, db.operation.name,
// aws.dynamodb.table_names, aws.dynamodb.index_name, aws.dynamodb.limit,
// aws.dynamodb.consistent_read, aws.dynamodb.scan_forward, aws.dynamodb.count
// and aws.dynamodb.scanned_count where they apply, and
// aws.dynamodb.consumed_capacity (the JSON of each ConsumedCapacity
// DynamoDB returned). A failed request records the error and sets error.type
// to DynamoDB's error code (ConditionalCheckFailedException,
// TransactionCanceledException, ProvisionedThroughputExceededException, ...).
// Blob store requests are spans named "blobstore.Put" and so on, with
// aws.s3.key.
//
// # Metrics
//
// Instruments of the meter "github.com/tablekit/tablekit/observe":
//
//	tablekit.dynamodb.requests           counter   db.operation.name, db.collection.name, tablekit.outcome, tablekit.operation
//	tablekit.dynamodb.duration           histogram (s) db.operation.name, tablekit.outcome
//	tablekit.dynamodb.consumed_capacity  counter   db.collection.name, aws.dynamodb.index_name, tablekit.capacity.kind (read|write), tablekit.operation
//	tablekit.dynamodb.unprocessed        counter   db.operation.name, db.collection.name: items a batch left unprocessed
//	tablekit.blobstore.requests          counter   blobstore.operation, tablekit.outcome
//	tablekit.blobstore.bytes             counter   blobstore.operation: bytes written by Put
//
// tablekit.operation is the store call a request serves ("jobs.Create",
// "tasks.Claim"), as the store named it to table.Table.Start: requests and
// capacity per access pattern. Requests made outside a store call do not
// carry it. The wrapper asks stores for it (table.OperationObserver), so it
// needs no tracer.
//
// The outcome is one of ok, condition_failed (a lost race: a conditional
// write or a transaction canceled by a condition), transaction_conflict,
// throttled, not_found (blob stores), canceled (the context ended) and error,
// so lost races and throttles are counted without parsing logs. Retries show
// as repeated requests; table's own retry log (table.Options.Logger) says why.
//
// Consumed capacity needs ReturnConsumedCapacity. When the caller did not ask
// for it, the wrapper asks for INDEXES on its own copy of the input, records
// what comes back, and removes it from the output again, so the caller sees
// exactly the response it would have seen unwrapped.
//
// # Logs
//
// With a Logger, throttled requests and failures other than lost races are
// logged at Warn, lost races at Debug, with the fields operation, table and
// error code. Without one, nothing is logged.
//
// # Trace ids in records
//
// The jobs design (docs/systems/jobs.md) keeps a correlationId and a traceId on every job. TraceID returns
// the trace id of the span in a context, for stores and handlers that write
// it where the seed keeps it.
package observe
