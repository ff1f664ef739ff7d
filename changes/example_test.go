package changes_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// A consumer of a table's stream on the in-memory fake, which serves the
// Streams API itself; with AWS or DynamoDB Local, pass a
// *dynamodbstreams.Client instead.
func ExampleConsumer_Step() {
	ctx := context.Background()
	db := dynamotest.New()
	schema := table.Schema{Name: "counters",
		PartitionKey: table.Attribute{Name: "pk", Type: types.ScalarAttributeTypeS},
		SortKey:      table.Attribute{Name: "sk", Type: types.ScalarAttributeTypeS}}
	if err := schema.EnsureTable(ctx, db); err != nil {
		panic(err)
	}
	if _, err := changes.EnableStream(ctx, db, "counters", types.StreamViewTypeNewAndOldImages); err != nil {
		panic(err)
	}

	type counter struct {
		Group string `dynamodbav:"pk"`
		Name  string `dynamodbav:"sk"`
		N     int    `dynamodbav:"n"`
	}
	c, err := changes.New[counter](db, db, "counters", changes.Name("totals"))
	if err != nil {
		panic(err)
	}
	if err := c.EnsureTable(ctx); err != nil { // the lease table
		panic(err)
	}

	for _, n := range []string{"1", "5"} {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("counters"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "g"}, "sk": &types.AttributeValueMemberS{Value: "hits"},
			"n": &types.AttributeValueMemberN{Value: n}}})
		if err != nil {
			panic(err)
		}
	}

	// Run(ctx, handler) loops until ctx ends; Step runs one round.
	_, err = c.Step(ctx, func(ctx context.Context, batch []changes.Change[counter]) error {
		for _, ch := range batch {
			switch ch.Event {
			case changes.Insert:
				fmt.Println(ch.Event, ch.New.Name, ch.New.N)
			case changes.Modify:
				fmt.Println(ch.Event, ch.New.Name, ch.Old.N, "->", ch.New.N)
			}
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// INSERT hits 1
	// MODIFY hits 1 -> 5
}
