package datamodel_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/datamodel"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func statement(p datamodel.Policy, sid string) (datamodel.Statement, bool) {
	for _, s := range p.Statement {
		if s.Sid == sid {
			return s, true
		}
	}
	return datamodel.Statement{}, false
}

// TestPolicyGrantsOnlyWhatThePatternsUse checks the tasks and jobs
// policies action by action.
func TestPolicyGrantsOnlyWhatThePatternsUse(t *testing.T) {
	p, err := datamodel.PolicyFor(tasks.Schema("tasks"), tasks.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	items, _ := statement(p, datamodel.SidItems)
	// Transactions are authorized per action: ConditionCheckItem is absent
	// because no tasks transaction checks an item; Scan and the batch
	// actions because no pattern uses them.
	want := []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}
	if !reflect.DeepEqual([]string(items.Action), want) || !reflect.DeepEqual([]string(items.Resource), []string{"arn:aws:dynamodb:*:*:table/tasks"}) {
		t.Errorf("Items statement %+v, want %v on the table", items, want)
	}
	ix, _ := statement(p, datamodel.SidIndexes)
	if !reflect.DeepEqual([]string(ix.Action), []string{"dynamodb:Query"}) || !reflect.DeepEqual([]string(ix.Resource), []string{"arn:aws:dynamodb:*:*:table/tasks/index/GSI1"}) {
		t.Errorf("Indexes statement %+v, want Query on GSI1 only", ix)
	}
	setup, _ := statement(p, datamodel.SidSetup)
	if !reflect.DeepEqual([]string(setup.Action), []string{"dynamodb:CreateTable", "dynamodb:DescribeTable"}) {
		t.Errorf("Setup statement %+v: the tasks table has no TTL", setup)
	}

	p, err = datamodel.PolicyFor(jobs.Schema(jobs.TableNameForEnv("prod")), jobs.Patterns(), func(o *datamodel.PolicyOptions) { o.TableName = "photoeditor-*-jobs" })
	if err != nil {
		t.Fatal(err)
	}
	setup, _ = statement(p, datamodel.SidSetup)
	if !reflect.DeepEqual([]string(setup.Action), []string{"dynamodb:CreateTable", "dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive", "dynamodb:UpdateTimeToLive"}) ||
		setup.Resource[0] != "arn:aws:dynamodb:*:*:table/photoeditor-*-jobs" {
		t.Errorf("jobs Setup statement %+v, want the TTL pair on photoeditor-*-jobs", setup)
	}
	ix, _ = statement(p, datamodel.SidIndexes)
	if len(ix.Resource) != 2 {
		t.Errorf("jobs Indexes statement %+v, want both indexes", ix)
	}
	p, _ = datamodel.PolicyFor(jobs.Schema(jobs.TableNameForEnv("prod")), jobs.Patterns(), func(o *datamodel.PolicyOptions) { o.NoSetup = true })
	if _, ok := statement(p, datamodel.SidSetup); ok {
		t.Error("NoSetup left the Setup statement in")
	}
}

// TestPolicyJSONRoundTrips parses what PolicyFor renders.
func TestPolicyJSONRoundTrips(t *testing.T) {
	p, err := datamodel.PolicyFor(tasks.Schema("tasks"), tasks.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	q, err := datamodel.ParsePolicy(p.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, q) {
		t.Errorf("round trip changed the policy:\n%+v\n%+v", p, q)
	}
	one, err := datamodel.ParsePolicy([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}]}`))
	if err != nil || len(one.Statement) != 1 || one.Statement[0].Action[0] != "dynamodb:GetItem" {
		t.Errorf("single-string Action and Resource: %+v, %v", one, err)
	}
}

// TestParsePolicyRefusesWhatItCannotEnforce: a Condition or NotAction
// would be ignored, loosening the policy; they are errors instead.
func TestParsePolicyRefusesWhatItCannotEnforce(t *testing.T) {
	for name, doc := range map[string]string{
		"condition":  `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}]}`,
		"not action": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotAction":"dynamodb:DeleteTable","Resource":"*"}]}`,
		"effect":     `{"Version":"2012-10-17","Statement":[{"Effect":"allow","Action":"dynamodb:*","Resource":"*"}]}`,
		"version":    `{"Version":"2008-10-17","Statement":[]}`,
		"no action":  `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Resource":"*"}]}`,
		"not json":   `{"Version":`,
	} {
		if _, err := datamodel.ParsePolicy([]byte(doc)); !errors.Is(err, datamodel.ErrInvalidPolicy) {
			t.Errorf("%s: err %v, want ErrInvalidPolicy", name, err)
		}
	}
}

