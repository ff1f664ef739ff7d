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

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/tasks"
)

const resultsBucket = "photo-results"

// jobsStore is a jobs store on h's enforced fake and results bucket, with
// opts besides.
func jobsStore(t *testing.T, h *harness, opts ...func(*jobs.Options)) *jobs.Store {
	store, err := jobs.NewStore(h.db, h.bucket(resultsBucket), append([]func(*jobs.Options){jobs.TableName(jobs.TableNameForEnv("prod")), jobs.Clock(h.fake.Now), jobs.LeaseDuration(time.Minute)}, opts...)...)
	require.NoError(t, err)
	return store
}

// jobsServiceFlow drives the jobs store as the service does: create ->
// process -> edit (with a result large enough to offload) -> complete,
// fail -> replay, an expired lease -> recover, the lists and delete. It
// returns the deleted job's id, whose offloaded result is an orphan.
func jobsServiceFlow(t *testing.T, h *harness, store *jobs.Store) {
	ctx := context.Background()
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
	_, err = store.Maintenance().Replay(ctx, failed.ID)
	require.NoError(t, err)

	stuck, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	_, err = store.StartProcessing(ctx, stuck.ID)
	require.NoError(t, err)
	h.fake.Advance(2 * time.Minute)
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Positive(t, res.Requeued+res.Failed, "the expired lease was recovered")

	_, err = store.ByUser("user-1").Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Maintenance().ByStatus(jobs.StatusQueued).Page(ctx, "")
	require.NoError(t, err)
	require.NoError(t, store.Delete(ctx, done.ID))
	h.fake.Advance(time.Hour) // past blobstore.DefaultOrphanMinAge
}

// jobsMaintenance runs the operator's calls: the backfill and the orphan
// sweep, returning their errors.
func jobsMaintenance(ctx context.Context, store *jobs.Store) (backfill, orphans error, removed int) {
	_, backfill = store.Maintenance().Backfill(ctx, func(*jobs.Job) (bool, error) { return false, nil })
	r, orphans := store.Maintenance().RemoveOrphans(ctx)
	return backfill, orphans, len(r)
}

// TestJobsFlowsRunUnderTheirRuntimePolicy: the service's flows under the
// policy generated for photoeditor-prod-jobs: no request is denied, every
// grant is used, and the operator's calls (the backfill's Scan, the orphan
// sweep's listing and deletes) are not the service's: denied.
func TestJobsFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	h := newHarness(t, policies.Jobs(jobs.TableNameForEnv("prod"), resultsBucket))
	store := jobsStore(t, h)
	jobsServiceFlow(t, h, store)
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	backfill, orphans, _ := jobsMaintenance(context.Background(), store)
	h.checkDenied("the backfill's Scan", backfill)
	h.checkDenied("the orphan sweep's ListBucket", orphans)
}

// TestJobsOperatorPolicyRunsTheMaintenanceCalls: the operator policy runs
// the service's flows and the backfill and orphan sweep, every grant used.
func TestJobsOperatorPolicyRunsTheMaintenanceCalls(t *testing.T) {
	h := newHarnessUnder(t, policies.Jobs(jobs.TableNameForEnv("prod"), resultsBucket), iam.Operator)
	store := jobsStore(t, h)
	jobsServiceFlow(t, h, store)
	backfill, orphans, removed := jobsMaintenance(context.Background(), store)
	require.NoError(t, backfill)
	require.NoError(t, orphans)
	assert.Positive(t, removed, "the deleted job's offloaded result is an orphan")
	h.checkNoDenials()
	h.checkEveryGrantUsed()
}

// TestJobsReadOnlyPolicyReadsAndWritesNothing: a dashboard under the
// read-only policy reads jobs (an offloaded result too) and lists them,
// every grant used; a create, a status move and a scan are denied.
func TestJobsReadOnlyPolicyReadsAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	h := newHarnessUnder(t, policies.Jobs(jobs.TableNameForEnv("prod"), resultsBucket), iam.ReadOnly)
	writer, err := jobs.NewStore(h.fake, h.raw[resultsBucket], jobs.TableName(jobs.TableNameForEnv("prod")), jobs.Clock(h.fake.Now))
	require.NoError(t, err)
	job, _, err := writer.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", Provider: "stub"})
	require.NoError(t, err)
	j, err := writer.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	_, err = writer.StartEditing(ctx, j.Lease(), &jobs.AnalysisResult{Description: strings.Repeat("d", jobs.DefaultOffloadThreshold+1)})
	require.NoError(t, err)

	dashboard := jobsStore(t, h)
	got, err := dashboard.Get(ctx, job.ID)
	require.NoError(t, err)
	assert.Len(t, got.AnalysisResult.Description, jobs.DefaultOffloadThreshold+1)
	_, err = dashboard.ByUser("user-1").Page(ctx, "")
	require.NoError(t, err)
	_, err = dashboard.Maintenance().ByStatus(jobs.StatusEditing).Page(ctx, "")
	require.NoError(t, err)
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	_, _, err = dashboard.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", Provider: "stub"})
	h.checkDenied("a create", err)
	_, err = dashboard.Maintenance().Replay(ctx, job.ID)
	h.checkDenied("a status move", err)
	backfill, _, _ := jobsMaintenance(ctx, dashboard)
	h.checkDenied("a scan", backfill)
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
	for _, err := range blobs.List(ctx, "jobs/"+prod+"/") {
		deniedAs(t, err, "AccessDenied", "s3:ListBucket") // the orphan sweep's, the operator's
	}
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
	_, err = store.Maintenance().Dead().Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Maintenance().Redrive(ctx, doomed.ID, "fixed")
	require.NoError(t, err)

	// An expired lease is reclaimed; a claimed task is released; one is canceled.
	h.fake.Advance(time.Hour)
	_, err = store.Claim(ctx, "w-2")
	require.NoError(t, err)
	h.fake.Advance(time.Hour)
	_, err = store.Maintenance().ReclaimExpired(ctx)
	require.NoError(t, err)
	h.fake.Advance(time.Hour) // past the reclaimed task's backoff
	c, err = store.Claim(ctx, "w-3")
	require.NoError(t, err)
	require.NotNil(t, c)
	require.NoError(t, store.Release(ctx, c.Lease, "shutting down"))
	_, err = store.Maintenance().WorkerTasks(ctx, "w-3")
	require.NoError(t, err)
	other, _, err := store.Submit(ctx, tasks.SubmitInput{Payload: []byte("y")})
	require.NoError(t, err)
	require.NoError(t, store.Cancel(ctx, other.ID, "not needed"))
	_, err = store.Maintenance().Pending().Page(ctx, "")
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

