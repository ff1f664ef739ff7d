package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyConditionCases: how DynamoDB refuses a key condition it cannot serve,
// in the order and words of dynalite's tests written against DynamoDB
// (query.js: "...missed key schema element", "...non-indexable
// operations", "...mismatching param type", "...unsupported conditions").
func keyConditionCases() []Case {
	const localLeavesTheNameOut = "DynamoDB Local says \"Query condition missed key schema element\" without the element; " +
		"DynamoDB names it (dynalite's AWS-written query tests), and the fake follows DynamoDB"
	seed := Items(I("pk", "p", "sk", "a"))
	kce := func(expr string, vals map[string]types.AttributeValue) dynamodb.QueryInput {
		return dynamodb.QueryInput{KeyConditionExpression: aws.String(expr), ExpressionAttributeValues: vals}
	}
	legacy := func(conds map[string]types.Condition) dynamodb.QueryInput {
		return dynamodb.QueryInput{KeyConditions: conds}
	}
	cond := func(op types.ComparisonOperator, vals ...types.AttributeValue) types.Condition {
		return types.Condition{ComparisonOperator: op, AttributeValueList: vals}
	}
	missed := func(name, key string, in dynamodb.QueryInput) Case {
		return skipOn(QueryCase("query-key-error/"+name, PKSK, seed, in,
			Want{Err: "ValidationException", Msg: "Query condition missed key schema element: " + key}), DynamoDBLocal, localLeavesTheNameOut)
	}
	notSupported := func(name string, s Schema, in dynamodb.QueryInput) Case {
		return QueryCase("query-key-error/"+name, s, nil, in, Want{Err: "ValidationException", Msg: "Query key condition not supported"})
	}
	return []Case{
		// The missing element is named: the partition key when no
		// condition names it, the sort key beside a condition on another
		// attribute.
		missed("missed-partition-key-is-named", "pk", kce("z BETWEEN :a AND :b", Vals(":a", 1, ":b", 2))),
		missed("missed-partition-key-is-named-legacy", "pk", legacy(map[string]types.Condition{"z": cond(types.ComparisonOperatorNull)})),
		missed("missed-sort-key-is-named", "sk", kce("pk = :p AND c = :c", Vals(":p", "p", ":c", 1))),
		missed("missed-sort-key-is-named-legacy", "sk", legacy(map[string]types.Condition{
			"pk": cond(types.ComparisonOperatorEq, S("p")), "c": cond(types.ComparisonOperatorNull)})),
		// Two conditions where the schema has one key are not supported,
		// whatever they name.
		notSupported("two-conditions-on-a-partition-key-only-table", PK, kce("pk = :p AND sk = :p", Vals(":p", "p"))),
		notSupported("two-conditions-on-other-attributes-of-a-partition-key-only-table", PK, kce("y = :p AND z = :p", Vals(":p", "p"))),
		notSupported("two-legacy-conditions-on-a-partition-key-only-table", PK, legacy(map[string]types.Condition{
			"pk": cond(types.ComparisonOperatorEq, S("p")), "sk": cond(types.ComparisonOperatorEq, S("p"))})),
		// A KeyConditions operator no key can serve is not indexable, on
		// the partition key as on the sort key.
		skipOn(QueryCase("query-key-error/legacy-non-indexable-operator-on-the-partition-key", PK, nil,
			legacy(map[string]types.Condition{"pk": cond(types.ComparisonOperatorNe, S("p"))}),
			Want{Err: "ValidationException", Msg: "Attempted conditional constraint is not an indexable operation"}), DynamoDBLocal,
			"DynamoDB Local answers \"Query key condition not supported\" (CONTAINS, NOT_CONTAINS, IN), \"Only scalar types can be used as "+
				"Hash Key values\" (NULL, NOT_NULL) or a type mismatch (NE); DynamoDB refuses each as not indexable (dynalite's AWS-written "+
				"\"should return ValidationException if querying with non-indexable operations\")"),
		// A partition-key value of the wrong type is refused before the
		// operator it is compared with.
		QueryCase("query-key-error/partition-key-type-before-operator", PK, nil, kce(":a > pk", Vals(":a", 1)),
			Want{Err: "ValidationException", Msg: "One or more parameter values were invalid: Condition parameter type does not match schema type"}),
		notSupported("operator-on-the-partition-key-of-its-type", PK, kce(":a <= pk", Vals(":a", "p"))),

		// An ExclusiveStartKey the query could not have returned: outside
		// the sort-key condition first, whatever its partition; then of
		// another partition, in words that depend on whether there is a
		// sort-key condition (dynalite's AWS-written query tests).
		QueryCase("query-start-key-error/outside-the-sort-key-condition", PKSK, seed,
			startAt(kce("pk = :p AND sk > :s", Vals(":p", "p", ":s", "m")), I("pk", "p", "sk", "a")),
			Want{Err: "ValidationException", Msg: "The provided starting key does not match the range key predicate"}),
		QueryCase("query-start-key-error/outside-the-sort-key-condition-and-the-partition", PKSK, seed,
			startAt(kce("pk = :p AND sk > :s", Vals(":p", "p", ":s", "m")), I("pk", "q", "sk", "a")),
			Want{Err: "ValidationException", Msg: "The provided starting key does not match the range key predicate"}),
		skipOn(QueryCase("query-start-key-error/another-partition-within-the-sort-key-condition", PKSK, seed,
			startAt(kce("pk = :p AND sk < :s", Vals(":p", "p", ":s", "m")), I("pk", "q", "sk", "a")),
			Want{Err: "ValidationException", Msg: "The query can return at most one row and cannot be restarted"}), DynamoDBLocal, localStartKey),
		skipOn(QueryCase("query-start-key-error/another-partition-without-a-sort-key-condition", PKSK, seed,
			startAt(kce("pk = :p", Vals(":p", "p")), I("pk", "q", "sk", "a")),
			Want{Err: "ValidationException", Msg: "The provided starting key is outside query boundaries based on provided conditions"}), DynamoDBLocal, localStartKey),

		// A filter naming a key attribute of the table or index read is
		// refused first: before Select is checked against an INCLUDE
		// index's projection (QueryFilter), before a path into a key
		// attribute (FilterExpression).
		QueryCase("query-filter-error/legacy-filter-on-an-include-index-key-before-select", Indexed, nil, dynamodb.QueryInput{
			IndexName: aws.String("byTag"), Select: types.SelectAllAttributes,
			KeyConditions: map[string]types.Condition{"tag": cond(types.ComparisonOperatorEq, S("t"))},
			QueryFilter:   map[string]types.Condition{"rank": cond(types.ComparisonOperatorEq, N("1"))},
		}, Want{Err: "ValidationException", Msg: "QueryFilter can only contain non-primary key attributes: Primary key attribute: rank"}),
		QueryCase("query-filter-error/legacy-filter-on-a-table-key-then-select", Indexed, nil, dynamodb.QueryInput{
			IndexName: aws.String("byTag"), Select: types.SelectAllAttributes,
			KeyConditions: map[string]types.Condition{"tag": cond(types.ComparisonOperatorEq, S("t"))},
			QueryFilter:   map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, S("p"))},
		}, Want{Err: "ValidationException", Msg: "Select type ALL_ATTRIBUTES is not supported for global secondary index byTag because its projection type is not ALL"}),
		skipOn(QueryCase("query-filter-error/key-attribute-before-a-path-into-it", PKSK, nil, dynamodb.QueryInput{
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("attribute_exists(pk.b) AND n = :n"),
			ExpressionAttributeValues: Vals(":p", "p", ":n", 1),
		}, Want{Err: "ValidationException", Msg: "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk"}),
			DynamoDBLocal, "DynamoDB Local refuses the path first (\"Key attributes must be scalars; ... Key: pk\"); DynamoDB refuses the "+
				"key attribute first (dynalite's AWS-written \"should return ValidationException if hash key in FilterExpression\")"),
	}
}

// localStartKey: DynamoDB Local's words for a start key of another
// partition.
const localStartKey = "DynamoDB Local says \"The provided starting key does not match the range key predicate\" of a start key in another " +
	"partition; DynamoDB says \"The query can return at most one row and cannot be restarted\" beside a sort-key condition and " +
	"\"The provided starting key is outside query boundaries based on provided conditions\" without one (dynalite's AWS-written query tests)"

func startAt(in dynamodb.QueryInput, key Item) dynamodb.QueryInput {
	in.ExclusiveStartKey = key
	return in
}
