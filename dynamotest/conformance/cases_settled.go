package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

// settledCases pin differences between the fake and DynamoDB that
// DynamoDB's documentation settles, each beside its source: PartiQL's
// ORDER BY and BatchExecuteStatement's per-statement errors, validation
// before the table lookup in the batch operations, the legacy Expected
// with Value beside a ComparisonOperator, the legacy filters that no
// expression limit bounds, and the shape of ConsumedCapacity.
func settledCases() []Case {
	seed := Items(I("pk", "a", "sk", "1", "n", 1), I("pk", "a", "sk", "2", "n", 2), I("pk", "a", "sk", "3", "n", 3),
		I("pk", "b", "sk", "1", "n", 4))
	// The PartiQL SELECT reference for DynamoDB: "[ORDER BY key [DESC|ASC]
	// , ...]", a hash or sort key, ascending by default.
	order := func(name, statement string, want []Item) Case {
		return Case{Name: "partiql-order/" + name, Seed: seed, Run: func(c *C) {
			out, err := c.exec(statement)
			c.OK(err)
			c.ExpectItems("items, in the order asked", out.Items, want)
		}}
	}
	orderRefused := func(name, statement, msg string) Case {
		return Case{Name: "partiql-order/" + name, Seed: seed, Run: func(c *C) {
			_, err := c.exec(statement)
			c.ExpectErr(err, "ValidationException", msg)
		}}
	}
	exp := func(attr string, e types.ExpectedAttributeValue) map[string]types.ExpectedAttributeValue {
		return map[string]types.ExpectedAttributeValue{attr: e}
	}
	expSeed := Items(I("pk", "a", "sk", "1", "n", 5, "s", "str"))
	expected := func(name string, e map[string]types.ExpectedAttributeValue, w Want) Case {
		if w.Err == "" {
			w.After = Items(with(expSeed[0], "s", "new"))
		}
		return PutCase("legacy-expected-value/"+name, PKSK, expSeed, dynamodb.PutItemInput{Item: with(expSeed[0], "s", "new"), Expected: e}, w)
	}
	return []Case{
		order("desc-reverses-the-partition", `SELECT * FROM {T} WHERE pk = 'a' ORDER BY sk DESC`, Items(seed[2], seed[1], seed[0])),
		order("asc-is-the-sort-key-order", `SELECT * FROM {T} WHERE pk = 'a' ORDER BY sk ASC`, seed[:3]),
		order("without-direction-is-ascending", `SELECT * FROM {T} WHERE pk = 'a' ORDER BY sk`, seed[:3]),
		order("lower-case-and-quoted-key", `SELECT * FROM {T} WHERE pk = 'a' ORDER BY "sk" desc`, Items(seed[2], seed[1], seed[0])),
		order("partition-key-then-sort-key", `SELECT * FROM {T} WHERE pk = 'a' ORDER BY pk, sk DESC`, Items(seed[2], seed[1], seed[0])),
		skipOn(order("with-a-filter", `SELECT sk FROM {T} WHERE pk = 'a' AND n > 1 ORDER BY sk DESC`, Items(I("sk", "3"), I("sk", "2"))),
			DynamoDBLocal, "DynamoDB Local answers InternalFailure (500) to an ORDER BY beside a filter on a non-key attribute; the PartiQL "+
				"SELECT reference for DynamoDB allows any WHERE condition with ORDER BY"),
		orderRefused("without-where-is-refused", `SELECT * FROM {T} ORDER BY sk DESC`,
			"Must have WHERE clause in the statement when using ORDER BY clause."),
		orderRefused("without-a-partition-key-condition-is-refused", `SELECT * FROM {T} WHERE n > 0 ORDER BY sk DESC`,
			"Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."),
		orderRefused("of-a-non-key-attribute-is-refused", `SELECT * FROM {T} WHERE pk = 'a' ORDER BY n DESC`,
			"Variable reference n in ORDER BY clause must be part of the primary key"),

		// The API reference's BatchStatementError codes include
		// ResourceNotFound: a statement on a missing table fails alone.
		{Name: "partiql/batch-statement-on-a-missing-table-fails-alone", Seed: seed, Run: func(c *C) {
			missing := c.UniqueTableName("missing")
			reqs := []types.BatchStatementRequest{
				{Statement: aws.String(c.statement(`UPDATE {T} SET n = 10 WHERE pk = 'a' AND sk = '1'`))},
				{Statement: aws.String(`DELETE FROM "` + missing + `" WHERE pk = 'a' AND sk = '1'`)},
			}
			out, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: reqs})
			c.OK(err)
			if len(out.Responses) != 2 {
				c.Fatalf("%d responses; want 2", len(out.Responses))
			}
			if out.Responses[0].Error != nil {
				c.Errorf("first statement failed: %s", aws.ToString(out.Responses[0].Error.Message))
			}
			if e := out.Responses[1].Error; e == nil || e.Code != types.BatchStatementErrorCodeEnumResourceNotFound {
				c.Errorf("second statement: error %+v; want code ResourceNotFound", e)
			}
			c.ExpectTable(Items(with(seed[0], "n", 10), seed[1], seed[2], seed[3]))
		}},
		{Name: "partiql/batch-read-on-a-missing-table-fails-alone", Seed: seed, Run: func(c *C) {
			missing := c.UniqueTableName("missing")
			reqs := []types.BatchStatementRequest{
				{Statement: aws.String(`SELECT * FROM "` + missing + `" WHERE pk = 'a' AND sk = '1'`)},
				{Statement: aws.String(c.statement(`SELECT * FROM {T} WHERE pk = 'a' AND sk = '2'`))},
			}
			out, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: reqs})
			c.OK(err)
			if len(out.Responses) != 2 {
				c.Fatalf("%d responses; want 2", len(out.Responses))
			}
			if e := out.Responses[0].Error; e == nil || e.Code != types.BatchStatementErrorCodeEnumResourceNotFound {
				c.Errorf("first statement: error %+v; want code ResourceNotFound", e)
			}
			c.ExpectItem("second", out.Responses[1].Item, seed[1])
		}},

		// The batch operations' API references list an item over 400 KB
		// and duplicate keys among the faults of the request itself; they
		// are found before the tables are looked up.
		{Name: "missing-table/batch-write-of-an-item-over-400kb-is-validation", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				c.UniqueTableName("missing"): {{PutRequest: &types.PutRequest{Item: I("pk", "a", "sk", "1", "big", strings.Repeat("x", 400*1024))}}}}})
			c.ExpectErr(err, "ValidationException", "Item size has exceeded the maximum allowed size")
		}},
		{Name: "missing-table/batch-get-of-duplicate-keys-is-validation", NoTable: true, Run: func(c *C) {
			_, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				c.UniqueTableName("missing"): {Keys: []Item{I("pk", "a", "sk", "1"), I("pk", "a", "sk", "1")}}}})
			c.ExpectErr(err, "ValidationException", "Provided list of item keys contains duplicates")
		}},
		{Name: "missing-table/batch-write-of-duplicate-keys-is-resource-not-found", NoTable: true, Run: func(c *C) {
			// Unlike the item size, duplicate keys are looked for on a
			// table that exists (dynalite's AWS-written "should check table
			// exists first before checking for duplicate keys").
			del := types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: I("pk", "a", "sk", "1")}}
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				c.UniqueTableName("missing"): {del, del}}})
			c.ExpectErr(err, "ResourceNotFoundException")
		}},

		// Every member's own constraints come before the table lookup: a
		// TableName that no table can have, and an item over 400 KB
		// (dynalite's AWS-written "should return ValidationException for
		// short TableName" and "... if item is too big").
		{Name: "missing-table/get-with-a-short-table-name-is-validation", NoTable: true, Run: func(c *C) {
			_, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: aws.String("ab"), Key: I("pk", "a", "sk", "1")})
			// DynamoDB Local words it its own way ("Invalid table/index
			// name."); the code is what clients act on.
			c.ExpectErr(err, "ValidationException")
		}},
		{Name: "missing-table/query-with-a-bad-table-name-is-validation", NoTable: true, Run: func(c *C) {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: aws.String("bad;name"), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Vals(":p", "a")})
			c.ExpectErr(err, "ValidationException")
		}},
		skipOn(Case{Name: "missing-table/put-of-an-item-over-400kb-is-validation", NoTable: true, Run: func(c *C) {
			_, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: aws.String(c.UniqueTableName("missing")),
				Item: I("pk", "a", "sk", "1", "big", strings.Repeat("x", 400*1024))})
			c.ExpectErr(err, "ValidationException", "Item size has exceeded the maximum allowed size")
		}}, DynamoDBLocal, "DynamoDB Local looks the table up first and answers ResourceNotFoundException; DynamoDB checks the item's "+
			"size first (dynalite's tests written against AWS: \"should return ValidationException if item is too big\" on a missing table)"),

		// ExpectedAttributeValue in the API reference: Value is the value
		// compared; beside a ComparisonOperator it is its one operand, and
		// only Value with AttributeValueList, or Exists with a
		// ComparisonOperator, mixes the two forms.
		expected("eq-holds", exp("s", types.ExpectedAttributeValue{Value: S("str"), ComparisonOperator: types.ComparisonOperatorEq}), Want{}),
		expected("eq-fails", exp("s", types.ExpectedAttributeValue{Value: S("other"), ComparisonOperator: types.ComparisonOperatorEq}),
			Want{Err: "ConditionalCheckFailedException"}),
		expected("gt-holds", exp("n", types.ExpectedAttributeValue{Value: Ni(4), ComparisonOperator: types.ComparisonOperatorGt}), Want{}),
		expected("between-takes-two-values", exp("n", types.ExpectedAttributeValue{Value: Ni(4), ComparisonOperator: types.ComparisonOperatorBetween}),
			Want{Err: "ValidationException", Msg: "Invalid number of argument(s) for the BETWEEN ComparisonOperator"}),
		expected("with-attribute-value-list-is-refused", exp("s", types.ExpectedAttributeValue{Value: S("str"),
			AttributeValueList: []types.AttributeValue{S("str")}, ComparisonOperator: types.ComparisonOperatorEq}),
			Want{Err: "ValidationException", Msg: "Value and AttributeValueList cannot be used together for Attribute: s"}),
		expected("with-exists-and-operator-is-refused", exp("s", types.ExpectedAttributeValue{Value: S("str"), Exists: aws.Bool(true),
			ComparisonOperator: types.ComparisonOperatorEq}),
			Want{Err: "ValidationException", Msg: "Exists and ComparisonOperator cannot be used together for Attribute: s"}),
		expected("operator-without-a-value-is-refused", exp("s", types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorEq}),
			Want{Err: "ValidationException", Msg: "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: s"}),

		// The Developer Guide's expression quotas (4 KB, 300 operators, 100
		// IN operands) bound expression parameters; a ScanFilter or
		// QueryFilter is not one.
		{Name: "legacy-filter/scan-filter-of-200-conditions", Seed: seed, Run: func(c *C) {
			conds := map[string]types.Condition{}
			for i := range 200 {
				conds[fmt.Sprintf("attribute%03d", i)] = types.Condition{ComparisonOperator: types.ComparisonOperatorNull}
			}
			out, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: c.TableName(), ScanFilter: conds, ConsistentRead: aws.Bool(true)})
			c.OK(err)
			c.ExpectSameItems("items", out.Items, seed)
		}},
		{Name: "legacy-filter/query-filter-in-of-400-values", Seed: seed, Run: func(c *C) {
			vals := make([]types.AttributeValue, 400)
			for i := range vals {
				vals[i] = Ni(i + 2)
			}
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), ConsistentRead: aws.Bool(true),
				KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("a")}}},
				QueryFilter:   map[string]types.Condition{"n": {ComparisonOperator: types.ComparisonOperatorIn, AttributeValueList: vals}}})
			c.OK(err)
			c.ExpectItems("items", out.Items, seed[1:3])
		}},

		capacityShape("get-item-total", Items(I("pk", "a", "sk", "1")), false, func(c *C) (*types.ConsumedCapacity, error) {
			out, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: c.TableName(), Key: I("pk", "a", "sk", "1"),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}),
		capacityShape("put-item-indexes", nil, false, func(c *C) (*types.ConsumedCapacity, error) {
			out, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: c.TableName(), Item: I("pk", "a", "sk", "1"),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}),
		capacityShape("query-indexes", Items(I("pk", "a", "sk", "1")), false, func(c *C) (*types.ConsumedCapacity, error) {
			out, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Vals(":p", "a"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			if err != nil {
				return nil, err
			}
			return out.ConsumedCapacity, nil
		}),
		capacityShape("batch-write-total", nil, false, func(c *C) (*types.ConsumedCapacity, error) {
			out, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				RequestItems: map[string][]types.WriteRequest{c.Table: {{PutRequest: &types.PutRequest{Item: I("pk", "a", "sk", "1")}}}}})
			if err != nil {
				return nil, err
			}
			return only(out.ConsumedCapacity), nil
		}),
		skipOn(capacityShape("transact-write-total", nil, true, func(c *C) (*types.ConsumedCapacity, error) {
			out, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: c.TableName(), Item: I("pk", "a", "sk", "1")}}}})
			if err != nil {
				return nil, err
			}
			return only(out.ConsumedCapacity), nil
		}), DynamoDBLocal, dynamotest.LocalDeviationWhy(dynamotest.LocalTransactionCapacity)),
	}
}

