package dynamotest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// skewed is a store that answers like the fake it wraps except where a
// hook changes an answer: the planted differences Compare must find.
type skewed struct {
	table.API
	query      func(*dynamodb.QueryOutput)
	put        func(*dynamodb.PutItemInput) error // before the put; an error fails it unsent
	createFail bool
}

func (s *skewed) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := s.API.Query(ctx, in, o...)
	if err == nil && s.query != nil {
		s.query(out)
	}
	return out, err
}

func (s *skewed) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if s.put != nil {
		if err := s.put(in); err != nil {
			return nil, err
		}
	}
	return s.API.PutItem(ctx, in, o...)
}

func (s *skewed) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	if s.createFail {
		return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "planted"}
	}
	return s.API.CreateTable(ctx, in, o...)
}

// compared returns a Comparison of two fakes (the second wrapped by skew,
// when given) with the simple table created through it.
func compared(t *testing.T, skew *skewed, opts ...func(*dynamotest.CompareOptions)) *dynamotest.Comparison {
	t.Helper()
	var cand table.API = dynamotest.New()
	if skew != nil {
		skew.API = cand
		cand = skew
	}
	c := dynamotest.Compare(dynamotest.New(), cand, opts...)
	if skew == nil || !skew.createFail {
		_, err := c.CreateTable(ctx, simple.input())
		require.NoError(t, err)
	}
	return c
}

func putVia(t *testing.T, api table.API, it item) {
	t.Helper()
	_, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: it})
	require.NoError(t, err)
}

func queryA(api table.API, limit int32) (*dynamodb.QueryOutput, error) {
	in := &dynamodb.QueryInput{TableName: aws.String("simple"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": S("a")}}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	return api.Query(ctx, in)
}

func TestCompareOfTwoFakesFindsNoDifferenceOverEveryOperation(t *testing.T) {
	c := compared(t, nil)
	_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("simple"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	for i := range 5 {
		putVia(t, c, item{"pk": S("a"), "sk": S(fmt.Sprint(i)), "n": N("1.0"), "ss": &types.AttributeValueMemberSS{Value: []string{"y", "x"}}})
	}
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")},
		UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: item{":one": N("1")}, ReturnValues: types.ReturnValueAllNew})
	require.NoError(t, err)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1")},
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf, "the reference's error goes back to the caller")
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("4")}})
	require.NoError(t, err)
	page, err := queryA(c, 2)
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": {
		{PutRequest: &types.PutRequest{Item: item{"pk": S("b"), "sk": S("1")}}},
		{DeleteRequest: &types.DeleteRequest{Key: item{"pk": S("a"), "sk": S("0")}}},
	}}})
	require.NoError(t, err)
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"simple": {
		Keys: []map[string]types.AttributeValue{{"pk": S("b"), "sk": S("1")}, {"pk": S("a"), "sk": S("2")}}}}})
	require.NoError(t, err)
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("simple"), Item: item{"pk": S("c"), "sk": S("1")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("2")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("2")}}}}})
	require.NoError(t, err)
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	_, err = c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("missing"), Key: item{"pk": S("a")}})
	wantNotFound(t, err)
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)

	assert.Empty(t, c.Differences())
	assert.NoError(t, c.Err())
	assert.Equal(t, 20, c.Calls())
}

