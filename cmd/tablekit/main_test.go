package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/tasks"
)

// result is one run of the command line.
type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// fakeServer is the fake over HTTP, reached as any DynamoDB endpoint.
func fakeServer(t *testing.T) *dynamotest.Server {
	t.Helper()
	srv := dynamotest.NewServer()
	t.Cleanup(srv.Close)
	// The SDK signs with the default chain; give it static placeholders so
	// the test never looks for instance metadata.
	t.Setenv("AWS_ACCESS_KEY_ID", "tablekit")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tablekit")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return srv
}

func TestHelpListsEveryCommandAndEachCommandHasHelp(t *testing.T) {
	r := runCLI(t, "help")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, c := range commands() {
		assert.Contains(t, r.stdout, c.name, "the command list names %q", c.name)
		h := runCLI(t, append([]string{"help"}, strings.Fields(c.name)...)...)
		require.Equal(t, exitOK, h.code, h.stderr)
		assert.Contains(t, h.stdout, "Usage: tablekit "+c.name)
		assert.Contains(t, h.stdout, c.summary)
		assert.Contains(t, h.stdout, "-output", "global flags are listed under every command")
		dash := runCLI(t, append(strings.Fields(c.name), "-h")...)
		assert.Equal(t, exitOK, dash.code, "%s -h", c.name)
		assert.Contains(t, dash.stdout, "Usage: tablekit "+c.name)
	}
	assert.Contains(t, r.stdout, "Exit codes")
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"tables", "frobnicate"},
		{"tables", "ensure", "-store", "nosuch", "-memory"},
		{"tables", "ensure", "-nosuchflag"},
		{"-output", "yaml", "-memory", "tables", "ensure"},
		{"inspect", "-memory"},
		{"inspect", "-memory", "-store", "tasks", "-index", "nosuch", "X"},
		{"-memory", "-endpoint", "http://127.0.0.1:1", "tables", "ensure"},
	} {
		r := runCLI(t, args...)
		assert.Equal(t, exitUsage, r.code, "args %q: stderr %s", args, r.stderr)
		assert.NotEmpty(t, r.stderr, "args %q say what is wrong", args)
	}
}

func TestTablesEnsureCreatesEveryStoresTableAndCheckFindsNoDrift(t *testing.T) {
	srv := fakeServer(t)
	r := runCLI(t, "tables", "ensure", "-endpoint", srv.URL)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, name := range []string{"photoeditor-dev-jobs", "tasks", "TransformationSystem", "pipelines"} {
		assert.Contains(t, r.stdout, name)
		_, err := srv.DB.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		assert.NoError(t, err, "table %s exists", name)
	}
	check := runCLI(t, "-endpoint", srv.URL, "tables", "check")
	assert.Equal(t, exitOK, check.code, check.stderr)
	assert.Equal(t, 4, strings.Count(check.stdout, "matches its schema"))

	// Again: ensuring existing tables is a no-op, not an error.
	again := runCLI(t, "tables", "ensure", "-endpoint", srv.URL)
	assert.Equal(t, exitOK, again.code, again.stderr)
}

func TestTablesEnsureForAnEnvNamesTheJobsTable(t *testing.T) {
	srv := fakeServer(t)
	r := runCLI(t, "tables", "ensure", "-endpoint", srv.URL, "-store", "jobs", "-env", "prod", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var out []map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out, 1)
	assert.Equal(t, "photoeditor-prod-jobs", out[0]["table"])
}

func TestTablesCheckReportsMissingTableAndDrift(t *testing.T) {
	srv := fakeServer(t)
	missing := runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", "tasks")
	assert.Equal(t, exitNotFound, missing.code, missing.stderr)
	assert.Contains(t, missing.stdout, "does not exist")

	// A tasks table without its GSI and TTL: drift, exit 5, nothing changed.
	_, err := srv.DB.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String("tasks"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
	})
	require.NoError(t, err)
	drifted := runCLI(t, "tables", "check", "-endpoint", srv.URL, "-store", "tasks", "-output", "json")
	assert.Equal(t, exitDrift, drifted.code, drifted.stderr)
	var out []checked
	require.NoError(t, json.Unmarshal([]byte(drifted.stdout), &out))
	require.Len(t, out, 1)
	assert.Contains(t, strings.Join(out[0].Drift, "\n"), "index GSI1")
	d, err := srv.DB.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("tasks")})
	require.NoError(t, err)
	assert.Empty(t, d.Table.GlobalSecondaryIndexes, "check changes nothing")
}

