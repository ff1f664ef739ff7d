package dynamotest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
)

func enforcedFake(t *testing.T) *dynamotest.Enforced {
	t.Helper()
	fake := dynamotest.New()
	for _, name := range []string{"orders", "orders-dev"} {
		_, err := fake.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest})
		require.NoError(t, err)
	}
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{{Effect: iam.Allow,
		Action: iam.Strings{"dynamodb:GetItem", "dynamodb:PutItem"}, Resource: iam.Strings{dynamotest.Env.TableARN("orders")}}}}
	e, err := dynamotest.Enforce(fake, p)
	require.NoError(t, err)
	return e
}

var orderItem = map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "o-1"}}

// TestEnforcedRefusesOverHTTPAsDynamoDBDoes: the SDK client gets a 400
// AccessDeniedException with AWS's message, and nothing reaches the fake.
func TestEnforcedRefusesOverHTTPAsDynamoDBDoes(t *testing.T) {
	ctx := context.Background()
	e := enforcedFake(t)
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	client := dynamotest.NewClient(srv.URL)

	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: orderItem})
	require.NoError(t, err)
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders-dev"), Item: orderItem})
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "err %v", err)
	assert.Equal(t, "AccessDeniedException", api.ErrorCode())
	assert.Equal(t, "User: "+iam.DefaultPrincipal+" is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/orders-dev because no identity-based policy allows the dynamodb:PutItem action", api.ErrorMessage())
	assert.Zero(t, e.DB().CallsFor("PutItem", "orders-dev"), "a refused request reaches nothing")
	_, err = client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("orders")})
	require.True(t, errors.As(err, &api))
	assert.Equal(t, "AccessDeniedException", api.ErrorCode())

	// The raw answer: status 400, Coral's service namespace.
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"TableName":"orders-dev"}`))
	require.NoError(t, err)
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(body), `"__type":"com.amazon.coral.service#AccessDeniedException"`)
	assert.Equal(t, 3, e.Denied())
}

// TestEnforcedRefusesInProcess: the same decisions without HTTP, and a
// transaction is refused whole when one of its actions is not allowed.
func TestEnforcedRefusesInProcess(t *testing.T) {
	ctx := context.Background()
	e := enforcedFake(t)
	_, err := e.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: orderItem})
	require.NoError(t, err)
	_, err = e.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: orderItem})
	require.NoError(t, err)
	_, err = e.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("orders"), Item: orderItem}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("orders"), Key: orderItem, ConditionExpression: aws.String("attribute_exists(pk)")}},
	}})
	var ad *iam.AccessDeniedError
	require.ErrorAs(t, err, &ad)
	assert.Equal(t, "dynamodb:ConditionCheckItem", ad.Action)
	assert.Zero(t, e.DB().Calls("TransactWriteItems"))
	_, err = e.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("orders-2")})
	require.ErrorAs(t, err, &ad)
	assert.Equal(t, "dynamodb:CreateTable", ad.Action)
}

func TestEnforceRefusesNilDBAndBadPolicy(t *testing.T) {
	_, err := dynamotest.Enforce(nil, iam.Policy{Version: iam.Version})
	assert.ErrorIs(t, err, dynamotest.ErrNilDB)
	_, err = dynamotest.Enforce(dynamotest.New(), iam.Policy{Version: "2008-10-17"})
	assert.ErrorIs(t, err, iam.ErrInvalidPolicy)
}