func TestCompareRecordsAnAnswerFieldThatDiffers(t *testing.T) {
	skew := &skewed{query: func(out *dynamodb.QueryOutput) {
		out.Items = out.Items[:len(out.Items)-1]
		out.Count--
	}}
	c := compared(t, skew)
	putVia(t, c, item{"pk": S("a"), "sk": S("1")})
	putVia(t, c, item{"pk": S("a"), "sk": S("2")})
	out, err := queryA(c, 0)
	require.NoError(t, err)
	assert.Len(t, out.Items, 2, "the caller gets the reference's answer")

	diffs := c.Differences()
	require.Len(t, diffs, 3, c.Report())
	byField := map[string]dynamotest.Difference{}
	for _, d := range diffs {
		assert.Equal(t, dynamotest.DiffAnswer, d.Class)
		assert.Equal(t, "Query", d.Op)
		assert.Equal(t, "simple", d.Table)
		assert.Equal(t, 4, d.Call)
		byField[d.Field] = d
	}
	assert.Equal(t, "2", byField["Items.length"].Reference)
	assert.Equal(t, "1", byField["Items.length"].Candidate)
	assert.Equal(t, `{"pk":{"S":"a"},"sk":{"S":"2"}}`, byField["Items[1]"].Reference)
	assert.Equal(t, "(none)", byField["Items[1]"].Candidate)
	assert.Equal(t, "2", byField["Count"].Reference)
	assert.Contains(t, diffs[0].String(), `"KeyConditionExpression":"pk = :p"`, "the request is shown")
	var de *dynamotest.DifferenceError
	require.ErrorAs(t, c.Err(), &de)
	assert.Len(t, de.Differences, 3)
}

func TestCompareRecordsAnErrorAndTheItemThatFollowsFromIt(t *testing.T) {
	skew := &skewed{put: func(in *dynamodb.PutItemInput) error {
		if in.ConditionExpression != nil {
			return &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
		}
		return nil
	}}
	c := compared(t, skew)
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1")},
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	require.NoError(t, err)

	diffs := c.Differences()
	require.Len(t, diffs, 2, c.Report())
	assert.Equal(t, dynamotest.DiffError, diffs[0].Class)
	assert.Equal(t, "ok", diffs[0].Reference)
	assert.Equal(t, "ConditionalCheckFailedException: The conditional request failed", diffs[0].Candidate)
	assert.Equal(t, dynamotest.DiffItem, diffs[1].Class)
	assert.Equal(t, `item {"pk":{"S":"a"},"sk":{"S":"1"}}`, diffs[1].Field)
	assert.Equal(t, `{"pk":{"S":"a"},"sk":{"S":"1"}}`, diffs[1].Reference)
	assert.Equal(t, "(none)", diffs[1].Candidate)
	assert.Equal(t, diffs[0].ID, diffs[1].Follows, "the missing item follows from the refused write")

	// The candidate was resynced: reading the item shows no difference.
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}})
	require.NoError(t, err)
	assert.Len(t, c.Differences(), 2, c.Report())
}

func TestCompareRecordsAnErrorMessageApartFromItsCode(t *testing.T) {
	skew := &skewed{put: func(in *dynamodb.PutItemInput) error {
		if _, ok := in.Item["bad"]; ok {
			return &smithy.GenericAPIError{Code: "ValidationException", Message: "other words"}
		}
		return nil
	}}
	c := compared(t, skew)
	// Both refuse it: a key attribute of the wrong type.
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": N("1"), "sk": S("1"), "bad": S("x")}})
	require.Error(t, err)
	diffs := c.Differences()
	require.Len(t, diffs, 1, c.Report())
	assert.Equal(t, dynamotest.DiffMessage, diffs[0].Class)
	assert.Equal(t, "ValidationException: other words", diffs[0].Candidate)
	assert.True(t, strings.HasPrefix(diffs[0].Reference, "ValidationException: One or more parameter values were invalid"), diffs[0].Reference)
}

func TestCompareRecordsErrorsOfDifferentCodes(t *testing.T) {
	skew := &skewed{put: func(in *dynamodb.PutItemInput) error {
		return &types.ProvisionedThroughputExceededException{Message: aws.String("planted")}
	}}
	c := compared(t, skew)
	// The reference refuses it too, as a ValidationException: a key of
	// the wrong type.
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": N("1"), "sk": S("1")}})
	require.Error(t, err)
	diffs := c.Differences()
	require.Len(t, diffs, 1, c.Report())
	assert.Equal(t, dynamotest.DiffError, diffs[0].Class)
	assert.Equal(t, "error", diffs[0].Field)
	assert.Equal(t, "ProvisionedThroughputExceededException: planted", diffs[0].Candidate)
}

