package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

// jobsTable is a table with a composite key and one GSI.
func jobsTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byStatus"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	}
}

func newServer(t *testing.T, opts ...func(*Options)) (*Server, *dynamodb.Client) {
	t.Helper()
	srv := NewServer(opts...)
	t.Cleanup(srv.Close)
	client := srv.Client()
	_, err := client.CreateTable(context.Background(), jobsTable("jobs"))
	require.NoError(t, err)
	return srv, client
}

func TestServerClientWritesWhatTheDBReads(t *testing.T) {
	ctx := context.Background()
	srv, client := newServer(t)
	item := map[string]types.AttributeValue{
		"pk": sv("JOB#1"), "sk": sv("META"), "status": sv("QUEUED"), "n": nv("10"),
		"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{nv("1"), sv("x")}}}},
	}
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: item})
	require.NoError(t, err)
	key := map[string]types.AttributeValue{"pk": sv("JOB#1"), "sk": sv("META")}
	inProcess, err := srv.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key})
	require.NoError(t, err)
	assert.Equalf(t, item, inProcess.Item, "DB holds %v, client wrote %v", inProcess.Item, item)
	overHTTP, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.Equalf(t, item, overHTTP.Item, "client read %v, wrote %v", overHTTP.Item, item)
	got := srv.DB.Calls("PutItem")
	assert.EqualValuesf(t, 1, got, "DB counted %d PutItem calls, want 1", got)
}

