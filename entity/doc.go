// Package entity is the single-table mechanism of tablekit for any Go
// type: declare once how a struct is stored (its keys in the table and in
// each index, the attributes the package keeps, the rules values meet,
// what moves to the blob store), and read and write it with typed calls.
// It is what ElectroDB and dynamodb-toolbox give TypeScript teams, said the
// way Go says it: attributevalue's struct tags for the item, option
// functions for the declaration, sentinel errors, table's pages, cursors
// and iterators.
//
//	reg, err := entity.NewRegistry(tbl, entity.Blobs(s3store))   // the entities of one table
//	albums, err := entity.New[Album](reg, "album",
//		entity.Key("ALBUM#{albumId}", "ALBUM"),
//		entity.Index("GSI1", "USER#{ownerId}", "ALBUM#{createdAt:time}"),
//		entity.Timestamps("createdAt", "updatedAt"),
//		entity.Version("version"),
//		entity.Required("title"), entity.Enum("visibility", "public", "private"))
//
//	a, err := albums.Create(ctx, Album{ID: "a1", OwnerID: "u1", Title: "Alps"}) // table.ErrAlreadyExists
//	a, err = albums.Get(ctx, Album{ID: "a1"})                                    // table.ErrNotFound
//	a, err = albums.Put(ctx, a)                                                  // ErrVersionConflict
//	a, err = albums.Patch(Album{ID: "a1"}).Add("photoCount", 1).Run(ctx)
//	page, err := albums.List(ctx, Album{OwnerID: "u1"}, cursor, entity.ByIndex("GSI1"), entity.Limit(25))
//
// # Declaring
//
// New checks the whole declaration at start-up and refuses, with a
// *DeclarationError, what could only fail later: a template naming a
// field the struct does not have, a placeholder of the wrong kind ({n:03d}
// for a string), a key type the schema does not declare, an index the
// table does not have (or of the other kind: Index of a local one), a version that is no integer, a TTL attribute that
// is not the table's, and keys that could collide with another entity's
// of the registry ("ALBUM#{albumId}"/"META" beside "ALBUM#{albumId}"/
// "{photoId}": the photo "META" would overwrite the album). Templates are
// package keys' (escaping nothing, refusing a value that holds the
// delimiter; zero-padded numbers; fixed-width times), their placeholders
// naming the struct's attributes as its dynamodbav tags spell them;
// {email:lower} (or :upper) writes a string part in one case, on every
// path that builds the key (writes, reads, updates, deletes, sort
// conditions, indexes, transactions, batches), so "Ann@Example.com" and
// "ann@example.com" are one item, while the attribute keeps the caller's
// spelling (a KeyOnly attribute cannot be cased: it would read back in
// the key's case). A
// template that is exactly "{name}" for the table's key attribute "name"
// makes the attribute the key itself, of any key type (jobs' jobId). Per
// call only values are filled: templates are parsed, conditions rendered
// and update expressions cached per shape by New and the first call.
//
// # Local secondary indexes
//
// A local secondary index (table.Index with Local) shares the table's
// partition key and sorts a partition's items another way: the tasks of a
// project by priority, or by last change. LocalIndex declares the entity's
// sort key in it, and only that ("the tasks' order within their project"):
//
//	entity.LocalIndex("LSI1", "P#{priority}")    // the partition is Key's
//
// It is an index like the global ones on every path — built by every
// write, followed by updates (a key from updatedAt moves with it), read by
// List and Items with ByIndex, the entity filter and the table key as
// tie-break — with what DynamoDB gives a local index besides: a List of it
// may be Consistent (a global index refuses it, and so does entity, before
// sending). New refuses what DynamoDB would refuse (a partition key
// template, a schema with more than table.MaxLocalIndexes local indexes or
// with a local index not keyed by the table's partition key, which
// CreateTable would refuse) and a declaration of the other kind of index
// than the schema's (LocalIndex of a global index, Index of a local one).
// What a local index costs: DynamoDB creates it with the table only (no
// UpdateTable adds one), and a table with one caps each partition key
// value — its items with their local index entries — at 10 GB, past which
// writes to that partition fail (ItemCollectionSizeLimitExceededException).
// A partition that grows without bound (a tenant's every event) wants a
// global index instead.
//
// # Items
//
// An item is what attributevalue writes for the struct, plus the table
// and index keys, and the registry's type attribute (default "_type",
// holding the entity's name; NoTypeAttribute for layouts fixed by others,
// which are then told apart by key shape, unambiguous since New refused
// overlapping shapes). KeyOnly attributes live in keys alone and are
// parsed back on reads. Created, Updated, Version and TTL are kept by the
// package. Rules (Required, Enum, Bounds, Check) are checked on every
// write, before any request; so are keys (an empty part, a delimiter inside a value) and the
// item's size: one over DynamoDB's 400 KB is refused with
// table.ErrItemTooLarge unless attributes declared with Offload can move
// to the registry's blob store. Offloading writes the blob store first and
// DynamoDB second (blobstore.Offloader), so no item points at a missing
// object; reads restore the attributes. Every refusal is a
// *table.InputError, and nothing is sent.
//
// # Index keys that follow their attributes
//
// An index key built by a template from attributes (ElectroDB's "watch")
// follows them on every write: Create, Put, BatchPut and TxPut build it
// from the whole value; an update (Patch, Update, their transaction
// actions) rebuilds each index key attribute whose template reads an
// attribute it sets — Set values, and the ones the entity keeps: Updated
// (now) and Version (known with IfVersion) — without reading the item,
// when it knows every attribute of that template (the table key's fields
// it always knows). When it does not (it sets priority of a key
// "P#{priority}#{status}", or Adds to the version without IfVersion), it
// is refused before sending, with a *table.InputError naming the missing
// attributes. Keys built from Created stay as they are (an Update that
// creates the item builds them with if_not_exists); an Upsert writes every
// index key from v but those, and refuses a key built from the Version.
// Updated and Version are the entity's: an update cannot set them, and
// the index follows them without the caller.
//
// # Index keys on updates: both or neither
//
// A Put writes both keys of an index, or, for a Sparse index of which an
// attribute is unset, neither. Every update (Update, Patch, their
// transaction actions, Upsert) stores the index keys that a Put of the
// item as it is after the update would store: an Update that creates the
// item writes exactly a Create's keys, and one over an existing item keeps
// them consistent with its attributes; an item taken out of an index
// (LeaveIndex) stays out until a write sets the index's keys both. One
// function decides it (indexWrite): the keys of one index are written
// together, and when an update writes one key (it sets an attribute of it,
// Updated included, or creates the item) and cannot build the other (it
// does not set the attributes it is built from, say team of a key
// "TEAM#{team}" when it sets lane of "LANE#{lane}"), the stored item
// decides, and the update's condition says which item it expects: one in
// the index (it has the other key: the first guess), one out of it
// (neither key is written, and a stray one is removed), or none (a Sparse
// index: no key, as Put of unset attributes; otherwise both keys, the
// other built from the zero values a created item has: P#0000 from a
// number, while an empty string or time is refused, as Put refuses it).
// Run sends the update once more when the refused item belies the guess
// (one more UpdateItem, only then); a transaction's action cannot, and is
// refused. Where no write is right without the attributes the update does
// not set — it would create an item Put refuses, it would bring an item
// into a Sparse index with a key built from attributes it does not know,
// or, in a transaction, the item is not in the index — it is refused with
// ErrIndexKey inside a *table.InputError naming those attributes, and
// nothing is written: set them too (or LeaveIndex). An Upsert builds every
// key from v, as Put; an attribute index keys are built from that v leaves
// out (omitempty) would stay as stored, so the Upsert expects it unset and
// is refused with ErrIndexKey naming it otherwise. Own-field keys (the key
// is the attribute itself) follow their attribute and are not concerned.
//
// # Rules on updates
//
// An update checks the values it sets (Set, SetIfNotExists) against the
// rules before sending, and a Remove of a Required attribute. Where only
// DynamoDB knows the result — an Add to the stored number, an Append to
// the stored list — the rule goes into the request's condition: Add(n)
// under Bounds(min, max) needs the stored value in [min-n, max-n] (absent
// counting as 0), Append of k elements under a length bound needs
// size(list) in [min-k, max-k]; an unsigned field never goes below 0. A
// zero result is unset, as a zero value is for every rule: only Required
// refuses it. A refusal is told apart from the caller's conditions by
// checking the rule again on the item DynamoDB returns with it, and is a
// *table.Error whose Err is the rule's *table.InputError (ErrValidation,
// naming the attribute and the value it would have had); nothing is
// written. An Update that may create its item must set every Required
// attribute (else, on a missing item, ErrValidation names them), so that
// the item it creates meets the rules as a created one does; and an
// entity with a Check (a rule over the whole value, which an update does
// not see) is changed by Get and Put, not by updates.
//
// # Expiry
//
// An entity declared with TTL expires by DynamoDB's rule, said once
// (table.Expired) and used on every path: an item whose TTL attribute is a
// Number from 1 to now (Unix seconds) has expired; absent, 0 or not a
// number, it never expires. DynamoDB deletes expired items days late, so
// the package treats them as gone itself: reads (Get, List, Items,
// collections, BatchGet, FromChange) leave them out, Patch, Delete and
// versioned writes answer table.ErrNotFound, and Create, TxCreate, a Put or
// TxPut of version 0 write over them. An Update or Upsert over an expired
// item starts afresh, as a Create over it does: it deletes the expired item
// — conditional on it still being expired, so a live item written
// meanwhile is updated, not lost — and writes again, keeping none of the
// expired item's attributes. A caller's condition (If) on a write that may
// create (Create, Put, Update, Upsert) meets no item where an expired one is
// stored, as it will once DynamoDB has deleted it: such a write is refused
// over the expired item, clears it and tries again. A transaction's update action cannot delete
// first: over an expired item the transaction is refused
// (table.ErrConditionFailed). Declare the field without omitempty when 0
// must be stored; with omitempty 0 is left out, which means the same.
//
// # Layouts fixed by others
//
// A store whose layout was written down before it (a seed) declares it as
// it is: NoTypeAttribute (no attribute is added), keys that are the item's
// own attributes ("{jobId}", a number sort key "{createdAt}"), KeyOnly ids,
// Extra for attributes the struct does not know (kept and written back, so
// a migration loses nothing), OffloadWith for a blob layout of its own, and
// NoSpans when the store starts a span per call itself. pipeline and jobs
// are declared this way (their schema.go), their stored items unchanged;
// tasks too, on its seed's own type attribute (TypeAttribute("type")), its
// status-dependent index keys as attributes of the item, its transactions
// entity's, and Action.AddTo for the one that is its caller's (SubmitTx).
//
// # Renaming an attribute
//
// RenameAttribute(from, to) is the middle of a rename without downtime:
// every write of from writes to as well, with the same value (Create,
// Put, batches, transactions, and each update clause: a Set, an Add or an
// Append gives to what from will hold, computed from from's value before
// the update, so an item written before the rename gets to right), and
// every read takes to first, falling back to from; to is not an extra.
// Conditions keep naming from. jobs' Options.Renames are declared so.
//
// # Errors
//
// The writes fail with table's sentinels, as the stores' do: Create with
// table.ErrAlreadyExists, Delete and Patch with table.ErrNotFound, a Put
// or update that lost an optimistic race with ErrVersionConflict, a
// caller's condition with table.ErrConditionFailed (which the first three
// also match). The errors are *table.Error values naming the table and the
// key, and wrapping the SDK's error. Delete(ctx, key, Unchecked()) drops the
// existence condition and reports instead, in its deleted result, whether a
// live item was there.
//
// A transaction's refusals are told apart by the actions themselves: keep
// the Action values given to Transact and ask its *TxError about each
// (txErr.Err(emailAction) is table.ErrAlreadyExists when the email was
// taken, nil when that action was not refused), rather than by position.
//
// # Reading in a transaction
//
// TransactGet reads items of one or several entities as one serializable
// snapshot (TransactGetItems: up to 100 items, no write landing between
// two of the reads, which BatchGet does not promise):
//
//	album, photo := albums.TxGet(Album{ID: "a1"}), photos.TxGet(Photo{AlbumID: "a1", ID: "p1"})
//	err := entity.TransactGet(ctx, album, photo)
//	a, err := album.Value() // an Album, or this read's own error
//
// Each read means what Get means (a missing item, and one past its TTL
// that DynamoDB has not deleted, is table.ErrNotFound; another entity's
// item is ErrUnknownItem; offloaded attributes are restored); TransactGet
// fills every read and returns the first read's error. The reads go to
// one table (entities of registries on that table); reads across tables
// are not yet there.
//
// # Reading
//
// Every read takes ReadOptions (ListOptions is the same type), so one
// option means one thing whichever read it is given to: Consistent() is a
// strongly consistent Get, BatchGet or List (of the table or a local
// secondary index). A read refuses, before any request, an option it
// cannot honour (ByIndex or Limit on a Get, Consistent on a global
// secondary index, which DynamoDB refuses).
//
// # Counting
//
// Count counts what List would return from a partition (Select COUNT):
// the entity's own items, by the type attribute, and the live ones, as
// DynamoDB's filter, since no item comes back for the package to judge.
// Without a type attribute a key's shape, which tells entities apart, is
// no filter DynamoDB applies, so Count there is for an entity alone in its
// registry. What a count costs: the read units of every item the key
// condition reaches (4 KB a unit, half for an eventually consistent read),
// as a Query returning them; the entity's filter, the TTL filter and
// Where's change nothing of that (DynamoDB bills what it reads before it
// filters). Only the bytes sent back shrink, to a number.
//
// # Reading part of an item
//
// GetAs reads only the attributes a smaller struct names, into that
// struct: entity.GetAs[AlbumTitle](ctx, albums, Album{ID: "a1"}); ListAs
// lists so, with List's meanings (entity filter, TTL, tie-break, cursors). It is a
// type of its own rather than a T with fields left zero, because a T
// half-filled would pass for the whole item: Put it back and the
// attributes not read are erased; check it and a Required rule sees an
// empty field. DynamoDB charges the whole item's read units either way:
// a projection saves bandwidth and decoding, not capacity.
//
// # Reading several entities
//
// A Collection reads entities sharing a partition with one Query (an
// album, its photos and its shares) and returns each item as a value of
// its entity's type, in sort key order (a total order: on an index, ties
// are broken by the table key, partition then sort key). Registry.Decode
// does the same for one item (a change record from package changes, a raw
// read), and Registry.Identify names the entity of an item (tablekit
// inspect groups a partition with it). Code that decodes items without a
// DynamoDB client (a package function reading a change record) declares
// its entities on an Offline registry: the same declarations decode and
// build keys, and every call that would send a request fails with
// ErrOffline.
//
// Which entity an item is is decided by one test on every read (List,
// Items, collections, Get, BatchGet, Decode, FromChange, Identify): the
// type attribute when the item carries one, else the shape of its table
// key. A photo under PHOTO#p1 and its tags under PHOTO#p1#TAG#snow share a
// partition and a prefix; a read of photos returns photos only, and
// Decode of an item that is not the entity's (an empty one included) is
// ErrUnknownItem, never a zero value.
//
// # Time
//
// The registry's clock stamps Created and Updated, sets TTLs and decides
// what has expired. Unless Clock says otherwise it is table.ClockOf the
// table's API: the fake's time on dynamotest, so a test moves one clock
// (db.Advance) and passes it nowhere (changes consumers and the blob
// offloader's orphan sweep read it the same way); time.Now on AWS.
//
// # Access patterns
//
// Every call sent to DynamoDB is recorded by operation, entity and index,
// whatever DynamoDB answered: a Get of a missing item, a write refused by
// its condition or a version, a canceled transaction count as much as a
// successful call, since the policy must allow them; a call refused before
// any request (bad input, a rule) is not recorded. The DeleteItem a write
// sends to clear an item past its TTL that DynamoDB has not yet removed is
// the pattern "<entity> delete expired". Registry.Patterns turns what was
// called into access.Pattern values, with the item sizes seen, so datamodel
// and iam derive the data-model document, the costs and the least-privilege
// policy of a service's own table from what its code does; rates come from
// datamodel.WithRates.
//
// # Beside ElectroDB and dynamodb-toolbox
//
//	ElectroDB / dynamodb-toolbox            entity
//	--------------------------------------  ---------------------------------------------------------
//	schema of attributes, types, required   the Go struct and its dynamodbav tags; Required, Enum,
//	  enum, validate, default                 Bounds, Check; defaults are Go zero values, or set them
//	                                          before Create (no implicit defaults: a zero value is
//	                                          what Go code sees)
//	composite keys (pk/sk from attributes)  Key and Index templates (package keys): escaping by
//	                                          refusal, zero-padded numbers, sortable times, Prefix
//	entity name / version attributes        the registry's type attribute (NoTypeAttribute for seed
//	  (__edb_e__, _et)                        layouts, told apart by key shape); no model version:
//	                                          a layout change is a migration (see jobs Backfill)
//	timestamps (created/updated)            Timestamps: time.Time, a string layout or Unix ms
//	optimistic locking (toolbox: no;        Version: Put compares, updates IfVersion;
//	  ElectroDB: watch/where conditions)      ErrVersionConflict
//	TTL                                     TTL(attr, after): absent or 0 never expires, as in
//	                                          DynamoDB; an expired item is gone for every read,
//	                                          condition and write before DynamoDB deletes it (an
//	                                          Update or Upsert over it starts afresh)
//	create / get / put / patch / upsert /   Create, Get, Put, Patch, Upsert, Delete, Update: the same
//	  delete / remove / update                meanings; Delete is conditional on existence (Remove)
//	update set/add/remove/append/subtract/  Update: Set, Add (negative n subtracts), Remove, Append,
//	  data/if_not_exists                      SetIfNotExists; typed against the struct, rules applied
//	where / condition builders              If(expression.ConditionBuilder): the SDK's own builder
//	query by index with sort key operators  List / Items with ByIndex and SortBeginsWith, SortBetween,
//	  (begins, between, gt, gte, lt, lte)     SortLess...; values in template order; Count (Select
//	                                          COUNT) with List's meanings as DynamoDB's filter
//	pagination cursors                      table's HMAC-signed cursors, bound to the query
//	collections (ElectroDB)                 Collection over a shared partition, typed items, total
//	                                          order
//	batchGet / batchWrite                   BatchGet, BatchPut, BatchDelete: chunked, retried with
//	                                          backoff until done (table), never dropping an item
//	transactions (write / get)              Transact with TxCreate, TxPut, TxDelete, TxCheck and an
//	                                          update's Action, across entities and tables; a refusal
//	                                          is TxError.Reason(action) / Err(action). TransactGet
//	                                          with TxGet: up to 100 items of several entities as one
//	                                          snapshot, each decoded into its type with Get's
//	                                          meanings, each read its own not-found; one table per
//	                                          read transaction (across tables: not yet, as table's
//	                                          GetTx reads one); BatchGet reads without isolation
//	parse (ElectroDB: items to entities)    Registry.Decode, Collection; changes via changes.Consumer;
//	                                          without a client: an Offline registry
//	attribute padding / casing / watch /    padding is keys' {n:0Nd}; casing per key part,
//	  computed attributes                     {email:lower} / {code:upper}, applied by every path
//	                                          that builds the key (ElectroDB cases whole keys; here
//	                                          a part, and the attribute keeps its spelling); watch:
//	                                          an index key built from an attribute a write sets
//	                                          (Updated, Version, the caller's) is rebuilt by that
//	                                          write, and one it cannot rebuild is refused naming
//	                                          what is missing; an index's keys are written both
//	                                          or neither, as Put writes them; no computed
//	                                          attributes: compute in Go before the write
//	projections (read named attributes)     GetAs[P](ctx, e, key): the attributes of P, a struct of
//	                                          some of T's, decoded into a P, so a half-filled T never
//	                                          passes for the item; Get's meanings kept (keys, type
//	                                          attribute and TTL are read too). ListAs[P] is List so
//	                                          projected: the same items, order and cursors (index
//	                                          keys, type attribute and TTL read too)
//	local secondary indexes                 LocalIndex(name, sortTemplate): the partition is the
//	                                          table's; built, followed and listed as a GSI is, and
//	                                          read Consistent if asked (refused on a GSI); table's
//	                                          Schema creates it (Index.Local) with the table, the only
//	                                          time DynamoDB can, and caps a partition at 10 GB
//	TypeScript type inference               Go generics: Entity[T] takes and returns T
//	(neither has) in-memory DynamoDB,       dynamotest (tests), blob offload with no dangling
//	  large-attribute offload, generated      pointer, recorded access patterns for datamodel and iam,
//	  IAM policy and cost model               OpenTelemetry spans per call (table.Start)
//
// Not carried over, and why: ElectroDB's "scan" on an entity (a Scan reads
// the whole table; table.ScanAll is there for maintenance), its
// attribute-level "hidden"/"readOnly" flags (Go has unexported fields and
// the update refuses key, Created, Updated and Version attributes), and
// dynamodb-toolbox's per-attribute transforms (an attributevalue
// Marshaler on the field's type does that in Go).
package entity