func TestCompareRecordsAStoredItemThatDiffersAfterAnAnsweredWriteAndResyncs(t *testing.T) {
	var once sync.Once
	skew := &skewed{put: func(in *dynamodb.PutItemInput) error {
		once.Do(func() { in.Item["extra"] = S("x") }) // the candidate stores more than it was sent
		return nil
	}}
	c := compared(t, skew)
	putVia(t, c, item{"pk": S("a"), "sk": S("1")})
	diffs := c.Differences()
	require.Len(t, diffs, 1, c.Report())
	assert.Equal(t, dynamotest.DiffItem, diffs[0].Class)
	assert.Equal(t, `{"extra":{"S":"x"},"pk":{"S":"a"},"sk":{"S":"1"}}`, diffs[0].Candidate)
	assert.Zero(t, diffs[0].Follows)
	out, err := queryA(c, 0)
	require.NoError(t, err)
	require.Len(t, out.Items, 1)
	assert.Len(t, c.Differences(), 1, "resynced: the query sees the same item on both")
}

func TestCompareMarksDifferencesOnATableOnlyOneStoreHasAsFollowingTheFirst(t *testing.T) {
	c := compared(t, &skewed{createFail: true})
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	putVia(t, c, item{"pk": S("a"), "sk": S("1")})
	diffs := c.Differences()
	require.Len(t, diffs, 2, c.Report())
	assert.Equal(t, dynamotest.DiffError, diffs[0].Class)
	assert.Zero(t, diffs[0].Follows)
	assert.Equal(t, "PutItem", diffs[1].Op)
	assert.Equal(t, diffs[0].ID, diffs[1].Follows)
	assert.Contains(t, diffs[1].String(), "[follows #1]")
}

// looksAhead imitates DynamoDB Local's documented deviation: no
// LastEvaluatedKey when a Limit page ends on the last key.
type looksAhead struct{ table.API }

func (l looksAhead) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := l.API.Query(ctx, in, o...)
	if err == nil && in.Limit != nil {
		out.LastEvaluatedKey = nil
	}
	return out, err
}

func TestCompareCountsADocumentedDeviationOfTheReferenceApart(t *testing.T) {
	run := func(opts ...func(*dynamotest.CompareOptions)) *dynamotest.Comparison {
		c := dynamotest.Compare(looksAhead{dynamotest.New()}, dynamotest.New(), opts...)
		_, err := c.CreateTable(ctx, simple.input())
		require.NoError(t, err)
		putVia(t, c, item{"pk": S("a"), "sk": S("1")})
		_, err = queryA(c, 1)
		require.NoError(t, err)
		return c
	}

	c := run(dynamotest.KnownDeviations(dynamotest.LocalDeviations()...))
	diffs := c.Differences()
	require.Len(t, diffs, 1, c.Report())
	assert.Equal(t, "LastEvaluatedKey", diffs[0].Field)
	assert.Equal(t, dynamotest.LocalLooksAhead, diffs[0].Deviation)
	assert.Empty(t, c.Unexpected())
	assert.NoError(t, c.Err())
	assert.Contains(t, c.Report(), "0 unexpected, 1 documented deviations")

	plain := run()
	require.Len(t, plain.Unexpected(), 1, "without the deviation it is the candidate's to explain")
	assert.Error(t, plain.Err())
}

func TestLocalDeviationsEachHaveTheirReason(t *testing.T) {
	for _, d := range dynamotest.LocalDeviations() {
		assert.NotEmpty(t, d.Why, d.Name)
		assert.NotNil(t, d.Match, d.Name)
		assert.Equal(t, d.Why, dynamotest.LocalDeviationWhy(d.Name))
	}
}

