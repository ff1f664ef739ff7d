package dynamotest

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest/internal/attr"
)

// Over HTTP a DB reads an AttributeValue with no member, or with several,
// as a stand-in and refuses it where the operation checks its values, so
// that the request's other faults are reported first, as DynamoDB does.
// Every place a request carries attribute values must still refuse it, with
// DynamoDB's message, and write nothing.
func TestHandlerRefusesAnAttributeValueThatIsNotOneWhereverARequestCarriesIt(t *testing.T) {
	// BAD stands for the value under test; each body is otherwise valid.
	bodies := map[string]string{
		"GetItem Key":                      `{"TableName":"tbl","Key":{"pk":BAD}}`,
		"PutItem Item":                     `{"TableName":"tbl","Item":{"pk":{"S":"new"},"a":BAD}}`,
		"PutItem Item key":                 `{"TableName":"tbl","Item":{"pk":BAD}}`,
		"PutItem Item nested":              `{"TableName":"tbl","Item":{"pk":{"S":"new"},"m":{"M":{"x":{"L":[BAD]}}}}}`,
		"PutItem values":                   `{"TableName":"tbl","Item":{"pk":{"S":"new"}},"ConditionExpression":"a <> :v","ExpressionAttributeValues":{":v":BAD}}`,
		"PutItem Expected Value":           `{"TableName":"tbl","Item":{"pk":{"S":"new"}},"Expected":{"a":{"Value":BAD}}}`,
		"PutItem Expected list":            `{"TableName":"tbl","Item":{"pk":{"S":"new"}},"Expected":{"a":{"ComparisonOperator":"NE","AttributeValueList":[BAD]}}}`,
		"UpdateItem Key":                   `{"TableName":"tbl","Key":{"pk":BAD},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x"}}}`,
		"UpdateItem values":                `{"TableName":"tbl","Key":{"pk":{"S":"new"}},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":BAD}}`,
		"UpdateItem AttributeUpdates":      `{"TableName":"tbl","Key":{"pk":{"S":"new"}},"AttributeUpdates":{"a":{"Action":"PUT","Value":BAD}}}`,
		"DeleteItem Key":                   `{"TableName":"tbl","Key":{"pk":BAD}}`,
		"DeleteItem values":                `{"TableName":"tbl","Key":{"pk":{"S":"old"}},"ConditionExpression":"a <> :v","ExpressionAttributeValues":{":v":BAD}}`,
		"Query values":                     `{"TableName":"tbl","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":BAD}}`,
		"Query KeyConditions":              `{"TableName":"tbl","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[BAD]}}}`,
		"Query QueryFilter":                `{"TableName":"tbl","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"old"}]}},"QueryFilter":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[BAD]}}}`,
		"Query ExclusiveStartKey":          `{"TableName":"tbl","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"old"}},"ExclusiveStartKey":{"pk":BAD}}`,
		"Scan values":                      `{"TableName":"tbl","FilterExpression":"a = :v","ExpressionAttributeValues":{":v":BAD}}`,
		"Scan ScanFilter":                  `{"TableName":"tbl","ScanFilter":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[BAD]}}}`,
		"Scan ExclusiveStartKey":           `{"TableName":"tbl","ExclusiveStartKey":{"pk":BAD}}`,
		"BatchGetItem Keys":                `{"RequestItems":{"tbl":{"Keys":[{"pk":BAD}]}}}`,
		"BatchWriteItem Item":              `{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"pk":{"S":"new"},"a":BAD}}}]}}`,
		"BatchWriteItem Key":               `{"RequestItems":{"tbl":[{"DeleteRequest":{"Key":{"pk":BAD}}}]}}`,
		"TransactGetItems Key":             `{"TransactItems":[{"Get":{"TableName":"tbl","Key":{"pk":BAD}}}]}`,
		"TransactWriteItems Put":           `{"TransactItems":[{"Put":{"TableName":"tbl","Item":{"pk":{"S":"new"},"a":BAD}}}]}`,
		"TransactWriteItems Update":        `{"TransactItems":[{"Update":{"TableName":"tbl","Key":{"pk":{"S":"new"}},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":BAD}}}]}`,
		"TransactWriteItems Delete":        `{"TransactItems":[{"Delete":{"TableName":"tbl","Key":{"pk":BAD}}}]}`,
		"TransactWriteItems Check":         `{"TransactItems":[{"ConditionCheck":{"TableName":"tbl","Key":{"pk":{"S":"old"}},"ConditionExpression":"a <> :v","ExpressionAttributeValues":{":v":BAD}}}]}`,
		"ExecuteStatement Parameters":      `{"Statement":"INSERT INTO tbl VALUE {'pk': 'new', 'a': ?}","Parameters":[BAD]}`,
		"ExecuteTransaction Parameters":    `{"TransactStatements":[{"Statement":"INSERT INTO tbl VALUE {'pk': 'new', 'a': ?}","Parameters":[BAD]}]}`,
		"BatchExecuteStatement Parameters": `{"Statements":[{"Statement":"INSERT INTO tbl VALUE {'pk': 'new', 'a': ?}","Parameters":[BAD]}]}`,
	}
	ctx := context.Background()
	for bad, want := range map[string]string{
		`{}`:                           attr.EmptyMessage,
		`{"S":"x","N":"1"}`:            attr.MultipleMessage,
		`{"S":"x","NULL":false}`:       "One or more parameter values were invalid: Null attribute value types must have the value of true",
		`{"M":{"y":{}},"BOOL":true}`:   attr.EmptyMessage,
		`{"NS":["1","1"],"NULL":true}`: "Input collection contains duplicates",
	} {
		for name, body := range bodies {
			t.Run(name+" "+bad, func(t *testing.T) {
				db, url := serveTbl(t)
				old := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "old"}, "a": &types.AttributeValueMemberS{Value: "x"}}
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: old})
				require.NoError(t, err)

				op, _, _ := strings.Cut(name, " ")
				_, got := post(t, url, "DynamoDB_20120810."+op, strings.ReplaceAll(body, "BAD", bad))
				assert.Containsf(t, got, "ValidationException", "answer %s", got)
				switch {
				case strings.HasSuffix(name, " ExclusiveStartKey") && !strings.Contains(want, "duplicates"):
					assert.Containsf(t, got, "The provided starting key is invalid: "+want, "answer %s", got)
				case strings.HasSuffix(name, " values"):
					// Checked with the expressions, in their words.
					want := "ExpressionAttributeValues contains invalid value: " + want + " for key :v"
					assert.Containsf(t, got, want, "answer %s", got)
				default:
					assert.Containsf(t, got, want, "answer %s", got)
				}

				scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl")})
				require.NoError(t, err)
				assert.Equal(t, []map[string]types.AttributeValue{old}, scan.Items, "the table is unchanged")
			})
		}
	}
}

