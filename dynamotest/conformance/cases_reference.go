package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

// Cases where the DynamoDB API reference decides and DynamoDB Local
// departs from it are skipped on DynamoDB Local with the reason, beside the
// case.

// missingTableCases: DynamoDB validates a request before it looks for its
// table, so an invalid request on a missing table is a
// ValidationException; a valid one is ResourceNotFoundException. DynamoDB
// Local does so for TransactWriteItems and BatchWriteItem (not for the
// reads), and those cases run there too.
func missingTableCases() []Case {
	var localChecksTableFirst = dynamotest.LocalDeviationWhy(dynamotest.LocalChecksTableFirst)
	missing := func(name string, local bool, call func(c *C, table *string) error, code, msg string) Case {
		cs := Case{Name: "missing-table/" + name, NoTable: true, Run: func(c *C) {
			c.ExpectErr(call(c, aws.String(c.UniqueTableName("missing"))), code, msgs(msg)...)
		}}
		if !local {
			cs = skipOn(cs, DynamoDBLocal, localChecksTableFirst)
		}
		return cs
	}
	key := I("pk", "a", "sk", "1")
	return []Case{
		missing("valid-get-is-resource-not-found", true, func(c *C, t *string) error {
			_, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: t, Key: key})
			return err
		}, "ResourceNotFoundException", ""),
		missing("valid-update-is-resource-not-found", true, func(c *C, t *string) error {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: t, Key: key,
				UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: Vals(":a", 1)})
			return err
		}, "ResourceNotFoundException", ""),
		missing("put-with-bad-return-values", false, func(c *C, t *string) error {
			_, err := c.API.PutItem(c.Ctx, &dynamodb.PutItemInput{TableName: t, Item: key, ReturnValues: types.ReturnValueAllNew})
			return err
		}, "ValidationException", "ReturnValues can only be ALL_OLD or NONE"),
		missing("update-syntax-error", false, func(c *C, t *string) error {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: t, Key: key, UpdateExpression: aws.String("SET")})
			return err
		}, "ValidationException", "Invalid UpdateExpression: Syntax error"),
		missing("update-unused-value", false, func(c *C, t *string) error {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: t, Key: key,
				UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: Vals(":a", 1, ":b", 2)})
			return err
		}, "ValidationException", "unused in expressions"),
		missing("delete-undefined-value", false, func(c *C, t *string) error {
			_, err := c.API.DeleteItem(c.Ctx, &dynamodb.DeleteItemInput{TableName: t, Key: key, ConditionExpression: aws.String("a = :a")})
			return err
		}, "ValidationException", "An expression attribute value used in expression is not defined"),
		missing("get-projection-syntax-error", false, func(c *C, t *string) error {
			_, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: t, Key: key, ProjectionExpression: aws.String("a,,b")})
			return err
		}, "ValidationException", "Invalid ProjectionExpression: Syntax error"),
		missing("scan-limit-zero", false, func(c *C, t *string) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: t, Limit: aws.Int32(0)})
			return err
		}, "ValidationException", "Member must have value greater than or equal to 1"),
		// dynalite's AWS-written "should return ValidationException for
		// missing TotalSegments" (and "... missing Segment", "... Segment
		// more than TotalSegments"), all on a table that does not exist.
		missing("scan-segment-without-total-segments", false, func(c *C, t *string) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: t, Segment: aws.Int32(1)})
			return err
		}, "ValidationException", "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"),
		missing("scan-segment-not-below-total-segments", false, func(c *C, t *string) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: t, Segment: aws.Int32(1), TotalSegments: aws.Int32(1)})
			return err
		}, "ValidationException", "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1"),
		missing("query-bad-return-consumed-capacity", false, func(c *C, t *string) error {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: t, KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Vals(":p", "a"), ReturnConsumedCapacity: "BAD"})
			return err
		}, "ValidationException", "returnConsumedCapacity"),
		// The rest of the reads' checks that need no table (dynalite's
		// AWS-written query, scan and getItem tests, all on a table that
		// does not exist).
		missing("query-empty-expression-attribute-names", false, func(c *C, t *string) error {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: t, KeyConditionExpression: aws.String(""),
				ExpressionAttributeNames: map[string]string{}, ExpressionAttributeValues: map[string]types.AttributeValue{}})
			return err
		}, "ValidationException", "ExpressionAttributeNames must not be empty"),
		missing("query-key-condition-of-three-conditions", false, func(c *C, t *string) error {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: t, KeyConditionExpression: aws.String(":a = a and b = :a and :a = c"),
				ExpressionAttributeValues: Vals(":a", "a")})
			return err
		}, "ValidationException", "Conditions can be of length 1 or 2 only"),
		missing("query-empty-filter-before-key-condition-operator", false, func(c *C, t *string) error {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: t, KeyConditionExpression: aws.String("attribute_type(a, :a)"),
				FilterExpression: aws.String(""), ExpressionAttributeValues: Vals(":a", "N")})
			return err
		}, "ValidationException", "Invalid FilterExpression: The expression can not be empty;"),
		missing("query-legacy-key-conditions-argument-count", false, func(c *C, t *string) error {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: t, KeyConditions: map[string]types.Condition{
				"a": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{S("a")}}}})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
		missing("get-undefined-name-before-overlapping-paths", false, func(c *C, t *string) error {
			_, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: t, Key: key, ProjectionExpression: aws.String("a,b,a,#a")})
			return err
		}, "ValidationException", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #a"),
		missing("scan-legacy-filter-argument-count", false, func(c *C, t *string) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: t, ScanFilter: map[string]types.Condition{
				"a": {ComparisonOperator: types.ComparisonOperatorEq}}})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"),
		missing("scan-invalid-function-name-before-reserved-word", false, func(c *C, t *string) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: t, FilterExpression: aws.String("attRIbute_exIsts((views), #a)"),
				ExpressionAttributeNames: Names("#a", "a")})
			return err
		}, "ValidationException", "Invalid FilterExpression: Invalid function name; function: attRIbute_exIsts"),
		missing("scan-misused-function-before-reserved-word", false, func(c *C, t *string) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: t, FilterExpression: aws.String("a = a and attribute_exists((views), (#a)) > b"),
				ExpressionAttributeNames: Names("#a", "a")})
			return err
		}, "ValidationException", "Invalid FilterExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"),
		missing("valid-transact-write-is-resource-not-found", true, func(c *C, t *string) error {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: t, Item: key}}}})
			return err
		}, "ResourceNotFoundException", ""),
		missing("transact-write-update-syntax-error", true, func(c *C, t *string) error {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Update: &types.Update{TableName: t, Key: key, UpdateExpression: aws.String("SET")}}}})
			return err
		}, "ValidationException", "Invalid UpdateExpression: Syntax error"),
		missing("transact-write-condition-undefined-value", true, func(c *C, t *string) error {
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{ConditionCheck: &types.ConditionCheck{TableName: t, Key: key, ConditionExpression: aws.String("a = :a")}}}})
			return err
		}, "ValidationException", "An expression attribute value used in expression is not defined"),
		missing("transact-write-invalid-action-after-missing-table", true, func(c *C, t *string) error {
			other := c.CreateTable(PKSK)
			_, err := c.API.TransactWriteItems(c.Ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: t, Item: key}},
				{Delete: &types.Delete{TableName: aws.String(other), Key: key, ConditionExpression: aws.String("a = :a"),
					ExpressionAttributeValues: Vals(":a", 1, ":b", 2)}}}})
			return err
		}, "ValidationException", "unused in expressions"),
		missing("valid-batch-write-is-resource-not-found", true, func(c *C, t *string) error {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*t: {{PutRequest: &types.PutRequest{Item: key}}}}})
			return err
		}, "ResourceNotFoundException", ""),
		missing("batch-write-request-with-two-writes", true, func(c *C, t *string) error {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*t: {{PutRequest: &types.PutRequest{Item: key}, DeleteRequest: &types.DeleteRequest{Key: key}}}}})
			return err
		}, "ValidationException", ""),
		missing("batch-write-empty-set-value", true, func(c *C, t *string) error {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*t: {{PutRequest: &types.PutRequest{Item: I("pk", "a", "sk", "1", "s", &types.AttributeValueMemberSS{Value: []string{}})}}}}})
			return err
		}, "ValidationException", ""),
		missing("transact-get-projection-syntax-error", false, func(c *C, t *string) error {
			_, err := c.API.TransactGetItems(c.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: t, Key: key, ProjectionExpression: aws.String("a,,b")}}}})
			return err
		}, "ValidationException", "Invalid ProjectionExpression: Syntax error"),
		missing("valid-transact-get-is-resource-not-found", true, func(c *C, t *string) error {
			_, err := c.API.TransactGetItems(c.Ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: t, Key: key}}}})
			return err
		}, "ResourceNotFoundException", ""),
		missing("batch-get-projection-undefined-name", false, func(c *C, t *string) error {
			_, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				*t: {Keys: []Item{key}, ProjectionExpression: aws.String("#a")}}})
			return err
		}, "ValidationException", "An expression attribute name used in the document path is not defined"),
		missing("batch-get-without-keys", true, func(c *C, t *string) error {
			_, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{*t: {Keys: []Item{}}}})
			return err
		}, "ValidationException", ""),
	}
}

