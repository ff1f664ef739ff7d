package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
	"github.com/tablekit/tablekit/dynamotest/internal/wire/wiretest"
)

func TestUnmarshalRejectsBodiesThatDoNotFitTheShape(t *testing.T) {
	for _, body := range []string{
		``,
		`{`,
		`{bad`,
		`{"TableName":"t",}`,
		`{"TableName":"t"} {}`,
		`[]`,
		`{"TableName":1}`,
		`{"Limit":"10"}`,
		`{"Limit":1.5}`,
		`{"Limit":1e3}`,
		`{"Limit":3000000000}`,
		`{"Limit":-}`,
		`{"Limit":01}`,
		`{"ConsistentRead":"true"}`,
		`{"ConsistentRead":tru}`,
		`{"ExpressionAttributeValues":[]}`,
		`{"ExpressionAttributeValues":{":v":"x"}}`,
		`{"ExpressionAttributeValues":{":v":{"S":1}}}`,
		`{"ExpressionAttributeValues":{":v":{"B":"!!"}}}`,
		`{"ExpressionAttributeValues":{":v":{"L":{}}}}`,
		`{"ExpressionAttributeValues":{":v":{"SS":[1]}}}`,
		`{"TableName":"bad \x01 control"}`,
		`{"TableName":"bad \xff utf-8"}`,
		`{"TableName":"bad escape \q"}`,
		`{"TableName":"bad escape \u12"}`,
		`{"Unknown":{"nested":[1,2,{"x":tru}]}}`,
		`{"Unknown":"bad escape \x"}`,
		strings.Repeat(`{"M":`, 600),
	} {
		var in dynamodb.QueryInput
		err := Unmarshal([]byte(body), &in)
		var de *DecodeError
		assert.ErrorAsf(t, err, &de, "Unmarshal(%.40q) = %v, want a *DecodeError", body, err)
	}
}

// A union with no member or several is DynamoDB's ValidationException;
// with several, a member whose own value is bad is what is reported.
// UnmarshalDeferred decodes it as attr.Invalid carrying that message, which
// the operation reports where it checks values, and says it did.
func TestUnmarshalRefusesOrDefersAttributeValuesWithoutExactlyOneType(t *testing.T) {
	for body, want := range map[string]string{
		`{"Item":{"pk":{}}}`:                        attr.EmptyMessage,
		`{"Item":{"pk":{"X":"a"}}}`:                 attr.EmptyMessage,
		`{"Item":{"pk":{"S":null}}}`:                attr.EmptyMessage,
		`{"Item":{"pk":{"S":"a","N":"1"}}}`:         attr.MultipleMessage,
		`{"Item":{"m":{"M":{"x":{"L":[{}]}}}}}`:     attr.EmptyMessage,
		`{"Item":{"pk":{"BOOL":true,"NULL":true}}}`: attr.MultipleMessage,
		`{"Item":{"pk":{"S":"a","NULL":false}}}`:    "One or more parameter values were invalid: Null attribute value types must have the value of true",
		`{"Item":{"pk":{"SS":[],"S":"a"}}}`:         "One or more parameter values were invalid: An string set  may not be empty",
	} {
		var strict dynamodb.PutItemInput
		err := Unmarshal([]byte(body), &strict)
		var ve *ValidationError
		assert.Falsef(t, !errors.As(err, &ve) || ve.Message != want, "Unmarshal(%s) = %v, want ValidationError %q", body, err, want)

		var in dynamodb.PutItemInput
		invalid, err := UnmarshalDeferred([]byte(body), &in)
		require.NoErrorf(t, err, "UnmarshalDeferred(%s)", body)
		assert.Truef(t, invalid, "UnmarshalDeferred(%s) says it decoded no invalid value", body)
		err = attr.ValidateItem(in.Item)
		var ae *attr.Error
		assert.Truef(t, errors.As(err, &ae) && ae.Message == want, "Validate(UnmarshalDeferred(%s)) = %v, want %q", body, err, want)
	}
	var in dynamodb.PutItemInput
	invalid, err := UnmarshalDeferred([]byte(`{"Item":{"pk":{"S":"a"},"n":{"NULL":false}}}`), &in)
	require.NoError(t, err)
	assert.False(t, invalid, "a value with one member is no stand-in, even when the operation refuses it")
}

