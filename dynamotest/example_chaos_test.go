package dynamotest_test

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
)

func ExampleChaos() {
	// In a test the seed comes from dynamotest.ChaosSeed(t), which logs it
	// and reads TABLEKIT_CHAOS_SEED to replay a failure. The same seed
	// gives the same faults to the same calls.
	c := dynamotest.Chaos(42, func(o *dynamotest.ChaosOptions) {
		o.Rates = dynamotest.ChaosRates{Throttle: 0.3, LostAfter: 0.2}
		o.MaxLag = 0
	})
	if _, err := c.CreateTable(ctx, simple.input()); err != nil { // table calls get no faults
		panic(err)
	}
	for i := range 6 {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("simple"),
			Item: map[string]types.AttributeValue{"pk": S("job"), "sk": S(fmt.Sprint(i))}})
		var throttled *types.ProvisionedThroughputExceededException
		switch {
		case errors.As(err, &throttled):
			fmt.Println(i, "throttled: retry after a backoff")
		case errors.Is(err, dynamotest.ErrResponseLost):
			fmt.Println(i, "response lost: did it apply?")
		default:
			fmt.Println(i, err)
		}
	}
	for _, f := range c.Faults() {
		fmt.Println(f)
	}
	// Output:
	// 0 throttled: retry after a backoff
	// 1 response lost: did it apply?
	// 2 <nil>
	// 3 <nil>
	// 4 throttled: retry after a backoff
	// 5 response lost: did it apply?
	// call 1 PutItem simple #1: throttle
	// call 2 PutItem simple #2: lost-after applied
	// call 5 PutItem simple #5: throttle
	// call 6 PutItem simple #6: lost-after applied
}
