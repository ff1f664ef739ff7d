// Package s3blob is blobstore's S3 driver: a blobstore.Store in one S3
// bucket (New), the S3 client that reaches AWS or an S3-compatible server
// (NewClient), Open for s3:// URLs, and the bucket's lifecycle rules
// (Store.ApplyLifecycle).
//
// It is a package of its own, as gocloud.dev/blob keeps s3blob apart from
// the portable blob package: the stores (jobs, journey, pipeline, tasks)
// and blobstore take a blobstore.Store, so a service that keeps its blobs
// in memory or on disk, and a test on the fake, never build the S3 client,
// the upload manager or the SDK's configuration loader. Only a program
// that imports s3blob does.
//
//	client, err := s3blob.NewClient(ctx)                 // AWS, default chain
//	files, err := s3blob.New(client, "my-bucket")
//	store, err := pipeline.NewStore(db, files)
//
//	files, err := s3blob.Open(ctx, "s3://my-bucket?region=eu-west-1")
//
// Put streams large bodies as multipart uploads through the SDK's upload
// manager (feature/s3/manager); presigned URLs are SigV4 URLs from
// s3.NewPresignClient. The argument checks and the contract are
// blobstore's (blobstore.DriverStore, the conformance suite in
// blobstore/blobtest), the same as Memory's and Dir's.
//
// feature/s3/manager is deprecated in favour of feature/s3/transfermanager,
// which the module proxy serves, but only as v0.x (v0.5.5 when this was
// written): a pre-release whose API still changes between minor versions,
// which a library cannot pass on to every importer's build. It would also
// raise the SDK's core modules for everyone (v0.5.5 needs aws-sdk-go-v2
// v1.47.8 and service/s3 v1.114.9), and its client takes no per-request
// s3.Options (the manager's ClientOptions, which carry PathStyle and the
// checksum settings s3rver needs), so each call would go through an
// adapter. The store moves when transfermanager reaches v1; the upload
// manager is used only inside Put, so the move changes no API.
package s3blob
