package conformance

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// StatementExecutor is what the PartiQL cases need beyond table.API.
type StatementExecutor interface {
	ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
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
