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
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/fakes3"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/table"
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
	// A task as the task-queue design (docs/systems/tasks.md) lays it out: META and its first event.
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

// backend is a DynamoDB the command line reaches over HTTP, with the
// tables its tests use.
type backend struct {
	endpoint              string
	db                    table.API
	jobsTable, tasksTable string
}

func fakeBackend(t *testing.T) backend {
	srv := fakeServer(t)
	return backend{endpoint: srv.URL, db: srv.DB, jobsTable: jobs.TableNameForEnv("dev"), tasksTable: tasks.DefaultTableName}
}

// cli runs a store command against b: "tasks list" plus args, with the
// endpoint and the store's table added.
func (b backend) cli(t *testing.T, store, sub string, args ...string) result {
	t.Helper()
	name := b.tasksTable
	if store == "jobs" {
		// The jobs commands queue work on the backend's tasks table.
		args = append([]string{"-tasks-table", b.tasksTable}, args...)
		name = b.jobsTable
	}
	return runCLI(t, append([]string{store, sub, "-endpoint", b.endpoint, "-table", name}, args...)...)
}

func TestTasksListShowAndReclaim(t *testing.T) { testTasksCommands(t, fakeBackend(t)) }

func TestJobsGetListReplayRecoverAndBackfill(t *testing.T) { testJobsCommands(t, fakeBackend(t)) }

// TestCLIIntegrationStoreCommands runs the store commands against DynamoDB
// Local, as .ci/run does.
func TestCLIIntegrationStoreCommands(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "tablekit")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tablekit")
	t.Setenv("AWS_REGION", testenv.Region)
	b := backend{endpoint: endpoint, db: testenv.DynamoDB(t),
		jobsTable: testenv.TableName(t, "clijobs"), tasksTable: testenv.TableName(t, "clitasks")}
	t.Run("tasks", func(t *testing.T) { testTasksCommands(t, b) })
	t.Run("jobs", func(t *testing.T) { testJobsCommands(t, b) })
}

