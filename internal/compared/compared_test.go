package compared

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// missingMessage answers GetItem on a missing table in DynamoDB Local's
// words (a documented deviation), and PutItem as a broken fake would.
type missingMessage struct {
	table.API
	localWords, dropPuts bool
}

func (m missingMessage) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := m.API.GetItem(ctx, in, o...)
	if err != nil && m.localWords {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Cannot do operations on a non-existent table")}
	}
	return out, err
}

func (m missingMessage) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if m.dropPuts {
		return &dynamodb.PutItemOutput{}, nil
	}
	return m.API.PutItem(ctx, in, o...)
}

func run(t *testing.T, candidateDropsPuts bool) *recorder {
	ctx := context.Background()
	ref := missingMessage{API: dynamotest.New(), localWords: true}
	cand := missingMessage{API: dynamotest.New(), dropPuts: candidateDropsPuts}
	c := dynamotest.Compare(ref, cand, dynamotest.KnownDeviations(dynamotest.LocalDeviations()...))
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("missing"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	require.Error(t, err)
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("things"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
	require.NoError(t, err)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("things"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	require.NoError(t, err)
	r := &recorder{TB: t}
	Check(r, c)
	return r
}

func TestCheckLogsADocumentedDeviationOfLocalWithoutFailing(t *testing.T) {
	r := run(t, false)
	assert.Empty(t, r.errors)
	require.Len(t, r.logs, 1)
	assert.Contains(t, r.logs[0], dynamotest.LocalNotFoundMessage)
}

func TestCheckFailsTheTestOnADifferenceNoDeviationExplains(t *testing.T) {
	r := run(t, true)
	require.Len(t, r.errors, 1)
	assert.Contains(t, r.errors[0], "item item {\"pk\":{\"S\":\"a\"}}: reference {\"pk\":{\"S\":\"a\"}}, candidate (none)")
	assert.Len(t, r.logs, 1, "the deviation is still logged")
}