func enforced(t *testing.T, policy datamodel.Policy) (*dynamotest.DB, table.API) {
	t.Helper()
	fake := dynamotest.New()
	if err := tasks.Schema("tasks").Create(context.Background(), fake); err != nil {
		t.Fatal(err)
	}
	if err := tasks.Schema("other").Create(context.Background(), fake); err != nil {
		t.Fatal(err)
	}
	fake.ResetCalls()
	return fake, datamodel.Enforce(fake, policy)
}

func denied(t *testing.T, err error, action string) {
	t.Helper()
	var ad *datamodel.AccessDeniedError
	var api smithy.APIError
	var op *smithy.OperationError
	if !errors.As(err, &ad) || !errors.As(err, &api) || api.ErrorCode() != "AccessDeniedException" || !errors.As(err, &op) || ad.Action != action {
		t.Fatalf("err %v, want AccessDeniedException for %s wrapped in an OperationError", err, action)
	}
	if !strings.Contains(err.Error(), "is not authorized to perform: "+action) {
		t.Errorf("message %q does not say what was refused", err)
	}
}

// TestEnforceRefusesCallsOutsideThePolicyAndSendsNothing runs calls the
// tasks policy allows and calls it does not, on the fake.
func TestEnforceRefusesCallsOutsideThePolicyAndSendsNothing(t *testing.T) {
	ctx := context.Background()
	p, err := datamodel.PolicyFor(tasks.Schema("tasks"), tasks.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	fake, db := enforced(t, p)
	item := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "TASK#1"}, "SK": &types.AttributeValueMemberS{Value: "META"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tasks"), Item: item}); err != nil {
		t.Fatalf("allowed PutItem: %v", err)
	}
	if _, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tasks"), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "STATUS#PENDING"}}}); err != nil {
		t.Fatalf("allowed Query on GSI1: %v", err)
	}

	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("other"), Item: item})
	denied(t, err, "dynamodb:PutItem")
	_, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tasks")})
	denied(t, err, "dynamodb:Scan")
	_, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tasks"), IndexName: aws.String("GSI1")})
	denied(t, err, "dynamodb:Scan")
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tasks")})
	denied(t, err, "dynamodb:DeleteTable")
	_, err = db.ListTables(ctx, &dynamodb.ListTablesInput{})
	denied(t, err, "dynamodb:ListTables")
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"tasks": {{PutRequest: &types.PutRequest{Item: item}}}}})
	denied(t, err, "dynamodb:BatchWriteItem")
	// A transaction is refused whole when one of its actions is not allowed.
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tasks"), Item: item}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("tasks"), Key: item, ConditionExpression: aws.String("attribute_exists(PK)")}},
	}})
	denied(t, err, "dynamodb:ConditionCheckItem")
	for _, op := range []string{"Scan", "DeleteTable", "ListTables", "BatchWriteItem", "TransactWriteItems"} {
		if n := fake.Calls(op); n != 0 {
			t.Errorf("%d refused %s calls reached the fake", n, op)
		}
	}
	if n := fake.CallsFor("PutItem", "other"); n != 0 {
		t.Errorf("the refused PutItem reached the fake")
	}
	if _, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("tasks"), Key: item}}}}); err != nil {
		t.Errorf("TransactGetItems needs only GetItem: %v", err)
	}
}

