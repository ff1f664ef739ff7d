package dynamotest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
)

type item = map[string]types.AttributeValue

var ctx = context.Background()

func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func N(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
func B(b string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(b)} }

// str and num read an attribute of a returned item, failing the test when
// it is absent or of another type.
func str(t testing.TB, it item, name string) string {
	t.Helper()
	v, ok := it[name].(*types.AttributeValueMemberS)
	require.Truef(t, ok, "attribute %s: want S, got %#v", name, it[name])
	return v.Value
}

func num(t testing.TB, it item, name string) string {
	t.Helper()
	v, ok := it[name].(*types.AttributeValueMemberN)
	require.Truef(t, ok, "attribute %s: want N, got %#v", name, it[name])
	return v.Value
}

// tableSpec describes a test table: key names with their types ("S", "N",
// "B"), sk empty for none, and GSIs.
type tableSpec struct {
	name          string
	pk, pkType    string
	sk, skType    string
	gsis          []types.GlobalSecondaryIndex
	extraAttrDefs []types.AttributeDefinition
	provisioned   bool
}

func gsi(name, pk, sk string, proj types.ProjectionType, nonKey ...string) types.GlobalSecondaryIndex {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
	if sk != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	return types.GlobalSecondaryIndex{
		IndexName:  aws.String(name),
		KeySchema:  ks,
		Projection: &types.Projection{ProjectionType: proj, NonKeyAttributes: nonKey},
	}
}

func attrDef(name, typ string) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeType(typ)}
}

func (s tableSpec) input() *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:              aws.String(s.name),
		BillingMode:            types.BillingModePayPerRequest,
		AttributeDefinitions:   []types.AttributeDefinition{attrDef(s.pk, s.pkType)},
		KeySchema:              []types.KeySchemaElement{{AttributeName: aws.String(s.pk), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: s.gsis,
	}
	if s.sk != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, attrDef(s.sk, s.skType))
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(s.sk), KeyType: types.KeyTypeRange})
	}
	in.AttributeDefinitions = append(in.AttributeDefinitions, s.extraAttrDefs...)
	return in
}

func newDB(t testing.TB, specs ...tableSpec) *dynamotest.DB {
	t.Helper()
	db := dynamotest.New()
	for _, s := range specs {
		_, err := db.CreateTable(ctx, s.input())
		require.NoErrorf(t, err, "CreateTable %s", s.name)
	}
	return db
}

// simple is a table keyed by pk (S) and sk (S).
var simple = tableSpec{name: "simple", pk: "pk", pkType: "S", sk: "sk", skType: "S"}

// numbered is a table keyed by pk (S) and n (N).
var numbered = tableSpec{name: "numbered", pk: "pk", pkType: "S", sk: "n", skType: "N"}

// hashOnly is a table keyed by id (S) alone.
var hashOnly = tableSpec{name: "hashonly", pk: "id", pkType: "S"}

func put(t testing.TB, db *dynamotest.DB, tableName string, it item) {
	t.Helper()
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tableName), Item: it})
	require.NoErrorf(t, err, "PutItem %v", it)
}

func get(t testing.TB, db *dynamotest.DB, tableName string, key item) item {
	t.Helper()
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableName), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoErrorf(t, err, "GetItem %v", key)
	return out.Item
}

// wantValidation fails unless err is a ValidationException whose message
// is msg.
func wantValidation(t testing.TB, err error, msg string) {
	t.Helper()
	var ae *smithy.GenericAPIError
	require.Falsef(t, !errors.As(err, &ae) || ae.Code != "ValidationException", "want ValidationException %q, got %T %v", msg, err, err)
	require.Falsef(t, msg != "" && ae.Message != msg, "ValidationException message:\n got  %q\n want %q", ae.Message, msg)
}

func wantNotFound(t testing.TB, err error) {
	t.Helper()
	var nf *types.ResourceNotFoundException
	require.ErrorAsf(t, err, &nf, "want ResourceNotFoundException, got %T %v", err, err)
}

// fill puts n items into partition pk of a numbered-style table, sort key
// n = 0..n-1, each with a payload of size bytes.
func fill(t testing.TB, db *dynamotest.DB, tableName, pk string, n, size int) {
	t.Helper()
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = 'x'
	}
	for i := 0; i < n; i++ {
		put(t, db, tableName, item{"pk": S(pk), "n": N(fmt.Sprint(i)), "data": S(string(payload))})
	}
}