func testTasksCommands(t *testing.T, b backend) {
	ctx := context.Background()
	// A worker whose clock is an hour behind claims a task: its lease is
	// already over by the time the operator looks.
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	store, err := tasks.NewStore(b.db, nil, tasks.Clock(behind), tasks.TableName(b.tasksTable))
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

	list := b.cli(t, "tasks", "list", "-limit", "1", "-output", "json")
	require.Equal(t, exitOK, list.code, list.stderr)
	var page pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &page))
	require.Len(t, page.Items, 1)
	require.NotEmpty(t, page.Next)
	rest := b.cli(t, "tasks", "list", "-cursor", page.Next, "-output", "json")
	require.Equal(t, exitOK, rest.code, rest.stderr)
	var page2 pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(rest.stdout), &page2))
	assert.Len(t, page2.Items, 1, "three tasks, one claimed: two pending over two pages")
	assert.Empty(t, page2.Next)

	show := b.cli(t, "tasks", "show", claim.Task.ID)
	require.Equal(t, exitOK, show.code, show.stderr)
	assert.Contains(t, show.stdout, "PROCESSING")
	assert.Contains(t, show.stdout, "SUBMITTED")
	missing := b.cli(t, "tasks", "show", "nosuch")
	assert.Equal(t, exitNotFound, missing.code)

	refused := b.cli(t, "tasks", "reclaim")
	assert.Equal(t, exitNotConfirmed, refused.code)
	got, err := store.Get(ctx, claim.Task.ID)
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusProcessing, got.Status, "an unconfirmed reclaim changes nothing")

	reclaim := b.cli(t, "tasks", "reclaim", "-yes")
	require.Equal(t, exitOK, reclaim.code, reclaim.stderr)
	assert.Contains(t, reclaim.stdout, "reclaimed 1 tasks")
	got, err = store.Get(ctx, claim.Task.ID)
	require.NoError(t, err)
	assert.NotEqual(t, tasks.StatusProcessing, got.Status)

	// A task that fails its only attempt is a dead letter; redrive brings it back.
	once, err := tasks.NewStore(b.db, nil, tasks.TableName(b.tasksTable), func(o *tasks.Options) { o.MaxAttempts = 1 })
	require.NoError(t, err)
	doomed, _, err := once.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{"doomed":true}`)})
	require.NoError(t, err)
	var doomedClaim *tasks.Claim
	for doomedClaim == nil || doomedClaim.Task.ID != doomed.ID {
		doomedClaim, err = once.Claim(ctx, "w-2")
		require.NoError(t, err)
	}
	_, err = once.Fail(ctx, doomedClaim.Lease, "provider exploded")
	require.NoError(t, err)
	dead := b.cli(t, "tasks", "dead")
	require.Equal(t, exitOK, dead.code, dead.stderr)
	assert.Contains(t, dead.stdout, doomed.ID)
	assert.Equal(t, exitUsage, b.cli(t, "tasks", "redrive", "-yes").code, "an id or -all")
	redrive := b.cli(t, "tasks", "redrive", "-yes", doomed.ID)
	require.Equal(t, exitOK, redrive.code, redrive.stderr)
	assert.Contains(t, redrive.stdout, "PENDING")
	none := b.cli(t, "tasks", "redrive", "-yes", "-all", "-error", "exploded")
	require.Equal(t, exitOK, none.code, none.stderr)
	assert.Contains(t, none.stdout, "re-drove 0 tasks", "it left DEAD already")
}

func testJobsCommands(t *testing.T, b backend) {
	ctx := context.Background()
	// The worker's clock is an hour behind, so the lease it takes is over
	// by the time the operator runs recover.
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	store, err := jobs.NewStore(b.db, blobstore.NewMemory(), jobs.Clock(behind), jobs.TableName(b.jobsTable))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	// The tasks table the replayed and recovered jobs' work goes to.
	queue, err := tasks.NewStore(b.db, nil, tasks.TableName(b.tasksTable))
	require.NoError(t, err)
	require.NoError(t, queue.EnsureTable(ctx))
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

	get := b.cli(t, "jobs", "get", ids[0], "-output", "json")
	require.Equal(t, exitOK, get.code, get.stderr)
	var got jobs.Job
	require.NoError(t, json.Unmarshal([]byte(get.stdout), &got))
	assert.Equal(t, jobs.StatusFailed, got.Status)
	assert.Equal(t, exitNotFound, b.cli(t, "jobs", "get", "nosuch").code)

	list := b.cli(t, "jobs", "list", "-user", "u-1", "-output", "json")
	require.Equal(t, exitOK, list.code, list.stderr)
	var page pageOut[jobs.Job]
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &page))
	assert.Len(t, page.Items, 3)
	byStatus := b.cli(t, "jobs", "list", "-status", "queued")
	require.Equal(t, exitOK, byStatus.code, byStatus.stderr)
	assert.Contains(t, byStatus.stdout, ids[2])
	assert.NotContains(t, byStatus.stdout, ids[0])
	assert.Equal(t, exitUsage, b.cli(t, "jobs", "list").code, "-user or -status is required")

	replay := b.cli(t, "jobs", "replay", "-yes", ids[0])
	require.Equal(t, exitOK, replay.code, replay.stderr)
	assert.Contains(t, replay.stdout, "QUEUED")
	again := b.cli(t, "jobs", "replay", "-yes", ids[0])
	assert.Equal(t, exitFailed, again.code, "a QUEUED job cannot be replayed")

	recovered := b.cli(t, "jobs", "recover", "-yes", "-output", "json")
	require.Equal(t, exitOK, recovered.code, recovered.stderr)
	var rr jobs.RecoverResult
	require.NoError(t, json.Unmarshal([]byte(recovered.stdout), &rr))
	assert.Equal(t, 1, rr.Requeued, "the dead worker's job goes back to the queue")
	j, err := store.Get(ctx, ids[1], jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusQueued, j.Status)

	dry := b.cli(t, "jobs", "backfill", "-yes", "-set", "tier=free", "-dry-run")
	require.Equal(t, exitOK, dry.code, dry.stderr)
	assert.Contains(t, dry.stdout, "would change  3")
	j, err = store.Get(ctx, ids[2], jobs.Consistent())
	require.NoError(t, err)
	assert.NotContains(t, j.Extra, "tier", "a dry run writes nothing")
	real := b.cli(t, "jobs", "backfill", "-yes", "-set", "tier=free")
	require.Equal(t, exitOK, real.code, real.stderr)
	assert.Contains(t, real.stderr, "backfill: 3", "progress goes to stderr as plain lines off a terminal")
	j, err = store.Get(ctx, ids[2], jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "free"}, j.Extra["tier"])
	assert.Equal(t, exitUsage, b.cli(t, "jobs", "backfill", "-yes").code, "a backfill needs a step")

	orphans := b.cli(t, "jobs", "orphans")
	require.Equal(t, exitOK, orphans.code, orphans.stderr)
	assert.Contains(t, orphans.stdout, "found 0 orphaned objects")
}

func TestJourneyShowExportAndImport(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	client, s3URL := fakeS3(t)
	for _, b := range []string{"logs", "backups"} {
		_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)})
		require.NoError(t, err)
	}
	logs, err := s3blob.New(client, "logs")
	require.NoError(t, err)
	store, err := journey.NewStore(srv.DB, logs)
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	c, err := store.Journeys().Create(ctx, journey.NewJourney{Name: "sap migration", CreatedBy: "ops"})
	require.NoError(t, err)
	id := c.Journey.ID
	args := func(sub string, more ...string) []string {
		return append([]string{"journey", sub, "-endpoint", srv.URL, "-s3-endpoint", s3URL,
			"-logs-bucket", "logs", "-backups-bucket", "backups"}, more...)
	}

	show := runCLI(t, args("show", id)...)
	require.Equal(t, exitOK, show.code, show.stderr)
	assert.Contains(t, show.stdout, "sap migration")
	js := runCLI(t, args("show", id, "-output", "json")...)
	require.Equal(t, exitOK, js.code, js.stderr)
	var shown journey.Complete
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &shown))
	assert.Len(t, shown.Stages, 6, "the six default stages")
	assert.Equal(t, exitNotFound, runCLI(t, args("show", "JRN-nosuch")...).code)

	_, err = store.Jobs().Start(ctx, journey.NewJob{JourneyID: id, StageID: "raw_analysis"})
	require.NoError(t, err)
	list := runCLI(t, args("list", "-output", "json")...)
	require.Equal(t, exitOK, list.code, list.stderr)
	var journeys struct{ Items []journey.Journey }
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &journeys))
	require.Len(t, journeys.Items, 1)
	assert.Equal(t, id, journeys.Items[0].ID)
	assert.Equal(t, journey.StatusRunning, journeys.Items[0].Status)
	jobsOut := runCLI(t, args("jobs", id, "-stage", "raw_analysis")...)
	require.Equal(t, exitOK, jobsOut.code, jobsOut.stderr)
	assert.Regexp(t, `raw_analysis\s+execution 1\s+running`, jobsOut.stdout)
	assert.Equal(t, exitNotFound, runCLI(t, args("jobs", id, "-stage", "nosuch")...).code, "an unknown stage")
	assert.Equal(t, exitUsage, runCLI(t, args("jobs")...).code)

	export := runCLI(t, args("export", id, "-output", "json")...)
	require.Equal(t, exitOK, export.code, export.stderr)
	assert.Contains(t, export.stdout, "journeys/")

	// Importing over the live journey is refused without -overwrite, and
	// needs -yes off a terminal.
	assert.Equal(t, exitNotConfirmed, runCLI(t, args("import", id)...).code)
	refused := runCLI(t, args("import", id, "-yes")...)
	assert.Equal(t, exitFailed, refused.code, refused.stderr)
	replaced := runCLI(t, args("import", id, "-yes", "-overwrite")...)
	require.Equal(t, exitOK, replaced.code, replaced.stderr)
	assert.Contains(t, replaced.stdout, "imported "+id)
}

// fakeS3 is an S3 on gofakes3 (buckets by path, as s3rver serves them)
// and a client of it, for the commands that read and write blobs.
func fakeS3(t *testing.T) (client *s3.Client, url string) {
	t.Helper()
	f := fakes3.New(t)
	return f.Client, f.URL
}