func TestInspectGroupsAPartitionByEntityKind(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	require.NoError(t, tasks.Schema(tasks.DefaultTableName).EnsureTable(ctx, srv.DB))
	// A task as seed 003 lays it out: META and its first event.
	for _, item := range []map[string]types.AttributeValue{
		{"PK": s("TASK#t-1"), "SK": s("META"), "status": s("PENDING"), "GSI1PK": s("STATUS#PENDING"), "GSI1SK": s("CREATED#2026-11-23T10:00:00.000000Z")},
		{"PK": s("TASK#t-1"), "SK": s("EVENT#0001"), "type": s("SUBMITTED")},
		{"PK": s("TASK#t-2"), "SK": s("META"), "status": s("PENDING")},
	} {
		_, err := srv.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tasks.DefaultTableName), Item: item})
		require.NoError(t, err)
	}

	r := runCLI(t, "inspect", "-endpoint", srv.URL, "-store", "tasks", "TASK#t-1")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "META (1)")
	assert.Contains(t, r.stdout, "EVENT (1)")
	assert.Contains(t, r.stdout, `"SUBMITTED"`)

	js := runCLI(t, "inspect", "-endpoint", srv.URL, "-store", "tasks", "-output", "json", "TASK#t-1")
	require.Equal(t, exitOK, js.code, js.stderr)
	var groups []entityGroup
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &groups))
	require.Len(t, groups, 2)
	assert.Equal(t, "EVENT", groups[0].Kind, "groups come in sort key order of their first item")

	index := runCLI(t, "inspect", "-endpoint", srv.URL, "-store", "tasks", "-index", "GSI1", "STATUS#PENDING")
	require.Equal(t, exitOK, index.code, index.stderr)
	assert.Contains(t, index.stdout, "META (1)", "only the task the index holds")

	none := runCLI(t, "inspect", "-endpoint", srv.URL, "-store", "tasks", "TASK#nosuch")
	assert.Equal(t, exitNotFound, none.code)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestDestructiveCommandsNeedYesWithoutATerminal(t *testing.T) {
	a := &app{in: strings.NewReader("y\n"), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	cmd := &command{name: "demo", destructive: true}
	assert.ErrorIs(t, a.confirm(cmd), errNotConfirmed, "a reader that is not a terminal is never asked")
	a.global.yes = true
	assert.NoError(t, a.confirm(cmd))
}

func TestTablesIntegrationAgainstDynamoDBLocal(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "tablekit")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tablekit")
	t.Setenv("AWS_REGION", testenv.Region)
	name := testenv.TableName(t, "cli")
	r := runCLI(t, "tables", "ensure", "-endpoint", endpoint, "-store", "tasks", "-table", name)
	require.Equal(t, exitOK, r.code, r.stderr)
	check := runCLI(t, "tables", "check", "-endpoint", endpoint, "-store", "tasks", "-table", name)
	assert.Equal(t, exitOK, check.code, check.stderr+check.stdout)
	desc := runCLI(t, "tables", "describe", "-endpoint", endpoint, "-store", "tasks", "-table", name, "-output", "json")
	require.Equal(t, exitOK, desc.code, desc.stderr)
	var infos []tableInfo
	require.NoError(t, json.Unmarshal([]byte(desc.stdout), &infos))
	require.Len(t, infos, 1)
	assert.Equal(t, "ACTIVE", infos[0].Status)
	assert.Equal(t, "PK", infos[0].PartitionKey)
}

func TestTasksListShowAndReclaim(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	// A worker whose clock is an hour behind claims a task: its lease is
	// already over by the time the operator looks.
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	store, err := tasks.NewStore(srv.DB, nil, tasks.Clock(behind))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	var ids []string
	for i := range 3 {
		task, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte(fmt.Sprintf(`{"n":%d}`, i))})
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	claim, err := store.Claim(ctx, "w-1")
	require.NoError(t, err)

	list := runCLI(t, "tasks", "list", "-endpoint", srv.URL, "-limit", "1", "-output", "json")
	require.Equal(t, exitOK, list.code, list.stderr)
	var page pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &page))
	require.Len(t, page.Items, 1)
	require.NotEmpty(t, page.Next)
	rest := runCLI(t, "tasks", "list", "-endpoint", srv.URL, "-cursor", page.Next, "-output", "json")
	require.Equal(t, exitOK, rest.code, rest.stderr)
	var page2 pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(rest.stdout), &page2))
	assert.Len(t, page2.Items, 1, "three tasks, one claimed: two pending over two pages")
	assert.Empty(t, page2.Next)

	show := runCLI(t, "tasks", "show", "-endpoint", srv.URL, claim.Task.ID)
	require.Equal(t, exitOK, show.code, show.stderr)
	assert.Contains(t, show.stdout, "PROCESSING")
	assert.Contains(t, show.stdout, "SUBMITTED")
	missing := runCLI(t, "tasks", "show", "-endpoint", srv.URL, "nosuch")
	assert.Equal(t, exitNotFound, missing.code)

	refused := runCLI(t, "tasks", "reclaim", "-endpoint", srv.URL)
	assert.Equal(t, exitNotConfirmed, refused.code)
	got, err := store.Get(ctx, claim.Task.ID)
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusProcessing, got.Status, "an unconfirmed reclaim changes nothing")

	reclaim := runCLI(t, "tasks", "reclaim", "-endpoint", srv.URL, "-yes")
	require.Equal(t, exitOK, reclaim.code, reclaim.stderr)
	assert.Contains(t, reclaim.stdout, "reclaimed 1 tasks")
	got, err = store.Get(ctx, claim.Task.ID)
	require.NoError(t, err)
	assert.NotEqual(t, tasks.StatusProcessing, got.Status)
}

