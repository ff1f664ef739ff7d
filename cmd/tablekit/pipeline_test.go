package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/blobstore/s3blob"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
)

// pipelineBackend is a DynamoDB and an S3 the command line reaches over
// HTTP, with the pipeline table and bucket its tests use.
type pipelineBackend struct {
	endpoint, s3Endpoint string
	db                   table.API
	files                blobstore.Store
	table, bucket        string
}

func (b pipelineBackend) cli(t *testing.T, sub string, args ...string) result {
	t.Helper()
	return runCLI(t, append([]string{"pipeline", sub, "-endpoint", b.endpoint, "-s3-endpoint", b.s3Endpoint, "-table", b.table}, args...)...)
}

func TestPipelineShowAndDelete(t *testing.T) {
	srv := fakeServer(t)
	ctx := context.Background()
	client, s3URL := fakeS3(t)
	_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("files")})
	require.NoError(t, err)
	files, err := s3blob.New(client, "files")
	require.NoError(t, err)
	testPipelineCommands(t, pipelineBackend{endpoint: srv.URL, s3Endpoint: s3URL, db: srv.DB, files: files,
		table: pipeline.DefaultTableName, bucket: "files"})
}

// TestCLIIntegrationPipelineCommands runs the pipeline commands against
// DynamoDB Local and s3rver, as .ci/run does.
func TestCLIIntegrationPipelineCommands(t *testing.T) {
	endpoint, s3Endpoint := testenv.DynamoDBEndpoint(t), testenv.S3Endpoint(t)
	// DynamoDB Local takes any credentials; s3rver wants its own.
	t.Setenv("AWS_ACCESS_KEY_ID", "S3RVER")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "S3RVER")
	t.Setenv("AWS_REGION", testenv.Region)
	bucket := testenv.Bucket(t, "clipipelines")
	files, err := s3blob.New(testenv.S3(t), bucket, func(o *s3blob.Options) { o.PathStyle = true })
	require.NoError(t, err)
	testPipelineCommands(t, pipelineBackend{endpoint: endpoint, s3Endpoint: s3Endpoint, db: testenv.DynamoDB(t), files: files,
		table: testenv.TableName(t, "clipipelines"), bucket: bucket})
}