// keyPathCases: key attributes are scalars, and DynamoDB refuses a path
// into one (pk.a, sk[0]) in every expression that reads the item, even
// where the path would only find nothing.
func keyPathCases() []Case {
	const msg = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: "
	seed := Items(I("pk", "a", "sk", "1", "m", M("b", "x")))
	key := I("pk", "a", "sk", "1")
	return []Case{
		GetCase("key-path/projection-into-partition-key", PKSK, seed, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("#a.b.c"), ExpressionAttributeNames: Names("#a", "pk")},
			Want{Err: "ValidationException", Msg: msg + "pk"}),
		GetCase("key-path/projection-into-sort-key-element", PKSK, seed, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("sk[0]")}, Want{Err: "ValidationException", Msg: msg + "sk"}),
		QueryCase("key-path/query-projection-into-sort-key", PKSK, seed, dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: Vals(":p", "a"), ProjectionExpression: aws.String("m, sk.x")},
			Want{Err: "ValidationException", Msg: msg + "sk"}),
		ScanCase("key-path/scan-filter-into-partition-key", PKSK, seed, dynamodb.ScanInput{
			FilterExpression: aws.String("attribute_exists(#a.b)"), ExpressionAttributeNames: Names("#a", "pk")},
			Want{Err: "ValidationException", Msg: msg + "pk"}),
		PutCase("key-path/condition-into-partition-key", PKSK, seed, dynamodb.PutItemInput{Item: key,
			ConditionExpression: aws.String("attribute_exists(#a.b)"), ExpressionAttributeNames: Names("#a", "pk")},
			Want{Err: "ValidationException", Msg: msg + "pk"}),
		UpdateCase("key-path/condition-function-into-partition-key", PKSK, seed, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET m.c = :v"), ConditionExpression: aws.String("size(pk.x) > :z"),
			ExpressionAttributeValues: Vals(":v", "x", ":z", 0)},
			Want{Err: "ValidationException", Msg: msg + "pk"}),
		GetCase("key-path/whole-key-and-nested-other-attribute-are-fine", PKSK, seed, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("pk, m.b")}, Want{Items: Items(I("pk", "a", "m", M("b", "x")))}),
	}
}

