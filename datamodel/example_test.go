package datamodel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/table"
)

func exampleSchema() table.Schema {
	s := func(n string) table.Attribute { return table.Attribute{Name: n, Type: types.ScalarAttributeTypeS} }
	return table.Schema{
		Name: "queue", PartitionKey: s("PK"), SortKey: s("SK"),
		Indexes: []table.Index{{Name: "GSI1", PartitionKey: s("GSI1PK"), SortKey: s("GSI1SK")}},
	}
}

// examplePatterns is how a queue service uses exampleSchema's table, as a
// store declares it in its patterns.go.
func examplePatterns() []access.Pattern {
	return []access.Pattern{
		{Name: "Submit", Operation: access.PutItem, ItemSize: 1024, RatePerSecond: 400, Partition: "TASK#{id}",
			IndexWrites: []access.IndexWrite{{Index: "GSI1", Partition: "STATUS#PENDING"}}},
		{Name: "Next pending", Operation: access.Query, Index: "GSI1", ItemSize: 1024, ItemsPerRequest: 10,
			RatePerSecond: 400, Partition: "STATUS#PENDING"},
	}
}

func ExampleEstimateSchema() {
	est, err := datamodel.EstimateSchema(exampleSchema(), examplePatterns(), datamodel.WithRates(map[string]float64{"Submit": 1200}))
	if err != nil {
		panic(err)
	}
	for _, p := range est.Patterns {
		fmt.Printf("%s: %.1f RCU + %.1f WCU per request, $%.2f a month\n", p.Pattern.Name, p.ReadUnits, p.WriteUnits, p.MonthlyCost)
	}
	for _, h := range est.Hot() {
		fmt.Printf("hot: %s %s at %.0f WCU/s\n", h.Index, h.Partition, h.WritePerSecond)
	}
	// Output:
	// Submit: 0.0 RCU + 2.0 WCU per request, $3888.00 a month
	// Next pending: 1.5 RCU + 0.0 WCU per request, $194.40 a month
	// hot: GSI1 STATUS#PENDING at 1200 WCU/s
}

func ExamplePolicyFor() {
	env := iam.Env{Region: "eu-west-1", Account: "123456789012"}
	p, err := datamodel.PolicyFor(exampleSchema(), examplePatterns(), func(o *datamodel.PolicyOptions) { o.Env = env })
	if err != nil {
		panic(err)
	}
	fmt.Print(string(p.JSON()))
	// Output:
	// {
	//   "Version": "2012-10-17",
	//   "Statement": [
	//     {
	//       "Sid": "Table",
	//       "Effect": "Allow",
	//       "Action": [
	//         "dynamodb:PutItem"
	//       ],
	//       "Resource": [
	//         "arn:aws:dynamodb:eu-west-1:123456789012:table/queue"
	//       ]
	//     },
	//     {
	//       "Sid": "Indexes",
	//       "Effect": "Allow",
	//       "Action": [
	//         "dynamodb:Query"
	//       ],
	//       "Resource": [
	//         "arn:aws:dynamodb:eu-west-1:123456789012:table/queue/index/GSI1"
	//       ]
	//     }
	//   ]
	// }
}

// A store run on the fake under its runtime policy: a Scan, which no
// pattern declares, is refused as DynamoDB refuses it.
func ExamplePolicyFor_enforced() {
	ctx := context.Background()
	s := exampleSchema()
	fake := dynamotest.New()
	if err := s.EnsureTable(ctx, fake); err != nil {
		panic(err)
	}
	p, _ := datamodel.PolicyFor(s, examplePatterns(), func(o *datamodel.PolicyOptions) { o.Env = dynamotest.Env })
	db, _ := dynamotest.Enforce(fake, p)
	_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("queue")})
	var api smithy.APIError
	if errors.As(err, &api) {
		fmt.Println(api.ErrorCode())
	}
	// Output:
	// AccessDeniedException
}

func ExampleMeasure() {
	ms, err := datamodel.Measure(context.Background(), exampleSchema(), examplePatterns())
	if err != nil {
		panic(err)
	}
	for _, m := range ms {
		fmt.Printf("%s: estimated %.1f RCU %.1f WCU, measured %.1f RCU %.1f WCU\n", m.Pattern, m.EstimatedRead, m.EstimatedWrite, m.MeasuredRead, m.MeasuredWrite)
	}
	// Output:
	// Submit: estimated 0.0 RCU 2.0 WCU, measured 0.0 RCU 2.0 WCU
	// Next pending: estimated 1.5 RCU 0.0 WCU, measured 1.5 RCU 0.0 WCU
}

func ExampleRender() {
	doc, err := datamodel.Render(context.Background(), datamodel.Model{
		Store:    "queue",
		Schema:   exampleSchema(),
		Patterns: examplePatterns(),
		Prose:    datamodel.Prose{Philosophy: "One item per task; pending tasks in GSI1, oldest first."},
		Items: []datamodel.Sample{
			{{"PK", "TASK#1"}, {"SK", "META"}, {"GSI1PK", "STATUS#PENDING"}, {"GSI1SK", "2025-01-01T00:00:00Z"}},
		},
	})
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "#") {
			fmt.Println(line)
		}
	}
	// Output:
	// # DynamoDB Data Model: queue (`queue`)
	// ## Design Philosophy & Approach
	// ## Aggregate Design Decisions
	// ## Table Designs
	// ### queue Table
	// ### GSI1 GSI
	// ## Access Pattern Mapping
	// ### Solved Patterns
	// ### Capacity and Cost
	// ### Storage
	// ### GSI Projection Analysis
	// ### Alternatives Priced
	// ## Hot Partition Analysis
	// ## Trade-offs and Optimizations
	// ## Validation Results 🔴
	// ### Estimates Replayed on dynamotest
}
