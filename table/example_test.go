package table_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/table"
)

// Job is a record of a table shaped like seed 001's jobs table.
type Job struct {
	UserID string `dynamodbav:"PK"`
	JobID  string `dynamodbav:"SK"`
	Status string `dynamodbav:"status"`
}

var jobs = table.Schema{
	Name:         "photoeditor-dev-jobs",
	PartitionKey: table.Attribute{Name: "PK", Type: types.ScalarAttributeTypeS},
	SortKey:      table.Attribute{Name: "SK", Type: types.ScalarAttributeTypeS},
	TTLAttribute: "expiresAt",
}

func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	if err := jobs.EnsureTable(ctx, db); err != nil {
		log.Fatal(err)
	}
	t := table.New(db, jobs)

	// A create: fails with ErrAlreadyExists if the job is there.
	err = t.Put(ctx, Job{UserID: "USER#1", JobID: "JOB#1", Status: "queued"}, table.IfNotExists())
	if errors.Is(err, table.ErrAlreadyExists) {
		fmt.Println("job exists")
	}

	// A guarded status move: only from queued to running.
	err = t.Update(ctx, t.Key("USER#1", "JOB#1"),
		expression.Set(expression.Name("status"), expression.Value("running")),
		table.If(expression.Name("status").Equal(expression.Value("queued"))))
	if errors.Is(err, table.ErrConditionFailed) {
		fmt.Println("job was not queued")
	}
}

func ExampleQueryPage() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	t := table.New(dynamodb.NewFromConfig(cfg), jobs)

	cursor := "" // from the client's previous request
	page, err := table.QueryPage[Job](ctx, t, table.Query{
		Partition: "USER#1",
		Sort:      table.SortBeginsWith("JOB#"),
		Limit:     20,
	}, cursor)
	if errors.Is(err, table.ErrInvalidCursor) {
		// The client sent a cursor it did not get from this query.
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	for _, j := range page.Items {
		fmt.Println(j.JobID, j.Status)
	}
	// page.Next is "" exactly when there is nothing more.
}
