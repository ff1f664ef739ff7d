package conformance

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

// localOneViolation is why the cases on several broken member constraints
// skip DynamoDB Local: it reports the first it finds, in its own words
// ("Invalid table/index name. Table/index names must be between 3 and 255
// characters long, ...", "Value null at 'tableName' ..." without a count),
// where DynamoDB reports all of them, up to ten, in one
// "N validation errors detected: ..." message (dynalite's tests written
// against DynamoDB: "should return ValidationException for incorrect
// attributes" in its updateItem, query, scan and batch suites).
var localOneViolation = dynamotest.LocalDeviationWhy(dynamotest.LocalOneViolation)

// violation is one entry of such a message.
func violation(value, field, rule string) string {
	return fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: %s", value, field, rule)
}

const (
	patternRule  = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	consumedEnum = "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
)

// validationCases pin how DynamoDB reports a request whose members break
// their constraints (required, length, pattern, enum, range): every broken
// one, counted, in one ValidationException, before anything else about the
// request and before the table is looked up.
func validationCases() []Case {
	multi := func(name string, run func(c *C) error, want ...string) Case {
		return skipOn(Case{Name: "member-constraints/" + name, Run: func(c *C) {
			err := run(c)
			c.ExpectErr(err, "ValidationException", append([]string{fmt.Sprintf("%d validation errors detected: ", len(want))}, want...)...)
		}}, DynamoDBLocal, localOneViolation)
	}
	return []Case{
		multi("update-item-reports-every-one", func(c *C) error {
			_, err := c.API.UpdateItem(c.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String("abc;"), Key: I("pk", "a", "sk", "1"),
				ReturnConsumedCapacity: "hi", ReturnItemCollectionMetrics: "hi", ReturnValues: "hi"})
			return err
		},
			violation("'hi'", "returnConsumedCapacity", consumedEnum),
			violation("'abc;'", "tableName", patternRule),
			violation("'hi'", "returnItemCollectionMetrics", "Member must satisfy enum value set: [SIZE, NONE]"),
			violation("'hi'", "returnValues", "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")),
		multi("an-empty-table-name-breaks-its-pattern-and-its-length", func(c *C) error {
			_, err := c.API.GetItem(c.Ctx, &dynamodb.GetItemInput{TableName: aws.String(""), Key: I("pk", "a", "sk", "1")})
			return err
		},
			violation("''", "tableName", patternRule),
			violation("''", "tableName", "Member must have length greater than or equal to 3")),
		multi("query-on-an-existing-table", func(c *C) error {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), Select: "hi", IndexName: aws.String("abc;"),
				ReturnConsumedCapacity: "hi", ConditionalOperator: "AN", Limit: aws.Int32(-1), AttributesToGet: []string{},
				KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: "XX", AttributeValueList: []types.AttributeValue{S("a")}}}})
			return err
		},
			violation("'hi'", "select", "Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"),
			violation("'abc;'", "indexName", patternRule),
			violation("'hi'", "returnConsumedCapacity", consumedEnum),
			violation("'AN'", "conditionalOperator", "Member must satisfy enum value set: [OR, AND]"),
			violation("'[]'", "attributesToGet", "Member must have length greater than or equal to 1"),
			violation("'-1'", "limit", "Member must have value greater than or equal to 1"),
			violation("'XX'", "keyConditions.pk.member.comparisonOperator",
				"Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]")),
		multi("scan-segment-and-total-segments-ranges", func(c *C) error {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: c.TableName(), Segment: aws.Int32(-1), TotalSegments: aws.Int32(0)})
			return err
		},
			violation("'0'", "totalSegments", "Member must have value greater than or equal to 1"),
			violation("'-1'", "segment", "Member must have value greater than or equal to 0")),
		multi("batch-write-map-keys-and-values", func(c *C) error {
			_, err := c.API.BatchWriteItem(c.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"a": {}},
				ReturnConsumedCapacity: "hi"})
			return err
		},
			violation("'hi'", "returnConsumedCapacity", consumedEnum),
			"at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, "+
				"Member must have length greater than or equal to 3, "+patternRule+"]",
			"at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, "+
				"Member must have length greater than or equal to 1]"),
		skipOn(Case{Name: "member-constraints/batch-get-more-than-100-keys-of-one-table", Run: func(c *C) {
			keys := make([]Item, 101)
			for i := range keys {
				keys[i] = I("pk", fmt.Sprint(i), "sk", "1")
			}
			_, err := c.API.BatchGetItem(c.Ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{c.Table: {Keys: keys}}})
			c.ExpectErr(err, "ValidationException", "1 validation error detected: ",
				"at 'requestItems."+c.Table+".member.keys' failed to satisfy constraint: Member must have length less than or equal to 100")
		}}, DynamoDBLocal, dynamotest.LocalDeviationWhy(dynamotest.LocalBatchGetMessage)),
	}
}
