package dynamotest_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

func TestTransactionAppliesAllWrites(t *testing.T) {
	db := newDB(t, simple, numbered)
	put(t, db, "simple", item{"pk": S("acct"), "sk": S("a"), "balance": N("10")})
	put(t, db, "simple", item{"pk": S("acct"), "sk": S("gone")})
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String("simple"), Key: item{"pk": S("acct"), "sk": S("a")},
			UpdateExpression: aws.String("SET balance = balance - :v"), ConditionExpression: aws.String("balance >= :v"),
			ExpressionAttributeValues: item{":v": N("4")}}},
		{Put: &types.Put{TableName: aws.String("numbered"), Item: item{"pk": S("log"), "n": N("1")}}},
		{Delete: &types.Delete{TableName: aws.String("simple"), Key: item{"pk": S("acct"), "sk": S("gone")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("simple"), Key: item{"pk": S("acct"), "sk": S("other")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")}},
	}})
	require.NoError(t, err)
	assert.Equal(t, "6", num(t, get(t, db, "simple", item{"pk": S("acct"), "sk": S("a")}), "balance"))
	assert.NotNil(t, get(t, db, "numbered", item{"pk": S("log"), "n": N("1")}))
	assert.Nil(t, get(t, db, "simple", item{"pk": S("acct"), "sk": S("gone")}))
}

func TestTransactionCanceledChangesNothing(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "v": N("1")})
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("2")}}},
		{Update: &types.Update{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")},
			UpdateExpression: aws.String("SET v = :two"), ConditionExpression: aws.String("v = :zero"),
			ExpressionAttributeValues:           item{":two": N("2"), ":zero": N("0")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{Update: &types.Update{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("3")},
			UpdateExpression: aws.String("SET v = v + :one"), ExpressionAttributeValues: item{":one": N("1")}}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAsf(t, err, &tce, "want TransactionCanceledException, got %v", err)
	require.Lenf(t, tce.CancellationReasons, 3, "reasons %+v", tce.CancellationReasons)
	codes := strings.Join([]string{aws.ToString(tce.CancellationReasons[0].Code), aws.ToString(tce.CancellationReasons[1].Code), aws.ToString(tce.CancellationReasons[2].Code)}, " ")
	assert.EqualValuesf(t, "None ConditionalCheckFailed ValidationError", codes, "codes %s", codes)
	assert.EqualValuesf(t, "1", num(t, tce.CancellationReasons[1].Item, "v"), "failed action's item %v", tce.CancellationReasons[1].Item)
	assert.EqualValuesf(t, "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, ValidationError]", aws.ToString(tce.Message), "message %q", aws.ToString(tce.Message))
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("2")}), "canceled transaction wrote its put")
}

func TestTransactionRejects(t *testing.T) {
	db := newDB(t, simple)
	key := item{"pk": S("a"), "sk": S("1")}
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("simple"), Item: key}},
		{Delete: &types.Delete{TableName: aws.String("simple"), Key: key}},
	}})
	wantValidation(t, err, "Transaction request cannot include multiple operations on one item")

	var many []types.TransactWriteItem
	for i := 0; i < 101; i++ {
		many = append(many, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S(fmt.Sprint(i))}}})
	}
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: many})
	wantValidation(t, err, "")
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: many[:100]})
	assert.NoError(t, err, "100 actions")

	_, err = db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("simple"), Key: key}},
		{Get: &types.Get{TableName: aws.String("simple"), Key: key}},
	}})
	wantValidation(t, err, "Transaction request cannot include multiple operations on one item")
}

func TestTransactGetItemsReadsInOrder(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "v": S("one")})
	out, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("missing")}}},
		{Get: &types.Get{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}, ProjectionExpression: aws.String("v")}},
	}})
	require.NoError(t, err)
	assert.Falsef(t, out.Responses[0].Item != nil || len(out.Responses[1].Item) != 1 || str(t, out.Responses[1].Item, "v") != "one", "responses %+v", out.Responses)
}

