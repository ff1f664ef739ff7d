package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest"
)

// indexKeyPathCases: the key attributes of a secondary index are scalars
// too, and DynamoDB refuses a path into one (status.a, rank[0]) in every
// expression, as it refuses one into a table key; and a read of a global
// index may name in its projection and filter only what the index projects.
func indexKeyPathCases() []Case {
	const msg = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: "
	g := indexedItems()
	key := I("pk", "g1", "sk", "1")
	lseed := Items(I("pk", "a", "sk", "1", "ord", 1, "title", "t", "x", "y"))
	return []Case{
		GetCase("index-key-path/projection-into-gsi-partition-key", Indexed, g, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("#s.a"), ExpressionAttributeNames: Names("#s", "status")},
			Want{Err: "ValidationException", Msg: msg + "status"}),
		GetCase("index-key-path/projection-into-gsi-sort-key-element", Indexed, g, dynamodb.GetItemInput{Key: key,
			ProjectionExpression: aws.String("#r[0]"), ExpressionAttributeNames: Names("#r", "rank")},
			Want{Err: "ValidationException", Msg: msg + "rank"}),
		PutCase("index-key-path/condition-into-gsi-key", Indexed, g, dynamodb.PutItemInput{Item: key,
			ConditionExpression: aws.String("attribute_exists(#o.b)"), ExpressionAttributeNames: Names("#o", "owner")},
			Want{Err: "ValidationException", Msg: msg + "owner"}),
		UpdateCase("index-key-path/update-set-into-gsi-key", Indexed, g, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET tag.x = :v"), ExpressionAttributeValues: Vals(":v", "x")},
			Want{Err: "ValidationException", Msg: msg + "tag"}),
		// A value read from a path into an index key is refused before
		// the update meets the item (dynalite's AWS-written "should return
		// ValidationException if trying to update index map": "set e =
		// list_append(a, b), f = d[1]" appends two strings, but is refused
		// for d[1]).
		UpdateCase("index-key-path/update-value-read-from-gsi-key", Indexed, g, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET e = list_append(pk, sk), f = #s[1]"), ExpressionAttributeNames: Names("#s", "status")},
			Want{Err: "ValidationException", Msg: msg + "status"}),
		UpdateCase("index-key-path/update-list-append-of-a-gsi-key-element", Indexed, g, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET l = list_append(:l, #r.x)"), ExpressionAttributeNames: Names("#r", "rank"),
			ExpressionAttributeValues: Vals(":l", L(S("a")))},
			Want{Err: "ValidationException", Msg: msg + "rank"}),
		UpdateCase("index-key-path/update-set-into-table-key", Indexed, g, dynamodb.UpdateItemInput{Key: key,
			UpdateExpression: aws.String("SET sk.x = :v"), ExpressionAttributeValues: Vals(":v", "x")},
			Want{Err: "ValidationException", Msg: "Cannot update attribute sk. This attribute is part of the key"}),
		ScanCase("index-key-path/scan-filter-into-gsi-key", Indexed, g, dynamodb.ScanInput{
			FilterExpression: aws.String("attribute_exists(tag.b)")},
			Want{Err: "ValidationException", Msg: msg + "tag"}),
		QueryCase("index-key-path/query-on-index-projection-into-its-key", Indexed, g,
			onIndex("byTag", "tag = :t", Vals(":t", "x")).withProjection("title, #r.x").withNames("#r", "rank").in(),
			Want{Err: "ValidationException", Msg: msg + "rank"}),
		GetCase("index-key-path/projection-into-lsi-sort-key", Local, lseed, dynamodb.GetItemInput{Key: I("pk", "a", "sk", "1"),
			ProjectionExpression: aws.String("ord.a")},
			Want{Err: "ValidationException", Msg: msg + "ord"}),
		UpdateCase("index-key-path/condition-into-lsi-sort-key", Local, lseed, dynamodb.UpdateItemInput{Key: I("pk", "a", "sk", "1"),
			UpdateExpression: aws.String("SET x = :v"), ConditionExpression: aws.String("size(title[1]) > :z"), ExpressionAttributeValues: Vals(":v", "x", ":z", 0)},
			Want{Err: "ValidationException", Msg: msg + "title"}),
		QueryCase("index-key-path/gsi-filter-on-unprojected-attribute", Indexed, g,
			dynamodb.QueryInput{IndexName: aws.String("byTag"), KeyConditionExpression: aws.String("tag = :t"),
				FilterExpression: aws.String("body = :b"), ExpressionAttributeValues: Vals(":t", "x", ":b", "B1")},
			Want{Err: "ValidationException", Msg: "Secondary index byTag does not project one or more filter attributes: [body]"}),
		QueryCase("index-key-path/gsi-keys-only-filter-on-unprojected-attribute", Indexed, g,
			dynamodb.QueryInput{IndexName: aws.String("byOwner"), KeyConditionExpression: aws.String("#o = :o"),
				FilterExpression: aws.String("title = :b"), ExpressionAttributeNames: Names("#o", "owner"), ExpressionAttributeValues: Vals(":o", "u1", ":b", "T1")},
			Want{Err: "ValidationException", Msg: "Secondary index byOwner does not project one or more filter attributes: [title]"}),
		skipOn(ScanCase("index-key-path/gsi-scan-filter-on-unprojected-attribute", Indexed, g, dynamodb.ScanInput{IndexName: aws.String("byTag"),
			FilterExpression: aws.String("body = :b"), ExpressionAttributeValues: Vals(":b", "B1")},
			Want{Err: "ValidationException", Msg: "Secondary index byTag does not project one or more filter attributes: [body]"}),
			DynamoDBLocal, dynamotest.LocalDeviationWhy(dynamotest.LocalScansIndexWholeItems)),
		ScanCase("index-key-path/lsi-scan-projection-of-unprojected-attribute-fetches-it", Local, lseed, dynamodb.ScanInput{IndexName: aws.String("byOrd"),
			ProjectionExpression: aws.String("x")},
			Want{Items: Items(I("x", "y"))}),
		ScanCase("index-key-path/gsi-scan-projection-of-unprojected-attribute", Indexed, g, dynamodb.ScanInput{IndexName: aws.String("byTag"),
			ProjectionExpression: aws.String("body")},
			Want{Err: "ValidationException", Msg: "does not project"}),
	}
}
