// Package connect opens the DynamoDB a program talks to, one way for every
// program: the tablekit CLI, the examples and services.
//
// There are three places to be:
//
//	conn, err := connect.Open(ctx)                                        // AWS: the default configuration chain
//	conn, err := connect.Open(ctx, connect.Endpoint("http://127.0.0.1:8000")) // DynamoDB Local, go run ./cmd/dynamotest
//	conn, err := connect.Open(ctx, connect.InMemory())                    // dynamotest's fake, in this process
//
//	store, err := jobs.NewStore(conn.DB, blobs)
//
// Conn.DB serves the stores, Conn.Streams the change-feed consumers
// (package changes), and Conn.Config (AWS and endpoints) builds any other
// client the program needs, S3 included (blobstore/s3blob.NewClient takes
// the same settings).
//
// What it does for each:
//
//   - AWS: the SDK's default chain (environment, shared config and
//     credentials files, SSO, container and instance roles), with the SDK's
//     standard retries. A missing region or missing credentials fail Open
//     with ErrNoRegion or ErrNoCredentials, before any request, instead of
//     on the first call with the SDK's text.
//   - An endpoint: the same chain without the EC2 instance metadata service
//     (an emulator never takes instance credentials, and probing for them
//     is slow and warns off EC2); region us-east-1 and placeholder
//     credentials where the chain has none; the SDK's retries; and no
//     response-checksum validation, which DynamoDB Local's error responses
//     fail (the SDK would warn on every refused conditional write).
//   - In memory: dynamotest.New(), which Conn.Fake also holds so a program
//     can move its clock. Nothing outlives the process.
//
// The SDK's own log messages are dropped unless Logger is set: they are
// warnings an operator cannot act on, printed on every command.
//
// connect is a package of its own so that importing a store builds neither
// the SDK's configuration loader nor the clients it brings (STS, SSO,
// instance metadata): only programs that open a connection pay for them.
package connect