func TestLocalDeviationsMatchOnlyTheirOwnShape(t *testing.T) {
	devs := map[string]dynamotest.Deviation{}
	for _, d := range dynamotest.LocalDeviations() {
		devs[d.Name] = d
	}
	limit := &dynamodb.QueryInput{Limit: aws.Int32(1)}
	cases := []struct {
		name string
		d    dynamotest.Difference
		want bool
	}{
		{dynamotest.LocalChecksTableFirst, dynamotest.Difference{Class: dynamotest.DiffError,
			Reference: "ResourceNotFoundException: x", Candidate: "ValidationException: y"}, true},
		{dynamotest.LocalChecksTableFirst, dynamotest.Difference{Class: dynamotest.DiffError,
			Reference: "ValidationException: y", Candidate: "ResourceNotFoundException: x"}, false},
		{dynamotest.LocalLooksAhead, dynamotest.Difference{Request: limit, Class: dynamotest.DiffAnswer,
			Field: "LastEvaluatedKey", Reference: "(none)", Candidate: "{}"}, true},
		{dynamotest.LocalLooksAhead, dynamotest.Difference{Request: limit, Class: dynamotest.DiffAnswer,
			Field: "LastEvaluatedKey", Reference: "{}", Candidate: "(none)"}, false},
		{dynamotest.LocalLooksAhead, dynamotest.Difference{Request: &dynamodb.QueryInput{}, Class: dynamotest.DiffAnswer,
			Field: "LastEvaluatedKey", Reference: "(none)", Candidate: "{}"}, false},
		{dynamotest.LocalWholeAttributes, dynamotest.Difference{Request: &dynamodb.UpdateItemInput{ReturnValues: types.ReturnValueUpdatedNew},
			Class: dynamotest.DiffAnswer, Field: "Attributes"}, true},
		{dynamotest.LocalWholeAttributes, dynamotest.Difference{Request: &dynamodb.UpdateItemInput{ReturnValues: types.ReturnValueAllNew},
			Class: dynamotest.DiffAnswer, Field: "Attributes"}, false},
		{dynamotest.LocalNoTableClass, dynamotest.Difference{Op: "CreateTable", Class: dynamotest.DiffAnswer, Field: "TableClass",
			Reference: "STANDARD", Candidate: "STANDARD_INFREQUENT_ACCESS"}, true},
		{dynamotest.LocalNoTableClass, dynamotest.Difference{Op: "CreateTable", Class: dynamotest.DiffAnswer, Field: "TableClass",
			Reference: "STANDARD_INFREQUENT_ACCESS", Candidate: "STANDARD"}, false},
		{dynamotest.LocalTransactionCapacity, dynamotest.Difference{Op: "TransactWriteItems", Field: "ConsumedCapacity",
			Reference: "t: 2/-/- table=(none)", Candidate: "t: 4/-/4 table=(none)"}, true},
		{dynamotest.LocalTransactionCapacity, dynamotest.Difference{Op: "TransactWriteItems", Field: "ConsumedCapacity",
			Reference: "t: 2/-/- table=(none)", Candidate: "t: 3/-/3 table=(none)"}, false},
	}
	for _, tc := range cases {
		assert.Equalf(t, tc.want, devs[tc.name].Match(tc.d), "%s on %+v", tc.name, tc.d)
	}
}

func TestCompareSendsNothingToTheCandidateWhenTheReferenceThrottlesAndResyncsItsKeys(t *testing.T) {
	ref, cand := dynamotest.New(), dynamotest.New()
	c := dynamotest.Compare(ref, cand)
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	ref.Inject(dynamotest.Throttle("PutItem", 1))
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1")}})
	var pte *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, err, &pte)
	assert.Zero(t, cand.Calls("PutItem"), "the candidate did not get the throttled call")
	putVia(t, c, item{"pk": S("a"), "sk": S("1")})
	assert.Empty(t, c.Differences(), c.Report())
}

