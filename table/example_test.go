package table_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/table"
)

// Job is a record of a table shaped like the jobs design's jobs table.
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

// newJobsTable creates the table on the in-memory fake; with AWS, pass a
// *dynamodb.Client instead.
func newJobsTable(ctx context.Context) *table.Table {
	db := dynamotest.New()
	if err := jobs.EnsureTable(ctx, db); err != nil {
		log.Fatal(err)
	}
	return table.New(db, jobs)
}

func Example() {
	ctx := context.Background()
	t := newJobsTable(ctx)

	// A create: fails with ErrAlreadyExists if the job is there.
	job := Job{UserID: "USER#1", JobID: "JOB#1", Status: "queued"}
	if err := t.Put(ctx, job, table.IfNotExists()); err != nil {
		log.Fatal(err)
	}
	err := t.Put(ctx, job, table.IfNotExists())
	fmt.Println("second create:", errors.Is(err, table.ErrAlreadyExists))

	// A guarded status move: only from queued to running.
	move := func(from, to string) error {
		return t.Update(ctx, t.Key("USER#1", "JOB#1"),
			expression.Set(expression.Name("status"), expression.Value(to)),
			table.If(expression.Name("status").Equal(expression.Value(from))))
	}
	fmt.Println("queued -> running:", move("queued", "running"))
	err = move("queued", "running")
	fmt.Println("again:", errors.Is(err, table.ErrConditionFailed))

	var got Job
	if err := t.Get(ctx, t.Key("USER#1", "JOB#1"), &got); err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.JobID, got.Status)
	// Output:
	// second create: true
	// queued -> running: <nil>
	// again: true
	// JOB#1 running
}

func ExampleQueryPage() {
	ctx := context.Background()
	t := newJobsTable(ctx)
	for i := 1; i <= 5; i++ {
		if err := t.Put(ctx, Job{UserID: "USER#1", JobID: fmt.Sprintf("JOB#%d", i), Status: "queued"}); err != nil {
			log.Fatal(err)
		}
	}
	q := table.Query{Partition: "USER#1", Sort: table.SortBeginsWith("JOB#"), Limit: 2}
	cursor := "" // a client sends back the Next it was given
	for {
		page, err := table.QueryPage[Job](ctx, t, q, cursor)
		if err != nil {
			log.Fatal(err)
		}
		for _, j := range page.Items {
			fmt.Print(j.JobID, " ")
		}
		fmt.Println("| more:", page.Next != "")
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}

	// A cursor used on another partition reads nothing.
	_, err := table.QueryPage[Job](ctx, t, table.Query{Partition: "USER#2", Limit: 2}, cursor)
	fmt.Println(errors.Is(err, table.ErrInvalidCursor))
	// Output:
	// JOB#1 JOB#2 | more: true
	// JOB#3 JOB#4 | more: true
	// JOB#5 | more: false
	// true
}

// A store's listing is one List, made with its arguments: the caller
// takes one page (an API handler, with the cursor its client sent back) or
// every item.
func ExampleList() {
	ctx := context.Background()
	t := newJobsTable(ctx)
	for i := 1; i <= 3; i++ {
		if err := t.Put(ctx, Job{UserID: "USER#1", JobID: fmt.Sprintf("JOB#%d", i), Status: "queued"}); err != nil {
			log.Fatal(err)
		}
	}
	// What a store's method returns: bad arguments are found here, once,
	// and reported by Page and All; nothing is read then.
	userJobs := func(user string, limit int32) table.List[Job] {
		if user == "" {
			return table.FailedList[Job](&table.InputError{Field: "user", Value: `""`, Reason: "a user's jobs need the user"})
		}
		q := table.Query{Partition: user, Sort: table.SortBeginsWith("JOB#"), Limit: limit}
		return table.NewList(func(ctx context.Context, cursor string) (table.Page[Job], error) {
			return table.QueryPage[Job](ctx, t, q, cursor)
		})
	}

	page, err := userJobs("USER#1", 2).Page(ctx, "") // "": the first page
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Items), "jobs, more:", page.Next != "")
	page, _ = userJobs("USER#1", 2).Page(ctx, page.Next) // the client sent Next back
	fmt.Println(len(page.Items), "job, more:", page.Next != "")

	var all []string
	for j, err := range userJobs("USER#1", 2).All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		all = append(all, j.JobID)
	}
	fmt.Println(all)

	for _, err := range userJobs("", 2).All(ctx) {
		fmt.Println(errors.Is(err, table.ErrInvalidInput))
	}
	// Output:
	// 2 jobs, more: true
	// 1 job, more: false
	// [JOB#1 JOB#2 JOB#3]
	// true
}

func ExampleTable_WriteTx() {
	ctx := context.Background()
	t := newJobsTable(ctx)
	if err := t.Put(ctx, Job{UserID: "USER#1", JobID: "JOB#1", Status: "running"}); err != nil {
		log.Fatal(err)
	}
	err := t.WriteTx().
		Create(Job{UserID: "USER#1", JobID: "JOB#2", Status: "queued"}).
		Check(t.Key("USER#1", "JOB#1"), expression.Name("status").Equal(expression.Value("done"))).
		Run(ctx)
	var txe *table.TxError
	if errors.As(err, &txe) {
		for _, r := range txe.Reasons {
			fmt.Println(r.Index, r.Action, r.Key, r.Code)
		}
	}
	// Output:
	// 1 Check PK="USER#1", SK="JOB#1" ConditionalCheckFailed
}

func ExampleTable_BatchWrite() {
	ctx := context.Background()
	t := newJobsTable(ctx)
	var puts []any
	var keys []table.Key
	for i := range 60 {
		id := fmt.Sprintf("JOB#%02d", i)
		puts = append(puts, Job{UserID: "USER#1", JobID: id, Status: "queued"})
		keys = append(keys, t.Key("USER#1", id))
	}
	// Three BatchWriteItem requests of at most 25; unprocessed items are
	// retried until written or until ctx ends.
	if err := t.BatchWrite(ctx, puts, nil); err != nil {
		log.Fatal(err)
	}
	got, err := table.BatchGet[Job](ctx, t, keys[:3])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(got), got[0].JobID, got[2].JobID)
	// Output:
	// 3 JOB#00 JOB#02
}

func ExampleWrapError() {
	// Stores that call the API directly map its errors the same way.
	ctx := context.Background()
	db := dynamotest.New()
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("missing")})
	err = table.WrapError("describe table", err)
	var rnf *types.ResourceNotFoundException
	fmt.Println(errors.Is(err, table.ErrTableNotFound), errors.As(err, &rnf))
	// Output:
	// true true
}
