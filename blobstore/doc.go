// Package blobstore stores large bodies (job logs, reports, pipeline input
// and output files) beside the DynamoDB records that describe them, and
// splits records that are too large for DynamoDB between the two.
//
// # Stores
//
// A Store is a flat namespace of objects addressed by string keys: Put
// (with content type and metadata), Get (streaming, whole or a byte
// range), Head, Delete, List by prefix as an iterator, and presigned GET
// and PUT URLs. Three implementations share one contract, which the
// conformance suite in blobstore/blobtest checks for each of them:
//
//   - S3, in the driver package blobstore/s3blob (s3blob.New): Amazon S3
//     or any server that speaks its API (s3rver, MinIO, gofakes3). It is a
//     package of its own, as in gocloud.dev, so importing blobstore, or a
//     store built on it, does not build the S3 client: only a program that
//     imports s3blob does. Other backends plug in the same way: a Driver
//     behind NewDriverStore gets the checks below.
//   - Memory (NewMemory): in memory, for tests and throwaway runs.
//   - Dir (NewDir): a local directory, the default for running the examples
//     on disk; objects are plain files, written atomically.
//
// Open picks one from a URL (mem://, file:///dir; s3blob.Open adds
// s3://bucket?region=...), so a service switches backends by configuration,
// not code.
//
// What the implementations agree on:
//
//   - One key rule, ValidateKey, checked once in front of every backend
//     before any I/O: non-empty valid UTF-8 of at most 1024 bytes (S3's
//     limits), no control characters, no backslash, and a relative path
//     (no leading or trailing "/", no empty, "." or ".." segment, no
//     segment over 255 bytes, not under ".blobstore"). "../escape",
//     "/etc/passwd" and NUL are refused by Memory and S3 exactly as by
//     Dir. A bad key is a *KeyError wrapping ErrInvalidKey. The one
//     difference left is about contents, not keys: Dir cannot hold both
//     "a" and "a/b".
//   - Bad arguments (a nil context or body, a bad option) are an
//     *InputError wrapping ErrInvalidInput, never a panic; so are the
//     constructors' (s3blob.New with a nil client or a bucket name S3
//     refuses, NewOffloader with a nil store). A nil option function is skipped.
//   - A missing object is ErrNotFound from Get and Head; Delete of a missing
//     object succeeds.
//   - Put replaces an object atomically; a Put that fails (a broken body, a
//     canceled context, a body that does not match PutOptions.Size) leaves
//     the previous object, or none.
//   - List yields keys in byte order with size, ETag and modification time;
//     content type and metadata come from Head (S3 does not list them).
//   - Metadata keys are lower-cased, metadata is printable ASCII within
//     S3's 2 KB, and an empty content type is stored as
//     application/octet-stream.
//   - Presigned URLs live at most seven days (SigV4's limit, applied
//     everywhere). A presigned PUT must send the headers PutHeaders gives:
//     content type and metadata are signed, and so is the body's length
//     when PutOptions.Size is set (S3: a signed Content-Length header, so
//     S3 answers 403 to another length; Memory and Dir: the length is in
//     the signed URL and checked when serving). Give the size whenever it
//     is known; a URL without one accepts a body of any length. Memory and
//     Dir have no HTTP address of their own: they sign URLs once
//     EnablePresign has told them where their ServeHTTP is mounted, and
//     return ErrUnsupported before.
//
// # Keys built from ids
//
// A key joined from ids ("pipelines/" + pipelineID + "/" + ...) is not a
// function of them one-to-one: pipeline "a" with execution "y/1/exections/z"
// and pipeline "a/1/exections/y" with execution "z" land on one object.
// KeyTemplate is the one place keys are built from ids: a pattern in the
// seeds' notation, "pipelines/{pipelineId}/{version}/exections/{executionId}/output.txt",
// whose literals are written as they stand and whose values are escaped by
// EscapeSegment ('/', '%', "..", control bytes and non-ASCII become %XX).
// Distinct ids build distinct keys, Parse reads the ids back, Prefix gives
// the List prefix of one id's objects, and ids of the characters A-Z a-z
// 0-9 '_' '-' '.' build exactly the seeds' keys, so existing buckets keep
// their objects. What cannot be written (an empty id, a segment over 255
// bytes, a key over 1024) is a *KeyError before any I/O.
//
// # Hybrid storage
//
// DynamoDB refuses items over 400 KB and charges reads per 4 KB, so the journey
// and pipeline designs (docs/systems/journey.md, pipeline.md) keep logs, reports and files in S3 and only their location
// in DynamoDB. Offloader does this once for every package: given an item
// and a threshold (100 KB by default), it moves the largest attributes to
// the store under keys derived from the item and their content, and leaves
// a small pointer map in each one's place (its layout is documented on
// Offloader). Restore follows the pointers and checks each object's
// SHA-256, so a record reads back identical, whatever the attribute's type.
//
// Offloader.Put writes the objects first and the item second, so an item
// never points at a missing object. If the item's write fails, the objects
// stay behind as orphans: Orphans lists the objects no item points at and
// RemoveOrphans deletes them.
package blobstore