func TestClientRequestTokenMakesTransactionIdempotent(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	_, err := db.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	put(t, db, "simple", item{"pk": S("c"), "sk": S("1"), "n": N("0")})
	incr := func(token string, by string) error {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token),
			TransactItems: []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String("simple"),
				Key: item{"pk": S("c"), "sk": S("1")}, UpdateExpression: aws.String("ADD n :v"), ExpressionAttributeValues: item{":v": N(by)}}}}})
		return err
	}
	for i := 0; i < 3; i++ {
		err := incr("tok-1", "1")
		require.NoError(t, err)
	}
	n := num(t, get(t, db, "simple", item{"pk": S("c"), "sk": S("1")}), "n")
	require.EqualValuesf(t, "1", n, "replayed token applied again: n = %s", n)
	var mismatch *types.IdempotentParameterMismatchException
	err = incr("tok-1", "2")
	require.ErrorAsf(t, err, &mismatch, "want IdempotentParameterMismatchException, got %v", err)
	// Ten minutes later the token is forgotten.
	db.Advance(10 * time.Minute)
	err = incr("tok-1", "1")
	require.NoError(t, err)
	n = num(t, get(t, db, "simple", item{"pk": S("c"), "sk": S("1")}), "n")
	assert.EqualValuesf(t, "2", n, "n = %s after the window, want 2", n)
}

func TestTransactionItemErrorsAreCancellationReasons(t *testing.T) {
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1")})
	// Updating a key attribute cancels with a ValidationError reason.
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("2")}}},
		{Update: &types.Update{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")},
			UpdateExpression: aws.String("SET sk = :s"), ExpressionAttributeValues: item{":s": S("3")}}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.CancellationReasons, 2)
	assert.Equal(t, "None", aws.ToString(tce.CancellationReasons[0].Code))
	assert.Equal(t, "ValidationError", aws.ToString(tce.CancellationReasons[1].Code))
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("2")}), "canceled transaction wrote its put")
	// So does a TransactGetItems key that does not match the schema.
	_, err = db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("simple"), Key: item{"pk": S("a")}}}}})
	require.Falsef(t, !errors.As(err, &tce) || aws.ToString(tce.CancellationReasons[0].Code) != "ValidationError", "want a ValidationError reason, got %v", err)
}

func TestTransactionOverFourMegabytesIsRejected(t *testing.T) {
	db := newDB(t, simple)
	var actions []types.TransactWriteItem
	for i := 0; i < 11; i++ {
		actions = append(actions, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("simple"), Item: sized(fmt.Sprint(i), 390*1024)}})
	}
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: actions})
	wantValidation(t, err, "Transaction request cannot be larger than 4 MB")
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: actions[:10]})
	assert.NoError(t, err, "3.9 MB transaction")
}

// A canceled call leaves no trace of its token, so the caller's retry with
// the same token applies once the condition holds; and racing calls with one
// token apply exactly once, the others replaying it or being told it is in
// progress (DynamoDB's TransactionInProgressException).
func TestClientRequestTokenOfCanceledCallCanBeRetriedAndRacesApplyOnce(t *testing.T) {
	db := newDB(t, simple)
	key := item{"pk": S("c"), "sk": S("1")}
	incr := func(token string) error {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token),
			TransactItems: []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String("simple"), Key: key,
				UpdateExpression: aws.String("ADD n :v"), ConditionExpression: aws.String("attribute_exists(pk)"),
				ExpressionAttributeValues: item{":v": N("1")}}}}})
		return err
	}
	var tce *types.TransactionCanceledException
	err := incr("retry-me")
	require.ErrorAsf(t, err, &tce, "want a cancellation while the item is missing, got %v", err)
	put(t, db, "simple", item{"pk": S("c"), "sk": S("1"), "n": N("0")})
	err = incr("retry-me")
	require.NoError(t, err, "retry with the canceled call's token")

	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- incr("raced")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		var busy *types.TransactionInProgressException
		assert.Falsef(t, err != nil && !errors.As(err, &busy), "racing call with one token: %v", err)
	}
	n := num(t, get(t, db, "simple", key), "n")
	assert.EqualValuesf(t, "2", n, "n = %s, want 2: the canceled-then-retried call once and the raced token once", n)
}
