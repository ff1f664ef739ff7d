// Package pipeline stores the pipeline module docs/systems/pipeline.md
// describes (its original design is "the seed" below): pipelines and
// their versions, executions, group memberships, tags and tag counts in one
// DynamoDB table with one overloaded index (GSI-1), and the pipelines'
// input and output files in a blob store (S3 in production).
//
//	store, err := pipeline.NewStore(db, files, pipeline.TableName("pipelines"))
//	err = store.EnsureTable(ctx)
//	p, err := store.Create(ctx, pipeline.Input{
//		Name: "sap:emissions:pipeline", By: "abc@xyz.com",
//		Tags: []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa/northwest"}},
//		Groups: []string{"/usa/northwest"},
//	})
//	p, err = store.Update(ctx, p.ID, p.Version, changed)   // *ConflictError if someone was faster
//	page, err := store.Pipelines().ByTags([]pipeline.Tag{{Key: "region", Value: "usa"}}, pipeline.Limit(25)).Page(ctx, "")
//	ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID})
//	ex, err = store.Executions().Start(ctx, ex.ID)          // *TransitionError if it was not created
//	for e, err := range store.Executions().List(p.ID).All(ctx) { ... }
//	err = store.Delete(ctx, p.ID)                           // resumable: call again after a failure
//
// NewStore takes its options as functions (TableName, Clock, Logger,
// TracerProvider (one span per call, "pipeline.Delete"), or
// any func(*Options)); a nil db or a bad value fails there.
//
// The Store's own methods are the everyday calls on a pipeline (Create,
// Get, Update, Delete, its files) and its setup; every other kind has a
// handle: Executions (Create, Get, Start, Succeed, Fail, List), Versions
// (Get, List), Pipelines (the listings of pipelines: List, ByTags,
// InGroup), Tags (Keys, List, Values), and Maintenance for the operator
// (RecoverExecutions). Every listing has one shape, table.List: made with
// its arguments and options (a bad one is reported when it is read, before
// anything is sent), read a page at a time with Page(ctx, cursor) or whole
// with All(ctx); ListOptions.Limit (Limit(n)) sizes a page. Each listing
// documents its total order; all of them order by a unique key or break
// ties with one, so cursors resume exactly.
//
// # The table
//
// Every kind of item is an entity of package entity, declared once in
// schema.go: its keys (templates of package keys, delimiter ":"), its
// index and its attributes; the ids live in the keys only, as the seed
// stores them, and reads parse them back:
//
//	entity            pk                           sk                        siKey1
//	pipeline          P:<pipelineId>               PV:current                P
//	pipeline version  P:<pipelineId>               PV:<version:010d>         (none)
//	execution         PE:<executionId>             PE:P                      P:<pipelineId>
//	execution ref     P:<pipelineId>               PE:<executionId>          (none)
//	group membership  P:<pipelineId>               G:<groupId>               G:<groupId>
//	tag               T:<key>[#<parent>]           T:<value>:P:<pipelineId>  (none)
//	tag aggregate     TA:<key>                     TA:<value path>           TD
//
// GSI-1 is partitioned by siKey1 and sorted by pk, projecting all
// attributes. Records carry the seed's attributes: name, state,
// createdAt/updatedAt (ISO-8601 UTC with milliseconds,
// "2022-08-10T23:55:20.322Z"), createdBy, updatedBy, version, attributes
// (a map), tags ([{key, value}]), transformer ({transforms, parameters}) and
// groups. A pipeline's id is read back from its pk; ids and group ids must
// not contain ':'. The seed names no attributes for the other entities;
// this package stores executions with version, state, createdAt,
// updatedAt, startedAt, finishedAt, error, createdBy and input (the object
// key of the execution's copy of its input), aggregates with count (a number), and tag and group items
// with their keys only.
//
// # Where the seed contradicts itself, and what this package does
//
// PV:latest or PV:current. The seed's table names the current item's sort
// key PV:latest, its create and get queries PV:current. This package writes
// and reads PV:current: it is what both access patterns that touch the
// item say, and the name matches what the item is (the current version, not
// necessarily the newest write). A table written with PV:latest needs its
// current items copied once.
//
// The versions' GSI-1 keys. The seed's base table gives versions siKey1 P,
// and its GSI-1 table shows them under siKey1 P:<pipelineId> sorted by
// PV:<versionNo>. Neither works: GSI-1 sorts on pk, not sk, so all versions
// of a pipeline would share one sort key value (unordered), and with siKey1
// P every version would also show up in "list pipelines". Versions
// therefore carry no siKey1 and stay out of GSI-1; "list versions" is a
// strongly consistent query of the base table, pk = P:<pipelineId> AND sk
// BETWEEN two PV:<digits> bounds, which reads versions only (not
// PV:current, not the G: and PE: items under the same pk).
//
// PV:<versionNo>, padded or not. The seed writes PV:<versionNo> without
// saying how the number is written; a service following it literally
// writes PV:1. This package writes PV:0000000001, zero-padded to ten
// digits, because DynamoDB orders sort keys as text: unpadded, PV:10 sorts
// between PV:1 and PV:2, and "list versions" could not page through them
// by version with one key condition. It reads both: Versions.Get tries the
// padded key, then the seed's. Versions.List lists both forms in one order,
// by version number: it reads the padded keys (BETWEEN PV:0000000001 AND
// PV:0999999999, numeric order already) a page at a time and the seed's
// (BETWEEN PV:1 AND PV:9999999999) whole, sorted by number, and merges
// them. A number written in both forms is listed twice, the padded item
// first (the one Versions.Get returns); its cursor is the last (number,
// form) returned, so pages resume inside such a tie. Delete removes both
// forms. The seed's base table gives version items siKey1 P, which would
// put them in "list pipelines"; Pipelines.List keeps to items with sk
// PV:current.
//
// Executions keep the seed's layout exactly: only they carry siKey1
// P:<pipelineId>, so "list executions" is GSI-1 siKey1 = P:<pipelineId>
// AND begins_with(pk, "PE:"), in execution id order (creation order with
// the default ULID ids). This package adds one item the seed does not
// have: the execution's reference, the seed's GSI-1 row of the execution
// (P:<pipelineId>, PE:<executionId>) written to the base table in the
// transaction that creates the execution. GSI-1 is eventually consistent,
// so it can miss an execution created a moment before a Delete; the
// reference sits in the pipeline's partition, which Delete reads strongly
// consistent. Executions written without one (by a service following the
// seed) are still found through GSI-1.
//
// TD or TA. The seed's tables store siKey1 TD on aggregates and its "list
// tags" query asks for TA. TD is what both tables say is stored, and TA is
// already the aggregates' pk prefix, so this package stores and queries TD.
//
// The exections typo. The seed's S3 layout spells the executions folder
// "exections". It is kept, so buckets that services already fill following
// the seed keep working with this package: renaming a folder on S3 means
// copying every object.
//
// # Tags
//
// A tag whose value contains '/' is hierarchical. Each level is stored as
// a tag item: the value at level i is the level's own name and <parent> is
// the path of the levels above it, as written in the tag; the first level
// has no parent and shares the plain tags' partition T:<key>. For
// region=usa/northwest/seattle:
//
//	T:region                T:usa:P:<id>
//	T:region#usa            T:northwest:P:<id>
//	T:region#usa/northwest  T:seattle:P:<id>
//
// A query for a tag reads one partition with one key condition, and
// matches at any level: region=usa finds pipelines tagged usa,
// usa/northwest and usa/southeast/miami; region=usa/northwest finds
// usa/northwest and usa/northwest/seattle, not usa/northwestern. A
// pipeline's tags usa and usa/northwest share their first level's item.
// Tag keys may not contain ':' or '#', values not ':' nor empty levels.
//
// Aggregates count pipelines per key and level path (TA:region /
// TA:usa/northwest), so each count is exactly what Pipelines.ByTags returns for
// that one tag. Counts move only by ADD +1/-1 inside the transaction that
// adds or removes the tag items, so they stay exact under concurrent
// updates. A count that drops to zero is removed: a transaction cannot
// see that its ADD -1 reached zero, so after it (Update, Delete) each
// decremented aggregate is deleted on condition count = 0, which is safe
// against a racing ADD +1 (the delete fails, or the ADD recreates the item
// with siKey1 and count 1). If that second write fails the update has
// still happened: the zero row stays, the listings hide it (they filter
// count > 0), and the next decrement of that tag removes it. Tags.Keys lists
// the keys with one single-item query per key (GSI-1 siKey1 = TD AND pk > TA:<previous key>),
// Tags.Values the values of one key with their counts (pk = TA:<key>),
// and Tags.List every (key, value, count) by key.
//
// # Executions
//
// Executions.Create writes an execution in one transaction whose condition
// checks its pipeline version and the current item: a pipeline whose
// state is StateDisabled takes no new executions ([DisabledError],
// [ErrDisabled], nothing written), and since the condition is the write's
// own, neither does one disabled a moment after the caller read it. The
// refusal carries the current item (ALL_OLD), which says whether the
// pipeline was disabled or gone. Executions already created move on as
// before.
//
// An execution moves created → running → succeeded, or to failed from
// created or running (with its reason in error). Executions.Start,
// Executions.Succeed and Executions.Fail are each one UpdateItem conditional
// on the state the move starts from; a refused move writes nothing and
// returns a *TransitionError (ErrTransition) carrying the state DynamoDB
// returned with the refusal (ReturnValuesOnConditionCheckFailure ALL_OLD),
// so no second read can race a third writer. Items record startedAt and
// finishedAt beside createdAt and updatedAt. No execution stays in flight
// forever: Maintenance.RecoverExecutions fails the created or running executions of a
// pipeline idle since a cutoff, each on condition that state and updatedAt
// are still the ones it read.
//
// A consumer of the table's stream (an executor that starts what was
// created) reads executions with [ExecutionFromChange] and pipelines, as of
// their current version, with [PipelineFromChange]; each skips the table's
// other items and refuses a record of another table.
//
// # Deleting a pipeline
//
// Delete removes the current item, every version (either form), group
// memberships, tag items (decrementing counts, removing zero ones),
// executions and files. That is more items than a transaction holds, so it
// is safely resumable: the current item is marked first (the pipeline is
// then gone for readers and frozen for writers), every step after is
// idempotent, each tag level is removed with its decrement in one
// transaction conditional on the tag item still existing (never counted
// down twice), and the current item goes last. A Delete that failed half
// way is finished by calling Delete again; the tests interrupt it at every
// one of its writes, on the fake and on DynamoDB Local. No execution
// escapes: Executions.Create is conditional on the current item not being
// marked, and Delete finds executions by their references (above), not
// only through GSI-1. Executions.Create removes the input it copied when its
// transaction is refused, and Delete of a pipeline that is already gone
// sweeps its files prefix again, so files that arrived after a Delete (a
// late presigned upload) are removed by calling Delete again.
//
// # Writes
//
// Create is one transaction: the current item and version 1 (both
// conditional on not existing), the tag items, one aggregate ADD per tag
// level, and the group items. Update reads the current item, then writes
// one transaction: the current item replaced on condition version = the
// version the caller read (optimistic locking), the next version's item
// created, the tag items of removed levels deleted and of new levels
// written, aggregates adjusted by ADD -1/+1, and group items removed and
// added. A racing update that won makes the condition fail, the whole
// transaction is canceled, and the loser gets a *ConflictError
// (ErrConflict) with nothing written. DynamoDB takes at most 100 actions
// per transaction, so a call that would need more fails with a
// *TooManyTagsError before any request: 2 + 2 per tag level + 1 per group
// on Create, 2 + 2 per tag level added or removed + 1 per group joined or
// left on Update.
//
// Every call checks its input first; bad input is a *table.InputError
// (errors.Is table.ErrInvalidInput) and nothing is sent.
//
// # Listing by tags
//
// Pipelines.ByTags follows the seed: one query per requested tag, run in
// parallel (Options.MaxConcurrency), each reading its tag items in
// pipeline id order (the id ends the sort key), intersected by merging the
// sorted streams. A stream that is behind restarts its query at the id the
// others reached (sk BETWEEN T:<value>:P:<id> AND T:<value>:P;) instead of
// paging through what lies between. The intersection is paged in id
// order; one BatchGet reads the page's current items. Its cursor is opaque
// like table's: the last id of the page, bound by an HMAC to the table and
// the tag set, so a cursor altered or used with other tags fails with
// table.ErrInvalidCursor before anything is read.
//
// # Files
//
// Objects follow the seed's layout:
//
//	pipelines/{pipelineId}/{version}/ingest/{pipelineId}-{version}-{timestamp}-{uploadId}.txt
//	pipelines/{pipelineId}/{version}/exections/{executionId}/input.txt
//	pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt
//
// Ids are escaped (blobstore.KeyTemplate): each id fills exactly one path
// segment, with '/', '%', "." and "..", control bytes and non-ASCII written
// as %XX, so every key is a one-to-one function of its ids. Without this,
// pipeline "a" with execution "y/1/exections/z" and pipeline
// "a/1/exections/y" with execution "z" would share one output object.
// Ids of A-Z a-z 0-9 '_' '-' '.' are written unchanged: for them the keys
// are exactly the seed's, so existing buckets need no change. A new
// pipeline or execution id must fit 200 bytes once escaped.
//
// {timestamp} is UTC with milliseconds and no ':' (20221122T050500.123Z),
// so ingest names sort by upload time and are valid file names anywhere.
// {uploadId} is not in the seed: a new id per presigned upload
// (Options.NewID, a ULID by default), because two uploads presigned in one
// millisecond would otherwise get one key, and the second PUT would
// replace the first file.
// PresignInputUpload hands out a presigned PUT for a new input,
// Executions.Create copies an uploaded input next to the execution's output
// (the blob store has no server-side copy: a streamed Get and Put) before
// writing the execution, so no execution points at a missing file;
// PutOutput stores the output and PresignOutputDownload hands out a
// presigned GET. With blobstore.Memory or blobstore.Dir, presigned URLs
// need the store's EnablePresign and its ServeHTTP mounted there.
//
// Items stay small (a pipeline with its transformer is a few KB), so
// nothing is offloaded to the blob store; a pipeline whose transformer
// would pass DynamoDB's 400 KB is refused by table before any request
// (table.ErrItemTooLarge).
package pipeline
