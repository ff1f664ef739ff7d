package jobs_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// crashDB makes the next TransactWriteItems crash: before it is sent
// (nothing applied) or after DynamoDB applied it (the response lost).
type crashDB struct {
	table.API
	mu    sync.Mutex
	crash string // "", "before" or "after"
}

var errCrash = errors.New("the process crashed")

func (c *crashDB) arm(when string) { c.mu.Lock(); c.crash = when; c.mu.Unlock() }

func (c *crashDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.mu.Lock()
	when := c.crash
	c.crash = ""
	c.mu.Unlock()
	if when == "before" {
		return nil, errCrash
	}
	out, err := c.API.TransactWriteItems(ctx, in, opts...)
	if when == "after" && err == nil {
		return nil, errCrash
	}
	return out, err
}

// queueEnv is a jobs store wired to a tasks queue on the same DynamoDB.
type queueEnv struct {
	db      *crashDB
	jobs    *jobs.Store
	tasks   *tasks.Store
	failing error // what the Enqueuer returns, when set
}

func newQueueEnv(t *testing.T, db table.API, clock func() time.Time, jobsTable, tasksTable string) *queueEnv {
	t.Helper()
	ctx := context.Background()
	e := &queueEnv{db: &crashDB{API: db}}
	var err error
	e.tasks, err = tasks.NewStore(e.db, nil, tasks.TableName(tasksTable), tasks.Clock(clock))
	require.NoError(t, err)
	require.NoError(t, e.tasks.EnsureTable(ctx))
	e.jobs, err = jobs.NewStore(e.db, nil, jobs.TableName(jobsTable), jobs.Clock(clock),
		jobs.Enqueue(func(ctx context.Context, tx *table.WriteTx, w jobs.Work) error {
			if e.failing != nil {
				return e.failing
			}
			_, _, err := e.tasks.SubmitTx(ctx, tx, tasks.SubmitInput{
				IdempotencyKey: "job-" + w.JobID + "-" + strconv.FormatInt(w.At.UnixMilli(), 10),
				Payload:        []byte(w.JobID),
			})
			return err
		}))
	require.NoError(t, err)
	require.NoError(t, e.jobs.EnsureTable(ctx))
	return e
}

// failedJob creates a job and fails it.
func (e *queueEnv) failedJob(t *testing.T, user string) *jobs.Job {
	t.Helper()
	ctx := context.Background()
	job, _, err := e.jobs.Create(ctx, upload(user))
	require.NoError(t, err)
	started, err := e.jobs.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	failed, err := e.jobs.Fail(ctx, started.Lease(), jobs.JobError{Code: "PROVIDER_ERROR", Message: "500"})
	require.NoError(t, err)
	return failed
}

// queued returns the payloads of the pending tasks.
func (e *queueEnv) queued(t *testing.T) []string {
	t.Helper()
	var out []string
	for task, err := range e.tasks.Pending(context.Background()) {
		require.NoError(t, err)
		out = append(out, string(task.Payload))
	}
	return out
}

func (e *queueEnv) status(t *testing.T, id string) jobs.Status {
	t.Helper()
	job, err := e.jobs.Get(context.Background(), id, jobs.Consistent())
	require.NoError(t, err)
	return job.Status
}

// replayEnqueues is the Must show: Replay queues the job's work in the
// job's own transaction, and no crash, refusal or failure of either side
// leaves one without the other.
func replayEnqueues(t *testing.T, e *queueEnv) {
	ctx := context.Background()

	t.Run("a replay queues the work with the move", func(t *testing.T) {
		job := e.failedJob(t, "u-ok")
		replayed, err := e.jobs.Replay(ctx, job.ID)
		require.NoError(t, err)
		assert.Equal(t, jobs.StatusQueued, replayed.Status)
		require.NotNil(t, replayed.Error)
		assert.Equal(t, 1, replayed.Error.RetryCount)
		assert.Equal(t, []string{job.ID}, e.queued(t))
		drain(t, e)
	})

	t.Run("a crash before the transaction applies neither", func(t *testing.T) {
		job := e.failedJob(t, "u-before")
		e.db.arm("before")
		_, err := e.jobs.Replay(ctx, job.ID)
		require.ErrorIs(t, err, errCrash)
		assert.Equal(t, jobs.StatusFailed, e.status(t, job.ID))
		assert.Empty(t, e.queued(t))
		// The retry does it, once.
		_, err = e.jobs.Replay(ctx, job.ID)
		require.NoError(t, err)
		assert.Equal(t, []string{job.ID}, e.queued(t))
		drain(t, e)
	})

	t.Run("a crash after the transaction applied both", func(t *testing.T) {
		job := e.failedJob(t, "u-after")
		e.db.arm("after")
		_, err := e.jobs.Replay(ctx, job.ID)
		require.ErrorIs(t, err, errCrash)
		assert.Equal(t, jobs.StatusQueued, e.status(t, job.ID))
		assert.Equal(t, []string{job.ID}, e.queued(t))
		// The caller's retry is refused by the job's status and queues
		// nothing more.
		_, err = e.jobs.Replay(ctx, job.ID)
		var te *jobs.TransitionError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, jobs.StatusQueued, te.Current)
		require.NotNil(t, te.Job, "the refused transaction carries the job")
		assert.Equal(t, []string{job.ID}, e.queued(t))
		drain(t, e)
	})

	t.Run("a refused move queues nothing", func(t *testing.T) {
		job, _, err := e.jobs.Create(ctx, upload("u-refused"))
		require.NoError(t, err)
		_, err = e.jobs.Replay(ctx, job.ID)
		require.ErrorIs(t, err, jobs.ErrInvalidTransition)
		_, err = e.jobs.Replay(ctx, "k-missing")
		require.ErrorIs(t, err, jobs.ErrNotFound)
		assert.Empty(t, e.queued(t))
	})

	t.Run("an Enqueuer that fails moves nothing", func(t *testing.T) {
		job := e.failedJob(t, "u-enqueuer")
		e.failing = errors.New("queue unavailable")
		_, err := e.jobs.Replay(ctx, job.ID)
		e.failing = nil
		require.ErrorContains(t, err, "queue unavailable")
		assert.Equal(t, jobs.StatusFailed, e.status(t, job.ID))
		assert.Empty(t, e.queued(t))
	})
}

// drain completes every pending task, so the next case starts empty.
func drain(t *testing.T, e *queueEnv) {
	t.Helper()
	ctx := context.Background()
	for {
		c, err := e.tasks.Claim(ctx, "drainer")
		if errors.Is(err, tasks.ErrNoTask) {
			return
		}
		require.NoError(t, err)
		require.NoError(t, e.tasks.Complete(ctx, c.Lease, nil))
	}
}

func TestReplayEnqueuesInTheJobsTransactionAndACrashSplitsNeither(t *testing.T) {
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	replayEnqueues(t, newQueueEnv(t, db, db.Now, "photoeditor-test-jobs", "photoeditor-test-tasks"))
}

func TestIntegrationReplayEnqueuesInTheJobsTransactionAndACrashSplitsNeither(t *testing.T) {
	db := testenv.DynamoDB(t)
	jobsTable, tasksTable := testenv.TableName(t, "jobs"), testenv.TableName(t, "tasks")
	for _, name := range []string{jobsTable, tasksTable} {
		t.Cleanup(func() {
			_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
	}
	replayEnqueues(t, newQueueEnv(t, db, time.Now, jobsTable, tasksTable))
}