// TestEnforceExplicitDenyWinsAndWildcardsMatch follows IAM's evaluation:
// an explicit Deny overrides any Allow; * and ? match in actions
// (case-insensitively) and resources.
func TestEnforceExplicitDenyWinsAndWildcardsMatch(t *testing.T) {
	ctx := context.Background()
	p := datamodel.Policy{Version: datamodel.PolicyVersion, Statement: []datamodel.Statement{
		{Effect: "Allow", Action: []string{"DynamoDB:*"}, Resource: []string{"arn:aws:dynamodb:*:*:table/t?sks", "arn:aws:dynamodb:*:*:table/t?sks/index/*"}},
		{Effect: "Deny", Action: []string{"dynamodb:DeleteItem"}, Resource: []string{"*"}},
	}}
	_, db := enforced(t, p)
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "TASK#1"}, "SK": &types.AttributeValueMemberS{Value: "META"}}
	if _, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tasks"), Key: key}); err != nil {
		t.Errorf("dynamodb:* on t?sks: %v", err)
	}
	if _, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tasks"), IndexName: aws.String("GSI1")}); err != nil {
		t.Errorf("index wildcard: %v", err)
	}
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tasks"), Key: key})
	denied(t, err, "dynamodb:DeleteItem")
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("other"), Key: key})
	denied(t, err, "dynamodb:GetItem")
}

// TestEnforceLetsAStoreRunOnItsPolicy drives the tasks store's main flow
// (submit, claim, heartbeat, complete, history) through its own policy.
func TestEnforceLetsAStoreRunOnItsPolicy(t *testing.T) {
	ctx := context.Background()
	p, err := datamodel.PolicyFor(tasks.Schema("tasks"), tasks.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	db := datamodel.Enforce(dynamotest.New(), p)
	if err := tasks.Schema("tasks").EnsureTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	store, err := tasks.NewStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	task, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-1", Payload: []byte(`{"n":1}`)})
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if _, created, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-1", Payload: []byte(`{"n":1}`)}); err != nil || created {
		t.Fatalf("resubmit: created %v, %v", created, err)
	}
	c, err := store.Claim(ctx, "worker-1")
	if err != nil || c == nil {
		t.Fatalf("claim: %v, %v", c, err)
	}
	lease, err := store.Heartbeat(ctx, c.Lease)
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	if err := store.Complete(ctx, lease, []byte("done")); err != nil {
		t.Fatalf("complete: %v", err)
	}
	if _, err := store.Get(ctx, task.ID); err != nil {
		t.Fatalf("get: %v", err)
	}
	if h, err := store.History(ctx, task.ID); err != nil || len(h) != 3 {
		t.Fatalf("history: %d events, %v; want 3", len(h), err)
	}
	if _, err := store.ListPending(ctx, ""); err != nil {
		t.Fatalf("list pending: %v", err)
	}
}

// TestEnforceLetsJobsBackfillRunOnItsPolicy: the backfill scans the table,
// so the jobs policy must allow dynamodb:Scan (it once did not, and a
// service applying it could not migrate its jobs).
func TestEnforceLetsJobsBackfillRunOnItsPolicy(t *testing.T) {
	ctx := context.Background()
	s := jobs.Schema(jobs.TableNameForEnv("prod"))
	p, err := datamodel.PolicyFor(s, jobs.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	db := datamodel.Enforce(dynamotest.New(), p)
	if err := s.EnsureTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	store, err := jobs.NewStore(db, blobstore.NewMemory(), func(o *jobs.Options) { o.TableName = jobs.TableNameForEnv("prod") })
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", Provider: "stub"}); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := store.Backfill(ctx, func(j *jobs.Job) (bool, error) {
		if j.Extra == nil {
			j.Extra = map[string]types.AttributeValue{}
		}
		j.Extra["schemaVersion"] = &types.AttributeValueMemberN{Value: "2"}
		return true, nil
	})
	if err != nil || prog.Changed != 3 {
		t.Fatalf("backfill under the jobs policy: %+v, %v", prog, err)
	}
}
