package dynamotest_test

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

func ExampleCompare() {
	// A team passes its *dynamodb.Client as the reference; a fake stands
	// in for it here. The candidate is the fake in its eventual mode, so a
	// read of a global index right after a write misses it.
	reference := dynamotest.New()
	candidate := dynamotest.New(dynamotest.EventualConsistency(time.Second))
	cmp := dynamotest.Compare(reference, candidate)

	_, err := cmp.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("jobs"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byOwner"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		panic(err)
	}
	_, err = cmp.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"),
		Item: map[string]types.AttributeValue{"id": S("job-1"), "owner": S("ana")}})
	if err != nil {
		panic(err)
	}
	out, err := cmp.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("byOwner"),
		KeyConditionExpression:    aws.String("#o = :o"),
		ExpressionAttributeNames:  map[string]string{"#o": "owner"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": S("ana")}})
	if err != nil {
		panic(err)
	}
	fmt.Println("the caller gets the reference's answer:", len(out.Items), "item")
	for _, d := range cmp.Differences() {
		fmt.Printf("call %d %s: %s %s: reference %s, candidate %s\n", d.Call, d.Op, d.Class, d.Field, d.Reference, d.Candidate)
	}
	fmt.Println("unexpected:", len(cmp.Unexpected()))
	// Output:
	// the caller gets the reference's answer: 1 item
	// call 3 Query: answer Items: reference [{"id":{"S":"job-1"},"owner":{"S":"ana"}}], candidate (none)
	// call 3 Query: answer Count: reference 1, candidate 0
	// call 3 Query: answer ScannedCount: reference 1, candidate 0
	// unexpected: 3
}
