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

// partiQLFake has tables orders (with GSI byStatus) and orders-dev, and
// a policy allowing PartiQL SELECT and INSERT on orders and its index,
// UPDATE on orders only inside a transaction, and denying SELECTs that
// scan (the developer guide's examples for PartiQL).
func partiQLFake(t *testing.T) *dynamotest.Enforced {
	t.Helper()
	fake := dynamotest.New()
	for _, name := range []string{"orders", "orders-dev"} {
		_, err := fake.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byStatus"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
			BillingMode: types.BillingModePayPerRequest})
		require.NoError(t, err)
	}
	orders := dynamotest.Env.TableARN("orders")
	p := iam.Policy{Version: iam.Version, Statement: []iam.Statement{
		{Effect: iam.Allow, Action: iam.Strings{"dynamodb:PartiQLSelect", "dynamodb:PartiQLInsert"},
			Resource: iam.Strings{orders, dynamotest.Env.IndexARN("orders", "byStatus")}},
		{Effect: iam.Allow, Action: iam.Strings{"dynamodb:PartiQLUpdate"}, Resource: iam.Strings{orders},
			Condition: iam.Condition{iam.StringEquals: {dynamotest.ConditionEnclosingOperation: {"ExecuteTransaction"}}}},
		{Effect: iam.Deny, Action: iam.Strings{"dynamodb:PartiQLSelect"}, Resource: iam.Strings{"*"},
			Condition: iam.Condition{iam.Bool: {dynamotest.ConditionFullTableScan: {"true"}}}},
	}}
	e, err := dynamotest.Enforce(fake, p)
	require.NoError(t, err)
	return e
}

// partiQLCase is one PartiQL request and the action it is refused on ("" if allowed).
type partiQLCase struct {
	name     string
	call     func(ctx context.Context, db partiQLAPI) error
	denied   string // the action refused, "" when allowed
	resource string
	explicit bool
}

type partiQLAPI interface {
	ExecuteStatement(context.Context, *dynamodb.ExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
	BatchExecuteStatement(context.Context, *dynamodb.BatchExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
	ExecuteTransaction(context.Context, *dynamodb.ExecuteTransactionInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error)
}

func partiQLCases() []partiQLCase {
	stmt := func(s string) func(context.Context, partiQLAPI) error {
		return func(ctx context.Context, db partiQLAPI) error {
			_, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(s)})
			return err
		}
	}
	batch := func(ss ...string) func(context.Context, partiQLAPI) error {
		return func(ctx context.Context, db partiQLAPI) error {
			in := &dynamodb.BatchExecuteStatementInput{}
			for _, s := range ss {
				in.Statements = append(in.Statements, types.BatchStatementRequest{Statement: aws.String(s)})
			}
			_, err := db.BatchExecuteStatement(ctx, in)
			return err
		}
	}
	tx := func(ss ...string) func(context.Context, partiQLAPI) error {
		return func(ctx context.Context, db partiQLAPI) error {
			in := &dynamodb.ExecuteTransactionInput{}
			for _, s := range ss {
				in.TransactStatements = append(in.TransactStatements, types.ParameterizedStatement{Statement: aws.String(s)})
			}
			_, err := db.ExecuteTransaction(ctx, in)
			return err
		}
	}
	orders, dev := dynamotest.Env.TableARN("orders"), dynamotest.Env.TableARN("orders-dev")
	return []partiQLCase{
		{name: "insert", call: stmt(`INSERT INTO "orders" VALUE {'pk': 'o-1', 'status': 'NEW'}`)},
		{name: "insert into another table", call: stmt(`INSERT INTO "orders-dev" VALUE {'pk': 'o-1'}`), denied: "dynamodb:PartiQLInsert", resource: dev},
		{name: "select by key", call: stmt(`SELECT * FROM "orders" WHERE pk = 'o-1'`)},
		{name: "select from the index by its key", call: stmt(`SELECT * FROM "orders"."byStatus" WHERE status = 'NEW'`)},
		{name: "select from another table", call: stmt(`SELECT * FROM "orders-dev" WHERE pk = 'o-1'`), denied: "dynamodb:PartiQLSelect", resource: dev},
		{name: "select scanning the table", call: stmt(`SELECT * FROM "orders" WHERE status = 'NEW'`), denied: "dynamodb:PartiQLSelect", resource: orders, explicit: true},
		{name: "select with OR scans", call: stmt(`SELECT * FROM "orders" WHERE pk = 'o-1' OR pk = 'o-2'`), denied: "dynamodb:PartiQLSelect", resource: orders, explicit: true},
		{name: "select scanning the index", call: stmt(`SELECT * FROM "orders"."byStatus"`), denied: "dynamodb:PartiQLSelect", resource: dynamotest.Env.IndexARN("orders", "byStatus"), explicit: true},
		{name: "update outside a transaction", call: stmt(`UPDATE "orders" SET n = 1 WHERE pk = 'o-1'`), denied: "dynamodb:PartiQLUpdate", resource: orders},
		{name: "delete", call: stmt(`DELETE FROM "orders" WHERE pk = 'o-1'`), denied: "dynamodb:PartiQLDelete", resource: orders},
		{name: "batch of allowed selects", call: batch(`SELECT * FROM "orders" WHERE pk = 'o-1'`, `SELECT * FROM "orders" WHERE pk = 'o-2'`)},
		{name: "batch with one statement on another table", call: batch(`SELECT * FROM "orders" WHERE pk = 'o-1'`, `SELECT * FROM "orders-dev" WHERE pk = 'o-1'`), denied: "dynamodb:PartiQLSelect", resource: dev},
		{name: "batch insert into another table", call: batch(`INSERT INTO "orders-dev" VALUE {'pk': 'o-9'}`), denied: "dynamodb:PartiQLInsert", resource: dev},
		{name: "update inside a transaction", call: tx(`UPDATE "orders" SET n = 1 WHERE pk = 'o-1'`)},
		{name: "transaction with a delete", call: tx(`UPDATE "orders" SET n = 2 WHERE pk = 'o-1'`, `DELETE FROM "orders" WHERE pk = 'o-1'`), denied: "dynamodb:PartiQLDelete", resource: orders},
		{name: "transaction on another table", call: tx(`UPDATE "orders-dev" SET n = 1 WHERE pk = 'o-1'`), denied: "dynamodb:PartiQLUpdate", resource: dev},
		{name: "condition check in a transaction reads", call: tx(`UPDATE "orders" SET n = 3 WHERE pk = 'o-1'`, `EXISTS(SELECT * FROM "orders-dev" WHERE pk = 'o-1' AND n = 1)`), denied: "dynamodb:PartiQLSelect", resource: dev},
	}
}