// TestTasksOperatorPolicyIsTheRuntimePolicy: the queue has no maintenance
// call of its own (re-driving and reclaiming are the service's patterns),
// so the operator policy grants exactly what the runtime one does.
func TestTasksOperatorPolicyIsTheRuntimePolicy(t *testing.T) {
	runtime, err := iam.Runtime(dynamotest.Env, policies.Tasks(tasks.DefaultTableName))
	require.NoError(t, err)
	operator, err := iam.Operator(dynamotest.Env, policies.Tasks(tasks.DefaultTableName))
	require.NoError(t, err)
	assert.Equal(t, runtime, operator)
}

// TestTasksReadOnlyPolicyReadsAndWritesNothing: the admin view under the
// read-only policy reads a task, its history, the pending and dead lists
// and a worker's claims, every grant used; a submit and a claim are
// denied.
func TestTasksReadOnlyPolicyReadsAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	h := newHarnessUnder(t, policies.Tasks(tasks.DefaultTableName), iam.ReadOnly)
	writer, err := tasks.NewStore(h.fake, nil, tasks.Clock(h.fake.Now))
	require.NoError(t, err)
	task, _, err := writer.Submit(ctx, tasks.SubmitInput{Payload: []byte("x")})
	require.NoError(t, err)
	_, _, err = writer.Submit(ctx, tasks.SubmitInput{Payload: []byte("y")})
	require.NoError(t, err)
	_, err = writer.Claim(ctx, "w-1")
	require.NoError(t, err)

	admin, err := tasks.NewStore(h.db, nil, tasks.Clock(h.fake.Now))
	require.NoError(t, err)
	_, err = admin.Get(ctx, task.ID)
	require.NoError(t, err)
	_, err = admin.History(ctx, task.ID)
	require.NoError(t, err)
	_, err = admin.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	_, err = admin.Maintenance().Dead().Page(ctx, "")
	require.NoError(t, err)
	_, err = admin.Maintenance().WorkerTasks(ctx, "w-1")
	require.NoError(t, err)
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	_, _, err = admin.Submit(ctx, tasks.SubmitInput{Payload: []byte("z")})
	h.checkDenied("a submit", err)
	_, err = admin.Claim(ctx, "w-2")
	h.checkDenied("a claim", err)
}

// TestPoliciesGrantAnSSEKMSBucketsKeyThroughS3Only: with the results
// bucket encrypted by a customer managed key, the service's flows run
// under its runtime policy with the key actions S3 takes on its behalf
// (GenerateDataKey for a put, Decrypt for a get), every grant used; the
// read-only policy may only decrypt; the key is usable through S3 only,
// and an alias is refused.
func TestPoliciesGrantAnSSEKMSBucketsKeyThroughS3Only(t *testing.T) {
	const key = "1234abcd-12ab-34cd-56ef-1234567890ab"
	svc := policies.Jobs(jobs.TableNameForEnv("prod"), resultsBucket)
	svc.Objects[0].KMSKeyID = key
	h := newHarness(t, svc)
	jobsServiceFlow(t, h, jobsStore(t, h))
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	arn := "arn:aws:kms:" + dynamotest.Region + ":" + dynamotest.Account + ":key/" + key
	via := map[string]string{iam.KMSViaService: "s3." + dynamotest.Region + ".amazonaws.com"}
	assert.True(t, h.policy.Allows(iam.Request{Action: iam.KMSGenerateDataKey, Resource: arn, Context: via}))
	assert.False(t, h.policy.Allows(iam.Request{Action: iam.KMSGenerateDataKey, Resource: arn}), "directly")
	assert.False(t, h.policy.Allows(iam.Request{Action: iam.KMSDecrypt, Resource: arn,
		Context: map[string]string{iam.KMSViaService: "dynamodb." + dynamotest.Region + ".amazonaws.com"}}), "through another service")
	readOnly, err := iam.ReadOnly(dynamotest.Env, svc)
	require.NoError(t, err)
	assert.True(t, readOnly.Allows(iam.Request{Action: iam.KMSDecrypt, Resource: arn, Context: via}))
	assert.False(t, readOnly.Allows(iam.Request{Action: iam.KMSGenerateDataKey, Resource: arn, Context: via}), "a dashboard puts nothing")

	svc.Objects[0].KMSKeyID = "alias/results"
	_, err = iam.Runtime(dynamotest.Env, svc)
	assert.ErrorIs(t, err, iam.ErrInvalidService)
}
