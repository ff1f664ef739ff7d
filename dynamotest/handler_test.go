package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/wire"
	"github.com/tablekit/tablekit/dynamotest/internal/wire/wiretest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// apiDouble is a table.API that records the input of each call and answers
// with a canned output, error or panic, so the handler's translation is
// tested apart from any engine.
type apiDouble struct {
	mu      sync.Mutex
	inputs  map[string]any // operation -> last input
	outputs map[string]any // operation -> output to return
	err     error
	panics  any
	// respond, when set, computes the answer instead.
	respond func(op string, in any) (any, error)
}

var _ table.API = (*apiDouble)(nil)

func answer[Out any](d *apiDouble, op string, in any) (*Out, error) {
	d.mu.Lock()
	if d.inputs == nil {
		d.inputs = map[string]any{}
	}
	d.inputs[op] = in
	out, err, p, respond := d.outputs[op], d.err, d.panics, d.respond
	d.mu.Unlock()
	if p != nil {
		panic(p)
	}
	if respond != nil {
		out, err = respond(op, in)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		return new(Out), nil
	}
	return out.(*Out), nil
}

func (d *apiDouble) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return answer[dynamodb.CreateTableOutput](d, "CreateTable", in)
}
func (d *apiDouble) DeleteTable(_ context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return answer[dynamodb.DeleteTableOutput](d, "DeleteTable", in)
}
func (d *apiDouble) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return answer[dynamodb.DescribeTableOutput](d, "DescribeTable", in)
}
func (d *apiDouble) ListTables(_ context.Context, in *dynamodb.ListTablesInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	return answer[dynamodb.ListTablesOutput](d, "ListTables", in)
}
func (d *apiDouble) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return answer[dynamodb.UpdateTimeToLiveOutput](d, "UpdateTimeToLive", in)
}
func (d *apiDouble) DescribeTimeToLive(_ context.Context, in *dynamodb.DescribeTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return answer[dynamodb.DescribeTimeToLiveOutput](d, "DescribeTimeToLive", in)
}
func (d *apiDouble) UpdateTable(_ context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return answer[dynamodb.UpdateTableOutput](d, "UpdateTable", in)
}
func (d *apiDouble) UpdateContinuousBackups(_ context.Context, in *dynamodb.UpdateContinuousBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return answer[dynamodb.UpdateContinuousBackupsOutput](d, "UpdateContinuousBackups", in)
}
func (d *apiDouble) DescribeContinuousBackups(_ context.Context, in *dynamodb.DescribeContinuousBackupsInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return answer[dynamodb.DescribeContinuousBackupsOutput](d, "DescribeContinuousBackups", in)
}
func (d *apiDouble) ListTagsOfResource(_ context.Context, in *dynamodb.ListTagsOfResourceInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	return answer[dynamodb.ListTagsOfResourceOutput](d, "ListTagsOfResource", in)
}
func (d *apiDouble) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return answer[dynamodb.GetItemOutput](d, "GetItem", in)
}
func (d *apiDouble) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return answer[dynamodb.PutItemOutput](d, "PutItem", in)
}
func (d *apiDouble) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return answer[dynamodb.UpdateItemOutput](d, "UpdateItem", in)
}
func (d *apiDouble) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return answer[dynamodb.DeleteItemOutput](d, "DeleteItem", in)
}
func (d *apiDouble) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return answer[dynamodb.QueryOutput](d, "Query", in)
}
func (d *apiDouble) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return answer[dynamodb.ScanOutput](d, "Scan", in)
}
func (d *apiDouble) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return answer[dynamodb.BatchGetItemOutput](d, "BatchGetItem", in)
}
func (d *apiDouble) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return answer[dynamodb.BatchWriteItemOutput](d, "BatchWriteItem", in)
}
func (d *apiDouble) TransactGetItems(_ context.Context, in *dynamodb.TransactGetItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return answer[dynamodb.TransactGetItemsOutput](d, "TransactGetItems", in)
}
func (d *apiDouble) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return answer[dynamodb.TransactWriteItemsOutput](d, "TransactWriteItems", in)
}

