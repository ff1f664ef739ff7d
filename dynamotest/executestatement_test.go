package dynamotest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExecuteStatementRefusesAnAlteredNextToken(t *testing.T) {
	db := newDB(t, simple)
	for _, sk := range []string{"1", "2", "3"} {
		put(t, db, "simple", item{"pk": S("a"), "sk": S(sk)})
	}
	out, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM simple WHERE pk = 'a'`), Limit: aws.Int32(1)})
	require.NoError(t, err)
	require.NotNil(t, out.NextToken)
	for _, token := range []string{"", "!!!", "AAAA", *out.NextToken + "x"} {
		_, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM simple WHERE pk = 'a'`), NextToken: aws.String(token)})
		wantValidation(t, err, "")
	}
}

func TestExecuteStatementHonoursTheContextAndNilInput(t *testing.T) {
	db := newDB(t, simple)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.ExecuteStatement(canceled, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO simple VALUE {'pk': 'a', 'sk': '1'}`)})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("1")}))
	assert.NotPanics(t, func() { _, _ = db.ExecuteStatement(ctx, nil) })
}

func TestExecuteStatementLimitIsOnlyForSelect(t *testing.T) {
	db := newDB(t, simple)
	_, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`DELETE FROM simple WHERE pk = 'a' AND sk = '1'`), Limit: aws.Int32(1)})
	wantValidation(t, err, "")
}

func TestPartiQLBatchesAndTransactionsHonourTheContextAndNilInput(t *testing.T) {
	db := newDB(t, simple)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	stmt := []types.ParameterizedStatement{{Statement: aws.String(`INSERT INTO simple VALUE {'pk': 'a', 'sk': '1'}`)}}
	_, err := db.ExecuteTransaction(canceled, &dynamodb.ExecuteTransactionInput{TransactStatements: stmt})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = db.BatchExecuteStatement(canceled, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{{Statement: stmt[0].Statement}}})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("1")}))
	assert.NotPanics(t, func() {
		_, _ = db.ExecuteTransaction(ctx, nil)
		_, _ = db.BatchExecuteStatement(ctx, nil)
	})
}

func TestPartiQLTransactionMustBeAllReadsOrAllWrites(t *testing.T) {
	db := newDB(t, simple)
	_, err := db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`INSERT INTO simple VALUE {'pk': 'a', 'sk': '1'}`)},
		{Statement: aws.String(`SELECT * FROM simple WHERE pk = 'a' AND sk = '1'`)},
	}})
	wantValidation(t, err, "")
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("1")}))
}

// The API reference caps a statement at 8,192 characters (ExecuteStatement's
// Statement; BatchStatementRequest's and ParameterizedStatement's too), and
// DynamoDB refuses a longer one before it reads it: a statement of 8,193
// bytes that is not PartiQL at all is refused for its length.
func TestPartiQLStatementsOver8KBAreRefusedBeforeTheyAreParsed(t *testing.T) {
	db := newDB(t, simple)
	fits := `SELECT * FROM simple WHERE pk = 'a'`
	fits += strings.Repeat(" ", 8192-len(fits))
	_, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(fits)})
	require.NoError(t, err, "a statement of 8,192 bytes")

	long := strings.Repeat("x", 8193)
	rule := "' failed to satisfy constraint: Member must have length less than or equal to 8192"
	_, err = db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(long)})
	wantValidation(t, err, "1 validation error detected: Value '"+long+"' at 'statement"+rule)

	_, err = db.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(fits)}, {Statement: aws.String(long)}, {Statement: aws.String(long + "y")}}})
	wantValidation(t, err, "2 validation errors detected: Value '"+long+"' at 'statements.2.member.statement"+rule+
		"; Value '"+long+"y' at 'statements.3.member.statement"+rule)

	insert := `INSERT INTO simple VALUE {'pk': 'b', 'sk': '1'}`
	_, err = db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(insert)}, {Statement: aws.String(long)}}})
	wantValidation(t, err, "1 validation error detected: Value '"+long+"' at 'transactStatements.2.member.statement"+rule)
	assert.Nil(t, get(t, db, "simple", item{"pk": S("b"), "sk": S("1")}), "the transaction's other statement did not run")
}