// newItemKeyCases: an UpdateItem that creates its item sees the item's key
// attributes, which the request's Key gives it, in its update expression;
// its condition is evaluated on the item as it was, which does not exist.
func newItemKeyCases() []Case {
	key := I("pk", "n", "sk", "1")
	return []Case{
		UpdateCase("update-new-item/set-from-partition-key", PKSK, nil, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET b = pk")}, Want{After: Items(I("pk", "n", "sk", "1", "b", "n"))}),
		UpdateCase("update-new-item/if-not-exists-from-key", PKSK, nil, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET b = if_not_exists(b, pk), c = if_not_exists(c, sk)"), ReturnValues: types.ReturnValueAllNew},
			Want{Attrs: I("pk", "n", "sk", "1", "b", "n", "c", "1"), After: Items(I("pk", "n", "sk", "1", "b", "n", "c", "1"))}),
		UpdateCase("update-new-item/arithmetic-on-numeric-sort-key", PKNum, nil, dynamodb.UpdateItemInput{Key: I("pk", "n", "sk", 4),
			UpdateExpression: aws.String("SET nxt = sk + :one"), ExpressionAttributeValues: Vals(":one", 1)},
			Want{After: Items(I("pk", "n", "sk", 4, "nxt", 5))}),
		UpdateCase("update-new-item/condition-does-not-see-the-key", PKSK, nil, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET b = pk"), ConditionExpression: aws.String("attribute_exists(pk)")},
			Want{Err: "ConditionalCheckFailedException"}),
	}
}

// updatedPathCases: UPDATED_OLD and UPDATED_NEW return only the updated
// attributes, and for a nested path only that part of the attribute.
func updatedPathCases() []Case {
	var localWholeAttributes = dynamotest.LocalDeviationWhy(dynamotest.LocalWholeAttributes)
	seed := Items(I("pk", "u", "sk", "1", "keep", "k",
		"m", M("a", "1", "b", "2", "c", M("d", "3", "e", "4")),
		"l", L(S("x"), S("y"), S("z"))))
	key := I("pk", "u", "sk", "1")
	upd := func(expr string, rv types.ReturnValue) dynamodb.UpdateItemInput {
		return dynamodb.UpdateItemInput{Key: key, UpdateExpression: aws.String(expr), ExpressionAttributeValues: Vals(":v", "new"), ReturnValues: rv}
	}
	after := Items(I("pk", "u", "sk", "1", "keep", "k",
		"m", M("a", "new", "c", M("d", "new", "e", "4"), "n", "new"),
		"l", L(S("x"), S("new"))))
	const nested = "SET m.a = :v, m.c.d = :v, l[1] = :v, m.n = :v REMOVE m.b, l[2]"
	return []Case{
		skipOn(UpdateCase("updated-path/old-returns-only-the-nested-paths", PKSK, seed, upd(nested, types.ReturnValueUpdatedOld),
			Want{Attrs: I("m", M("a", "1", "b", "2", "c", M("d", "3")), "l", L(S("y"), S("z"))), After: after}),
			DynamoDBLocal, localWholeAttributes),
		skipOn(UpdateCase("updated-path/new-returns-only-the-nested-paths", PKSK, seed, upd(nested, types.ReturnValueUpdatedNew),
			Want{Attrs: I("m", M("a", "new", "c", M("d", "new"), "n", "new"), "l", L(S("new"))), After: after}),
			DynamoDBLocal, localWholeAttributes),
		UpdateCase("updated-path/top-level-returns-whole-attributes", PKSK, seed, upd("SET keep = :v", types.ReturnValueUpdatedOld),
			Want{Attrs: I("keep", "k")}),
		UpdateCase("updated-path/new-leaves-out-removed-attributes", PKSK, seed, upd("SET keep = :v REMOVE l", types.ReturnValueUpdatedNew),
			Want{Attrs: I("keep", "new")}),
	}
}

// limitBoundCases: a Limit page that ends on the last key the key
// condition allows. DynamoDB's API reference says a Query that reaches
// Limit stops and returns a LastEvaluatedKey ("if LastEvaluatedKey is not
// empty, it does not necessarily mean that there is more data"), and a key
// DynamoDB returned is a valid ExclusiveStartKey whose next page is empty.
// DynamoDB Local looks ahead: it returns no LastEvaluatedKey when the page
// ends on an inclusive bound (<=, BETWEEN), and refuses that key as an
// ExclusiveStartKey. The fake follows the reference.
func limitBoundCases() []Case {
	var localLooksAhead = dynamotest.LocalDeviationWhy(dynamotest.LocalLooksAhead)
	seed := Items(I("pk", "a", "sk", 1), I("pk", "a", "sk", 2), I("pk", "a", "sk", 3))
	q := func(cond string, limit int32, vals ...any) dynamodb.QueryInput {
		in := dynamodb.QueryInput{KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: Vals(append([]any{":p", "a"}, vals...)...)}
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		return in
	}
	withStart := func(in dynamodb.QueryInput, start Item) dynamodb.QueryInput {
		in.ExclusiveStartKey = start
		return in
	}
	return []Case{
		skipOn(QueryCase("limit-bound/page-ending-on-inclusive-bound-has-last-key", PKNum, seed, q("pk = :p AND sk <= :b", 2, ":b", 2),
			Want{Items: seed[:2], More: true, LastKey: I("pk", "a", "sk", 2)}), DynamoDBLocal, localLooksAhead),
		skipOn(QueryCase("limit-bound/page-ending-on-between-bound-has-last-key", PKNum, seed, q("pk = :p AND sk BETWEEN :x AND :b", 2, ":x", 1, ":b", 2),
			Want{Items: seed[:2], More: true, LastKey: I("pk", "a", "sk", 2)}), DynamoDBLocal, localLooksAhead),
		skipOn(QueryCase("limit-bound/start-at-inclusive-bound-is-an-empty-last-page", PKNum, seed,
			withStart(q("pk = :p AND sk <= :b", 0, ":b", 2), I("pk", "a", "sk", 2)),
			Want{}), DynamoDBLocal, localLooksAhead),
		QueryCase("limit-bound/page-ending-on-equality-bound-has-last-key", PKNum, seed, q("pk = :p AND sk = :b", 1, ":b", 2),
			Want{Items: seed[1:2], More: true, LastKey: I("pk", "a", "sk", 2)}),
		QueryCase("limit-bound/start-at-exclusive-bound-is-refused", PKNum, seed,
			withStart(q("pk = :p AND sk < :b", 0, ":b", 2), I("pk", "a", "sk", 2)),
			Want{Err: "ValidationException", Msg: "The provided starting key does not match the range key predicate"}),
		QueryCase("limit-bound/start-beyond-bound-is-refused", PKNum, seed,
			withStart(q("pk = :p AND sk <= :b", 0, ":b", 2), I("pk", "a", "sk", 3)),
			Want{Err: "ValidationException", Msg: "The provided starting key does not match the range key predicate"}),
	}
}
