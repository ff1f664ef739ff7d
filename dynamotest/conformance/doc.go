// Package conformance is a table-driven suite that pins down how DynamoDB
// behaves, so that any implementation of table.API can be checked against
// it: the real service, Amazon's DynamoDB Local, and dynamotest's in-memory
// fake both in process and over HTTP.
//
// Each [Case] is data plus a small closure: the table it needs (a [Schema]),
// the items it starts with, the SDK calls it makes and what they must give
// back — the items and their order, whether a LastEvaluatedKey follows, the
// error's Go type and code, ReturnValues, CancellationReasons, and what the
// table holds afterwards. A write that fails must change nothing, and every
// failing write case checks that.
//
// DynamoDB Local is the reference the cases were developed against. A case
// that cannot run on some backend says why ([Case.Skip], [Case.Needs]) and is
// skipped there with that reason; a case that fails on the fake is a bug in
// the fake. Where DynamoDB Local departs from DynamoDB's API reference, the
// reason is one of dynamotest.LocalDeviations, which dynamotest.Compare uses
// too to count those departures apart from the fake's bugs.
//
// Running it: each backend gets a subtest named for it, so the log shows
// where a case ran (TestConformance/inprocess/query/..., /http/...,
// /dynamodblocal/...). newAPI is called once per case; cases run in
// parallel, each on tables of its own with unique names.
//
//	func TestConformance(t *testing.T) {
//		t.Run(conformance.InProcess, func(t *testing.T) {
//			conformance.Run(t, func(*testing.T) table.API { return dynamotest.New() },
//				conformance.WithBackend(conformance.InProcess))
//		})
//	}
//
// A backend whose API value also has Advance(time.Duration) runs the TTL
// expiry cases ([NeedsClock]); others skip them with the reason.
package conformance