func TestUnmarshalSkipsUnknownMembersAndNulls(t *testing.T) {
	body := `{
		"TableName": "jobs",
		"NewMemberFromAFutureSDK": {"a": [1, "two", {"three": null}], "b": -1.5e-3},
		"Limit": null,
		"ExpressionAttributeValues": {":v": {"S": "x", "Extra": 1}, ":gone": null}
	}`
	var got dynamodb.QueryInput
	err := Unmarshal([]byte(body), &got)
	require.NoError(t, err)
	want := dynamodb.QueryInput{
		TableName:                 aws.String("jobs"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "x"}},
	}
	assert.Falsef(t, !reflect.DeepEqual(got, want), "got %s, want %s", Marshal(&got), Marshal(&want))
}

func TestUnmarshalResolvesEscapes(t *testing.T) {
	body := `{"TableName":"a\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t\ud800x","Key":{"k\u0021":{"S":"\u2028"}}}`
	var got dynamodb.GetItemInput
	err := Unmarshal([]byte(body), &got)
	require.NoError(t, err)
	want := "aé😀\"\\/\b\f\n\r\t\ufffdx"
	assert.EqualValuesf(t, want, *got.TableName, "TableName = %q, want %q", *got.TableName, want)
	v, ok := got.Key["k!"].(*types.AttributeValueMemberS)
	assert.Falsef(t, !ok || v.Value != "\u2028", "Key = %#v", got.Key)
}

func TestMarshalKeepsStringsValidJSON(t *testing.T) {
	got := string(Marshal(&dynamodb.GetItemInput{TableName: aws.String("a\x00\x1f\"\\\xff<>&é")}))
	want := `{"TableName":"a\u0000\u001f\"\\\ufffd<>&é"}`
	assert.EqualValuesf(t, want, got, "Marshal = %s, want %s", got, want)
}

// FuzzUnmarshal feeds arbitrary bodies to the decoder of an operation's
// input: it must never panic, and whatever it accepts must survive Marshal
// and Unmarshal unchanged.
func FuzzUnmarshal(f *testing.F) {
	for i, o := range operations {
		f.Add(uint8(i), sdkRequestBody(f, o, wiretest.Sampled(o.input)))
	}
	f.Add(uint8(7), []byte(`{"Item":{"a":{"M":{"b":{"L":[{"N":"1"},{"NULL":true}]}}}}}`))
	f.Add(uint8(6), []byte(`{"Key":{"k":{"B":"AAEC"}},"ProjectionExpression":"a\u00e9"}`))
	f.Add(uint8(10), []byte(`{"Limit":-2147483648,"ExclusiveStartKey":{"k":{"SS":["a"]}}}`))
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		o := operations[int(op)%len(operations)]
		in := reflect.New(o.input).Interface()
		if err := Unmarshal(body, in); err != nil {
			return
		}
		again := reflect.New(o.input).Interface()
		err := Unmarshal(Marshal(in), again)
		require.NoErrorf(t, err, "%s: re-decoding %s", o.name, Marshal(in))
		require.Falsef(t, !reflect.DeepEqual(in, again), "%s: %s changed on a round trip to %s", o.name, Marshal(in), Marshal(again))
	})
}

