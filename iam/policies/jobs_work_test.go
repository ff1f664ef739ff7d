package policies_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/iam"
	"github.com/tablekit/tablekit/iam/policies"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/tasks"
)

// workTable is the tasks table the jobs store queues its work on in these
// tests: not the default, so the policy must follow the option.
const workTable = "photoeditor-prod-work"

// runJobs runs a job worker on store until every job of ids is COMPLETED
// or FAILED, then stops it gracefully.
func runJobs(t *testing.T, store *jobs.Store, handler jobs.Handler, ids ...string) {
	t.Helper()
	ctx := context.Background()
	w, err := store.NewWorker("worker-1", handler, tasks.PollBackoff(tasks.DefaultPollBackoff))
	require.NoError(t, err)
	run, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- w.Run(run) }()
	for _, id := range ids {
		require.Eventually(t, func() bool {
			j, err := store.Get(ctx, id, jobs.Consistent())
			return err == nil && (j.Status == jobs.StatusCompleted || j.Status == jobs.StatusFailed)
		}, 20*time.Second, time.Millisecond, "job %s never ended", id)
	}
	stop()
	require.NoError(t, <-errc)
}

// jobsWorkFlow drives a jobs store with Work as a service does: Create
// (job and task in one transaction), the job worker running one job to
// COMPLETED (with an offloaded analysis) and failing another for good,
// Replay of the failed job (a new task in the move's transaction) run to
// the end, Recover of a job held under a lease of its own (back to QUEUED
// with a new task), Sweep and Stranded finding a job left without work
// (created by a store without Work) and reading the tasks of the others,
// then the lists and a delete.
func jobsWorkFlow(t *testing.T, h *harness, store *jobs.Store) {
	ctx := context.Background()
	in := jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"}
	done, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	failed, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	big := &jobs.AnalysisResult{Description: strings.Repeat("d", jobs.DefaultOffloadThreshold+1)}
	handler := func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		if a.Job().ID == failed.ID && a.Job().Error == nil {
			return jobs.EditResult{}, jobs.Permanent(&jobs.JobError{Code: "CORRUPT", Message: "not an image"})
		}
		if _, err := a.StartEditing(ctx, big); err != nil {
			return jobs.EditResult{}, err
		}
		return jobs.EditResult{S3Key: "final/a.jpg", Width: 1, Height: 1, Format: jobs.FormatJPEG, Size: 10}, nil
	}
	runJobs(t, store, handler, done.ID, failed.ID)
	got, err := store.Get(ctx, failed.ID)
	require.NoError(t, err)
	require.Equal(t, jobs.StatusFailed, got.Status)

	_, err = store.Maintenance().Replay(ctx, failed.ID)
	require.NoError(t, err)
	runJobs(t, store, handler, failed.ID)
	got, err = store.Get(ctx, failed.ID)
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusCompleted, got.Status, "the replayed job ran")
	assert.Len(t, got.AnalysisResult.Description, jobs.DefaultOffloadThreshold+1, "the offloaded result reads back")

	stuck, _, err := store.Create(ctx, in)
	require.NoError(t, err)
	_, err = store.StartProcessing(ctx, stuck.ID)
	require.NoError(t, err)
	h.fake.Advance(2 * time.Minute)
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Requeued, "the expired lease's job is queued again with its work")

	plain, err := jobs.NewStore(h.db, h.bucket(resultsBucket), jobs.TableName(jobs.TableNameForEnv("prod")), jobs.Clock(h.fake.Now))
	require.NoError(t, err)
	orphan, _, err := plain.Create(ctx, in)
	require.NoError(t, err)
	h.fake.Advance(2 * time.Minute)
	var stranded []string
	for j, err := range store.Maintenance().Stranded(ctx) {
		require.NoError(t, err)
		stranded = append(stranded, j.ID)
	}
	assert.Equal(t, []string{orphan.ID}, stranded)
	swept, err := store.Maintenance().Sweep(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, swept.Queued)

	_, err = store.ByUser("user-1").Page(ctx, "")
	require.NoError(t, err)
	_, err = store.Maintenance().ByStatus(jobs.StatusQueued).Page(ctx, "")
	require.NoError(t, err)
	require.NoError(t, store.Delete(ctx, done.ID))
}

// TestJobsWithWorkFlowsRunUnderTheirRuntimePolicy: the policy of a store
// with jobs.Work grants its tasks table exactly what the Work flows call:
// no request of theirs is denied, every grant on both tables is used, and
// the tasks store's other calls (History's and WorkerTasks' queries of the
// table, a Scan) and the operator's calls are denied.
func TestJobsWithWorkFlowsRunUnderTheirRuntimePolicy(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, policies.Jobs(jobs.TableNameForEnv("prod"), resultsBucket, jobs.Work(workTable)))
	store := jobsStore(t, h, jobs.Work(workTable))
	jobsWorkFlow(t, h, store)
	h.checkNoDenials()
	h.checkEveryGrantUsed()

	job, _, err := store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", Provider: "stub"})
	require.NoError(t, err)
	_, err = store.Tasks().History(ctx, job.TaskID)
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Query")
	_, err = store.Tasks().Maintenance().WorkerTasks(ctx, "worker-1")
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Query")
	_, err = h.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(workTable)})
	deniedAs(t, err, "AccessDeniedException", "dynamodb:Scan")
	backfill, orphans, _ := jobsMaintenance(ctx, store)
	h.checkDenied("the backfill's Scan", backfill)
	h.checkDenied("the orphan sweep's ListBucket", orphans)
}

// TestJobsPolicyWithoutWorkGrantsNoTasksTable: without jobs.Work the
// policy is the jobs store's alone (whatever other options the store
// has): no statement names a tasks table, and a store with Work under it
// cannot queue its first job's work.
func TestJobsPolicyWithoutWorkGrantsNoTasksTable(t *testing.T) {
	ctx := context.Background()
	prod := jobs.TableNameForEnv("prod")
	for _, generate := range []func(iam.Env, iam.Service) (iam.Policy, error){iam.Runtime, iam.Operator, iam.ReadOnly, iam.Admin} {
		plain, err := generate(dynamotest.Env, policies.Jobs(prod, resultsBucket))
		require.NoError(t, err)
		other, err := generate(dynamotest.Env, policies.Jobs(prod, resultsBucket, jobs.LeaseDuration(time.Hour), nil))
		require.NoError(t, err)
		assert.Equal(t, plain, other, "options other than Work change nothing")
		assert.NotContains(t, string(plain.JSON()), "table/"+tasks.DefaultTableName)
		withWork, err := generate(dynamotest.Env, policies.Jobs(prod, resultsBucket, jobs.Work("")))
		require.NoError(t, err)
		assert.Contains(t, string(withWork.JSON()), "table/"+tasks.DefaultTableName+`"`, "with Work the tasks table is the service's")
	}

	h := newHarness(t, policies.Jobs(prod, resultsBucket))
	// The tasks table exists; the jobs policy does not reach it.
	require.NoError(t, tasks.Schema(workTable).EnsureTable(ctx, h.fake))
	store := jobsStore(t, h, jobs.Work(workTable))
	_, _, err := store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", Provider: "stub"})
	// The queue's first call reads the tasks table's shard count.
	deniedAs(t, err, "AccessDeniedException", "dynamodb:GetItem")
	page, err := store.ByUser("user-1").Page(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, page.Items, "no job was created without its work")
}