// DynamoDB reports a request's broken member constraints, then how it
// mixes expression and legacy parameters, before its attribute values, and
// its attribute values before anything else, the table's existence
// included. Each answer is DynamoDB Local's on an existing table, unless a
// comment names dynalite's test written against DynamoDB where Local
// differs.
func TestHandlerReportsARequestsOtherFaultsBeforeAnAttributeValueThatIsNotOne(t *testing.T) {
	const mixed = "Can not use both expression and non-expression parameters in the same request: "
	for _, tc := range []struct{ name, op, body, want string }{
		{"mixed projection", "GetItem", `{"TableName":"tbl","Key":{"pk":{}},"AttributesToGet":["a"],"ProjectionExpression":"a"}`,
			mixed + "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		// dynalite getItem "should return ValidationException if
		// ExpressionAttributeNames but no ProjectionExpression" (Local
		// reports the value).
		{"names without expression", "GetItem", `{"TableName":"tbl","Key":{"pk":{}},"AttributesToGet":["a"],"ExpressionAttributeNames":{}}`,
			"ExpressionAttributeNames can only be specified when using expressions"},
		// dynalite getItem "should return ValidationException for
		// unsupported datatype in Key", on a table that does not exist.
		{"before the table", "GetItem", `{"TableName":"abc","Key":{"pk":{}}}`, attr.EmptyMessage},
		{"members before counting them", "GetItem", `{"TableName":"tbl","Key":{"pk":{"S":"x","N":"b"}}}`,
			"A value provided cannot be converted into a number"},
		{"values without condition", "PutItem", `{"TableName":"tbl","Item":{"pk":{}},"ExpressionAttributeValues":{":a":{"S":"x"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		// dynalite putItem's order: values before ReturnValues (Local
		// reports ReturnValues).
		{"values before return values", "PutItem", `{"TableName":"tbl","Item":{"pk":{}},"ReturnValues":"ALL_NEW"}`, attr.EmptyMessage},
		{"mixed update", "UpdateItem", `{"TableName":"tbl","Key":{"pk":{}},"AttributeUpdates":{"b":{"Action":"PUT","Value":{"S":"x"}}},"UpdateExpression":"SET b = :v"}`,
			mixed + "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}"},
		{"values without update", "UpdateItem", `{"TableName":"tbl","Key":{"pk":{}},"ExpressionAttributeValues":{":a":{"S":"x"}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"},
		// Every broken constraint, counted (Local reports the first in its
		// own words; see conformance's member-constraints cases).
		{"member constraints first", "UpdateItem", `{"TableName":"tbl","Key":{"pk":{}},"ReturnValues":"hi","ReturnConsumedCapacity":"hi"}`,
			"2 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'hi' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"},
		{"mixed delete", "DeleteItem", `{"TableName":"tbl","Key":{"pk":{}},"Expected":{"b":{"Exists":false}},"ConditionExpression":"attribute_exists(b)"}`,
			mixed + "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"values beside key conditions", "Query", `{"TableName":"tbl","ExpressionAttributeValues":{":v":{}},"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null"},
		{"mixed query", "Query", `{"TableName":"tbl","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{}},"AttributesToGet":["a"]}`,
			mixed + "Non-expression parameters: {AttributesToGet} Expression parameters: {KeyConditionExpression}"},
		{"a value placeholder", "Query", `{"TableName":"tbl","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"x","N":"1"}}}`,
			"ExpressionAttributeValues contains invalid value: " + attr.MultipleMessage + " for key :v"},
		{"values without filter", "Scan", `{"TableName":"tbl","ExpressionAttributeValues":{":v":{}}}`,
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"},
		// dynalite scan "should return ValidationException for
		// unsupported datatype in ExclusiveStartKey" and its order: the
		// starting key before Segment (Local: the same, without the
		// prefix).
		{"starting key before segments", "Scan", `{"TableName":"tbl","ExclusiveStartKey":{"pk":{}},"Segment":1}`,
			"The provided starting key is invalid: " + attr.EmptyMessage},
		// dynalite query "... for invalid values in ExclusiveStartKey
		// without provided message": a set's duplicates come bare.
		{"starting key duplicates", "Query", `{"TableName":"tbl","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"x"}},"ExclusiveStartKey":{"pk":{"S":"x","NS":["1","1"]}}}`,
			"Input collection contains duplicates"},
		{"mixed scan", "Scan", `{"TableName":"tbl","ScanFilter":{"b":{"ComparisonOperator":"EQ","AttributeValueList":[{}]}},"FilterExpression":"b = c"}`,
			mixed + "Non-expression parameters: {ScanFilter} Expression parameters: {FilterExpression}"},
		{"mixed batch get", "BatchGetItem", `{"RequestItems":{"tbl":{"Keys":[{"pk":{}}],"AttributesToGet":["a"],"ProjectionExpression":"a"}}}`,
			mixed + "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		{"batch write", "BatchWriteItem", `{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"pk":{"S":"x"},"b":{}}}}]}}`, attr.EmptyMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, url := serveTbl(t)
			_, got := post(t, url, "DynamoDB_20120810."+tc.op, tc.body)
			assert.Equal(t, `{"__type":"com.amazon.coral.validate#ValidationException","message":`+strconv.Quote(tc.want)+`}`, got)
		})
	}
}

// serveTbl serves a new DB over HTTP with one table, tbl, keyed by pk (S).
func serveTbl(t *testing.T) (*DB, string) {
	t.Helper()
	db := New()
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("tbl"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	require.NoError(t, err)
	srv := httptest.NewServer(NewHandler(db))
	t.Cleanup(srv.Close)
	return db, srv.URL
}
