package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/aws/smithy-go/transport/http/protocol/awsjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/wire/wiretest"
)

// The oracle for every test here is the SDK's own protocol implementation:
// what it serializes, Unmarshal must read back as the same value, and what
// Marshal writes, the SDK must deserialize into the same value. Checking
// against our own encoder alone would only prove the codec agrees with
// itself.

var protocol = awsjson.New10(schemas.DynamoDB_20120810)

// operation describes one of the 16 operations of table.API.
type operation struct {
	name   string
	schema *smithy.OperationSchema
	input  reflect.Type // e.g. dynamodb.GetItemInput
	output reflect.Type
}

func op[In, Out any](name string, o, in, out *smithy.Schema) operation {
	return operation{name, smithy.NewOperationSchema(o, in, out), reflect.TypeFor[In](), reflect.TypeFor[Out]()}
}

var operations = []operation{
	op[dynamodb.CreateTableInput, dynamodb.CreateTableOutput]("CreateTable", schemas.CreateTable, schemas.CreateTableInput, schemas.CreateTableOutput),
	op[dynamodb.DeleteTableInput, dynamodb.DeleteTableOutput]("DeleteTable", schemas.DeleteTable, schemas.DeleteTableInput, schemas.DeleteTableOutput),
	op[dynamodb.DescribeTableInput, dynamodb.DescribeTableOutput]("DescribeTable", schemas.DescribeTable, schemas.DescribeTableInput, schemas.DescribeTableOutput),
	op[dynamodb.ListTablesInput, dynamodb.ListTablesOutput]("ListTables", schemas.ListTables, schemas.ListTablesInput, schemas.ListTablesOutput),
	op[dynamodb.UpdateTimeToLiveInput, dynamodb.UpdateTimeToLiveOutput]("UpdateTimeToLive", schemas.UpdateTimeToLive, schemas.UpdateTimeToLiveInput, schemas.UpdateTimeToLiveOutput),
	op[dynamodb.DescribeTimeToLiveInput, dynamodb.DescribeTimeToLiveOutput]("DescribeTimeToLive", schemas.DescribeTimeToLive, schemas.DescribeTimeToLiveInput, schemas.DescribeTimeToLiveOutput),
	op[dynamodb.GetItemInput, dynamodb.GetItemOutput]("GetItem", schemas.GetItem, schemas.GetItemInput, schemas.GetItemOutput),
	op[dynamodb.PutItemInput, dynamodb.PutItemOutput]("PutItem", schemas.PutItem, schemas.PutItemInput, schemas.PutItemOutput),
	op[dynamodb.UpdateItemInput, dynamodb.UpdateItemOutput]("UpdateItem", schemas.UpdateItem, schemas.UpdateItemInput, schemas.UpdateItemOutput),
	op[dynamodb.DeleteItemInput, dynamodb.DeleteItemOutput]("DeleteItem", schemas.DeleteItem, schemas.DeleteItemInput, schemas.DeleteItemOutput),
	op[dynamodb.QueryInput, dynamodb.QueryOutput]("Query", schemas.Query, schemas.QueryInput, schemas.QueryOutput),
	op[dynamodb.ScanInput, dynamodb.ScanOutput]("Scan", schemas.Scan, schemas.ScanInput, schemas.ScanOutput),
	op[dynamodb.BatchGetItemInput, dynamodb.BatchGetItemOutput]("BatchGetItem", schemas.BatchGetItem, schemas.BatchGetItemInput, schemas.BatchGetItemOutput),
	op[dynamodb.BatchWriteItemInput, dynamodb.BatchWriteItemOutput]("BatchWriteItem", schemas.BatchWriteItem, schemas.BatchWriteItemInput, schemas.BatchWriteItemOutput),
	op[dynamodb.TransactGetItemsInput, dynamodb.TransactGetItemsOutput]("TransactGetItems", schemas.TransactGetItems, schemas.TransactGetItemsInput, schemas.TransactGetItemsOutput),
	op[dynamodb.TransactWriteItemsInput, dynamodb.TransactWriteItemsOutput]("TransactWriteItems", schemas.TransactWriteItems, schemas.TransactWriteItemsInput, schemas.TransactWriteItemsOutput),
}

