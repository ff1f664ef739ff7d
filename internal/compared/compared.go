// Package compared gives integration tests a DynamoDB Local that is
// checked against the fake: every call goes to DynamoDB Local and to a
// fresh in-memory dynamotest.DB through dynamotest.Compare, the test sees
// DynamoDB Local's answers, and when the test ends it fails on every
// difference that is not one of DynamoDB Local's documented deviations
// (dynamotest.LocalDeviations). So each store's integration tests, run in
// CI against DynamoDB Local, are also a differential test of the fake over
// the store's own calls.
//
// What keeps it from failing on differences that are not the fake's:
//   - calls are serialized (dynamotest.Compare), so racing goroutines
//     reach both stores in the same order and pick the same winners;
//   - the fake runs strongly consistent, whatever TABLEKIT_DYNAMOTEST_EVENTUAL
//     says: DynamoDB Local is;
//   - an item whose TTL has passed on the wall clock is left out of the
//     comparison (DynamoDB Local deletes expired items whenever its TTL
//     job runs; the fake when its clock is moved);
//   - ids and timestamps come from the store under test, which sends the
//     same request to both.
//
// It lives apart from internal/testenv because the fake's own tests import
// testenv, and this package imports the fake.
package compared

import (
	"testing"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
)

// DynamoDB returns the DynamoDB Local at TABLEKIT_DYNAMODB_ENDPOINT, compared
// call by call with a fresh fake (or skips the test when the variable is
// unset, as testenv.DynamoDB does). When the test ends it fails the test
// with every unexpected difference, and logs how many documented
// deviations of DynamoDB Local it met.
func DynamoDB(t testing.TB) *dynamotest.Comparison {
	t.Helper()
	c := dynamotest.Compare(testenv.DynamoDB(t), dynamotest.New(dynamotest.EventualConsistency(-1)),
		dynamotest.KnownDeviations(dynamotest.LocalDeviations()...))
	t.Cleanup(func() { Check(t, c) })
	return c
}

// Check fails t with every difference of c that no documented deviation
// of DynamoDB Local explains, and logs the ones that are.
func Check(t testing.TB, c *dynamotest.Comparison) {
	t.Helper()
	all := c.Differences()
	if len(all) == 0 {
		return
	}
	if err := c.Err(); err != nil {
		t.Errorf("the fake answered unlike DynamoDB Local (fix the fake, or document the difference as a "+
			"deviation of Local in dynamotest.LocalDeviations with the API reference's word):\n%v", err)
	}
	for _, d := range all {
		if d.Deviation != "" {
			t.Logf("documented deviation of DynamoDB Local: %v", d)
		}
	}
}
