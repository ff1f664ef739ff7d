package conformance

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// StatementExecutor is what the PartiQL cases need beyond table.API.
type StatementExecutor interface {
	ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
	ExecuteTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error)
	BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
}

func (c *C) executor() StatementExecutor {
	c.Helper()
	x, ok := c.API.(StatementExecutor)
	if !ok {
		c.Skip("the backend's API has no PartiQL operations")
	}
	return x
}

// stmts builds parameterless statements on the case's table.
func (c *C) stmts(ss ...string) []types.ParameterizedStatement {
	out := make([]types.ParameterizedStatement, len(ss))
	for i, s := range ss {
		out[i] = types.ParameterizedStatement{Statement: aws.String(c.statement(s))}
	}
	return out
}

// exec runs a PartiQL statement in which {T} names the case's table.
func (c *C) exec(statement string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
	c.Helper()
	x, ok := c.API.(StatementExecutor)
	if !ok {
		c.Skip("the backend's API has no ExecuteStatement")
	}
	return x.ExecuteStatement(c.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(c.statement(statement)), Parameters: params})
}

func (c *C) statement(s string) string {
	out := ""
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && s[i:i+3] == "{T}" {
			out += `"` + c.Table + `"`
			i += 2
			continue
		}
		out += string(s[i])
	}
	return out
}

