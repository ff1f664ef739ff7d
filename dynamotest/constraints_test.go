package dynamotest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

// The operations' violations return early when every member passes the
// enums' quick checks: those checks must accept exactly the SDK's enum
// values (and an absent one), or a bad value would pass unreported.
func TestMemberConstraintsAcceptEveryEnumValueAndNothingElse(t *testing.T) {
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	name := aws.String("tbl")
	check := func(what string, valid bool, err error) {
		t.Helper()
		if valid {
			assert.NoErrorf(t, err, "%s", what)
		} else {
			assert.Errorf(t, err, "%s is refused", what)
		}
	}
	for _, bad := range []bool{false, true} {
		pick := func(values []string) []string {
			if bad {
				return []string{"hi", "all_old", "Total"}
			}
			return append(values, "")
		}
		for _, m := range pick(enumStrings(types.ReturnConsumedCapacity("").Values())) {
			mode := types.ReturnConsumedCapacity(m)
			check("GetItem ReturnConsumedCapacity "+m, !bad, getItemViolations(&dynamodb.GetItemInput{TableName: name, Key: key, ReturnConsumedCapacity: mode}, true))
			check("Query ReturnConsumedCapacity "+m, !bad, queryViolations(&dynamodb.QueryInput{TableName: name, ReturnConsumedCapacity: mode}, true))
			check("Scan ReturnConsumedCapacity "+m, !bad, scanViolations(&dynamodb.ScanInput{TableName: name, ReturnConsumedCapacity: mode}, true))
			check("PutItem ReturnConsumedCapacity "+m, !bad, putItemViolations(&dynamodb.PutItemInput{TableName: name, Item: key, ReturnConsumedCapacity: mode}, true))
		}
		for _, m := range pick(enumStrings(types.ReturnValue("").Values())) {
			check("UpdateItem ReturnValues "+m, !bad, updateItemViolations(&dynamodb.UpdateItemInput{TableName: name, Key: key, ReturnValues: types.ReturnValue(m)}, true))
		}
		for _, m := range pick(enumStrings(types.ReturnItemCollectionMetrics("").Values())) {
			check("DeleteItem ReturnItemCollectionMetrics "+m, !bad, deleteItemViolations(&dynamodb.DeleteItemInput{TableName: name, Key: key, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetrics(m)}, true))
		}
		for _, m := range pick(enumStrings(types.ReturnValuesOnConditionCheckFailure("").Values())) {
			check("PutItem ReturnValuesOnConditionCheckFailure "+m, !bad, putItemViolations(&dynamodb.PutItemInput{TableName: name, Item: key, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailure(m)}, true))
		}
		for _, m := range pick(enumStrings(types.ConditionalOperator("").Values())) {
			check("Scan ConditionalOperator "+m, !bad, scanViolations(&dynamodb.ScanInput{TableName: name, ConditionalOperator: types.ConditionalOperator(m)}, true))
		}
		for _, m := range pick(enumStrings(types.Select("").Values())) {
			check("Query Select "+m, !bad, queryViolations(&dynamodb.QueryInput{TableName: name, Select: types.Select(m)}, true))
		}
	}
	for index, valid := range map[string]bool{"byStatus": true, "GSI1-by_x.y": true, "ab": false, "a;b": false, "": false} {
		check("Query IndexName "+index, valid, queryViolations(&dynamodb.QueryInput{TableName: name, IndexName: aws.String(index)}, true))
		check("Scan IndexName "+index, valid, scanViolations(&dynamodb.ScanInput{TableName: name, IndexName: aws.String(index)}, true))
	}
}

func enumStrings[E ~string](values []E) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
