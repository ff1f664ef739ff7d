package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

// legacyCases pin the parameters DynamoDB had before expressions
// (Expected, AttributeUpdates, QueryFilter, ScanFilter,
// ConditionalOperator), which older clients and other languages still
// send, and DynamoDB's refusal to mix them with expressions.
func legacyCases() []Case {
	seed := Items(I("pk", "a", "sk", "1", "n", 5, "s", "str", "ss", SS("x", "y"), "l", L(S("p"))))
	key := I("pk", "a", "sk", "1")
	exp := func(kv ...any) map[string]types.ExpectedAttributeValue {
		out := map[string]types.ExpectedAttributeValue{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(types.ExpectedAttributeValue)
		}
		return out
	}
	cmp := func(op types.ComparisonOperator, vals ...types.AttributeValue) types.ExpectedAttributeValue {
		return types.ExpectedAttributeValue{ComparisonOperator: op, AttributeValueList: vals}
	}
	putIf := func(name string, expected map[string]types.ExpectedAttributeValue, op types.ConditionalOperator, holds bool) Case {
		item := with(seed[0], "s", "new")
		w := Want{After: Items(item)}
		if !holds {
			w = Want{Err: "ConditionalCheckFailedException"}
		}
		return PutCase("legacy-expected/"+name, PKSK, seed, dynamodb.PutItemInput{Item: item, Expected: expected, ConditionalOperator: op}, w)
	}
	bad := func(name string, in dynamodb.PutItemInput, msg string) Case {
		in.Item = with(seed[0], "s", "new")
		return PutCase("legacy-refused/"+name, PKSK, seed, in, Want{Err: "ValidationException", Msg: msg})
	}
	upd := func(name string, updates map[string]types.AttributeValueUpdate, after Item) Case {
		return UpdateCase("legacy-attribute-updates/"+name, PKSK, seed, dynamodb.UpdateItemInput{Key: key, AttributeUpdates: updates}, Want{After: Items(after)})
	}
	au := func(action types.AttributeAction, v types.AttributeValue) types.AttributeValueUpdate {
		return types.AttributeValueUpdate{Action: action, Value: v}
	}
	filterSeed := Items(I("pk", "a", "sk", "1", "n", 1), I("pk", "a", "sk", "2", "n", 2, "tag", "t"), I("pk", "a", "sk", "3", "n", 3))
	kc := map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("a")}}}
	cond := func(op types.ComparisonOperator, vals ...types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: op, AttributeValueList: vals}
	}
	return []Case{
		putIf("value-equals-holds", exp("s", types.ExpectedAttributeValue{Value: S("str")}), "", true),
		putIf("value-equals-fails", exp("s", types.ExpectedAttributeValue{Value: S("other")}), "", false),
		putIf("exists-true-with-value", exp("n", types.ExpectedAttributeValue{Exists: aws.Bool(true), Value: Ni(5)}), "", true),
		putIf("exists-false-fails-on-present", exp("s", types.ExpectedAttributeValue{Exists: aws.Bool(false)}), "", false),
		putIf("exists-false-holds-on-absent", exp("nope", types.ExpectedAttributeValue{Exists: aws.Bool(false)}), "", true),
		putIf("gt", exp("n", cmp(types.ComparisonOperatorGt, Ni(4))), "", true),
		putIf("le-fails", exp("n", cmp(types.ComparisonOperatorLe, Ni(4))), "", false),
		putIf("ne", exp("n", cmp(types.ComparisonOperatorNe, Ni(4))), "", true),
		putIf("between", exp("n", cmp(types.ComparisonOperatorBetween, Ni(1), Ni(5))), "", true),
		putIf("in", exp("s", cmp(types.ComparisonOperatorIn, S("a"), S("str"))), "", true),
		putIf("begins-with", exp("s", cmp(types.ComparisonOperatorBeginsWith, S("st"))), "", true),
		putIf("contains-set-member", exp("ss", cmp(types.ComparisonOperatorContains, S("x"))), "", true),
		putIf("not-contains", exp("s", cmp(types.ComparisonOperatorNotContains, S("zz"))), "", true),
		putIf("not-null", exp("s", cmp(types.ComparisonOperatorNotNull)), "", true),
		putIf("null-fails-on-present", exp("s", cmp(types.ComparisonOperatorNull)), "", false),
		putIf("and-needs-both", exp("n", cmp(types.ComparisonOperatorEq, Ni(5)), "s", cmp(types.ComparisonOperatorEq, S("no"))), types.ConditionalOperatorAnd, false),
		putIf("or-needs-one", exp("n", cmp(types.ComparisonOperatorEq, Ni(5)), "s", cmp(types.ComparisonOperatorEq, S("no"))), types.ConditionalOperatorOr, true),
		bad("expected-with-condition-expression", dynamodb.PutItemInput{Expected: exp("s", types.ExpectedAttributeValue{Value: S("str")}),
			ConditionExpression: aws.String("attribute_exists(s)")},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"),
		bad("wrong-number-of-values", dynamodb.PutItemInput{Expected: exp("n", cmp(types.ComparisonOperatorBetween, Ni(1)))},
			"Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
		// In the legacy conditions' own words (DynamoDB Local; dynalite's
		// AWS-written deleteItem "... if AttributeValueList has different
		// types" and "... if BETWEEN arguments are in the incorrect order").
		bad("values-of-two-types", dynamodb.PutItemInput{Expected: exp("n", cmp(types.ComparisonOperatorIn, S("b"), Ni(1)))},
			"One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"),
		bad("between-out-of-order", dynamodb.PutItemInput{Expected: exp("s", cmp(types.ComparisonOperatorBetween, S("b"), S("a")))},
			"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"),
		ScanCase("legacy-refused/scan-filter-between-out-of-order", PKSK, filterSeed,
			dynamodb.ScanInput{ScanFilter: map[string]types.Condition{"n": cond(types.ComparisonOperatorBetween, Ni(3), Ni(1))}},
			Want{Err: "ValidationException", Msg: "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"}),
		ScanCase("legacy-refused/scan-filter-begins-with-a-number", PKSK, filterSeed,
			dynamodb.ScanInput{ScanFilter: map[string]types.Condition{"n": cond(types.ComparisonOperatorBeginsWith, Ni(1))}},
			Want{Err: "ValidationException", Msg: "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"}),
		QueryCase("legacy-refused/key-conditions-between-out-of-order", PKSK, filterSeed,
			dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, S("a")), "sk": cond(types.ComparisonOperatorBetween, S("3"), S("1"))}},
			Want{Err: "ValidationException", Msg: "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"}),
		QueryCase("legacy-refused/key-conditions-values-of-two-types", PKSK, filterSeed,
			dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, S("a")), "sk": cond(types.ComparisonOperatorBetween, S("1"), Ni(3))}},
			Want{Err: "ValidationException", Msg: "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"}),
		bad("value-with-exists-false", dynamodb.PutItemInput{Expected: exp("s", types.ExpectedAttributeValue{Exists: aws.Bool(false), Value: S("str")})}, ""),
		bad("expression-values-without-expressions", dynamodb.PutItemInput{Expected: exp("s", types.ExpectedAttributeValue{Value: S("str")}),
			ExpressionAttributeValues: Vals(":v", "x")}, "ExpressionAttributeValues can only be specified when using expressions"),
		{Name: "legacy-expected/delete-if", Schema: PKSK, Seed: seed, Run: func(c *C) {
			_, err := c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: c.TableName(), Key: key,
				Expected: exp("n", cmp(types.ComparisonOperatorLt, Ni(5)))})
			c.ExpectErr(err, "ConditionalCheckFailedException")
			_, err = c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: c.TableName(), Key: key,
				Expected: exp("n", cmp(types.ComparisonOperatorGe, Ni(5)))})
			c.OK(err)
			c.ExpectTable(nil)
		}},

		upd("put-replaces", map[string]types.AttributeValueUpdate{"s": au(types.AttributeActionPut, S("new"))}, with(seed[0], "s", "new")),
		skipOn(upd("default-action-is-put", map[string]types.AttributeValueUpdate{"t": au("", Ni(1))}, with(seed[0], "t", 1)),
			DynamoDBLocal, dynamotest.LocalDeviationWhy(dynamotest.LocalIgnoresNoAction)),
		upd("delete-without-value-removes", map[string]types.AttributeValueUpdate{"s": au(types.AttributeActionDelete, nil)}, without(seed[0], "s")),
		upd("delete-set-members", map[string]types.AttributeValueUpdate{"ss": au(types.AttributeActionDelete, SS("x"))}, with(seed[0], "ss", SS("y"))),
		upd("add-number", map[string]types.AttributeValueUpdate{"n": au(types.AttributeActionAdd, Ni(2))}, with(seed[0], "n", 7)),
		upd("add-set-members", map[string]types.AttributeValueUpdate{"ss": au(types.AttributeActionAdd, SS("z"))}, with(seed[0], "ss", SS("x", "y", "z"))),
		upd("add-appends-to-a-list", map[string]types.AttributeValueUpdate{"l": au(types.AttributeActionAdd, L(S("q")))}, with(seed[0], "l", L(S("p"), S("q")))),
		UpdateCase("legacy-attribute-updates/creates-the-item", PKSK, nil, dynamodb.UpdateItemInput{Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"s": au(types.AttributeActionPut, S("v"))}},
			Want{After: Items(I("pk", "a", "sk", "1", "s", "v"))}),
		UpdateCase("legacy-attribute-updates/with-expected", PKSK, seed, dynamodb.UpdateItemInput{Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"s": au(types.AttributeActionPut, S("v"))},
			Expected:         exp("n", types.ExpectedAttributeValue{Value: Ni(6)})}, Want{Err: "ConditionalCheckFailedException"}),
		UpdateCase("legacy-attribute-updates/key-attribute-is-refused", PKSK, seed, dynamodb.UpdateItemInput{Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"sk": au(types.AttributeActionPut, S("2"))}},
			Want{Err: "ValidationException", Msg: "This attribute is part of the key"}),
		UpdateCase("legacy-attribute-updates/with-update-expression-is-refused", PKSK, seed, dynamodb.UpdateItemInput{Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"s": au(types.AttributeActionPut, S("v"))},
			UpdateExpression: aws.String("SET t = :t"), ExpressionAttributeValues: Vals(":t", 1)},
			Want{Err: "ValidationException", Msg: "Can not use both expression and non-expression parameters in the same request"}),

		QueryCase("legacy-filter/query-filter", PKSK, filterSeed, dynamodb.QueryInput{KeyConditions: kc,
			QueryFilter: map[string]types.Condition{"n": cond(types.ComparisonOperatorGe, Ni(2))}},
			Want{Items: filterSeed[1:], Scanned: i32(3)}),
		QueryCase("legacy-filter/query-filter-or", PKSK, filterSeed, dynamodb.QueryInput{KeyConditions: kc, ConditionalOperator: types.ConditionalOperatorOr,
			QueryFilter: map[string]types.Condition{"n": cond(types.ComparisonOperatorEq, Ni(1)), "tag": cond(types.ComparisonOperatorNotNull)}},
			Want{Items: filterSeed[:2], Scanned: i32(3)}),
		QueryCase("legacy-filter/query-filter-on-key-is-refused", PKSK, filterSeed, dynamodb.QueryInput{KeyConditions: kc,
			QueryFilter: map[string]types.Condition{"sk": cond(types.ComparisonOperatorEq, S("1"))}},
			Want{Err: "ValidationException"}),
		QueryCase("legacy-filter/query-filter-with-key-condition-expression-is-refused", PKSK, filterSeed, dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Vals(":p", "a"),
			QueryFilter: map[string]types.Condition{"n": cond(types.ComparisonOperatorGe, Ni(2))}},
			Want{Err: "ValidationException", Msg: "Can not use both expression and non-expression parameters in the same request"}),
		ScanCase("legacy-filter/scan-filter", PKSK, filterSeed, dynamodb.ScanInput{
			ScanFilter: map[string]types.Condition{"n": cond(types.ComparisonOperatorIn, Ni(1), Ni(3))}},
			Want{Items: Items(filterSeed[0], filterSeed[2]), AnyOrder: true, Scanned: i32(3)}),
		ScanCase("legacy-filter/scan-filter-with-filter-expression-is-refused", PKSK, filterSeed, dynamodb.ScanInput{
			ScanFilter:       map[string]types.Condition{"n": cond(types.ComparisonOperatorIn, Ni(1), Ni(3))},
			FilterExpression: aws.String("attribute_exists(n)")},
			Want{Err: "ValidationException", Msg: "Can not use both expression and non-expression parameters in the same request"}),
	}
}
