package dynamotest_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

func ExampleNew() {
	db := dynamotest.New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		panic(err)
	}
	create := &dynamodb.PutItemInput{
		TableName:           aws.String("jobs"),
		Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "JOB#1"}},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}
	_, err = db.PutItem(ctx, create)
	fmt.Println("first create:", err)
	_, err = db.PutItem(ctx, create)
	var ccf *types.ConditionalCheckFailedException
	fmt.Println("second create fails:", errors.As(err, &ccf))
	// Output:
	// first create: <nil>
	// second create fails: true
}

func ExampleDB_Inject() {
	db := dynamotest.New()
	if _, err := db.CreateTable(ctx, simple.input()); err != nil {
		panic(err)
	}
	// The next two PutItem calls are throttled, as DynamoDB does when a
	// partition is over its capacity; a caller's retry loop gets through on
	// the third.
	db.Inject(dynamotest.Throttle("PutItem", 2))
	in := &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: item{"pk": S("a"), "sk": S("b")}}
	for attempt := 1; ; attempt++ {
		_, err := db.PutItem(ctx, in)
		var pte *types.ProvisionedThroughputExceededException
		if errors.As(err, &pte) {
			continue
		}
		fmt.Println("attempts:", attempt, "error:", err, "calls:", db.Calls("PutItem"))
		break
	}
	// Output:
	// attempts: 3 error: <nil> calls: 3
}

func ExampleDB_Advance() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	if _, err := db.CreateTable(ctx, simple.input()); err != nil {
		panic(err)
	}
	_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("simple"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
	if err != nil {
		panic(err)
	}
	key := item{"pk": S("session"), "sk": S("1")}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"),
		Item: item{"pk": S("session"), "sk": S("1"), "expires": N(fmt.Sprint(start.Add(time.Hour).Unix()))}})
	if err != nil {
		panic(err)
	}
	exists := func() bool {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: key})
		if err != nil {
			panic(err)
		}
		return out.Item != nil
	}
	fmt.Println("before expiry:", exists())
	db.Advance(2 * time.Hour)
	fmt.Println("after the clock passes it:", exists())
	// Output:
	// before expiry: true
	// after the clock passes it: false
}

func ExampleDB_Consumed() {
	db := dynamotest.New()
	if _, err := db.CreateTable(ctx, simple.input()); err != nil {
		panic(err)
	}
	// A 1,500-byte item costs two write units; reading it strongly
	// consistent costs one read unit (4 KB units).
	it := sized("k", 1500)
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: it}); err != nil {
		panic(err)
	}
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: item{"pk": it["pk"], "sk": it["sk"]}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", db.Consumed("simple"))
	// Output:
	// {ReadUnits:1 WriteUnits:2}
}

func ExampleNewMeter() {
	db := dynamotest.New()
	if _, err := db.CreateTable(ctx, simple.input()); err != nil {
		panic(err)
	}
	// A store built on m sends its requests through it; here the requests
	// are sent by hand: a 2 KB item written, then read back consistently.
	m := dynamotest.NewMeter(db)
	u := m.Measure(func() {
		it := item{"pk": S("a"), "sk": S("b"), "data": S(strings.Repeat("x", 2000))}
		if _, err := m.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"), Item: it}); err != nil {
			panic(err)
		}
		key := item{"pk": S("a"), "sk": S("b")}
		if _, err := m.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("simple"), Key: key, ConsistentRead: aws.Bool(true)}); err != nil {
			panic(err)
		}
	})
	// In a benchmark, u.Report(b) reports these per operation.
	fmt.Printf("requests %d, round trips %d, write units %g, read units %g\n", u.Requests, u.RoundTrips, u.WriteUnits, u.ReadUnits)
	// Output:
	// requests 2, round trips 2, write units 2, read units 1
}