func partiqlCases() []Case {
	seed := Items(I("pk", "a", "sk", "1", "n", 1, "s", "x"), I("pk", "a", "sk", "2", "n", 2), I("pk", "a", "sk", "3", "n", 3, "s", "y"),
		I("pk", "b", "sk", "1", "n", 4))
	// batchDuplicate: a BatchExecuteStatement whose two statements name
	// one item, refused whole, nothing written.
	batchDuplicate := func(name string, first, second string) Case {
		cs := Case{Name: "partiql-error/batch-duplicate-" + name, Seed: seed, Run: func(c *C) {
			_, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(c.statement(first))}, {Statement: aws.String(c.statement(second))}}})
			c.ExpectErr(err, "ValidationException", "Provided list of item keys contains duplicates")
			c.ExpectUnchanged()
		}}
		if strings.HasPrefix(first, "SELECT") {
			return cs
		}
		return skipOn(cs, DynamoDBLocal, "DynamoDB Local runs the statements before the one that names an item again, "+
			"keeping their writes, and then refuses the batch with this ValidationException; a refused request changes nothing, "+
			"as BatchWriteItem refuses a batch with duplicate keys whole (its API reference), so the fake writes nothing")
	}
	sel := func(name, statement string, params []types.AttributeValue, want []Item, anyOrder bool) Case {
		return Case{Name: "partiql/" + name, Seed: seed, Run: func(c *C) {
			out, err := c.exec(statement, params...)
			c.OK(err)
			if anyOrder {
				c.ExpectSameItems("items", out.Items, want)
			} else {
				c.ExpectItems("items", out.Items, want)
			}
		}}
	}
	return []Case{
		sel("select-partition-in-sort-key-order", `SELECT * FROM {T} WHERE pk = 'a'`, nil, seed[:3], false),
		sel("select-with-parameters-and-range", `SELECT * FROM {T} WHERE pk = ? AND sk >= ?`, []types.AttributeValue{S("a"), S("2")}, seed[1:3], false),
		sel("select-projection", `SELECT sk, s FROM {T} WHERE pk = 'a' AND n > 1`, nil, Items(I("sk", "2"), I("sk", "3", "s", "y")), false),
		sel("select-scan-with-filter", `SELECT * FROM {T} WHERE n >= 3`, nil, Items(seed[2], seed[3]), true),
		sel("select-missing-and-begins-with", `SELECT * FROM {T} WHERE pk = 'a' AND s IS MISSING OR begins_with(s, 'y')`, nil, Items(seed[1], seed[2]), true),
		sel("select-in-list", `SELECT * FROM {T} WHERE n IN [1, 4]`, nil, Items(seed[0], seed[3]), true),
		{Name: "partiql/insert-tuple-with-set-map-and-list", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`INSERT INTO {T} VALUE {'pk': 'c', 'sk': '1', 'tags': <<'p', 'q'>>, 'm': {'k': [1, 'two']}}`)
			c.OK(err)
			c.ExpectItem("inserted item", c.Get(I("pk", "c", "sk", "1")), I("pk", "c", "sk", "1", "tags", SS("p", "q"), "m", M("k", L(Ni(1), S("two")))))
		}},
		skipOn(Case{Name: "partiql/insert-of-an-existing-key-is-a-duplicate", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`INSERT INTO {T} VALUE {'pk': 'a', 'sk': '1'}`)
			c.ExpectErr(err, "DuplicateItemException")
			c.ExpectUnchanged()
		}}, DynamoDBLocal, "DynamoDB Local answers the code DuplicateItem; the API reference (ExecuteStatement errors) names it DuplicateItemException, which the SDK models"),
		{Name: "partiql/update-sets-and-removes", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET n = n + 10 SET t = ? REMOVE s WHERE pk = 'a' AND sk = '1'`, S("new"))
			c.OK(err)
			c.ExpectItem("updated item", c.Get(I("pk", "a", "sk", "1")), I("pk", "a", "sk", "1", "n", 11, "t", "new"))
		}},
		{Name: "partiql/update-of-a-missing-item-fails", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET n = 1 WHERE pk = 'z' AND sk = '1'`)
			c.ExpectErr(err, "ConditionalCheckFailedException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql/update-condition-in-where", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET n = 100 WHERE pk = 'a' AND sk = '1' AND n = 5`)
			c.ExpectErr(err, "ConditionalCheckFailedException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql/update-needs-the-whole-key", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET n = 1 WHERE pk = 'a'`)
			c.ExpectErr(err, "ValidationException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql/delete", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`DELETE FROM {T} WHERE pk = 'a' AND sk = '2'`)
			c.OK(err)
			c.ExpectTable(Items(seed[0], seed[2], seed[3]))
		}},
		{Name: "partiql/syntax-error", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`SELEC * FROM {T}`)
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "partiql/parameter-count-must-match", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`SELECT * FROM {T} WHERE pk = ?`)
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "partiql/missing-table", NoTable: true, Run: func(c *C) {
			x, ok := c.API.(StatementExecutor)
			if !ok {
				c.Skip("no ExecuteStatement")
			}
			_, err := x.ExecuteStatement(c.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + c.UniqueTableName("none") + `"`)})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},
		{Name: "partiql/transaction-of-writes-is-all-or-nothing", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`INSERT INTO {T} VALUE {'pk': 'c', 'sk': '1'}`,
				`UPDATE {T} SET n = 9 WHERE pk = 'a' AND sk = '1' AND n = 100`)})
			c.ExpectReasons(err, "None", "ConditionalCheckFailed")
			c.ExpectUnchanged()
			_, err = c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`INSERT INTO {T} VALUE {'pk': 'c', 'sk': '1'}`,
				`DELETE FROM {T} WHERE pk = 'b' AND sk = '1'`)})
			c.OK(err)
			c.ExpectTable(Items(seed[0], seed[1], seed[2], I("pk", "c", "sk", "1")))
		}},
		{Name: "partiql/transaction-of-reads", Seed: seed, Run: func(c *C) {
			out, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`SELECT * FROM {T} WHERE pk = 'a' AND sk = '3'`,
				`SELECT n FROM {T} WHERE pk = 'b' AND sk = '1'`,
				`SELECT * FROM {T} WHERE pk = 'z' AND sk = '1'`)})
			c.OK(err)
			if len(out.Responses) != 3 {
				c.Fatalf("%d responses; want 3", len(out.Responses))
			}
			c.ExpectItem("first", out.Responses[0].Item, seed[2])
			c.ExpectItem("second", out.Responses[1].Item, I("n", 4))
			c.ExpectItem("third", out.Responses[2].Item, nil)
		}},
		{Name: "partiql/batch-statements-fail-one-by-one", Seed: seed, Run: func(c *C) {
			var reqs []types.BatchStatementRequest
			for _, s := range []string{`UPDATE {T} SET n = 50 WHERE pk = 'a' AND sk = '1'`, `UPDATE {T} SET n = 60 WHERE pk = 'z' AND sk = '1'`,
				`DELETE FROM {T} WHERE pk = 'b' AND sk = '1'`} {
				reqs = append(reqs, types.BatchStatementRequest{Statement: aws.String(c.statement(s))})
			}
			out, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: reqs})
			c.OK(err)
			var codes []string
			for _, r := range out.Responses {
				code := ""
				if r.Error != nil {
					code = string(r.Error.Code)
				}
				codes = append(codes, code)
			}
			if len(codes) != 3 || codes[0] != "" || codes[1] != "ConditionalCheckFailed" || codes[2] != "" {
				c.Errorf("error codes %q; want [\"\" ConditionalCheckFailed \"\"]", codes)
			}
			c.ExpectTable(Items(with(seed[0], "n", 50), seed[1], seed[2]))
		}},
		{Name: "partiql/batch-reads-by-key", Seed: seed, Run: func(c *C) {
			var reqs []types.BatchStatementRequest
			for _, s := range []string{`SELECT * FROM {T} WHERE pk = 'a' AND sk = '2'`, `SELECT * FROM {T} WHERE pk = 'z' AND sk = '1'`} {
				reqs = append(reqs, types.BatchStatementRequest{Statement: aws.String(c.statement(s))})
			}
			out, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: reqs})
			c.OK(err)
			if len(out.Responses) != 2 {
				c.Fatalf("%d responses; want 2", len(out.Responses))
			}
			c.ExpectItem("first", out.Responses[0].Item, seed[1])
			c.ExpectItem("second", out.Responses[1].Item, nil)
		}},
		// A batch names each item once: two statements on one item, writes
		// or reads, refuse the whole batch before any runs (DynamoDB Local;
		// BatchWriteItem's and BatchGetItem's rule); statements on other
		// items run one by one.
		batchDuplicate("two-inserts", `INSERT INTO {T} VALUE {'pk': 'x', 'sk': '1'}`, `INSERT INTO {T} VALUE {'pk': 'x', 'sk': '1', 'n': 2}`),
		batchDuplicate("update-and-delete", `UPDATE {T} SET n = 9 WHERE pk = 'a' AND sk = '1'`, `DELETE FROM {T} WHERE pk = 'a' AND sk = '1' AND n = 1`),
		batchDuplicate("insert-and-update", `INSERT INTO {T} VALUE {'pk': 'x', 'sk': '1'}`, `UPDATE {T} SET n = 9 WHERE sk = '1' AND pk = 'x'`),
		batchDuplicate("two-selects", `SELECT * FROM {T} WHERE pk = 'a' AND sk = '1'`, `SELECT n FROM {T} WHERE pk = 'a' AND sk = '1'`),
		{Name: "partiql/batch-statements-on-other-items-all-run", Seed: seed, Run: func(c *C) {
			_, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(c.statement(`INSERT INTO {T} VALUE {'pk': 'x', 'sk': '1'}`))},
				{Statement: aws.String(c.statement(`INSERT INTO {T} VALUE {'pk': 'x', 'sk': '2'}`))}}})
			c.OK(err)
			c.ExpectTable(append(Items(I("pk", "x", "sk", "1"), I("pk", "x", "sk", "2")), seed...))
		}},
		{Name: "partiql/select-pages-with-next-token", Seed: seed, Run: func(c *C) {
			x, ok := c.API.(StatementExecutor)
			if !ok {
				c.Skip("no ExecuteStatement")
			}
			var got []Item
			var token *string
			for range 10 {
				out, err := x.ExecuteStatement(c.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(c.statement(`SELECT * FROM {T} WHERE pk = 'a'`)),
					Limit: aws.Int32(2), NextToken: token})
				c.OK(err)
				got = append(got, out.Items...)
				if out.NextToken == nil {
					break
				}
				token = out.NextToken
			}
			c.ExpectItems("every page", got, seed[:3])
		}},
	}
}
