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

// pq runs one statement on db.
func pq(db interface {
	ExecuteStatement(context.Context, *dynamodb.ExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
}, statement string) ([]item, error) {
	out, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(statement)})
	if err != nil {
		return nil, err
	}
	return out.Items, nil
}

func TestPartiQLTheTopLevelANDFixesTheKeyWhateverIsUnderOrAndNot(t *testing.T) {
	const noKey = "Where clause does not contain a mandatory equality on all key attributes"
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "n": N("1")})
	put(t, db, "simple", item{"pk": S("a"), "sk": S("2"), "n": N("2")})
	put(t, db, "simple", item{"pk": S("b"), "sk": S("1"), "n": N("1")})

	// The key is fixed by the top-level AND; an OR or a NOT beside it is
	// the rest of the condition (DynamoDB Local accepts these too).
	_, err := pq(db, `UPDATE simple SET q = 1 WHERE pk = 'a' AND sk = '1' AND (n = 1 OR n = 2)`)
	require.NoError(t, err)
	_, err = pq(db, `UPDATE simple SET r = 1 WHERE pk = 'a' AND sk = '1' AND NOT (pk = 'b')`)
	require.NoError(t, err)
	got := get(t, db, "simple", item{"pk": S("a"), "sk": S("1")})
	assert.Equal(t, "1", num(t, got, "q"))
	assert.Equal(t, "1", num(t, got, "r"))
	_, err = pq(db, `UPDATE simple SET q = 2 WHERE pk = 'a' AND sk = '2' AND (n = 5 OR n = 6)`)
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf, "the OR is the condition")
	_, err = pq(db, `DELETE FROM simple WHERE pk = 'a' AND sk = '9' AND (n = 1 OR n = 2)`)
	require.NoError(t, err)

	// An equality under an OR or a NOT fixes nothing.
	for _, s := range []string{
		`UPDATE simple SET q = 1 WHERE pk = 'a' AND (sk = '1' OR sk = '2')`,
		`UPDATE simple SET q = 1 WHERE (pk = 'a' AND sk = '1') OR (pk = 'a' AND sk = '1')`,
		`UPDATE simple SET q = 1 WHERE NOT (pk <> 'a') AND sk = '1'`,
		`DELETE FROM simple WHERE NOT (pk = 'a' AND sk = '1')`,
	} {
		_, err := pq(db, s)
		wantValidation(t, err, noKey)
	}

	// SELECT: a partition fixed beside an OR is one Query; an OR of
	// partitions reads each of them.
	db.ResetCalls()
	items, err := pq(db, `SELECT * FROM simple WHERE pk = 'a' AND (n = 1 OR n = 2)`)
	require.NoError(t, err)
	assert.Len(t, items, 2)
	assert.Equal(t, 1, db.Calls("Query"))
	assert.Equal(t, 0, db.Calls("Scan"))
	items, err = pq(db, `SELECT * FROM simple WHERE pk = 'a' OR pk = 'b'`)
	require.NoError(t, err)
	assert.Len(t, items, 3)
	items, err = pq(db, `SELECT * FROM simple WHERE NOT (pk = 'b') AND pk = 'a'`)
	require.NoError(t, err)
	assert.Len(t, items, 2)

	// A transaction's SELECT is a Get: the key and nothing else.
	_, err = db.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`SELECT * FROM simple WHERE pk = 'a' AND sk = '1' AND (n = 1 OR n = 2)`)}}})
	wantValidation(t, err, noKey)
}

func TestPartiQLIsNullTestsForTheNullType(t *testing.T) {
	// The operators reference: IS tests for a PartiQL type, NULL or
	// MISSING among them. A missing attribute IS MISSING, not NULL (as
	// DynamoDB Local answers).
	db := newDB(t, simple)
	put(t, db, "simple", item{"pk": S("a"), "sk": S("1"), "n": N("1")})
	put(t, db, "simple", item{"pk": S("a"), "sk": S("2")})
	put(t, db, "simple", item{"pk": S("a"), "sk": S("3"), "n": &types.AttributeValueMemberNULL{Value: true}})
	sks := func(statement string) []string {
		t.Helper()
		items, err := pq(db, statement)
		require.NoError(t, err)
		var out []string
		for _, it := range items {
			out = append(out, str(t, it, "sk"))
		}
		return out
	}
	assert.Equal(t, []string{"3"}, sks(`SELECT * FROM simple WHERE pk = 'a' AND n IS NULL`))
	assert.Equal(t, []string{"1", "2"}, sks(`SELECT * FROM simple WHERE pk = 'a' AND n IS NOT NULL`))
	assert.Equal(t, []string{"1", "2"}, sks(`SELECT * FROM simple WHERE pk = 'a' AND NOT (n IS NULL)`))
	assert.Equal(t, []string{"2"}, sks(`SELECT * FROM simple WHERE pk = 'a' AND n IS MISSING`))
	_, err := pq(db, `UPDATE simple SET q = 1 WHERE pk = 'a' AND sk = '3' AND n IS NULL`)
	require.NoError(t, err)
	_, err = pq(db, `SELECT * FROM simple WHERE pk = 'a' AND n IS EMPTY`)
	wantValidation(t, err, "")
}

func TestPartiQLTupleKeysAreSingleQuotedStringsEachOnce(t *testing.T) {
	db := newDB(t, simple)
	for _, s := range []string{
		`INSERT INTO simple VALUE {'pk': 'a', 'sk': '1', 'pk': 'b'}`,
		`INSERT INTO simple VALUE {'pk': 'a', 'sk': '1', 'm': {'x': 1, 'x': 2}}`,
		`INSERT INTO simple VALUE {'pk': 'a', 'sk': '1', "n": 1}`,
	} {
		_, err := pq(db, s)
		wantValidation(t, err, "")
	}
	assert.Nil(t, get(t, db, "simple", item{"pk": S("a"), "sk": S("1")}), "nothing written")
	_, err := pq(db, `INSERT INTO simple VALUE {'pk': 'a', 'sk': '1', 'm': {'x': 1, 'y': {'x': 2}}}`)
	require.NoError(t, err, "a key may come again in a nested tuple")
}