// capacityShape checks which members a call's ConsumedCapacity carries:
// TableName and CapacityUnits always; ReadCapacityUnits or
// WriteCapacityUnits, at the total, only for a transaction (split); under
// INDEXES, Table with the same split. See the fake's capacityOf for the
// sources.
func capacityShape(name string, seed []Item, split bool, call func(c *C) (*types.ConsumedCapacity, error)) Case {
	return Case{Name: "capacity-shape/" + name, Seed: seed, Run: func(c *C) {
		got, err := call(c)
		c.OK(err)
		if got == nil || got.CapacityUnits == nil || aws.ToString(got.TableName) != c.Table {
			c.Fatalf("ConsumedCapacity %+v; want TableName and CapacityUnits", got)
		}
		units := *got.CapacityUnits
		check := func(where string, read, write *float64) {
			if !split {
				if read != nil || write != nil {
					c.Errorf("%s carries ReadCapacityUnits %v / WriteCapacityUnits %v; DynamoDB reports CapacityUnits alone outside transactions",
						where, aws.ToFloat64(read), aws.ToFloat64(write))
				}
				return
			}
			if aws.ToFloat64(read)+aws.ToFloat64(write) != units {
				c.Errorf("%s: read %v + write %v units; want them to add up to CapacityUnits %v", where, aws.ToFloat64(read), aws.ToFloat64(write), units)
			}
		}
		check("ConsumedCapacity", got.ReadCapacityUnits, got.WriteCapacityUnits)
		if got.Table != nil {
			check("ConsumedCapacity.Table", got.Table.ReadCapacityUnits, got.Table.WriteCapacityUnits)
		}
	}}
}

// only is the one table's entry of a batch's or transaction's
// ConsumedCapacity, nil when there is not exactly one.
func only(list []types.ConsumedCapacity) *types.ConsumedCapacity {
	if len(list) != 1 {
		return nil
	}
	return &list[0]
}
