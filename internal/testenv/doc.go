// Package testenv connects tablekit's integration tests to the real services
// that .ci/run starts: DynamoDB Local and s3rver.
//
// The endpoints come from the environment:
//
//	TABLEKIT_DYNAMODB_ENDPOINT  e.g. http://127.0.0.1:8126 (DynamoDB Local, started with -sharedDb)
//	TABLEKIT_S3_ENDPOINT        e.g. http://127.0.0.1:8127 (s3rver)
//
// When a variable is unset the helper skips the test and says why, so
// `go test ./...` passes on a machine with neither Java nor Node. To run the
// integration tests locally:
//
//	source .ci/services
//	start_services
//	go test -count=1 -run 'Integration|Conformance' -v ./table/...
//	stop_services
//
// Tests share one DynamoDB Local and one s3rver, so every test takes its own
// table and bucket names from [TableName] and [Bucket]: names are unique per
// test and per run, and a rerun against long-lived services never meets the
// tables of an earlier run.
package testenv
