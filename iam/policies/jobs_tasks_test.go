package policies_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/tasks"
)

const resultsBucket = "photo-results"

// TestJobsFlowsRunUnderTheirRuntimePolicy drives the jobs store through
// create -> process -> edit (with a result large enough to offload) ->
// complete, fail -> replay, an expired lease -> recover, the lists, the
// backfill, delete and the orphan sweep, all under the policy generated
// for photoeditor-prod-jobs: no request is denied, and every grant is used.
func TestJobsFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	ctx := context.Background()
	prod := jobs.TableNameForEnv("prod")
	h := newHarness(t, policies.Jobs(prod, resultsBucket))
	store, err := jobs.NewStore(h.db, h.bucket(resultsBucket), jobs.TableName(prod), jobs.Clock(h.fake.Now), jobs.LeaseDuration(time.Minute))
	require.NoError(t, err)

	in := jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"}
	done, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	j, err := store.StartProcessing(ctx, done.ID)
	require.NoError(t, err)
	lease, err := store.Heartbeat(ctx, j.Lease())
	require.NoError(t, err)
	// A description past the offload threshold goes to the blob store.
	big := &jobs.AnalysisResult{Description: strings.Repeat("d", jobs.DefaultOffloadThreshold+1)}
	j, err = store.StartEditing(ctx, lease, big)
	require.NoError(t, err)
	_, err = store.Complete(ctx, j.Lease(), jobs.EditResult{S3Key: "final/a.jpg", Width: 1, Height: 1, Format: jobs.FormatJPEG, Size: 10})
	require.NoError(t, err)
	got, err := store.Get(ctx, done.ID)
	require.NoError(t, err)
	require.NotNil(t, got.AnalysisResult)
	assert.Len(t, got.AnalysisResult.Description, jobs.DefaultOffloadThreshold+1, "the offloaded result reads back")

	failed, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	j, err = store.StartProcessing(ctx, failed.ID)
	require.NoError(t, err)
	_, err = store.Fail(ctx, j.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "slow"})
	require.NoError(t, err)
	_, err = store.Replay(ctx, failed.ID)
	require.NoError(t, err)

	stuck, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	_, err = store.StartProcessing(ctx, stuck.ID)
	require.NoError(t, err)
	h.fake.Advance(2 * time.Minute)
	res, err := store.Recover(ctx)
	require.NoError(t, err)
	assert.Positive(t, res.Requeued+res.Failed, "the expired lease was recovered")

	_, err = store.ListByUser(ctx, "user-1", "")
	require.NoError(t, err)
	_, err = store.ListByStatus(ctx, jobs.StatusQueued, "")
	require.NoError(t, err)
	_, err = store.Backfill(ctx, func(*jobs.Job) (bool, error) { return false, nil })
	require.NoError(t, err)
	require.NoError(t, store.Delete(ctx, done.ID))
	h.fake.Advance(time.Hour) // past blobstore.DefaultOrphanMinAge
	removed, err := store.RemoveOrphans(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, removed, "the deleted job's offloaded result is an orphan")

	h.checkNoDenials()
	h.checkEveryGrantUsed()
}

// TestJobsRuntimePolicyRefusesWhatTheStoreNeverDoes: another
// environment's table, another prefix in the bucket, creating a table.
func TestJobsRuntimePolicyRefusesWhatTheStoreNeverDoes(t *testing.T) {
	ctx := context.Background()
	prod := jobs.TableNameForEnv("prod")
	h := newHarness(t, policies.Jobs(prod, resultsBucket))
	// The dev table exists, but prod's policy does not reach it.
	require.NoError(t, jobs.Schema(jobs.TableNameForEnv("dev")).EnsureTable(ctx, h.fake))

	dev, err := jobs.NewStore(h.db, h.bucket(resultsBucket), jobs.TableName(jobs.TableNameForEnv("dev")))
	require.NoError(t, err)
	_, _, err = dev.Create(ctx, jobs.CreateInput{UserID: "u", FileType: "image/jpeg", Provider: "stub"})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:PutItem")
	_, err = h.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(jobs.TableNameForEnv("dev"))})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Scan")

	_, err = h.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(prod + "-copy")})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:CreateTable")
	_, err = h.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(prod),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(false)}})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:UpdateTimeToLive")
	_, err = h.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(prod), IndexName: aws.String("no-such-index"),
		KeyConditionExpression: aws.String("userId = :u"), ExpressionAttributeValues: map[string]types.AttributeValue{":u": &types.AttributeValueMemberS{Value: "u"}}})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Query")

	blobs := h.bucket(resultsBucket)
	err = blobs.Put(ctx, "jobs/"+jobs.TableNameForEnv("dev")+"/x", bytes.NewReader([]byte("x")))
	deniedAs(t, err, "AccessDenied", "s3:PutObject")
	for _, err := range blobs.List(ctx, "jobs/") {
		deniedAs(t, err, "AccessDenied", "s3:ListBucket")
	}
	for _, err := range blobs.List(ctx, "") {
		deniedAs(t, err, "AccessDenied", "s3:ListBucket")
	}
	n := 0
	for _, err := range blobs.List(ctx, "jobs/"+prod+"/") {
		require.NoError(t, err)
		n++
	}
	assert.Zero(t, n, "the store's own prefix lists (empty)")
}