// appliedThenFailed is a reference whose puts apply and then answer
// InternalServerError, as DynamoDB's may: the write happened, the answer
// says nothing of it.
type appliedThenFailed struct{ table.API }

func (a appliedThenFailed) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if _, err := a.API.PutItem(ctx, in, o...); err != nil {
		return nil, err
	}
	return nil, &types.InternalServerError{Message: aws.String("planted: applied, then failed")}
}

func TestCompareCopiesTheReferencesItemWhenItsWriteFailedUnanswered(t *testing.T) {
	cand := dynamotest.New()
	c := dynamotest.Compare(appliedThenFailed{dynamotest.New()}, cand)
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("1"), "v": S("x")}})
	var ise *types.InternalServerError
	require.ErrorAs(t, err, &ise)
	assert.EqualValues(t, 1, cand.Calls("PutItem"), "the candidate got not the call, only the copy of the reference's item")
	assert.Equal(t, item{"pk": S("a"), "sk": S("1"), "v": S("x")}, get(t, cand, "simple", item{"pk": S("a"), "sk": S("1")}))
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": S("a"), "sk": S("1")}})
	require.NoError(t, err)
	assert.Empty(t, c.Differences(), c.Report())
}

func TestCompareLeavesOutItemsWhoseTTLHasPassed(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	// The candidate's sweeper got to the expired item first.
	skew := &skewed{API: dynamotest.New(), query: func(out *dynamodb.QueryOutput) {
		out.Items, out.Count, out.ScannedCount = out.Items[1:], out.Count-1, out.ScannedCount-1
	}}
	c := dynamotest.Compare(dynamotest.New(), skew, func(o *dynamotest.CompareOptions) { o.Now = func() time.Time { return now } })
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("simple"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	putVia(t, c, item{"pk": S("a"), "sk": S("1"), "ttl": N(fmt.Sprint(now.Unix() - 10))})
	putVia(t, c, item{"pk": S("a"), "sk": S("2"), "ttl": N(fmt.Sprint(now.Unix() + 10))})
	_, err = queryA(c, 0)
	require.NoError(t, err)
	assert.Empty(t, c.Differences(), c.Report())

	// The same answers without the TTL setting are a difference.
	plain := dynamotest.Compare(dynamotest.New(), &skewed{API: dynamotest.New(), query: skew.query},
		func(o *dynamotest.CompareOptions) { o.Now = func() time.Time { return now } })
	_, err = plain.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	putVia(t, plain, item{"pk": S("a"), "sk": S("1"), "ttl": N(fmt.Sprint(now.Unix() - 10))})
	putVia(t, plain, item{"pk": S("a"), "sk": S("2"), "ttl": N(fmt.Sprint(now.Unix() + 10))})
	_, err = queryA(plain, 0)
	require.NoError(t, err)
	assert.NotEmpty(t, plain.Differences())
}

// slowWinner holds up the first put that succeeds on it, after it applied:
// without serialized calls, the losers of the race would reach the
// candidate first and one of them would win there.
type slowWinner struct {
	table.API
	once sync.Once
}

func (s *slowWinner) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := s.API.PutItem(ctx, in, o...)
	if err == nil {
		s.once.Do(func() { time.Sleep(20 * time.Millisecond) })
	}
	return out, err
}

func TestCompareSerializesRacingCallsSoBothStoresPickTheSameWinner(t *testing.T) {
	c := dynamotest.Compare(&slowWinner{API: dynamotest.New()}, dynamotest.New())
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			_, _ = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"),
				Item:                item{"pk": S("race"), "sk": S("1"), "winner": N(fmt.Sprint(i))},
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
		})
	}
	wg.Wait()
	assert.Empty(t, c.Differences(), c.Report())
}