// The same requests in process and over HTTP must give the same answers,
// errors included: the server adds nothing and loses nothing.
func TestServerAnswersAsTheDBDoesInProcess(t *testing.T) {
	ctx := context.Background()
	clock := func() time.Time { return time.Date(2026, 11, 1, 20, 30, 0, 0, time.UTC) }
	inProcess := New(func(o *Options) { o.Clock = clock })
	srv := NewServer(func(o *Options) { o.Clock = clock })
	t.Cleanup(srv.Close)
	overHTTP := srv.Client()

	steps := []struct {
		op string
		in any
	}{
		{"CreateTable", jobsTable("jobs")},
		{"PutItem", &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META"), "status": sv("QUEUED"), "v": nv("1")}}},
		{"PutItem", &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("STAGE#01"), "status": sv("RUNNING")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}},
		{"UpdateItem", &dynamodb.UpdateItemInput{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META")},
			UpdateExpression: aws.String("SET #s = :new ADD v :one"), ConditionExpression: aws.String("#s = :old"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":new": sv("RUNNING"), ":old": sv("QUEUED"), ":one": nv("1")},
			ReturnValues:              types.ReturnValueAllNew}},
		{"UpdateItem", &dynamodb.UpdateItemInput{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META")},
			UpdateExpression: aws.String("SET #s = :new"), ConditionExpression: aws.String("#s = :old"),
			ExpressionAttributeNames:            map[string]string{"#s": "status"},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":new": sv("DONE"), ":old": sv("QUEUED")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :s)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1"), ":s": sv("STAGE#")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), IndexName: aws.String("byStatus"), KeyConditionExpression: aws.String("#s = :s"),
			ExpressionAttributeNames: map[string]string{"#s": "status"}, ExpressionAttributeValues: map[string]types.AttributeValue{":s": sv("RUNNING")}}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1"), ":unused": sv("x")}}},
		{"TransactWriteItems", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("jobs"), Item: map[string]types.AttributeValue{"pk": sv("J2"), "sk": sv("META")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META")},
				ConditionExpression: aws.String("attribute_not_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		}}},
		{"GetItem", &dynamodb.GetItemInput{TableName: aws.String("missing"), Key: map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META")}}},
		{"DescribeTable", &dynamodb.DescribeTableInput{TableName: aws.String("jobs")}},
		{"ListTables", &dynamodb.ListTablesInput{}},
		{"Scan", &dynamodb.ScanInput{TableName: aws.String("jobs"), Segment: aws.Int32(0), TotalSegments: aws.Int32(2)}},

		// Reads of whole items are answered from their stored encoding (see
		// serveItems); these cover every type, strings that need escaping,
		// and each way a read can turn items into something else.
		{"PutItem", &dynamodb.PutItemInput{TableName: aws.String("jobs"), Item: map[string]types.AttributeValue{
			"pk": sv("J3"), "sk": sv("STAGE#02"), "status": sv("RUNNING"), "note": sv("a \"quoted\" line\nand \\ é 😀 \x01"),
			"b": &types.AttributeValueMemberB{Value: []byte{0, 0xff}}, "ok": &types.AttributeValueMemberBOOL{Value: true},
			"none": &types.AttributeValueMemberNULL{Value: true}, "ss": &types.AttributeValueMemberSS{Value: []string{"x", "y\t"}},
			"ns": &types.AttributeValueMemberNS{Value: []string{"1", "-2.5"}}, "bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
			"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{nv("1"), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k\"": sv("v")}}}},
			"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}}},
		{"GetItem", &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"pk": sv("J3"), "sk": sv("STAGE#02")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}},
		{"GetItem", &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"pk": sv("J3"), "sk": sv("STAGE#02")}, ProjectionExpression: aws.String("note, l[1]")}},
		{"GetItem", &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: map[string]types.AttributeValue{"pk": sv("J3"), "sk": sv("absent")}}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("attribute_exists(note)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J3")}}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p"), ProjectionExpression: aws.String("ss, m"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J3")}}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectCount,
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1")}}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p"), Limit: aws.Int32(1),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("J1")}}},
		{"Query", &dynamodb.QueryInput{TableName: aws.String("jobs"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sv("nobody")}}},
		{"Scan", &dynamodb.ScanInput{TableName: aws.String("jobs"), IndexName: aws.String("byStatus"), Limit: aws.Int32(2)}},
		{"Scan", &dynamodb.ScanInput{TableName: aws.String("jobs"), FilterExpression: aws.String("contains(note, :q)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":q": sv("quoted")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}},
	}
	errorSteps := 0
	for i, step := range steps {
		want, wantErr := callAPI(ctx, inProcess, step.op, step.in)
		got, gotErr := call(ctx, overHTTP, step.op, step.in)
		name := fmt.Sprintf("step %d %s", i, step.op)
		require.EqualValuesf(t, (gotErr == nil), (wantErr == nil), "%s: in process err %v, over HTTP err %v", name, wantErr, gotErr)
		if wantErr != nil {
			errorSteps++
			sameError(t, name, gotErr, wantErr)
			continue
		}
		assert.Equalf(t, withoutMetadata(want), withoutMetadata(got), "%s: over HTTP %+v\nin process %+v", name, got, want)
	}
	// A failed condition, an unused placeholder, a cancelled transaction
	// and a missing table.
	assert.EqualValuesf(t, 4, errorSteps, "%d steps failed, want 4: the scenario no longer tests the errors it means to", errorSteps)
}

// callAPI invokes a table.API method by name.
func callAPI(ctx context.Context, db *DB, op string, in any) (any, error) {
	res := reflect.ValueOf(db).MethodByName(op).Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(in)})
	err, _ := res[1].Interface().(error)
	return res[0].Interface(), err
}

// sameError checks that got, from the client, is the error want the DB
// returned in process: the same Go type with the same members, or for a
// ValidationException the same code and message.
func sameError(t *testing.T, name string, got, want error) {
	t.Helper()
	var wantAPI smithy.APIError
	require.ErrorAsf(t, want, &wantAPI, "%s: the DB returned a non-API error %v", name, want)
	if generic, ok := wantAPI.(*smithy.GenericAPIError); ok {
		var gotAPI smithy.APIError
		assert.Falsef(t, !errors.As(got, &gotAPI) || gotAPI.ErrorCode() != generic.Code || gotAPI.ErrorMessage() != generic.Message, "%s: client got %v, want %s: %s", name, got, generic.Code, generic.Message)
		return
	}
	target := reflect.New(reflect.TypeOf(wantAPI))
	require.ErrorAsf(t, got, target.Interface(), "%s: client got %v (%T), want %T", name, got, got, wantAPI)
	assert.Equalf(t, wantAPI, target.Elem().Interface(), "%s: client got %+v, want %+v", name, target.Elem().Interface(), wantAPI)
}

