package conformance

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// requestLimitCases: the limits DynamoDB sets on what one request may ask
// it to read, which it checks before the work: a PartiQL statement of at
// most 8,192 bytes (the API reference's length constraint on
// ExecuteStatement's Statement, BatchStatementRequest's and
// ParameterizedStatement's), and the Developer Guide's expression-parameter
// quotas on the placeholder maps: 255 bytes a key, 2 MB of substitution
// variables (DynamoDB Local counts each map apart, keys included), and an
// attribute name under 64 KB. The messages are DynamoDB Local's; the
// statement's is a member constraint, which DynamoDB words "1 validation
// error detected: Value '...' at 'statement' failed to satisfy constraint:
// Member must have length less than or equal to 8192" (Local gives only
// the last part, which the cases check).
func requestLimitCases() []Case {
	const tooLong = "Member must have length less than or equal to 8192"
	seed := Items(I("pk", "a", "sk", "1"))
	// padded is a SELECT of the seed item, padded with blanks to n bytes.
	padded := func(c *C, n int) string {
		s := c.statement(`SELECT * FROM {T} WHERE pk = 'a' AND sk = '1'`)
		return s + strings.Repeat(" ", n-len(s))
	}
	get := func(names map[string]string, projection string) dynamodb.GetItemInput {
		return dynamodb.GetItemInput{Key: I("pk", "a", "sk", "1"), ProjectionExpression: aws.String(projection), ExpressionAttributeNames: names}
	}
	key := func(prefix string, n int) string { return prefix + strings.Repeat("k", n-1) }
	// namesOf2MB is 32 names of 4 + 65,532 bytes, the first extra bytes
	// longer; #n10 is used, the rest are not.
	namesOf2MB := func(extra int) map[string]string {
		names := map[string]string{}
		for i := 10; i < 42; i++ {
			names["#n"+strconv.Itoa(i)] = strings.Repeat("a", 65532)
		}
		names["#n10"] += strings.Repeat("a", extra)
		return names
	}
	return []Case{
		{Name: "request-limit/statement-of-8192-bytes", Seed: seed, Run: func(c *C) {
			out, err := c.executor().ExecuteStatement(c.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(padded(c, 8192))})
			c.OK(err)
			c.ExpectItems("items", out.Items, seed)
		}},
		{Name: "request-limit/statement-over-8192-bytes-is-refused-unread", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteStatement(c.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(strings.Repeat("x", 8193))})
			c.ExpectErr(err, "ValidationException", tooLong)
			_, err = c.executor().ExecuteStatement(c.Ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(padded(c, 8193))})
			c.ExpectErr(err, "ValidationException", tooLong)
		}},
		{Name: "request-limit/batch-statement-over-8192-bytes", Seed: seed, Run: func(c *C) {
			_, err := c.executor().BatchExecuteStatement(c.Ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
				{Statement: aws.String(padded(c, 1000))}, {Statement: aws.String(padded(c, 8193))}}})
			c.ExpectErr(err, "ValidationException", tooLong)
		}},
		{Name: "request-limit/transaction-statement-over-8192-bytes-writes-nothing", Seed: seed, Run: func(c *C) {
			_, err := c.executor().ExecuteTransaction(c.Ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
				{Statement: aws.String(c.statement(`INSERT INTO {T} VALUE {'pk': 'b', 'sk': '1'}`))},
				{Statement: aws.String(c.statement(`UPDATE {T} SET n = 1 WHERE pk = 'a' AND sk = '1'`) + strings.Repeat(" ", 8200))}}})
			c.ExpectErr(err, "ValidationException", tooLong)
			c.ExpectUnchanged()
		}},
		GetCase("request-limit/name-key-of-255-bytes", PKSK, seed, get(map[string]string{key("#", 255): "pk"}, key("#", 255)), Want{Items: Items(I("pk", "a"))}),
		GetCase("request-limit/name-key-over-255-bytes", PKSK, seed, get(map[string]string{key("#", 256): "pk"}, key("#", 256)),
			Want{Err: "ValidationException", Msg: "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256"}),
		{Name: "request-limit/value-key-over-255-bytes", Seed: seed, Run: func(c *C) {
			_, err := c.API.Query(c.Ctx, &dynamodb.QueryInput{TableName: c.TableName(), KeyConditionExpression: aws.String("pk = " + key(":", 256)),
				ExpressionAttributeValues: Vals(key(":", 256), "a")})
			c.ExpectErr(err, "ValidationException", "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
		}},
		GetCase("request-limit/name-over-65535-bytes", PKSK, seed, get(map[string]string{"#n": strings.Repeat("a", 65536)}, "#n"),
			Want{Err: "ValidationException", Msg: "ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than 65536 bytes for key #n"}),
		GetCase("request-limit/names-of-2mb", PKSK, seed, get(namesOf2MB(0), "#n10"),
			Want{Err: "ValidationException", Msg: "Value provided in ExpressionAttributeNames unused in expressions"}),
		GetCase("request-limit/names-over-2mb", PKSK, seed, get(namesOf2MB(1), "#n10"),
			Want{Err: "ValidationException", Msg: "ExpressionAttributeNames exceeds max size"}),
		{Name: "request-limit/values-over-2mb", Seed: seed, Run: func(c *C) {
			_, err := c.API.Scan(c.Ctx, &dynamodb.ScanInput{TableName: c.TableName(), FilterExpression: aws.String("d = :v"),
				ExpressionAttributeValues: Vals(":v", strings.Repeat("v", 2<<20-1))})
			c.ExpectErr(err, "ValidationException", "ExpressionAttributeValues exceeds max size")
		}},
	}
}