// TestEnforcedAuthorizesPartiQLPerStatement: each statement needs the
// PartiQL action of its verb on its table or index, with the condition
// keys IAM sets; one refused statement refuses the whole request and
// nothing changes.
func TestEnforcedAuthorizesPartiQLPerStatement(t *testing.T) {
	ctx := context.Background()
	e := partiQLFake(t)
	for _, c := range partiQLCases() {
		before := e.DB().Calls("PutItem") + e.DB().Calls("UpdateItem") + e.DB().Calls("DeleteItem") + e.DB().Calls("TransactWriteItems")
		err := c.call(ctx, e)
		if c.denied == "" {
			assert.NoError(t, err, c.name)
			continue
		}
		var ad *iam.AccessDeniedError
		if assert.ErrorAs(t, err, &ad, c.name) {
			assert.Equal(t, c.denied, ad.Action, c.name)
			assert.Equal(t, c.resource, ad.Resource, c.name)
			assert.Equal(t, c.explicit, ad.Explicit, c.name)
		}
		after := e.DB().Calls("PutItem") + e.DB().Calls("UpdateItem") + e.DB().Calls("DeleteItem") + e.DB().Calls("TransactWriteItems")
		assert.Equal(t, before, after, "%s: a refused statement writes nothing", c.name)
	}
	out, err := e.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "o-1"}}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, out.Item["n"], "only the allowed transaction's update applied")
	assert.Zero(t, e.DB().CallsFor("PutItem", "orders-dev"))
}

// TestEnforcedAuthorizesPartiQLOverHTTP: the same decisions for an SDK
// client of the enforced handler, answered as AccessDeniedException.
func TestEnforcedAuthorizesPartiQLOverHTTP(t *testing.T) {
	ctx := context.Background()
	e := partiQLFake(t)
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	client := dynamotest.NewClient(srv.URL)
	for _, c := range partiQLCases() {
		err := c.call(ctx, client)
		if c.denied == "" {
			assert.NoError(t, err, c.name)
			continue
		}
		var api smithy.APIError
		if assert.ErrorAs(t, err, &api, c.name) {
			assert.Equal(t, "AccessDeniedException", api.ErrorCode(), c.name)
			assert.Contains(t, api.ErrorMessage(), "is not authorized to perform: "+c.denied+" on resource: "+c.resource+" ", c.name)
		}
	}
	assert.Zero(t, e.DB().CallsFor("PutItem", "orders-dev"), "a refused statement reaches nothing")
	// Malformed PartiQL is the DB's to refuse, with its own error.
	_, err := client.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELEKT * FROM orders`)})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, "ValidationException", api.ErrorCode())
}

// A CreateTable that tags its table is authorized as dynamodb:TagResource
// on the table too (tag on create: an AccessDenied on TagResource otherwise,
// as DynamoDB answers Terraform and SDK callers); an untagged one is not.
func TestEnforcedAuthorizesATaggedCreateTableAsTagResourceToo(t *testing.T) {
	ctx := context.Background()
	create := func(name string, tags []types.Tag) *dynamodb.CreateTableInput {
		return &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}, Tags: tags}
	}
	policy := func(actions ...string) iam.Policy {
		return iam.Policy{Version: iam.Version, Statement: []iam.Statement{{Effect: iam.Allow, Action: actions, Resource: iam.Strings{"*"}}}}
	}
	name := []types.Tag{{Key: aws.String("Name"), Value: aws.String("t")}}
	e, err := dynamotest.Enforce(dynamotest.New(), policy("dynamodb:CreateTable"))
	require.NoError(t, err)
	_, err = e.CreateTable(ctx, create("tagged", name))
	var denied *iam.AccessDeniedError
	require.ErrorAs(t, err, &denied)
	assert.Equal(t, "dynamodb:TagResource", denied.Action)
	assert.Zero(t, e.DB().Calls("CreateTable"), "the refused table is not made")
	_, err = e.CreateTable(ctx, create("untagged", nil))
	assert.NoError(t, err, "no tags, no TagResource")

	e, err = dynamotest.Enforce(dynamotest.New(), policy("dynamodb:CreateTable", "dynamodb:TagResource"))
	require.NoError(t, err)
	_, err = e.CreateTable(ctx, create("tagged", name))
	assert.NoError(t, err)
}
