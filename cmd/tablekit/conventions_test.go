package main

// Tests of the conventions every command follows (the board's "CLI
// conventions"): exit codes, camelCase JSON, version, "did you mean",
// empty lists, -dry-run on every destructive command, and errors in the
// operator's terms. They run against the fake's HTTP server, as an
// operator's tablekit reaches DynamoDB Local.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/tasks"
)

func TestVersionPrintsModuleGoAndBuild(t *testing.T) {
	r := runCLI(t, "version", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var v versionInfo
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	assert.Equal(t, "github.com/tablekit/tablekit", v.Module)
	assert.NotEmpty(t, v.Version)
	assert.Equal(t, runtime.Version(), v.GoVersion)
	assert.Equal(t, runtime.GOOS+"/"+runtime.GOARCH, v.Platform)
	assertCamelCase(t, "version", r.stdout)

	text := runCLI(t, "version")
	require.Equal(t, exitOK, text.code, text.stderr)
	assert.Contains(t, text.stdout, "github.com/tablekit/tablekit")
	assert.Contains(t, text.stdout, runtime.Version())
	assert.Equal(t, exitUsage, runCLI(t, "version", "extra").code)
}

func TestBadFlagValuesExitTwo(t *testing.T) {
	srv := fakeServer(t)
	require.Equal(t, exitOK, runCLI(t, "tables", "ensure", "-endpoint", srv.URL).code)
	for _, args := range [][]string{
		{"jobs", "list", "-status", "bogus"},
		{"journey", "list", "-status", "in_progress"},
		{"jobs", "list", "-user", "u-1", "-limit", "100000"},
		{"tasks", "list", "-limit", "-3"},
		{"tasks", "list", "-cursor", "garbage"},
		{"tasks", "list", "-limit", "many"},
		{"tasks", "reclaim", "-retention", "-1s", "-yes"},
		{"tables", "ensure", "-env", "BAD ENV!"},
	} {
		r := runCLI(t, append(args, "-endpoint", srv.URL)...)
		assert.Equal(t, exitUsage, r.code, "%q: stderr %s", args, r.stderr)
		assert.Contains(t, r.stderr, "run 'tablekit help' for usage", "%q", args)
	}
	for _, args := range [][]string{
		{"-endpoint", "localhost:8000", "tables", "check"},
		{"-s3-endpoint", "ftp://x", "tables", "check"},
	} {
		r := runCLI(t, args...)
		assert.Equal(t, exitUsage, r.code, "%q: stderr %s", args, r.stderr)
		assert.Contains(t, r.stderr, "want an http(s) URL", "%q", args)
	}
}

func TestMistypedCommandSuggestsTheClosest(t *testing.T) {
	for typed, want := range map[string]string{
		"jobs lst":      `did you mean "jobs list"?`,
		"tabels ensure": `did you mean "tables ensure"?`,
		"tasks redriv":  `did you mean "tasks redrive"?`,
		"jbos":          `did you mean "jobs"?`,
		"vresion":       `did you mean "version"?`,
		"help jobs lst": `did you mean "jobs list"?`,
	} {
		r := runCLI(t, strings.Fields(typed)...)
		assert.Equal(t, exitUsage, r.code, typed)
		assert.Contains(t, r.stderr, want, typed)
	}
	far := runCLI(t, "frobnicate")
	assert.Equal(t, exitUsage, far.code)
	assert.NotContains(t, far.stderr, "did you mean", "nothing is near enough")
}

func TestEmptyListsSaySoOnStderrAndPrintEmptyJSON(t *testing.T) {
	srv := fakeServer(t)
	require.Equal(t, exitOK, runCLI(t, "tables", "ensure", "-endpoint", srv.URL).code)
	for args, said := range map[string]string{
		"tasks list":             "no pending tasks found",
		"tasks dead":             "no dead tasks found",
		"jobs list -user u-9":    "no jobs of user u-9 found",
		"jobs list -status done": "no DONE jobs found",
		"journey list":           "no journeys found",
	} {
		if args == "jobs list -status done" {
			continue // not a status: exit 2, covered by TestBadFlagValuesExitTwo
		}
		r := runCLI(t, append(strings.Fields(args), "-endpoint", srv.URL)...)
		require.Equal(t, exitOK, r.code, "%s: %s", args, r.stderr)
		assert.Empty(t, r.stdout, "%s: standard output stays empty for scripts", args)
		assert.Equal(t, said+"\n", r.stderr, args)

		js := runCLI(t, append(strings.Fields(args), "-endpoint", srv.URL, "-output", "json")...)
		require.Equal(t, exitOK, js.code, js.stderr)
		assert.JSONEq(t, `{"items": []}`, js.stdout, "%s: items is [], never null", args)
		assert.Empty(t, js.stderr, args)
	}
}

func TestDestructiveCommandsTakeDryRun(t *testing.T) {
	for _, c := range commands() {
		if !c.destructive && !c.dryRunnable {
			continue
		}
		h := runCLI(t, append([]string{"help"}, strings.Fields(c.name)...)...)
		require.Equal(t, exitOK, h.code, h.stderr)
		assert.Contains(t, h.stdout, "-dry-run", "%s lists -dry-run", c.name)
	}
}

func TestDryRunsReportAndChangeNothing(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	// Workers whose clock is an hour behind: their leases are over when
	// the operator looks.
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	js, err := jobs.NewStore(srv.DB, blobstore.NewMemory(), jobs.Clock(behind))
	require.NoError(t, err)
	require.NoError(t, js.EnsureTable(ctx))
	failed, _, err := js.Create(ctx, jobs.CreateInput{UserID: "u-1", FileType: "image/jpeg", FileSize: 1, Provider: "stub"})
	require.NoError(t, err)
	started, err := js.StartProcessing(ctx, failed.ID)
	require.NoError(t, err)
	_, err = js.Fail(ctx, started.Lease(), jobs.JobError{Code: "X", Message: "boom"})
	require.NoError(t, err)
	stuck, _, err := js.Create(ctx, jobs.CreateInput{UserID: "u-1", FileType: "image/jpeg", FileSize: 1, Provider: "stub"})
	require.NoError(t, err)
	_, err = js.StartProcessing(ctx, stuck.ID)
	require.NoError(t, err)

	ts, err := tasks.NewStore(srv.DB, nil, func(o *tasks.Options) { o.MaxAttempts = 1 })
	require.NoError(t, err)
	require.NoError(t, ts.EnsureTable(ctx))
	doomed, _, err := ts.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{}`)})
	require.NoError(t, err)
	claim, err := ts.Claim(ctx, "w-1")
	require.NoError(t, err)
	require.Equal(t, doomed.ID, claim.Task.ID)
	_, err = ts.Fail(ctx, claim.Lease, "provider exploded")
	require.NoError(t, err)

	jr, err := journey.NewStore(srv.DB, blobstore.NewMemory())
	require.NoError(t, err)
	require.NoError(t, jr.EnsureTable(ctx))
	live, err := jr.Journeys().Create(ctx, journey.NewJourney{Name: "kept", CreatedBy: "ops"})
	require.NoError(t, err)

	dry := func(args ...string) dryRunOut[json.RawMessage] {
		t.Helper()
		// No -yes: a dry run is never asked to confirm.
		r := runCLI(t, append(args, "-endpoint", srv.URL, "-dry-run", "-output", "json")...)
		require.Equal(t, exitOK, r.code, "%q: %s", args, r.stderr)
		var out dryRunOut[json.RawMessage]
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
		assert.True(t, out.DryRun, "%q", args)
		assertCamelCase(t, strings.Join(args, " "), r.stdout)
		return out
	}
	assert.Equal(t, 1, dry("jobs", "replay", failed.ID).Count)
	assert.Equal(t, 1, dry("jobs", "recover").Count, "the job whose worker died")
	assert.Equal(t, 0, dry("jobs", "orphans", "-delete").Count)
	assert.Equal(t, 0, dry("jobs", "sweep", "-min-age", "0s").Count, "no QUEUED job lacks its work")
	assert.Equal(t, 1, dry("tasks", "redrive", doomed.ID).Count)
	assert.Equal(t, 1, dry("tasks", "redrive", "-all", "-error", "exploded").Count)
	assert.Equal(t, 0, dry("tasks", "redrive", "-all", "-error", "no such text").Count)
	assert.Equal(t, "replace", dry("journey", "import", live.Journey.ID, "-overwrite").Action)
	assert.Equal(t, "import", dry("journey", "import", "JRN-01ARZ3NDEKTSV4RRFFQ69G5FAV").Action)

	refused := runCLI(t, "jobs", "replay", stuck.ID, "-endpoint", srv.URL, "-dry-run")
	assert.Equal(t, exitFailed, refused.code, "a dry run refuses what the real run would")
	assert.Contains(t, refused.stderr, "only a FAILED job can be replayed")

	j, err := js.Get(ctx, failed.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusFailed, j.Status, "a dry replay changes nothing")
	j, err = js.Get(ctx, stuck.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusProcessing, j.Status, "a dry recover changes nothing")
	task, err := ts.Get(ctx, doomed.ID)
	require.NoError(t, err)
	assert.Equal(t, tasks.StatusDead, task.Status, "a dry redrive changes nothing")
}

// assertCamelCase checks every object key in a JSON document is camelCase
// (a lower-case letter, then letters and digits), the CLI's convention
// for -output json. Keys under dataKeys hold the table's own attribute
// names (PK, GSI1SK), which are data, not the CLI's keys.
func assertCamelCase(t *testing.T, what, doc string) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(doc), &v), "%s: %s", what, doc)
	camel := regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	dataKeys := map[string]bool{"attributeTypes": true}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				assert.Regexp(t, camel, k, "%s: key %s%s is not camelCase", what, path, k)
				if !dataKeys[k] {
					walk(path+k+".", child)
				}
			}
		case []any:
			for _, child := range v {
				walk(path, child)
			}
		}
	}
	walk("", v)
}

func TestJSONKeysAreCamelCase(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	require.Equal(t, exitOK, runCLI(t, "tables", "ensure", "-endpoint", srv.URL).code)
	js, err := jobs.NewStore(srv.DB, blobstore.NewMemory())
	require.NoError(t, err)
	job, _, err := js.Create(ctx, jobs.CreateInput{UserID: "u-1", FileType: "image/jpeg", FileSize: 1, Provider: "stub"})
	require.NoError(t, err)
	ts, err := tasks.NewStore(srv.DB, nil)
	require.NoError(t, err)
	task, _, err := ts.Submit(ctx, tasks.SubmitInput{Payload: []byte(`{}`)})
	require.NoError(t, err)
	jr, err := journey.NewStore(srv.DB, blobstore.NewMemory())
	require.NoError(t, err)
	c, err := jr.Journeys().Create(ctx, journey.NewJourney{Name: "j", CreatedBy: "ops"})
	require.NoError(t, err)

	for _, args := range [][]string{
		{"tables", "ensure"}, {"tables", "describe"}, {"tables", "check"},
		{"jobs", "get", job.ID}, {"jobs", "list", "-user", "u-1"},
		{"jobs", "recover", "-yes"}, {"jobs", "orphans"}, {"jobs", "backfill", "-set", "tier=free", "-yes"},
		{"jobs", "sweep", "-yes", "-min-age", "0s"},
		{"tasks", "list"}, {"tasks", "dead"}, {"tasks", "show", task.ID}, {"tasks", "reclaim", "-yes"},
		{"tasks", "redrive", "-all", "-yes"},
		{"journey", "list"}, {"journey", "show", c.Journey.ID}, {"journey", "jobs", c.Journey.ID},
		{"jobs", "sweep", "-yes"}, {"jobs", "sweep", "-dry-run"}, {"tasks", "reclaim", "-dry-run"},
		{"journey", "recover", "-yes"}, {"journey", "recover", "-dry-run"},
		{"version"},
	} {
		r := runCLI(t, append(args, "-endpoint", srv.URL, "-output", "json")...)
		require.Equal(t, exitOK, r.code, "%q: %s", args, r.stderr)
		assertCamelCase(t, strings.Join(args, " "), r.stdout)
	}
}

// stderrOf runs fn with the process's standard error captured: the SDK
// writes its warnings there, not to the CLI's writer.
func stderrOf(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stderr = saved }()
	fn()
	require.NoError(t, w.Close())
	return <-done
}

func TestErrorsAreInTheOperatorsTerms(t *testing.T) {
	testenv.NoAWSConfig(t)
	region := runCLI(t, "tables", "describe")
	assert.Equal(t, exitFailed, region.code)
	assert.Equal(t, "tablekit: no AWS region: set AWS_REGION or -region\n", region.stderr)

	creds := runCLI(t, "tables", "describe", "-region", "eu-west-1")
	assert.Equal(t, exitFailed, creds.code)
	assert.Contains(t, creds.stderr, "no AWS credentials: set AWS_PROFILE")

	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	down := runCLI(t, "tables", "describe", "-endpoint", closed, "-store", "tasks")
	assert.Equal(t, exitFailed, down.code)
	assert.Contains(t, down.stderr, "cannot reach DynamoDB at "+closed+" (connection refused)")
	assert.NotContains(t, down.stderr, "RequestID", "no SDK request dump")

	// A DynamoDB error is the service, operation, code and message.
	srv := fakeServer(t)
	missing := runCLI(t, "tables", "describe", "-endpoint", srv.URL, "-store", "tasks", "-table", "nosuch")
	assert.Equal(t, exitNotFound, missing.code)
	assert.Contains(t, missing.stderr, "DynamoDB DescribeTable: ResourceNotFoundException")
	assert.NotContains(t, missing.stderr, "StatusCode")
}

func TestEndpointCommandsPrintNoSDKWarnings(t *testing.T) {
	testenv.NoAWSConfig(t)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "") // what an operator's machine has
	srv := fakeServer(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	var r result
	sdk := stderrOf(t, func() {
		r = runCLI(t, "tables", "describe", "-endpoint", srv.URL, "-store", "tasks", "-table", "nosuch")
	})
	assert.Equal(t, exitNotFound, r.code, r.stderr)
	assert.Empty(t, sdk, "no SDK warning (instance metadata, checksums) on the process's stderr")
}

func TestEndpointCommandsPrintNoSDKWarningsIntegration(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	testenv.NoAWSConfig(t)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "")
	name := testenv.TableName(t, "quiet")
	var r result
	sdk := stderrOf(t, func() {
		// DynamoDB Local's error responses carry a CRC32 the SDK would warn
		// about; the missing table is such an error.
		r = runCLI(t, "tables", "describe", "-endpoint", endpoint, "-store", "tasks", "-table", name)
	})
	assert.Equal(t, exitNotFound, r.code, r.stderr)
	assert.Empty(t, sdk, "no SDK warning on the process's stderr")
	fmt.Fprint(io.Discard, r.stdout)
}

func TestAccessDeniedNamesTheOperatorPolicy(t *testing.T) {
	a := &app{}
	err := fmt.Errorf("jobs backfill: %w", &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "Scan",
		Err: &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "User: arn:aws:sts::1:assumed-role/svc is not authorized to perform: dynamodb:Scan"}})
	msg := a.explain(err)
	assert.Contains(t, msg, "DynamoDB Scan: AccessDeniedException: User:")
	assert.Contains(t, msg, "iam-operator-policy.json")
}

// DynamoDB Local with no S3 beside it, and no AWS configuration: the
// commands that only read DynamoDB run; one that needs a file says what to
// set, rather than every journey command failing for want of a region.
func TestEndpointWithoutS3RunsTheCommandsThatReadNoFiles(t *testing.T) {
	srv := fakeServer(t)
	testenv.NoAWSConfig(t)
	ctx := context.Background()
	jr, err := journey.NewStore(srv.DB, blobstore.NewMemory())
	require.NoError(t, err)
	require.NoError(t, jr.EnsureTable(ctx))
	created, err := jr.Journeys().Create(ctx, journey.NewJourney{Name: "kept", CreatedBy: "ops"})
	require.NoError(t, err)
	id := created.Journey.ID

	list := runCLI(t, "journey", "list", "-endpoint", srv.URL, "-output", "json")
	require.Equal(t, exitOK, list.code, list.stderr)
	assert.Contains(t, list.stdout, id)
	pending := runCLI(t, "journey", "list", "-endpoint", srv.URL, "-status", "running, pending", "-output", "json")
	require.Equal(t, exitOK, pending.code, pending.stderr)
	assert.Contains(t, pending.stdout, id, "the journey is pending")
	running := runCLI(t, "journey", "list", "-endpoint", srv.URL, "-status", "running", "-output", "json")
	require.Equal(t, exitOK, running.code, running.stderr)
	assert.NotContains(t, running.stdout, id, "the journey is not running")
	show := runCLI(t, "journey", "show", id, "-endpoint", srv.URL)
	assert.Equal(t, exitOK, show.code, show.stderr)
	recover := runCLI(t, "journey", "recover", "-endpoint", srv.URL, "-dry-run")
	assert.Equal(t, exitOK, recover.code, recover.stderr)

	export := runCLI(t, "journey", "export", id, "-endpoint", srv.URL, "-yes")
	assert.Equal(t, exitFailed, export.code)
	assert.Equal(t, "tablekit: no AWS region for S3: set -s3-endpoint (s3rver, MinIO), or AWS_REGION or -region for AWS S3\n", export.stderr)

	creds := runCLI(t, "journey", "export", id, "-endpoint", srv.URL, "-region", "eu-west-1", "-yes")
	assert.Equal(t, exitFailed, creds.code)
	assert.Contains(t, creds.stderr, `S3 bucket "transformation-backups"`)
	assert.Contains(t, creds.stderr, "no AWS credentials: set AWS_PROFILE")
}