func TestComparisonNotMadeByCompareRefusesCalls(t *testing.T) {
	var c *dynamotest.Comparison
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{})
	require.Error(t, err)
	_, err = (&dynamotest.Comparison{}).PutItem(ctx, nil)
	require.Error(t, err)
	assert.NoError(t, c.Err())
	assert.Empty(t, c.Differences())
	assert.False(t, errors.Is(err, context.Canceled))
}

// reorder is a store that returns Query pages of an index and Scan pages
// in another order, as another correct DynamoDB may.
type reorder struct {
	table.API
	query func(in *dynamodb.QueryInput, out *dynamodb.QueryOutput)
	scan  func(out *dynamodb.ScanOutput)
}

func (r reorder) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := r.API.Query(ctx, in, o...)
	if err == nil && r.query != nil {
		r.query(in, out)
	}
	return out, err
}

func (r reorder) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := r.API.Scan(ctx, in, o...)
	if err == nil && r.scan != nil {
		r.scan(out)
	}
	return out, err
}

// byStatus is a table with an index whose sort key has ties.
var byStatus = tableSpec{name: "ties", pk: "pk", pkType: "S",
	gsis:          []types.GlobalSecondaryIndex{gsi("byStatus", "status", "at", types.ProjectionTypeAll)},
	extraAttrDefs: []types.AttributeDefinition{attrDef("status", "S"), attrDef("at", "N")}}

// tiesCompared is a Comparison whose candidate answers through r, over the
// ties table (tiesTable).
func tiesCompared(t *testing.T, r reorder) *dynamotest.Comparison {
	t.Helper()
	r.API = dynamotest.New()
	c := dynamotest.Compare(dynamotest.New(), r)
	tiesTable(t, c)
	return c
}

// tiesTable creates the ties table through c, holding items a0..a5 at 1
// and b0..b1 at 2, all of status Q.
func tiesTable(t *testing.T, c *dynamotest.Comparison) {
	t.Helper()
	_, err := c.CreateTable(ctx, byStatus.input())
	require.NoError(t, err)
	for i := range 6 {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ties"), Item: item{"pk": S(fmt.Sprint("a", i)), "status": S("Q"), "at": N("1")}})
		require.NoError(t, err)
	}
	for i := range 2 {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ties"), Item: item{"pk": S(fmt.Sprint("b", i)), "status": S("Q"), "at": N("2")}})
		require.NoError(t, err)
	}
}

func queryTies(t *testing.T, api table.API, limit int32, start item) *dynamodb.QueryOutput {
	t.Helper()
	in := &dynamodb.QueryInput{TableName: aws.String("ties"), IndexName: aws.String("byStatus"),
		KeyConditionExpression: aws.String("#s = :q"), ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: item{":q": S("Q")}, ExclusiveStartKey: start}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	out, err := api.Query(ctx, in)
	require.NoError(t, err)
	return out
}

// reverseRuns reverses the order of items within each run of equal "at".
func reverseRuns(items []map[string]types.AttributeValue) {
	at := func(it item) string { return it["at"].(*types.AttributeValueMemberN).Value }
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && at(items[j]) == at(items[i]) {
			j++
		}
		for a, b := i, j-1; a < b; a, b = a+1, b-1 {
			items[a], items[b] = items[b], items[a]
		}
		i = j
	}
}

// otherOrder is a store that orders ties on an index, and a Scan, the
// other way round: it reads the whole answer from the fake, reverses it
// (the runs of ties, or the whole scan), and then pages it itself.
type otherOrder struct{ table.API }

func (o otherOrder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	whole := *in
	whole.Limit, whole.ExclusiveStartKey = nil, nil
	out, err := o.API.Query(ctx, &whole, opts...)
	if err != nil {
		return nil, err
	}
	reverseRuns(out.Items)
	return page(out.Items, in.ExclusiveStartKey, in.Limit, func(items []item, last item) *dynamodb.QueryOutput {
		return &dynamodb.QueryOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items)), LastEvaluatedKey: last}
	}), nil
}