// getJob is a valid GetItem request, for tests about what comes back.
var getJob = &dynamodb.GetItemInput{
	TableName: aws.String("jobs"),
	Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "JOB#1"}},
}

// serveDouble serves d over HTTP and returns a client for it.
func serveDouble(t *testing.T, d *apiDouble) (*dynamodb.Client, string) {
	t.Helper()
	ts := httptest.NewServer(NewHandler(d))
	t.Cleanup(ts.Close)
	return NewClient(ts.URL), ts.URL
}

var operationNames = []string{
	"CreateTable", "DeleteTable", "DescribeTable", "ListTables", "UpdateTimeToLive", "DescribeTimeToLive",
	"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
	"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
}

// call invokes the client's method op with in through reflection.
func call(ctx context.Context, client *dynamodb.Client, op string, in any) (any, error) {
	res := reflect.ValueOf(client).MethodByName(op).Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(in)})
	err, _ := res[1].Interface().(error)
	return res[0].Interface(), err
}

// withoutMetadata clears an output's ResultMetadata, which the client fills
// in and the engine never sees.
func withoutMetadata(out any) any {
	v := reflect.ValueOf(out).Elem()
	v.FieldByName("ResultMetadata").Set(reflect.ValueOf(middleware.Metadata{}))
	return out
}

func TestHandlerCarriesEveryOperationBothWays(t *testing.T) {
	d := &apiDouble{outputs: map[string]any{}}
	client, _ := serveDouble(t, d)
	clientType := reflect.TypeOf(client)
	for _, op := range operationNames {
		t.Run(op, func(t *testing.T) {
			m, _ := clientType.MethodByName(op)
			in := wiretest.Sampled(m.Type.In(2).Elem())
			want := wiretest.Sampled(m.Type.Out(0).Elem())
			d.mu.Lock()
			d.outputs[op] = want
			d.mu.Unlock()

			got, err := call(context.Background(), client, op, in)
			require.NoErrorf(t, err, "%s", op)
			d.mu.Lock()
			received := d.inputs[op]
			d.mu.Unlock()
			assert.Equalf(t, in, received, "the engine received a different %s input:\ngot  %+v\nwant %+v", op, received, in)
			assert.Equalf(t, want, withoutMetadata(got), "the client received a different %s output:\ngot  %+v\nwant %+v", op, got, want)
		})
	}
}