// sdkRequestBody is the body the SDK client sends for in.
func sdkRequestBody(t testing.TB, o operation, in any) []byte {
	t.Helper()
	req := smithyhttp.NewStackRequest().(*smithyhttp.Request)
	err := protocol.SerializeRequest(context.Background(), o.schema, in.(smithy.Serializable), req)
	require.NoErrorf(t, err, "SDK serialize %s", o.name)
	body, err := io.ReadAll(req.GetStream())
	require.NoError(t, err)
	return body
}

// sdkResponse decodes an HTTP response the way the SDK client does: into a
// new output on success, into the rebuilt error otherwise.
func sdkResponse(o operation, status int, body []byte) (any, error) {
	out := reflect.New(o.output).Interface()
	resp := &smithyhttp.Response{Response: &http.Response{
		StatusCode: status,
		Header:     http.Header{},
		Body:       io.NopCloser(bytes.NewReader(body)),
	}}
	err := protocol.DeserializeResponse(context.Background(), o.schema, dynamodb.TypeRegistry, resp, out.(smithy.Deserializable))
	return out, err
}

func TestEveryOperationTypeIsSupported(t *testing.T) {
	for _, o := range operations {
		for _, typ := range []reflect.Type{o.input, o.output} {
			u := unsupportedTypes(typ)
			assert.Falsef(t, len(u) > 0, "%s reaches types the codec cannot carry: %v", typ, u)
		}
	}
}

func TestUnmarshalReadsWhatTheSDKClientSends(t *testing.T) {
	for _, o := range operations {
		t.Run(o.name, func(t *testing.T) {
			want := wiretest.Sampled(o.input)
			body := sdkRequestBody(t, o, want)
			got := reflect.New(o.input).Interface()
			err := Unmarshal(body, got)
			require.NoErrorf(t, err, "Unmarshal(%s)", body)
			assert.Falsef(t, !reflect.DeepEqual(got, want), "Unmarshal of the SDK's %s request differs:\ngot  %s\nwant %s", o.name, Marshal(got), Marshal(want))
		})
	}
}

func TestSDKClientReadsWhatMarshalWrites(t *testing.T) {
	for _, o := range operations {
		t.Run(o.name, func(t *testing.T) {
			want := wiretest.Sampled(o.output)
			body := Marshal(want)
			require.Falsef(t, !json.Valid(body), "Marshal wrote invalid JSON: %s", body)
			got, err := sdkResponse(o, 200, body)
			require.NoErrorf(t, err, "SDK deserialize: %v\nbody %s", err, body)
			assert.Falsef(t, !reflect.DeepEqual(got, want), "the SDK read %s back differently:\ngot  %s\nwant %s", o.name, Marshal(got), body)
		})
	}
}

func TestRoundTripInputsAndOutputs(t *testing.T) {
	for _, o := range operations {
		for _, typ := range []reflect.Type{o.input, o.output} {
			want := wiretest.Sampled(typ)
			got := reflect.New(typ).Interface()
			err := Unmarshal(Marshal(want), got)
			require.NoErrorf(t, err, "%s", typ)
			assert.Falsef(t, !reflect.DeepEqual(got, want), "%s does not survive Marshal then Unmarshal:\ngot  %s\nwant %s", typ, Marshal(got), Marshal(want))
		}
	}
}

// Empty collections must stay empty rather than vanish or become null: a
// Query that matched nothing answers "Items":[], and an empty map or list
// attribute is a value DynamoDB stores.
func TestEmptyCollectionsSurvive(t *testing.T) {
	o := operations[10] // Query
	want := &dynamodb.QueryOutput{
		Items: []map[string]types.AttributeValue{{
			"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
			"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			"s": &types.AttributeValueMemberS{Value: ""},
			"b": &types.AttributeValueMemberB{Value: []byte{}},
		}},
	}
	body := Marshal(want)
	got, err := sdkResponse(o, 200, body)
	require.NoError(t, err)
	assert.Falsef(t, !reflect.DeepEqual(got, want), "got %s, want %s", Marshal(got), body)

	empty := Marshal(&dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{}})
	assert.EqualValuesf(t, `{"Count":0,"Items":[],"ScannedCount":0}`, string(empty), "a Query that matched nothing encodes as %s", empty)
}

