// Package iam generates and evaluates the AWS IAM policies tablekit's
// services run with.
//
// # Generating
//
// A service's runtime policy is derived from what its store declares: the
// table's Schema and the access patterns of its Patterns function (the
// declaration capacity planning reads), plus the buckets and key prefixes
// of its blob layout (package iam/policies has these for tablekit's
// stores). Runtime binds every statement to one environment's table, each
// index by name, in one region and account:
//
//	env := iam.Env{Region: "eu-west-1", Account: "123456789012"}
//	p, err := iam.Runtime(env, policies.Jobs("photoeditor-prod-jobs", "acme-results"))
//	os.WriteFile("runtime.json", p.JSON(), 0o644)
//
// gives, for the jobs table, its item actions on
// arn:aws:dynamodb:eu-west-1:123456789012:table/photoeditor-prod-jobs,
// Query on its two indexes by name, object actions on
// arn:aws:s3:::acme-results/jobs/photoeditor-prod-jobs/* and ListBucket
// with an s3:prefix condition on that prefix. Creating and changing tables
// The service's maintenance calls (patterns marked access.Pattern.Maintenance:
// a backfill's Scan, an import; objects' Maintenance actions: an orphan
// sweep's ListBucket and DeleteObject, an export's PutObject) are not in
// Runtime but in Operator, which adds them to the runtime grants for
// whoever runs them; ReadOnly is a dashboard's: the runtime patterns'
// reads alone (GetItem, Query, BatchGetItem) and GetObject/ListBucket. A
// bucket encrypted with a customer managed KMS key (Objects.KMSKeyID) adds
// the key actions S3 takes on the caller's behalf, through S3 only.
// Creating and changing tables
// (CreateTable, UpdateTable, the TTL and backup settings), the KMS actions
// a table's customer managed key needs (on that key's ARN, only through
// DynamoDB) and the lifecycle rules of the service's own buckets are in a
// separate policy, Admin, for a deployment role; a changes.Consumer gets
// StreamConsumer. An Env with a wildcard region or account is refused.
// The documents under docs/ (go run ./cmd/datamodel) use Placeholders,
// CloudFormation's ${AWS::Region} and ${AWS::AccountId}.
//
// # Evaluating
//
// Policy.Evaluate decides a Request (an action, a resource ARN and
// condition keys) as IAM decides an identity-based policy: an explicit
// Deny wins, then any Allow, else an implicit deny. Actions match
// case-insensitively and resources case-sensitively, both with the * and
// ? wildcards; conditions support StringEquals, StringNotEquals,
// StringLike and StringNotLike (enough for ListBucket's s3:prefix), and
// Bool (PartiQL's dynamodb:FullTableScan). Parse
// refuses what it does not implement (NotAction, NotResource, Principal,
// other operators), so a policy is never enforced more loosely than
// written.
//
// dynamotest.Enforce and blobstore.Enforce put the fake and the memory
// blob store behind a policy, answering what it does not allow as
// DynamoDB (AccessDeniedException, HTTP 400) and S3 (AccessDenied) do, with
// an *AccessDeniedError in AWS's wording. Package iam/policies' tests run
// every store's flows that way: zero denials under the store's runtime
// policy, every grant used, and calls outside it (another environment's
// table, another prefix, CreateTable, a Scan the store never does) denied.
package iam
