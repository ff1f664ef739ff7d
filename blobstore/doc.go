// Package blobstore stores large bodies (logs, reports, pipeline input and
// output files) beside the DynamoDB records that describe them.
//
// A Store is a flat namespace of objects addressed by string keys: Put,
// Get (whole or a byte range), Head, Delete, List by prefix, and presigned
// GET and PUT URLs. Three implementations share one contract, checked by
// the conformance suite in blobstore/blobtest:
//
//   - Memory: in memory, for tests and throwaway runs.
//   - Dir: a local directory, the default for running the examples on disk.
//   - S3: Amazon S3 or anything that speaks its API (s3rver, gofakes3).
//
// Every store refuses a bad key before any I/O with a *KeyError wrapping
// ErrInvalidKey, and reports a missing object as ErrNotFound.
package blobstore
