package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// service is the photo editor as a service builds it from the library:
// a jobs store whose work goes to the backend's tasks table, and job
// workers on it.
type service struct {
	jobs *jobs.Store
	b    backend
}

func newService(t *testing.T, b backend) *service {
	t.Helper()
	store, err := jobs.NewStore(b.db, nil, jobs.TableName(b.jobsTable), jobs.LeaseDuration(time.Minute),
		jobs.Work(b.tasksTable))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(context.Background()))
	return &service{jobs: store, b: b}
}

// run runs a job worker with handler until the job is in status st.
func (s *service) run(t *testing.T, id string, st jobs.Status, handler jobs.Handler) *jobs.Job {
	t.Helper()
	w, err := s.jobs.NewWorker("worker-1", handler,
		tasks.PollBackoff(table.Backoff{Initial: time.Millisecond, Max: 10 * time.Millisecond}))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		job, err := s.jobs.Get(context.Background(), id, jobs.Consistent())
		require.NoError(t, err)
		if job.Status == st {
			return job
		}
		require.Truef(t, time.Now().Before(deadline), "job %s is %s, waiting for %s", id, job.Status, st)
		time.Sleep(5 * time.Millisecond)
	}
}

func upload(user string) jobs.CreateInput {
	return jobs.CreateInput{UserID: user, FileType: "image/jpeg", FileSize: 1000, Provider: "stub"}
}

func edited(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
	return jobs.EditResult{S3Key: "final/" + a.Job().ID + ".webp", Width: 1, Height: 1, Format: jobs.FormatWebP, Size: 1}, nil
}

func refused(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
	return jobs.EditResult{}, jobs.Permanent(errors.New("the provider refused the photo"))
}

// pendingJobs is what `tablekit tasks list` shows an operator: the jobs
// whose work waits in the tasks table.
func pendingJobs(t *testing.T, b backend) []string {
	t.Helper()
	r := b.cli(t, "tasks", "list", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var page pageOut[tasks.Task]
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page))
	var ids []string
	for _, task := range page.Items {
		var p struct{ JobID string }
		require.NoError(t, json.Unmarshal(task.Payload, &p))
		ids = append(ids, p.JobID)
	}
	return ids
}

// testJobsReplayQueuesWork is the issue's Must show: after `tablekit jobs
// replay`, a worker completes the job; replaying a job that is not FAILED
// is refused with a non-zero exit and writes nothing.
func testJobsReplayQueuesWork(t *testing.T, b backend, writes func() int) {
	ctx := context.Background()
	svc := newService(t, b)
	job, _, err := svc.jobs.Create(ctx, upload("u-1"))
	require.NoError(t, err)
	failed := svc.run(t, job.ID, jobs.StatusFailed, refused)
	require.Equal(t, "the provider refused the photo", failed.Error.Message)
	assert.Empty(t, pendingJobs(t, b), "the failed job's work is done")

	r := b.cli(t, "jobs", "replay", job.ID, "-yes", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var replayed jobs.Job
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &replayed))
	assert.Equal(t, jobs.StatusQueued, replayed.Status)
	assert.NotEqual(t, failed.TaskID, replayed.TaskID, "a new task carries the replayed work")
	assert.Equal(t, []string{job.ID}, pendingJobs(t, b), "the operator sees the work queued")

	done := svc.run(t, job.ID, jobs.StatusCompleted, edited)
	assert.Equal(t, 1, done.Error.RetryCount, "one replay")
	assert.Empty(t, pendingJobs(t, b))

	// Replaying the COMPLETED job: refused, in the operator's terms, and
	// nothing written.
	before := -1
	if writes != nil {
		before = writes()
	}
	again := b.cli(t, "jobs", "replay", job.ID, "-yes")
	assert.Equal(t, exitFailed, again.code)
	assert.Contains(t, again.stderr, "the job is COMPLETED, and only a FAILED job can be replayed")
	if writes != nil {
		assert.Equal(t, before, writes(), "a refused replay writes nothing")
	}
	got, err := svc.jobs.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, done, got)
	assert.Empty(t, pendingJobs(t, b))

	missing := b.cli(t, "jobs", "replay", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "-yes")
	assert.Equal(t, exitNotFound, missing.code, missing.stderr)
	assert.Equal(t, exitUsage, b.cli(t, "jobs", "replay", "-yes").code, "a job id is needed")
}

// testJobsSweep: a job a service without a work queue left QUEUED is found
// by `jobs sweep -dry-run` (nothing written) and queued by `jobs sweep`; a
// worker then completes it.
func testJobsSweep(t *testing.T, b backend, writes func() int) {
	ctx := context.Background()
	svc := newService(t, b)
	old, err := jobs.NewStore(b.db, nil, jobs.TableName(b.jobsTable)) // no work queue
	require.NoError(t, err)
	job, _, err := old.Create(ctx, upload("u-2"))
	require.NoError(t, err)

	before := -1
	if writes != nil {
		before = writes()
	}
	dry := b.cli(t, "jobs", "sweep", "-min-age", "0s", "-dry-run", "-output", "json")
	require.Equal(t, exitOK, dry.code, dry.stderr)
	var out dryRunOut[jobs.Job]
	require.NoError(t, json.Unmarshal([]byte(dry.stdout), &out))
	require.Len(t, out.Items, 1)
	assert.Equal(t, job.ID, out.Items[0].ID)
	if writes != nil {
		assert.Equal(t, before, writes(), "a dry sweep writes nothing")
	}
	assert.Empty(t, pendingJobs(t, b))

	r := b.cli(t, "jobs", "sweep", "-min-age", "0s", "-yes", "-output", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var res jobs.SweepResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Equal(t, jobs.SweepResult{Found: 1, Queued: 1}, res)
	assert.Equal(t, []string{job.ID}, pendingJobs(t, b))
	svc.run(t, job.ID, jobs.StatusCompleted, edited)

	assert.Equal(t, exitUsage, b.cli(t, "jobs", "sweep", "-min-age", "-1s", "-yes").code, "a negative age is a usage error")
}

func TestJobsReplayQueuesWorkAWorkerCompletes(t *testing.T) {
	srv := fakeServer(t)
	b := backend{endpoint: srv.URL, db: dynamotest.NewClient(srv.URL), jobsTable: jobs.DefaultTableName, tasksTable: tasks.DefaultTableName}
	testJobsReplayQueuesWork(t, b, func() int { return writes(srv.DB) })
}

func TestJobsSweepQueuesTheWorkOfJobsLeftWithoutIt(t *testing.T) {
	srv := fakeServer(t)
	b := backend{endpoint: srv.URL, db: dynamotest.NewClient(srv.URL), jobsTable: jobs.DefaultTableName, tasksTable: tasks.DefaultTableName}
	testJobsSweep(t, b, func() int { return writes(srv.DB) })
}

func TestCLIIntegrationJobsReplayAndSweepQueueWork(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "tablekit")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tablekit")
	t.Setenv("AWS_REGION", testenv.Region)
	b := backend{endpoint: endpoint, db: testenv.DynamoDB(t),
		jobsTable: testenv.TableName(t, "clireplayjobs"), tasksTable: testenv.TableName(t, "clireplaytasks")}
	t.Run("replay", func(t *testing.T) { testJobsReplayQueuesWork(t, b, nil) })
	b.jobsTable, b.tasksTable = testenv.TableName(t, "clisweepjobs"), testenv.TableName(t, "clisweeptasks")
	t.Run("sweep", func(t *testing.T) { testJobsSweep(t, b, nil) })
}
