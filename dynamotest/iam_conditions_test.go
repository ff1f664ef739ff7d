package dynamotest_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

// ordersBehind is a fake with the table "orders" (pk, sk), behind policy.
func ordersBehind(t *testing.T, p iam.Policy) *dynamotest.Enforced {
	t.Helper()
	fake := dynamotest.New()
	_, err := fake.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("orders"),
		AttributeDefinitions: []types.AttributeDefinition{attrDef("pk", "S"), attrDef("sk", "S")},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		BillingMode: types.BillingModePayPerRequest})
	require.NoError(t, err)
	e, err := dynamotest.Enforce(fake, p)
	require.NoError(t, err)
	return e
}

func denied(t *testing.T, err error) bool {
	t.Helper()
	var ade *iam.AccessDeniedError
	return errors.As(err, &ade)
}

// A policy that confines a caller to its own partition, as the DynamoDB
// Developer Guide's fine-grained access control examples do with
// dynamodb:LeadingKeys.
func TestEnforcedEvaluatesLeadingKeysOnEveryItemARequestTouches(t *testing.T) {
	orders := dynamotest.Env.TableARN("orders")
	e := ordersBehind(t, iam.Policy{Version: iam.Version, Statement: []iam.Statement{{Effect: iam.Allow,
		Action:    iam.Strings{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem"},
		Resource:  iam.Strings{orders},
		Condition: iam.Condition{iam.StringEquals: {dynamotest.ConditionLeadingKeys: iam.Strings{"user-1"}}}}}})
	ctx := context.Background()
	item := func(pk string) map[string]types.AttributeValue { return item{"pk": S(pk), "sk": S("1")} }

	_, err := e.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: item("user-1")})
	require.NoError(t, err, "the caller's own partition")
	_, err = e.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: item("user-2")})
	assert.True(t, denied(t, err), "another partition: %v", err)
	_, err = e.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: item("user-2")})
	assert.True(t, denied(t, err), "another partition: %v", err)

	_, err = e.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("orders"), KeyConditionExpression: aws.String("pk = :p AND sk > :s"),
		ExpressionAttributeValues: item2(":p", "user-1", ":s", "0")})
	require.NoError(t, err)
	_, err = e.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("orders"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item2(":p", "user-2")})
	assert.True(t, denied(t, err), "a Query of another partition: %v", err)
	_, err = e.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("orders")})
	assert.True(t, denied(t, err), "a Scan has no leading key to allow: %v", err)

	_, err = e.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"orders": {Keys: []map[string]types.AttributeValue{item("user-1"), {"pk": S("user-2"), "sk": S("9")}}}}})
	assert.True(t, denied(t, err), "one foreign key refuses the batch: %v", err)
	_, err = e.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"orders": {{PutRequest: &types.PutRequest{Item: item("user-1")}}}}})
	require.NoError(t, err)
}

func item2(kv ...string) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = S(kv[i+1])
	}
	return out
}

func TestEnforcedAppliesADenyOnLeadingKeys(t *testing.T) {
	orders := dynamotest.Env.TableARN("orders")
	e := ordersBehind(t, iam.Policy{Version: iam.Version, Statement: []iam.Statement{
		{Effect: iam.Allow, Action: iam.Strings{"dynamodb:*"}, Resource: iam.Strings{orders}},
		{Effect: iam.Deny, Action: iam.Strings{"dynamodb:PutItem", "dynamodb:PartiQLInsert"}, Resource: iam.Strings{orders},
			Condition: iam.Condition{iam.StringEquals: {dynamotest.ConditionLeadingKeys: iam.Strings{"admin"}}}},
	}})
	ctx := context.Background()
	_, err := e.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: item{"pk": S("admin"), "sk": S("1")}})
	assert.True(t, denied(t, err), "the Deny applies: %v", err)
	_, err = e.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "orders" VALUE {'pk': 'admin', 'sk': '2'}`)})
	assert.True(t, denied(t, err), "in PartiQL too: %v", err)
	_, err = e.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: item{"pk": S("user"), "sk": S("1")}})
	assert.NoError(t, err)
}

// The IAM User Guide's example that denies requests not sent over TLS.
func TestEnforcedEvaluatesSecureTransportOverHTTP(t *testing.T) {
	orders := dynamotest.Env.TableARN("orders")
	e := ordersBehind(t, iam.Policy{Version: iam.Version, Statement: []iam.Statement{
		{Effect: iam.Allow, Action: iam.Strings{"dynamodb:*"}, Resource: iam.Strings{orders}},
		{Effect: iam.Deny, Action: iam.Strings{"dynamodb:*"}, Resource: iam.Strings{"*"},
			Condition: iam.Condition{iam.Bool: {dynamotest.ConditionSecureTransport: iam.Strings{"false"}}}},
	}})
	ctx := context.Background()
	key := item{"pk": S("a"), "sk": S("1")}

	ts := httptest.NewServer(e.Handler())
	t.Cleanup(ts.Close)
	_, err := dynamotest.NewClient(ts.URL).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: key})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, "AccessDeniedException", api.ErrorCode(), "plain HTTP is not secure transport")

	tls := httptest.NewTLSServer(e.Handler())
	t.Cleanup(tls.Close)
	secure := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(tls.URL), Region: "us-east-1",
		Credentials: dynamotest.NewClient(tls.URL).Options().Credentials, HTTPClient: tls.Client()})
	_, err = secure.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: key})
	assert.NoError(t, err, "over TLS")

	_, err = e.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: key})
	assert.NoError(t, err, "in process, as an SDK client's calls over HTTPS")
}

func TestEnforceRefusesADenyItCannotEvaluate(t *testing.T) {
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{
		{Effect: iam.Allow, Action: iam.Strings{"dynamodb:*"}, Resource: iam.Strings{"*"}},
		{Effect: iam.Deny, Action: iam.Strings{"dynamodb:GetItem"}, Resource: iam.Strings{"*"},
			Condition: iam.Condition{iam.StringEquals: {"dynamodb:Attributes": iam.Strings{"secret"}}}},
	}}
	_, err := dynamotest.Enforce(dynamotest.New(), p)
	require.ErrorIs(t, err, iam.ErrInvalidPolicy)
	assert.Contains(t, err.Error(), "dynamodb:Attributes")

	p.Statement[1].Effect = iam.Allow
	_, err = dynamotest.Enforce(dynamotest.New(), p)
	assert.NoError(t, err, "an Allow on a key the fake does not set never matches: stricter than IAM, not looser")
}

var _ table.API = (*dynamotest.Enforced)(nil)
