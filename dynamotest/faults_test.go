package dynamotest_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

func TestThrottleFailsTheNextCalls(t *testing.T) {
	db := newDB(t, simple)
	db.Inject(dynamotest.Throttle("PutItem", 2))
	it := item{"pk": S("a"), "sk": S("b")}
	var pte *types.ProvisionedThroughputExceededException
	for i := 0; i < 2; i++ {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: it})
		require.ErrorAsf(t, err, &pte, "call %d: want ProvisionedThroughputExceededException, got %v", i+1, err)
	}
	require.Nil(t, get(t, db, "simple", it), "a throttled put was applied")
	put(t, db, "simple", it) // the third call goes through
	assert.Falsef(t, db.Calls("PutItem") != 3 || db.CallsFor("PutItem", "simple") != 3 || db.CallsFor("PutItem", "other") != 0, "calls %d / %d", db.Calls("PutItem"), db.CallsFor("PutItem", "simple"))
}

func TestFailNthFailsOnlyThatCall(t *testing.T) {
	db := newDB(t, simple)
	boom := errors.New("boom")
	db.Inject(dynamotest.FailNth("GetItem", 3, boom))
	key := item{"pk": S("a"), "sk": S("b")}
	for i := 1; i <= 5; i++ {
		_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: key})
		assert.EqualValuesf(t, errors.Is(err, boom), (i == 3), "call %d: %v", i, err)
	}
}

func TestFaultsMatchTableAndClear(t *testing.T) {
	db := newDB(t, simple, numbered)
	db.Inject(dynamotest.Fault{Table: "numbered"}) // every operation on numbered, throttled
	put(t, db, "simple", item{"pk": S("a"), "sk": S("b")})
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("numbered"), Item: item{"pk": S("a"), "n": N("1")}})
	var pte *types.ProvisionedThroughputExceededException
	require.ErrorAsf(t, err, &pte, "want throttling on numbered, got %v", err)
	db.ClearFaults()
	put(t, db, "numbered", item{"pk": S("a"), "n": N("1")})
	db.ResetCalls()
	assert.EqualValues(t, 0, db.Calls("PutItem"), "ResetCalls kept counts")
}
