package conformance

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// partiqlMoreCases: RETURNING on UPDATE and DELETE, the update functions
// (list_append, set_add, set_delete), EXISTS in a transaction, and which
// mixes of reads and writes a transaction accepts.
func partiqlMoreCases() []Case {
	seed := Items(I("pk", "a", "sk", "1", "n", 1, "s", "x", "l", L(Ni(1)), "tags", SS("p", "q")), I("pk", "b", "sk", "1", "n", 4))
	one := func(name, statement string, want Item, after Item) Case {
		return Case{Name: "partiql-more/" + name, Seed: seed, Run: func(c *C) {
			out, err := c.exec(statement)
			c.OK(err)
			switch {
			case want == nil && len(out.Items) != 0:
				c.Errorf("items %v; want none", out.Items)
			case want != nil:
				c.ExpectItems("returned", out.Items, Items(want))
			}
			if after != nil {
				c.ExpectItem("item after", c.Get(I("pk", "a", "sk", "1")), after)
			}
		}}
	}
	return []Case{
		one("update-returning-all-old", `UPDATE {T} SET n = 5 WHERE pk = 'a' AND sk = '1' RETURNING ALL OLD *`, seed[0], with(seed[0], "n", 5)),
		one("update-returning-all-new", `UPDATE {T} SET n = 5 WHERE pk = 'a' AND sk = '1' RETURNING ALL NEW *`, with(seed[0], "n", 5), nil),
		one("update-returning-modified-old", `UPDATE {T} SET n = 5 REMOVE s WHERE pk = 'a' AND sk = '1' RETURNING MODIFIED OLD *`, I("n", 1, "s", "x"), nil),
		one("update-returning-modified-new", `UPDATE {T} SET n = 5 SET t = 'y' WHERE pk = 'a' AND sk = '1' RETURNING MODIFIED NEW *`, I("n", 5, "t", "y"), nil),
		one("update-without-returning-returns-nothing", `UPDATE {T} SET n = 5 WHERE pk = 'a' AND sk = '1'`, nil, with(seed[0], "n", 5)),
		// The key is the top-level AND's; an OR or a NOT beside it is the
		// rest of the condition.
		one("update-key-beside-an-or", `UPDATE {T} SET n = 5 WHERE pk = 'a' AND sk = '1' AND (n = 1 OR n = 2)`, nil, with(seed[0], "n", 5)),
		one("update-key-beside-a-not", `UPDATE {T} SET n = 5 WHERE pk = 'a' AND sk = '1' AND NOT (s = 'y')`, nil, with(seed[0], "n", 5)),
		{Name: "partiql-more/update-key-under-an-or-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET n = 5 WHERE pk = 'a' AND (sk = '1' OR sk = '2')`)
			c.ExpectErr(err, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes")
			c.ExpectUnchanged()
		}},
		// The operators reference: IS tests for a type, NULL or MISSING
		// among them; a missing attribute is not NULL.
		{Name: "partiql-more/is-null-and-is-not-null", Seed: Items(I("pk", "a", "sk", "1", "n", 1), I("pk", "a", "sk", "2"),
			I("pk", "a", "sk", "3", "n", Null())), Run: func(c *C) {
			out, err := c.exec(`SELECT * FROM {T} WHERE pk = 'a' AND n IS NULL`)
			c.OK(err)
			c.ExpectItems("IS NULL", out.Items, Items(I("pk", "a", "sk", "3", "n", Null())))
			out, err = c.exec(`SELECT * FROM {T} WHERE pk = 'a' AND n IS NOT NULL`)
			c.OK(err)
			c.ExpectItems("IS NOT NULL", out.Items, Items(I("pk", "a", "sk", "1", "n", 1), I("pk", "a", "sk", "2")))
		}},
		{Name: "partiql-more/tuple-with-a-key-twice-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`INSERT INTO {T} VALUE {'pk': 'c', 'sk': '1', 'm': {'x': 1, 'x': 2}}`)
			c.ExpectErr(err, "ValidationException", "Duplicate keys in tuple. Key: x")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/tuple-key-in-double-quotes-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`INSERT INTO {T} VALUE {'pk': 'c', 'sk': '1', "n": 1}`)
			c.ExpectErr(err, "ValidationException", "Tuple keys must be of type String")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/delete-returning-all-old", Seed: seed, Run: func(c *C) {
			out, err := c.exec(`DELETE FROM {T} WHERE pk = 'a' AND sk = '1' RETURNING ALL OLD *`)
			c.OK(err)
			c.ExpectItems("returned", out.Items, Items(seed[0]))
			c.ExpectTable(Items(seed[1]))
		}},
		{Name: "partiql-more/delete-returning-all-new-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`DELETE FROM {T} WHERE pk = 'a' AND sk = '1' RETURNING ALL NEW *`)
			c.ExpectErr(err, "ValidationException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/delete-of-a-missing-item-succeeds", Seed: seed, Run: func(c *C) {
			out, err := c.exec(`DELETE FROM {T} WHERE pk = 'z' AND sk = '1' AND n = 1 RETURNING ALL OLD *`)
			c.OK(err)
			if len(out.Items) != 0 {
				c.Errorf("items %v; want none", out.Items)
			}
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/transaction-delete-of-a-missing-item-succeeds", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`DELETE FROM {T} WHERE pk = 'z' AND sk = '1'`,
				`UPDATE {T} SET n = 2 WHERE pk = 'a' AND sk = '1'`)})
			c.OK(err)
			c.ExpectItem("item after", c.Get(I("pk", "a", "sk", "1")), with(seed[0], "n", 2))
		}},
		{Name: "partiql-more/delete-whose-where-fails-on-the-item-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`DELETE FROM {T} WHERE pk = 'a' AND sk = '1' AND n = 2`)
			c.ExpectErr(err, "ConditionalCheckFailedException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/missing-compared-with-equals-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET n = 2 WHERE pk = 'a' AND sk = '1' AND t = MISSING`)
			c.ExpectErr(err, "ValidationException", "MISSING must be compared using IS operator")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/set-to-missing-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`UPDATE {T} SET s = MISSING WHERE pk = 'a' AND sk = '1'`)
			c.ExpectErr(err, "ValidationException", "MISSING must be compared using IS operator")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/is-not-missing", Seed: seed, Run: func(c *C) {
			out, err := c.exec(`SELECT sk FROM {T} WHERE pk = 'a' AND s IS NOT MISSING AND t IS MISSING`)
			c.OK(err)
			c.ExpectItems("items", out.Items, Items(I("sk", "1")))
		}},
		one("update-list-append", `UPDATE {T} SET l = list_append(l, [2, 'three']) WHERE pk = 'a' AND sk = '1'`, nil,
			with(seed[0], "l", L(Ni(1), Ni(2), S("three")))),
		one("update-set-add", `UPDATE {T} SET tags = set_add(tags, <<'r', 'p'>>) WHERE pk = 'a' AND sk = '1'`, nil,
			with(seed[0], "tags", SS("p", "q", "r"))),
		one("update-set-delete", `UPDATE {T} SET tags = set_delete(tags, <<'p'>>) WHERE pk = 'a' AND sk = '1'`, nil,
			with(seed[0], "tags", SS("q"))),
		one("update-set-add-creates-the-set", `UPDATE {T} SET more = set_add(more, <<1, 2>>) WHERE pk = 'a' AND sk = '1'`, nil,
			with(seed[0], "more", NS("1", "2"))),
		one("where-attribute-type-and-size", `UPDATE {T} SET n = 7 WHERE pk = 'a' AND sk = '1' AND attribute_type(s, 'S') AND size(l) = 1 AND contains(tags, 'q')`, nil,
			with(seed[0], "n", 7)),
		{Name: "partiql-more/transaction-exists-guards-a-write", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`EXISTS(SELECT * FROM {T} WHERE pk = 'b' AND sk = '1' AND n = 4)`,
				`UPDATE {T} SET n = 2 WHERE pk = 'a' AND sk = '1'`)})
			c.OK(err)
			c.ExpectItem("item after", c.Get(I("pk", "a", "sk", "1")), with(seed[0], "n", 2))
		}},
		{Name: "partiql-more/transaction-exists-that-fails-cancels", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`EXISTS(SELECT * FROM {T} WHERE pk = 'b' AND sk = '1' AND n = 5)`,
				`UPDATE {T} SET n = 2 WHERE pk = 'a' AND sk = '1'`)})
			c.ExpectReasons(err, "ConditionalCheckFailed", "None")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/transaction-exists-of-a-missing-item-cancels", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`EXISTS(SELECT * FROM {T} WHERE pk = 'z' AND sk = '1' AND attribute_exists(n))`,
				`DELETE FROM {T} WHERE pk = 'a' AND sk = '1'`)})
			c.ExpectReasons(err, "ConditionalCheckFailed", "None")
			c.ExpectUnchanged()
		}},
		// The reference: "The SELECT statement must specify a full primary
		// key and one other condition."
		{Name: "partiql-more/transaction-exists-needs-a-condition-beyond-the-key", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`EXISTS(SELECT * FROM {T} WHERE pk = 'a' AND sk = '1')`,
				`DELETE FROM {T} WHERE pk = 'b' AND sk = '1'`)})
			c.ExpectErr(err, "ValidationException", "EXISTS() must contain a single item read with additional condition")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/transaction-exists-needs-the-whole-key", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`EXISTS(SELECT * FROM {T} WHERE pk = 'a' AND n = 1)`,
				`DELETE FROM {T} WHERE pk = 'b' AND sk = '1'`)})
			c.ExpectErr(err, "ValidationException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/transaction-mixing-select-and-write-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`SELECT * FROM {T} WHERE pk = 'b' AND sk = '1'`,
				`UPDATE {T} SET n = 2 WHERE pk = 'a' AND sk = '1'`)})
			c.ExpectErr(err, "ValidationException")
			c.ExpectUnchanged()
		}},
		{Name: "partiql-more/transaction-mixing-select-and-exists-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`SELECT * FROM {T} WHERE pk = 'b' AND sk = '1'`,
				`EXISTS(SELECT * FROM {T} WHERE pk = 'a' AND sk = '1')`)})
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "partiql-more/exists-outside-a-transaction-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.exec(`EXISTS(SELECT * FROM {T} WHERE pk = 'a' AND sk = '1')`)
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "partiql-more/transaction-update-returning-is-refused", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: c.stmts(
				`UPDATE {T} SET n = 2 WHERE pk = 'a' AND sk = '1' RETURNING ALL NEW *`)})
			c.ExpectErr(err, "ValidationException")
			c.ExpectUnchanged()
		}},
	}
}