func TestHandlerErrorsReachTheClientAsTheSameGoType(t *testing.T) {
	item := map[string]types.AttributeValue{
		"pk":     &types.AttributeValueMemberS{Value: "JOB#1"},
		"status": &types.AttributeValueMemberS{Value: "RUNNING"},
		"n":      &types.AttributeValueMemberN{Value: "3"},
	}
	for _, want := range []error{
		&types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed"), Item: item},
		&types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")},
		&types.TransactionCanceledException{
			Message: aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]"),
			CancellationReasons: []types.CancellationReason{
				{Code: aws.String("None")},
				{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed"), Item: item},
			},
		},
		&types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Table: jobs not found")},
		&types.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded."),
			ThrottlingReasons: []types.ThrottlingReason{{Reason: aws.String("TableReadProvisionedThroughputExceeded"), Resource: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/jobs")}}},
		&types.ThrottlingException{Message: aws.String("Rate exceeded"),
			ThrottlingReasons: []types.ThrottlingReason{{Reason: aws.String("r"), Resource: aws.String("x")}}},
		&types.RequestLimitExceeded{Message: aws.String("Throughput exceeds the current throughput limit for your account.")},
		&types.TransactionConflictException{Message: aws.String("Transaction is ongoing for the item")},
		&types.TransactionInProgressException{Message: aws.String("in progress")},
		&types.IdempotentParameterMismatchException{Message: aws.String("mismatch")},
		&types.ItemCollectionSizeLimitExceededException{Message: aws.String("too big")},
		&types.ResourceInUseException{Message: aws.String("Table already exists: jobs")},
		&types.LimitExceededException{Message: aws.String("limit")},
		&types.InternalServerError{Message: aws.String("boom")},
	} {
		t.Run(fmt.Sprintf("%T", want), func(t *testing.T) {
			// The engine may wrap its errors; the handler must find the
			// API error inside.
			client, _ := serveDouble(t, &apiDouble{err: fmt.Errorf("engine: %w", want)})
			_, err := client.GetItem(context.Background(), getJob)
			got := reflect.New(reflect.TypeOf(want))
			require.ErrorAsf(t, err, got.Interface(), "client error %v (%T) is not a %T", err, err, want)
			assert.Equalf(t, want, got.Elem().Interface(), "client rebuilt %+v, want %+v", got.Elem().Interface(), want)
		})
	}
}

func TestHandlerValidationExceptionReachesTheClientAsAPIError(t *testing.T) {
	want := &smithy.GenericAPIError{Code: "ValidationException", Message: "One or more parameter values were invalid: Missing the key pk in the item", Fault: smithy.FaultClient}
	client, _ := serveDouble(t, &apiDouble{err: want})
	_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: getJob.Key})
	var apiErr smithy.APIError
	require.Falsef(t, !errors.As(err, &apiErr) || apiErr.ErrorCode() != want.Code || apiErr.ErrorMessage() != want.Message, "client got %v, want API error %s: %s", err, want.Code, want.Message)
}

func TestHandlerAnswersGoErrorsWithInternalServerErrorNamingTheCause(t *testing.T) {
	client, _ := serveDouble(t, &apiDouble{err: errors.New("disk on fire")})
	_, err := client.GetItem(context.Background(), getJob)
	var ise *types.InternalServerError
	require.ErrorAs(t, err, &ise)
	assert.Contains(t, ise.ErrorMessage(), "disk on fire")
}

// post sends body to url as operation op and returns the response and its body.
func post(t *testing.T, url, op, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if op != "" {
		req.Header.Set("X-Amz-Target", op)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestHandlerAnswersBadRequestsAsDynamoDBDoes(t *testing.T) {
	_, url := serveDouble(t, &apiDouble{})
	for _, tc := range []struct {
		name, target, body string
		status             int
		wantType, wantText string
	}{
		{"unknown operation", "DynamoDB_20120810.ExecuteStatement", `{}`, 400,
			"com.amazon.coral.service#UnknownOperationException", "An unknown operation was requested."},
		{"other service", "S3.GetObject", `{}`, 400, "com.amazon.coral.service#UnknownOperationException", ""},
		{"no target", "", `{}`, 400, "com.amazon.coral.service#UnknownOperationException", ""},
		{"not JSON", "DynamoDB_20120810.GetItem", `{"TableName":`, 400, "com.amazon.coral.service#SerializationException", ""},
		{"wrong JSON type", "DynamoDB_20120810.Query", `{"Limit":"ten"}`, 400, "com.amazon.coral.service#SerializationException", `"Message":"STRING_VALUE cannot be converted to Integer"`},
		{"wrong container type", "DynamoDB_20120810.Query", `{"ExpressionAttributeValues":[]}`, 400, "com.amazon.coral.service#SerializationException",
			`"Message":"Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"`},
		{"wrong JSON type, in the decoder's words", "DynamoDB_20120810.Query", `{"Limit":1.5}`, 400, "com.amazon.coral.service#SerializationException", `"Message":"wire: expected integer, found 1.5`},
		{"attribute value with two types", "DynamoDB_20120810.PutItem", `{"TableName":"jobs","Item":{"pk":{"S":"a","N":"1"}}}`, 400,
			"com.amazon.coral.validate#ValidationException", "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{"empty attribute value", "DynamoDB_20120810.GetItem", `{"TableName":"jobs","Key":{"pk":{}}}`, 400,
			"com.amazon.coral.validate#ValidationException", "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.target, tc.body)
			assert.EqualValuesf(t, tc.status, resp.StatusCode, "status %d, want %d", resp.StatusCode, tc.status)
			assert.Falsef(t, !strings.Contains(body, `"__type":"`+tc.wantType+`"`) || !strings.Contains(body, tc.wantText), "body %s, want __type %s and %q", body, tc.wantType, tc.wantText)
		})
	}
}

func TestHandlerStatusCodesFollowTheErrorsFault(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
	}{
		{&types.ConditionalCheckFailedException{}, 400},
		{&types.ProvisionedThroughputExceededException{}, 400},
		{&smithy.GenericAPIError{Code: "ValidationException"}, 400},
		{&types.InternalServerError{}, 500},
		{errors.New("unexpected"), 500},
	} {
		_, url := serveDouble(t, &apiDouble{err: tc.err})
		resp, body := post(t, url, "DynamoDB_20120810.GetItem", `{"TableName":"jobs"}`)
		assert.EqualValuesf(t, tc.status, resp.StatusCode, "%T: status %d, want %d (%s)", tc.err, resp.StatusCode, tc.status, body)
	}
}