func TestServerInjectedFaultsReachTheClientUnretried(t *testing.T) {
	ctx := context.Background()
	srv, client := newServer(t)
	srv.DB.Inject(Throttle("GetItem", 2))
	key := map[string]types.AttributeValue{"pk": sv("J1"), "sk": sv("META")}
	for i := range 2 {
		_, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key})
		var throttled *types.ProvisionedThroughputExceededException
		require.ErrorAsf(t, err, &throttled, "call %d: got %v, want ProvisionedThroughputExceededException", i+1, err)
	}
	_, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key})
	require.NoError(t, err, "third call")
	// Each client call is one DB call: the client does not retry behind
	// the test's back.
	got := srv.DB.Calls("GetItem")
	assert.EqualValuesf(t, 3, got, "DB saw %d GetItem calls, want 3", got)
}

func TestServerUsesTheDBClock(t *testing.T) {
	created := time.Date(2026, 11, 1, 20, 30, 0, 0, time.UTC)
	srv := NewServer(func(o *Options) { o.Clock = func() time.Time { return created } })
	t.Cleanup(srv.Close)
	out, err := srv.Client().CreateTable(context.Background(), jobsTable("jobs"))
	require.NoError(t, err)
	got := aws.ToTime(out.TableDescription.CreationDateTime)
	assert.Falsef(t, !got.Equal(created), "CreationDateTime %v, want the DB clock's %v", got, created)
}

func TestServerCloseStopsServingAndKeepsTheDB(t *testing.T) {
	ctx := context.Background()
	srv, client := newServer(t)
	srv.Close()
	_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Error(t, err, "ListTables succeeded after Close")
	out, err := srv.DB.ListTables(ctx, &dynamodb.ListTablesInput{})
	assert.Falsef(t, err != nil || len(out.TableNames) != 1, "DB after Close: %v, %v", out, err)
}

func TestUnstartedServerStartsOnItsListener(t *testing.T) {
	srv := NewUnstartedServer()
	assert.EqualValuesf(t, "", srv.URL, "URL %q before Start", srv.URL)
	srv.Config.ReadHeaderTimeout = time.Minute
	srv.Start()
	t.Cleanup(srv.Close)
	assert.EqualValuesf(t, "http://"+srv.Listener.Addr().String(), srv.URL, "URL %q, listener %s", srv.URL, srv.Listener.Addr())
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.EqualValuesf(t, http.StatusOK, resp.StatusCode, "health check answered %d", resp.StatusCode)
}

func TestServerClientBeforeStartPanicsRatherThanCallAWS(t *testing.T) {
	srv := NewUnstartedServer()
	defer func() {
		assert.NotNil(t, recover(), "Client before Start returned a client with no endpoint")
	}()
	srv.Client()
}

func ExampleNewServer() {
	srv := NewServer()
	defer srv.Close()

	ctx := context.Background()
	client := srv.Client() // or any client with BaseEndpoint: aws.String(srv.URL)
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("jobs"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		panic(err)
	}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String("jobs"),
		Item:                map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "job-1"}},
		ConditionExpression: aws.String("attribute_not_exists(id)"),
	})
	fmt.Println(err, srv.DB.Calls("PutItem"))
	// Output: <nil> 1
}

// Many clients updating one item at once through the server: every
// update the server acknowledged is in the item, none twice, and no call
// fails for a reason of the transport's.
func TestServerConcurrentUpdatesLoseNothing(t *testing.T) {
	ctx := context.Background()
	srv, client := newServer(t)
	key := map[string]types.AttributeValue{"pk": sv("COUNTER"), "sk": sv("META")}
	const goroutines, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for range goroutines {
		wg.Go(func() {
			for range each {
				_, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("jobs"), Key: key,
					UpdateExpression:          aws.String("ADD n :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": nv("1")},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	out, err := srv.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("jobs"), Key: key})
	require.NoError(t, err)
	got := out.Item["n"].(*types.AttributeValueMemberN).Value
	assert.EqualValuesf(t, strconv.Itoa(goroutines*each), got, "counter = %s after %d acknowledged updates", got, goroutines*each)
}