// TestTasksFlowsRunUnderTheirRuntimePolicy drives the queue through
// submit (and a duplicate), claim -> heartbeat -> complete, claim -> fail
// until dead -> redrive, an expired lease reclaimed, release, cancel, the
// lists and the worker runtime, under the policy generated for the table.
func TestTasksFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, policies.Tasks(tasks.DefaultTableName))
	store, err := tasks.NewStore(h.db, nil, tasks.Clock(h.fake.Now), tasks.LeaseDuration(time.Minute))
	require.NoError(t, err)

	task, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-1", Payload: []byte(`{"n":1}`)})
	require.NoError(t, err)
	_, created, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-1", Payload: []byte(`{"n":1}`)})
	require.NoError(t, err)
	assert.False(t, created)
	c, err := store.Claim(ctx, "w-1")
	require.NoError(t, err)
	require.NotNil(t, c)
	lease, err := store.Heartbeat(ctx, c.Lease)
	require.NoError(t, err)
	require.NoError(t, store.Complete(ctx, lease, []byte("ok")))
	_, err = store.Get(ctx, task.ID)
	require.NoError(t, err)
	_, err = store.History(ctx, task.ID)
	require.NoError(t, err)

	// Fail until dead, then re-drive.
	doomed, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	require.NoError(t, err)
	for {
		h.fake.Advance(time.Hour) // past any retry backoff
		c, err := store.Claim(ctx, "w-1")
		require.NoError(t, err)
		require.NotNil(t, c)
		status, err := store.Fail(ctx, c.Lease, "boom")
		require.NoError(t, err)
		if status == tasks.StatusDead {
			break
		}
	}
	_, err = store.ListDead(ctx, "")
	require.NoError(t, err)
	_, err = store.Redrive(ctx, doomed.ID, "fixed")
	require.NoError(t, err)

	// An expired lease is reclaimed; a claimed task is released; one is canceled.
	h.fake.Advance(time.Hour)
	_, err = store.Claim(ctx, "w-2")
	require.NoError(t, err)
	h.fake.Advance(time.Hour)
	_, err = store.ReclaimExpired(ctx)
	require.NoError(t, err)
	h.fake.Advance(time.Hour) // past the reclaimed task's backoff
	c, err = store.Claim(ctx, "w-3")
	require.NoError(t, err)
	require.NotNil(t, c)
	require.NoError(t, store.Release(ctx, c.Lease, "shutting down"))
	_, err = store.WorkerTasks(ctx, "w-3")
	require.NoError(t, err)
	other, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("y")})
	require.NoError(t, err)
	require.NoError(t, store.Cancel(ctx, other.ID, "not needed"))
	_, err = store.ListPending(ctx, "")
	require.NoError(t, err)

	// The worker runtime: claims, runs the handler, completes.
	_, _, err = store.Submit(ctx, tasks.SubmitInput{Payload: []byte("z")})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(ctx)
	handled := make(chan struct{}, 8)
	w, err := store.NewWorker("w-runtime", func(ctx context.Context, task *tasks.Task) ([]byte, error) {
		handled <- struct{}{}
		return []byte("done"), nil
	})
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- w.Run(runCtx) }()
	<-handled
	stop()
	require.NoError(t, <-errc)

	h.checkNoDenials()
	h.checkEveryGrantUsed()
}

// TestTasksRuntimePolicyRefusesScansAndTables: the queue never scans, so
// its policy has no Scan; no CreateTable; no other table.
func TestTasksRuntimePolicyRefusesScansAndTables(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, policies.Tasks(tasks.DefaultTableName))
	_, err := h.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tasks.DefaultTableName)})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Scan")
	_, err = h.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tasks.DefaultTableName), IndexName: aws.String(tasks.IndexGSI1)})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Scan")
	_, err = h.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(tasks.DefaultTableName)})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:CreateTable")
	other, err := tasks.NewStore(h.db, nil, tasks.TableName("other-tasks"))
	require.NoError(t, err)
	_, _, err = other.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	// A store's first call reads the table's shard count (its CONFIG item).
	deniedAs(t, err, "AccessDeniedException", "dynamodb:GetItem")
	assert.Equal(t, 4, h.db.Denied())
}