func TestMarshalWritesDynamoDBTimestamps(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.UnixMilli(1795321456658), "1795321456.658"},
		{time.Unix(1795321456, 0), "1795321456"},
		{time.UnixMilli(1795321456050), "1795321456.050"},
		{time.UnixMilli(-1500), "-1.500"},
	} {
		out := &dynamodb.DescribeTableOutput{Table: &types.TableDescription{CreationDateTime: aws.Time(tc.t)}}
		want := `{"Table":{"CreationDateTime":` + tc.want + `}}`
		got := string(Marshal(out))
		assert.EqualValuesf(t, want, got, "Marshal(%v) = %s, want %s", tc.t, got, want)
		var back dynamodb.DescribeTableOutput
		err := Unmarshal([]byte(want), &back)
		require.NoError(t, err)
		gotTime := *back.Table.CreationDateTime
		assert.Truef(t, gotTime.Equal(tc.t), "Unmarshal(%s) = %v, want %v", tc.want, gotTime, tc.t)
	}
}

// Every exception the engine can return must reach the client as the same Go
// value, members included: the Item of a failed condition, the reasons of a
// cancelled transaction.
func TestSDKClientRebuildsEveryException(t *testing.T) {
	var modelled []error
	for id, entry := range dynamodb.TypeRegistry.Entries {
		v := entry.New()
		if _, ok := v.(smithy.APIError); !ok || !strings.HasPrefix(id, "com.amazonaws.dynamodb#") {
			continue
		}
		wiretest.Sample(v)
		modelled = append(modelled, v.(error))
	}
	require.Falsef(t, len(modelled) < 20, "found only %d modelled exceptions", len(modelled))
	for _, want := range modelled {
		var apiErr smithy.APIError
		errors.As(want, &apiErr)
		body := AppendError(nil, apiErr)
		require.Falsef(t, !json.Valid(body), "%T: invalid JSON %s", want, body)
		_, got := sdkResponse(operations[6], 400, body)
		assert.Falsef(t, !reflect.DeepEqual(got, want), "%T came back as %#v\nbody %s", want, got, body)
	}
}

func TestValidationExceptionReachesTheClientAsGenericAPIError(t *testing.T) {
	sent := &smithy.GenericAPIError{Code: "ValidationException", Message: "One or more parameter values were invalid: \"x\"", Fault: smithy.FaultClient}
	body := AppendError(nil, sent)
	want := `{"__type":"com.amazon.coral.validate#ValidationException","message":"One or more parameter values were invalid: \"x\""}`
	assert.EqualValuesf(t, want, string(body), "body = %s, want %s", body, want)
	_, err := sdkResponse(operations[6], 400, body)
	var got *smithy.GenericAPIError
	assert.Falsef(t, !errors.As(err, &got) || got.Code != sent.Code || got.Message != sent.Message, "client got %#v, want code %q message %q", err, sent.Code, sent.Message)
}

func TestTransactionCanceledUsesTheModelledMessageMember(t *testing.T) {
	body := AppendError(nil, &types.TransactionCanceledException{Message: aws.String("m")})
	assert.Falsef(t, !bytes.Contains(body, []byte(`"Message":"m"`)), "body %s lacks the modelled \"Message\" member", body)
	body = AppendError(nil, &types.ConditionalCheckFailedException{Message: aws.String("m")})
	assert.Falsef(t, !bytes.Contains(body, []byte(`"message":"m"`)), "body %s lacks the modelled \"message\" member", body)
}

func TestTheFrameworksErrorsSpellTheirMessageMemberAsDynamoDBDoes(t *testing.T) {
	for code, want := range map[string]string{
		"SerializationException":              `"Message":"m"`,
		"AccessDeniedException":               `"Message":"m"`,
		"MissingAuthenticationTokenException": `"message":"m"`,
		"UnknownOperationException":           `"message":"m"`,
	} {
		body := AppendError(nil, &smithy.GenericAPIError{Code: code, Message: "m"})
		assert.Falsef(t, !bytes.Contains(body, []byte(want)), "%s: body %s lacks %s", code, body, want)
		_, err := sdkResponse(operations[6], 400, body)
		var got smithy.APIError
		assert.Falsef(t, !errors.As(err, &got) || got.ErrorCode() != code || got.ErrorMessage() != "m", "%s: client got %#v", code, err)
	}
}