func TestJobsGetListReplayRecoverAndBackfill(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	// The worker's clock is an hour behind, so the lease it takes is over
	// by the time the operator runs recover.
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	store, err := jobs.NewStore(srv.DB, blobstore.NewMemory(), jobs.Clock(behind))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	var ids []string
	for range 3 {
		j, _, err := store.Create(ctx, jobs.CreateInput{UserID: "u-1", FileType: "image/jpeg", FileSize: 10, Provider: "stub"})
		require.NoError(t, err)
		ids = append(ids, j.ID)
	}
	failed, err := store.StartProcessing(ctx, ids[0])
	require.NoError(t, err)
	_, err = store.Fail(ctx, failed.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "no answer"})
	require.NoError(t, err)
	_, err = store.StartProcessing(ctx, ids[1]) // its worker dies
	require.NoError(t, err)

	get := runCLI(t, "jobs", "get", "-endpoint", srv.URL, ids[0], "-output", "json")
	require.Equal(t, exitOK, get.code, get.stderr)
	var got jobs.Job
	require.NoError(t, json.Unmarshal([]byte(get.stdout), &got))
	assert.Equal(t, jobs.StatusFailed, got.Status)
	assert.Equal(t, exitNotFound, runCLI(t, "jobs", "get", "-endpoint", srv.URL, "nosuch").code)

	list := runCLI(t, "jobs", "list", "-endpoint", srv.URL, "-user", "u-1", "-output", "json")
	require.Equal(t, exitOK, list.code, list.stderr)
	var page pageOut[jobs.Job]
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &page))
	assert.Len(t, page.Items, 3)
	byStatus := runCLI(t, "jobs", "list", "-endpoint", srv.URL, "-status", "queued")
	require.Equal(t, exitOK, byStatus.code, byStatus.stderr)
	assert.Contains(t, byStatus.stdout, ids[2])
	assert.NotContains(t, byStatus.stdout, ids[0])
	assert.Equal(t, exitUsage, runCLI(t, "jobs", "list", "-endpoint", srv.URL).code, "-user or -status is required")

	replay := runCLI(t, "jobs", "replay", "-endpoint", srv.URL, "-yes", ids[0])
	require.Equal(t, exitOK, replay.code, replay.stderr)
	assert.Contains(t, replay.stdout, "QUEUED")
	again := runCLI(t, "jobs", "replay", "-endpoint", srv.URL, "-yes", ids[0])
	assert.Equal(t, exitFailed, again.code, "a QUEUED job cannot be replayed")

	recovered := runCLI(t, "jobs", "recover", "-endpoint", srv.URL, "-yes", "-output", "json")
	require.Equal(t, exitOK, recovered.code, recovered.stderr)
	var rr jobs.RecoverResult
	require.NoError(t, json.Unmarshal([]byte(recovered.stdout), &rr))
	assert.Equal(t, 1, rr.Requeued, "the dead worker's job goes back to the queue")
	j, err := store.Get(ctx, ids[1], jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusQueued, j.Status)

	dry := runCLI(t, "jobs", "backfill", "-endpoint", srv.URL, "-yes", "-set", "tier=free", "-dry-run")
	require.Equal(t, exitOK, dry.code, dry.stderr)
	assert.Contains(t, dry.stdout, "would change  3")
	j, err = store.Get(ctx, ids[2], jobs.Consistent())
	require.NoError(t, err)
	assert.NotContains(t, j.Extra, "tier", "a dry run writes nothing")
	real := runCLI(t, "jobs", "backfill", "-endpoint", srv.URL, "-yes", "-set", "tier=free")
	require.Equal(t, exitOK, real.code, real.stderr)
	assert.Contains(t, real.stderr, "backfill: 3", "progress goes to stderr as plain lines off a terminal")
	j, err = store.Get(ctx, ids[2], jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "free"}, j.Extra["tier"])
	assert.Equal(t, exitUsage, runCLI(t, "jobs", "backfill", "-endpoint", srv.URL, "-yes").code, "a backfill needs a step")

	orphans := runCLI(t, "jobs", "orphans", "-endpoint", srv.URL)
	require.Equal(t, exitOK, orphans.code, orphans.stderr)
	assert.Contains(t, orphans.stdout, "found 0 orphaned objects")
}