func TestHandlerResponsesCarryChecksumAndRequestID(t *testing.T) {
	_, url := serveDouble(t, &apiDouble{err: &types.ResourceNotFoundException{Message: aws.String("gone")}})
	seen := map[string]bool{}
	for _, target := range []string{"DynamoDB_20120810.GetItem", "DynamoDB_20120810.Nope", "DynamoDB_20120810.Query"} {
		resp, body := post(t, url, target, `{}`)
		got, want := resp.Header.Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 10)
		assert.EqualValuesf(t, want, got, "%s: X-Amz-Crc32 %q, want %q", target, got, want)
		ct := resp.Header.Get("Content-Type")
		assert.EqualValuesf(t, "application/x-amz-json-1.0", ct, "%s: Content-Type %q", target, ct)
		id := resp.Header.Get("X-Amzn-Requestid")
		assert.Falsef(t, id == "" || seen[id], "%s: request id %q is missing or repeated", target, id)
		seen[id] = true
	}
}

func TestHandlerAnswersHealthChecks(t *testing.T) {
	_, url := serveDouble(t, &apiDouble{})
	resp, err := http.Get(url + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.EqualValuesf(t, http.StatusOK, resp.StatusCode, "GET / answered %d", resp.StatusCode)
}

// Concurrent requests share the handler's pooled buffers; each must still
// get its own answer.
func TestHandlerConcurrentRequestsGetTheirOwnAnswers(t *testing.T) {
	d := &apiDouble{respond: func(op string, in any) (any, error) {
		key := in.(*dynamodb.GetItemInput).Key
		return &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{
			"echo": key["pk"],
			"pad":  &types.AttributeValueMemberS{Value: strings.Repeat("x", 1000)},
		}}, nil
	}}
	client, _ := serveDouble(t, d)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 40 {
				want := fmt.Sprintf("g%d-i%d", g, i)
				out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{
					TableName: aws.String("jobs"),
					Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: want}},
				})
				if err != nil {
					errs <- err
					return
				}
				if got := out.Item["echo"].(*types.AttributeValueMemberS).Value; got != want {
					errs <- fmt.Errorf("asked for %s, got %s", want, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

// The handler in front of a real *dynamodb.Client is a proxy: every answer
// DynamoDB Local gives, successes and errors, must reach a client through
// the proxy as the same Go value it gives a client talking to it directly.
func TestHandlerProxyToDynamoDBLocalAnswersAsDynamoDBLocalDoes(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	ctx := context.Background()
	direct := NewClient(endpoint)
	proxy := httptest.NewServer(NewHandler(direct))
	t.Cleanup(proxy.Close)
	viaProxy := NewClient(proxy.URL)

	steps := func(name string) []struct {
		op string
		in any
	} {
		tn := aws.String(name)
		key := map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META")}
		return []struct {
			op string
			in any
		}{
			{"CreateTable", jobsTable(name)},
			{"PutItem", &dynamodb.PutItemInput{TableName: tn, Item: map[string]types.AttributeValue{
				"pk": sv("J1"), "sk": sv("META"), "status": sv("QUEUED"), "n": nv("1.50"),
				"b": &types.AttributeValueMemberB{Value: []byte{0, 255}}, "ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
				"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberBOOL{Value: true}}}}},
			}}},
			{"PutItem", &dynamodb.PutItemInput{TableName: tn, Item: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("STAGE#01"), "status": sv("RUNNING")}}},
			{"GetItem", &dynamodb.GetItemInput{TableName: tn, Key: key, ConsistentRead: aws.Bool(true)}},
			{"UpdateItem", &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET #s = :new ADD n :one"),
				ConditionExpression: aws.String("#s = :old"), ExpressionAttributeNames: map[string]string{"#s": "status"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":new": sv("RUNNING"), ":old": sv("QUEUED"), ":one": nv("1")},
				ReturnValues:              types.ReturnValueUpdatedNew}},
			{"UpdateItem", &dynamodb.UpdateItemInput{TableName: tn, Key: key, UpdateExpression: aws.String("SET #s = :new"),
				ConditionExpression: aws.String("#s = :old"), ExpressionAttributeNames: map[string]string{"#s": "status"},
				ExpressionAttributeValues:           map[string]types.AttributeValue{":new": sv("DONE"), ":old": sv("QUEUED")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{"Query", &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :s)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1"), ":s": sv("STAGE#")}}},
			{"Query", &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("pk = :p"), Limit: aws.Int32(1),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1")}}},
			{"Query", &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1"), ":unused": sv("x")}}},
			{"TransactWriteItems", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: tn, Item: map[string]types.AttributeValue{"pk": sv("J2"), "sk": sv("META")}}},
				{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: key, ConditionExpression: aws.String("attribute_not_exists(pk)"),
					ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			}}},
			{"DeleteItem", &dynamodb.DeleteItemInput{TableName: tn, Key: key, ReturnValues: types.ReturnValueAllOld}},
			{"GetItem", &dynamodb.GetItemInput{TableName: aws.String(name + "-missing"), Key: key}},
			{"DeleteTable", &dynamodb.DeleteTableInput{TableName: tn}},
		}
	}
	want := steps(testenv.TableName(t, "direct"))
	got := steps(testenv.TableName(t, "proxied"))
	errorSteps := 0
	for i := range want {
		wantOut, wantErr := call(ctx, direct, want[i].op, want[i].in)
		gotOut, gotErr := call(ctx, viaProxy, got[i].op, got[i].in)
		name := fmt.Sprintf("step %d %s", i, want[i].op)
		require.EqualValuesf(t, (gotErr == nil), (wantErr == nil), "%s: direct err %v, through the proxy err %v", name, wantErr, gotErr)
		if wantErr != nil {
			errorSteps++
			sameError(t, name, gotErr, wantErr)
			continue
		}
		switch want[i].op {
		case "CreateTable", "DeleteTable":
			continue // they name their own table, with its own ARN and time
		}
		assert.Equalf(t, withoutMetadata(wantOut), withoutMetadata(gotOut), "%s: through the proxy %+v\ndirect %+v", name, gotOut, wantOut)
	}
	assert.EqualValuesf(t, 4, errorSteps, "%d steps failed, want 4 (condition, unused value, transaction, missing table)", errorSteps)
}

// FuzzHandler sends arbitrary bodies for every operation to the handler in
// front of a real DB holding a table and an item. Whatever the body, the
// answer must be DynamoDB's: a 200 or a 400 with an error body, never the
// 500 that a panic in the decoder or the engine turns into.
//
// A run's progress lines may stop for up to a minute: that is the fuzzer
// minimizing an input it found interesting (for 60 s by default), not a
// slow request, and -fuzzminimizetime bounds it:
//
//	go test -run '^$' -fuzz FuzzHandler -fuzzminimizetime 5s -fuzztime 10m ./dynamotest/
//
// FuzzExecuteStatement is the one that bounds how long a request takes.
func FuzzHandler(f *testing.F) {
	for i, op := range operationNames {
		m, _ := reflect.TypeFor[*dynamodb.Client]().MethodByName(op)
		f.Add(uint8(i), string(wire.Marshal(wiretest.Sampled(m.Type.In(2).Elem()))))
	}
	f.Add(uint8(7), `{"TableName":"jobs","Item":{"pk":{"S":"J9"},"sk":{"S":"A"},"status":{"S":"x"}},"ConditionExpression":"attribute_not_exists(pk)"}`)
	f.Add(uint8(10), `{"TableName":"jobs","KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","ExpressionAttributeValues":{":p":{"S":"J1"},":a":{"S":"A"},":b":{"S":"Z"}},"Limit":1}`)
	f.Add(uint8(8), `{"TableName":"jobs","Key":{"pk":{"S":"J1"},"sk":{"S":"META"}},"UpdateExpression":"SET a.b[2] = :v REMOVE c","ExpressionAttributeValues":{":v":{"L":[]}}}`)
	// Values that are not one (no member, several), which the DB reads as
	// stand-ins until it reports them.
	f.Add(uint8(8), `{"TableName":"jobs","Key":{"pk":{"S":"J1"},"sk":{"S":"META"}},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x","M":{"y":{}}}}}`)
	f.Add(uint8(7), `{"TableName":"jobs","Item":{"pk":{"S":"J9"},"sk":{},"m":{"L":[{"N":"1","S":"1"}]}},"Expected":{"a":{"Value":{}}}}`)

	db := New()
	ctx := context.Background()
	if _, err := db.CreateTable(ctx, jobsTable("jobs")); err != nil {
		f.Fatal(err)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: map[string]types.AttributeValue{
		"pk": sv("J1"), "sk": sv("META"), "status": sv("QUEUED"), "n": nv("1"),
	}}); err != nil {
		f.Fatal(err)
	}
	handler := NewHandler(db)
	f.Fuzz(func(t *testing.T, op uint8, body string) {
		name := operationNames[int(op)%len(operationNames)]
		if name == "DeleteTable" || name == "CreateTable" {
			// Keep the one table in place, so later inputs reach the item code.
			name = "DescribeTable"
		}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", targetPrefix+name)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, req)
		require.Falsef(t, w.Code != http.StatusOK && w.Code != http.StatusBadRequest, "%s %q answered %d: %s", name, body, w.Code, w.Body)
	})
}

// A handler serves any table.API: here a DB behind a wrapper that counts
// the writes a service makes, reached by an ordinary SDK client.
func ExampleNewHandler() {
	db := New()
	writes := &countingWrites{API: db}
	srv := httptest.NewServer(NewHandler(writes))
	defer srv.Close()

	ctx := context.Background()
	client := NewClient(srv.URL)
	if _, err := client.CreateTable(ctx, jobsTable("jobs")); err != nil {
		panic(err)
	}
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("jobs"),
		Item:      map[string]types.AttributeValue{"pk": sv("JOB#1"), "sk": sv("META")},
	})
	fmt.Println(err, writes.n.Load())
	// Output: <nil> 1
}

type countingWrites struct {
	table.API
	n atomic.Int64
}

func (c *countingWrites) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.Add(1)
	return c.API.PutItem(ctx, in, optFns...)
}