// A value of the wrong JSON type where a string, boolean or integer
// belongs carries DynamoDB's own message, in its Java framework's words
// (dynalite's tests written against DynamoDB, assertType's String,
// Boolean, Integer and Long tables).
func TestMistypedScalarsCarryDynamoDBsMessage(t *testing.T) {
	cases := []struct {
		in   any
		body string
		want string
	}{
		{&dynamodb.QueryInput{}, `{"TableName":true}`, "TRUE_VALUE cannot be converted to String"},
		{&dynamodb.QueryInput{}, `{"TableName":false}`, "FALSE_VALUE cannot be converted to String"},
		{&dynamodb.QueryInput{}, `{"TableName":23}`, "NUMBER_VALUE cannot be converted to String"},
		{&dynamodb.QueryInput{}, `{"TableName":-2147483648}`, "NUMBER_VALUE cannot be converted to String"},
		{&dynamodb.QueryInput{}, `{"TableName":34.56}`, "DECIMAL_VALUE cannot be converted to String"},
		{&dynamodb.QueryInput{}, `{"TableName":[]}`, "Unrecognized collection type class java.lang.String"},
		{&dynamodb.QueryInput{}, `{"TableName":{}}`, "Start of structure or map found where not expected"},
		{&dynamodb.QueryInput{}, `{"ConsistentRead":"23"}`, "Unexpected token received from parser"},
		{&dynamodb.QueryInput{}, `{"ConsistentRead":23}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{&dynamodb.QueryInput{}, `{"ConsistentRead":34.56}`, "DECIMAL_VALUE cannot be converted to Boolean"},
		{&dynamodb.QueryInput{}, `{"ConsistentRead":[]}`, "Unrecognized collection type class java.lang.Boolean"},
		{&dynamodb.QueryInput{}, `{"ConsistentRead":{}}`, "Start of structure or map found where not expected"},
		{&dynamodb.QueryInput{}, `{"Limit":"23"}`, "STRING_VALUE cannot be converted to Integer"},
		{&dynamodb.QueryInput{}, `{"Limit":true}`, "TRUE_VALUE cannot be converted to Integer"},
		{&dynamodb.QueryInput{}, `{"Limit":[]}`, "Unrecognized collection type class java.lang.Integer"},
		{&dynamodb.CreateTableInput{}, `{"ProvisionedThroughput":{"ReadCapacityUnits":"23"}}`, "STRING_VALUE cannot be converted to Long"},
		{&dynamodb.CreateTableInput{}, `{"ProvisionedThroughput":{"ReadCapacityUnits":false}}`, "FALSE_VALUE cannot be converted to Long"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"S":true}}}`, "TRUE_VALUE cannot be converted to String"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"SS":[23]}}}`, "NUMBER_VALUE cannot be converted to String"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"NULL":"23"}}}`, "Unexpected token received from parser"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"M":{"b":{"BOOL":{}}}}}}`, "Start of structure or map found where not expected"},
		// Containers, by where they are (assertType's Map, List,
		// FieldStruct, ValueStruct, ParameterizedList/Map and AttrStruct).
		{&dynamodb.PutItemInput{}, `{"Item":"23"}`, "Unexpected field type"},
		{&dynamodb.PutItemInput{}, `{"Item":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":23}}`, "Unexpected value type in payload"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":[]}}`, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"L":{}}}}`, "Start of structure or map found where not expected"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"L":true}}}`, "Unexpected field type"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"L":[34.56]}}}`, "Unexpected value type in payload"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"M":23}}}`, "Unexpected field type"},
		{&dynamodb.PutItemInput{}, `{"Expected":{"a":{"Value":true}}}`, "Unexpected field type"},
		{&dynamodb.PutItemInput{}, `{"Expected":{"a":[]}}`, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.ExpectedAttributeValue"},
		{&dynamodb.PutItemInput{}, `{"Expected":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.ExpectedAttributeValue>"},
		{&dynamodb.PutItemInput{}, `{"ExpressionAttributeNames":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, java.lang.String>"},
		{&dynamodb.QueryInput{}, `{"AttributesToGet":{}}`, "Start of structure or map found where not expected"},
		{&dynamodb.QueryInput{}, `{"AttributesToGet":23}`, "Unexpected field type"},
		{&dynamodb.BatchWriteItemInput{}, `{"RequestItems":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>>"},
		{&dynamodb.BatchWriteItemInput{}, `{"RequestItems":{"t":true}}`, castMessage},
		{&dynamodb.BatchWriteItemInput{}, `{"RequestItems":{"t":{}}}`, "Start of structure or map found where not expected"},
		{&dynamodb.BatchWriteItemInput{}, `{"RequestItems":{"t":["23"]}}`, "Unexpected value type in payload"},
		{&dynamodb.BatchWriteItemInput{}, `{"RequestItems":{"t":[{"PutRequest":23}]}}`, "Unexpected field type"},
		{&dynamodb.BatchWriteItemInput{}, `{"RequestItems":{"t":[{"PutRequest":[]}]}}`, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.PutRequest"},
		{&dynamodb.BatchGetItemInput{}, `{"RequestItems":{"t":{"Keys":[23]}}}`, castMessage},
		{&dynamodb.BatchGetItemInput{}, `{"RequestItems":{"t":{"Keys":[[]]}}}`, "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"},
		// Blobs (assertType's Blob table).
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"B":true}}}`, "only base-64-encoded strings are convertible to bytes"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"B":34.56}}}`, "only base-64-encoded strings are convertible to bytes"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"B":[]}}}`, "Unrecognized collection type class java.nio.ByteBuffer"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"BS":[{}]}}}`, "Start of structure or map found where not expected"},
		{&dynamodb.PutItemInput{}, `{"Item":{"a":{"B":"23456"}}}`, "Base64 encoded length is expected a multiple of 4 bytes but found: 5"},
	}
	for _, c := range cases {
		err := Unmarshal([]byte(c.body), c.in)
		var de *DecodeError
		assert.Truef(t, errors.As(err, &de) && de.Java == c.want, "Unmarshal(%s) = %#v, want Java message %q", c.body, err, c.want)
	}
	// Where the decoder does not know DynamoDB's words, it says none.
	var de *DecodeError
	require.ErrorAs(t, Unmarshal([]byte(`{"Limit":1.5}`), &dynamodb.QueryInput{}), &de)
	assert.Empty(t, de.Java)
}