func testPipelineCommands(t *testing.T, b pipelineBackend) {
	ctx := context.Background()
	store, err := pipeline.NewStore(b.db, b.files, pipeline.TableName(b.table))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	tags := []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa/northwest"}}
	p, err := store.Create(ctx, pipeline.Input{ID: "cli-p1", Name: "emissions", By: "ops@xyz.com", Tags: tags, Groups: []string{"/usa"}})
	require.NoError(t, err)
	p, err = store.Update(ctx, p.ID, p.Version, pipeline.Input{Name: "emissions v2", By: "ops@xyz.com", Tags: tags, Groups: []string{"/usa"}})
	require.NoError(t, err)
	other, err := store.Create(ctx, pipeline.Input{ID: "cli-p2", Name: "kept", Tags: tags[:1]})
	require.NoError(t, err)
	var executions []string
	for range 2 {
		up, err := store.PresignInputUpload(ctx, p.ID, 0)
		require.NoError(t, err)
		require.NoError(t, b.files.Put(ctx, up.Key, strings.NewReader("input")))
		ex, err := store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, InputKey: up.Key})
		require.NoError(t, err)
		require.NoError(t, store.PutOutput(ctx, ex.ID, strings.NewReader("output"), 6))
		executions = append(executions, ex.ID)
	}
	objects := func(prefix string) int {
		n := 0
		for _, err := range b.files.List(ctx, prefix) {
			require.NoError(t, err)
			n++
		}
		return n
	}
	require.Equal(t, 6, objects("pipelines/cli-p1/"), "two inputs, their copies and two outputs")

	// show
	show := b.cli(t, "show", p.ID)
	require.Equal(t, exitOK, show.code, show.stderr)
	for _, want := range []string{"emissions v2", "source=sap", "region=usa/northwest", "/usa", "versions:", executions[0], executions[1]} {
		assert.Contains(t, show.stdout, want)
	}
	js := b.cli(t, "show", p.ID, "-output", "json")
	require.Equal(t, exitOK, js.code, js.stderr)
	var shown pipelineShown
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &shown))
	assert.Equal(t, 2, shown.Pipeline.Version)
	require.Len(t, shown.Versions, 2)
	assert.Equal(t, []int{1, 2}, []int{shown.Versions[0].Version, shown.Versions[1].Version})
	require.Len(t, shown.Executions, 2)
	assert.Empty(t, shown.VersionsNext)

	// One at a time: the cursor leads to the next page.
	first := b.cli(t, "show", p.ID, "-limit", "1", "-output", "json")
	require.Equal(t, exitOK, first.code, first.stderr)
	var page1 pipelineShown
	require.NoError(t, json.Unmarshal([]byte(first.stdout), &page1))
	require.Len(t, page1.Versions, 1)
	require.NotEmpty(t, page1.VersionsNext)
	require.NotEmpty(t, page1.ExecutionsNext)
	second := b.cli(t, "show", p.ID, "-limit", "1", "-versions-cursor", page1.VersionsNext, "-executions-cursor", page1.ExecutionsNext, "-output", "json")
	require.Equal(t, exitOK, second.code, second.stderr)
	var page2 pipelineShown
	require.NoError(t, json.Unmarshal([]byte(second.stdout), &page2))
	require.Len(t, page2.Versions, 1)
	assert.Equal(t, 2, page2.Versions[0].Version)
	require.Len(t, page2.Executions, 1)
	assert.Equal(t, executions[1], page2.Executions[0].ID)
	text := b.cli(t, "show", p.ID, "-limit", "1")
	require.Equal(t, exitOK, text.code, text.stderr)
	assert.Contains(t, text.stdout, "more: -versions-cursor "+page1.VersionsNext)

	assert.Equal(t, exitNotFound, b.cli(t, "show", "cli-nosuch").code)
	assert.Equal(t, exitUsage, b.cli(t, "show").code)
	assert.Equal(t, exitUsage, b.cli(t, "show", "a", "b").code)
	assert.Equal(t, exitUsage, b.cli(t, "show", p.ID, "-versions-cursor", "garbage").code, "a bad cursor is a bad flag value")

	// delete: refused without -yes off a terminal, and without a bucket.
	refused := b.cli(t, "delete", p.ID)
	assert.Equal(t, exitNotConfirmed, refused.code, refused.stderr)
	noBucket := b.cli(t, "delete", p.ID, "-yes")
	assert.Equal(t, exitUsage, noBucket.code, noBucket.stderr)
	assert.Contains(t, noBucket.stderr, "-bucket")
	_, err = store.Get(ctx, p.ID)
	require.NoError(t, err, "nothing changed")
	require.Equal(t, 6, objects("pipelines/cli-p1/"))

	del := b.cli(t, "delete", p.ID, "-yes", "-bucket", b.bucket, "-output", "json")
	require.Equal(t, exitOK, del.code, del.stderr)
	var deleted pipelineDeleted
	require.NoError(t, json.Unmarshal([]byte(del.stdout), &deleted))
	assert.True(t, deleted.Existed)
	steps := map[string]int{}
	for _, st := range deleted.Steps {
		steps[st.Step] = st.Removed
	}
	assert.Equal(t, map[string]int{"mark": 0, "executions": 2, "files": 6, "tags": 3, "partition": 6}, steps,
		"2 versions, 1 group, 2 execution references and the current item")
	assert.Contains(t, del.stderr, "delete cli-p1: 5 / 5", "progress on stderr")
	_, err = store.Get(ctx, p.ID)
	assert.ErrorIs(t, err, pipeline.ErrNotFound)
	for _, id := range executions {
		_, err = store.Executions().Get(ctx, id)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	}
	assert.Zero(t, objects("pipelines/cli-p1/"))
	counts := map[string]int{}
	for tc, err := range store.Tags().List().All(ctx) {
		require.NoError(t, err)
		counts[tc.Key+"="+tc.Value] = tc.Count
	}
	assert.Equal(t, map[string]int{"source=sap": 1}, counts, "the kept pipeline's count alone")
	_, err = store.Get(ctx, other.ID)
	assert.NoError(t, err)
	assert.Equal(t, exitNotFound, b.cli(t, "show", p.ID).code)

	// Again: nothing left, success.
	again := b.cli(t, "delete", p.ID, "-yes", "-bucket", b.bucket)
	require.Equal(t, exitOK, again.code, again.stderr)
	assert.Contains(t, again.stdout, "not in the table")
}