func (o otherOrder) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	whole := *in
	whole.Limit, whole.ExclusiveStartKey = nil, nil
	out, err := o.API.Scan(ctx, &whole, opts...)
	if err != nil {
		return nil, err
	}
	slices.Reverse(out.Items)
	return page(out.Items, in.ExclusiveStartKey, in.Limit, func(items []item, last item) *dynamodb.ScanOutput {
		return &dynamodb.ScanOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items)), LastEvaluatedKey: last}
	}), nil
}

// page cuts the ties table's items in their order after start's item (by
// pk), at most limit of them, with the key of the last when limit stopped
// the page.
func page[O any](all []item, start item, limit *int32, out func([]item, item) O) O {
	from := 0
	if start != nil {
		for i, it := range all {
			if it["pk"].(*types.AttributeValueMemberS).Value == start["pk"].(*types.AttributeValueMemberS).Value {
				from = i + 1
			}
		}
	}
	items := all[from:]
	var last item
	if limit != nil && len(items) >= int(*limit) {
		items = items[:*limit]
		it := items[len(items)-1]
		last = item{"pk": it["pk"], "status": it["status"], "at": it["at"]}
	}
	return out(items, last)
}

func TestCompareTakesTheOrderOfIndexTiesAsUndefined(t *testing.T) {
	c := dynamotest.Compare(dynamotest.New(), otherOrder{dynamotest.New()})
	tiesTable(t, c)
	queryTies(t, c, 0, nil)
	p := queryTies(t, c, 4, nil)           // cut inside the run at 1
	queryTies(t, c, 4, p.LastEvaluatedKey) // starts inside it
	assert.Empty(t, c.Differences(), c.Report())
}

func TestCompareRecordsIndexItemsOutOfKeyOrderAndMissingFromARun(t *testing.T) {
	c := tiesCompared(t, reorder{query: func(_ *dynamodb.QueryInput, out *dynamodb.QueryOutput) {
		slices.Reverse(out.Items) // the runs in the wrong order
	}})
	queryTies(t, c, 0, nil)
	diffs := c.Differences()
	require.NotEmpty(t, diffs)
	assert.Equal(t, "Sort keys", diffs[len(diffs)-1].Field, c.Report())

	c = tiesCompared(t, reorder{query: func(_ *dynamodb.QueryInput, out *dynamodb.QueryOutput) {
		out.Items = append(out.Items[:1], out.Items[2:]...) // an item of the first run lost
		out.Count--
	}})
	queryTies(t, c, 0, nil)
	fields := map[string]bool{}
	for _, d := range c.Differences() {
		fields[d.Field] = true
	}
	assert.Equal(t, map[string]bool{`Items with at {"N":"1"}`: true, "Count": true}, fields, c.Report())
}

func TestCompareTakesAScanAsASetAndAPagedScanAsUndefined(t *testing.T) {
	c := dynamotest.Compare(dynamotest.New(), otherOrder{dynamotest.New()})
	tiesTable(t, c)
	_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ties")})
	require.NoError(t, err)
	p, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ties"), Limit: aws.Int32(3)})
	require.NoError(t, err)
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ties"), Limit: aws.Int32(3), ExclusiveStartKey: p.LastEvaluatedKey})
	require.NoError(t, err)
	assert.Empty(t, c.Differences(), c.Report())

	c = tiesCompared(t, reorder{scan: func(out *dynamodb.ScanOutput) { out.Items = out.Items[1:] }})
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ties")})
	require.NoError(t, err)
	fields := map[string]bool{}
	for _, d := range c.Differences() {
		fields[d.Field] = true
	}
	assert.Equal(t, map[string]bool{"Items": true}, fields, c.Report())
}

func TestCompareOfANilRequestComparesTheEmptyOne(t *testing.T) {
	c := compared(t, nil)
	_, err := c.PutItem(ctx, nil)
	require.Error(t, err)
	_, err = c.Query(ctx, nil)
	require.Error(t, err)
	assert.Empty(t, c.Differences(), c.Report())
}

// classless is a store that describes every table without a table class,
// as DynamoDB Local does.
type classless struct{ table.API }

func (s classless) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	out, err := s.API.CreateTable(ctx, in, o...)
	if err == nil {
		out.TableDescription.TableClassSummary = nil
	}
	return out, err
}

func (s classless) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	out, err := s.API.DescribeTable(ctx, in, o...)
	if err == nil {
		out.Table.TableClassSummary = nil
	}
	return out, err
}

func TestCompareFindsATableClassTheCandidateDescribesOtherwise(t *testing.T) {
	in := simple.input()
	in.TableClass = types.TableClassStandardInfrequentAccess
	c := dynamotest.Compare(dynamotest.New(), classless{dynamotest.New()})
	_, err := c.CreateTable(ctx, in)
	require.NoError(t, err)
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("simple")})
	require.NoError(t, err)
	diffs := c.Unexpected()
	require.Len(t, diffs, 2, c.Report())
	for _, d := range diffs {
		assert.Equal(t, "TableClass", d.Field)
		assert.Equal(t, "STANDARD_INFREQUENT_ACCESS", d.Reference)
		assert.Equal(t, "STANDARD", d.Candidate)
	}

	// No summary is STANDARD: a store that names the class and one that
	// leaves it out do not differ over a STANDARD table.
	same := dynamotest.Compare(dynamotest.New(), classless{dynamotest.New()})
	std := simple.input()
	std.TableClass = types.TableClassStandard
	_, err = same.CreateTable(ctx, std)
	require.NoError(t, err)
	assert.Empty(t, same.Differences(), same.Report())

	// DynamoDB Local describes no class: a documented deviation.
	local := dynamotest.Compare(classless{dynamotest.New()}, dynamotest.New(), dynamotest.KnownDeviations(dynamotest.LocalDeviations()...))
	_, err = local.CreateTable(ctx, in)
	require.NoError(t, err)
	require.Len(t, local.Differences(), 1, local.Report())
	assert.Equal(t, dynamotest.LocalNoTableClass, local.Differences()[0].Deviation)
	assert.Empty(t, local.Unexpected())
}

func TestCompareSendsTheCandidateOnlyThePartOfABatchTheReferenceProcessed(t *testing.T) {
	// The reference leaves part of each batch unprocessed (as DynamoDB may,
	// for throughput or size): the candidate processing all of it is no
	// difference, and the caller's retry of the rest is compared.
	ref := dynamotest.Chaos(5, only(dynamotest.ChaosUnprocessed), func(o *dynamotest.ChaosOptions) { o.API = otherStore{dynamotest.New()} })
	cand := dynamotest.New()
	c := dynamotest.Compare(ref, cand)
	_, err := c.CreateTable(ctx, simple.input())
	require.NoError(t, err)
	var writes []types.WriteRequest
	var keys []map[string]types.AttributeValue
	for i := range 6 {
		k := item{"pk": S("a"), "sk": S(fmt.Sprint(i))}
		keys = append(keys, k)
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": S("a"), "sk": S(fmt.Sprint(i)), "n": N("1.0")}}})
	}
	for len(writes) > 0 {
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"simple": writes}})
		require.NoError(t, err)
		writes = out.UnprocessedItems["simple"]
	}
	for len(keys) > 0 {
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"simple": {Keys: keys}}})
		require.NoError(t, err)
		keys = out.UnprocessedKeys["simple"].Keys
	}
	require.NotEmpty(t, ref.Faults(), "the reference left items unprocessed")
	assert.Empty(t, c.Differences(), c.Report())
	assert.Equal(t, 6, len(scanAll(t, cand, "simple")), "the candidate holds every item once the retries are done")
}
