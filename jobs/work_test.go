package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
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

// workEnv is a jobs store whose work goes to a tasks table on the same
// DynamoDB (Options.Work), through a connection that can crash.
type workEnv struct {
	db    *crashDB
	jobs  *jobs.Store
	tasks *tasks.Store
	now   func() time.Time
}

func newWorkEnv(t *testing.T, db table.API, clock func() time.Time, jobsTable, tasksTable string, opts ...func(*jobs.Options)) *workEnv {
	t.Helper()
	e := &workEnv{db: &crashDB{API: db}, now: clock}
	all := append([]func(*jobs.Options){jobs.TableName(jobsTable), jobs.Clock(clock), jobs.Work(tasksTable)}, opts...)
	e.jobs = newStore(t, e.db, nil, all...)
	e.tasks = e.jobs.Tasks()
	require.NoError(t, e.jobs.EnsureTable(context.Background()))
	return e
}

// fakeWorkEnv is a workEnv on a fresh in-memory fake.
func fakeWorkEnv(t *testing.T, opts ...func(*jobs.Options)) (*workEnv, *dynamotest.DB) {
	t.Helper()
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	return newWorkEnv(t, db, db.Now, "photoeditor-test-jobs", "photoeditor-test-tasks", opts...), db
}

// localWorkEnv is a workEnv on DynamoDB Local, with tables of its own.
func localWorkEnv(t *testing.T, opts ...func(*jobs.Options)) *workEnv {
	t.Helper()
	db := compared.DynamoDB(t)
	jobsTable, tasksTable := testenv.TableName(t, "jobs"), testenv.TableName(t, "tasks")
	for _, name := range []string{jobsTable, tasksTable} {
		t.Cleanup(func() {
			_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
	}
	return newWorkEnv(t, db, time.Now, jobsTable, tasksTable, opts...)
}

// failedJob creates a job and fails it through the store's own moves.
func (e *workEnv) failedJob(t *testing.T, user string) *jobs.Job {
	t.Helper()
	ctx := context.Background()
	job, _, err := e.jobs.Create(ctx, upload(user))
	require.NoError(t, err)
	started, err := e.jobs.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	failed, err := e.jobs.Fail(ctx, started.Lease(), jobs.JobError{Code: "PROVIDER_ERROR", Message: "500"})
	require.NoError(t, err)
	drain(t, e) // its first task
	return failed
}

// queued returns the jobs the pending tasks carry, in the queue's order.
func (e *workEnv) queued(t *testing.T) []string {
	t.Helper()
	var out []string
	for task, err := range e.tasks.Maintenance().Pending().All(context.Background()) {
		require.NoError(t, err)
		var p struct{ JobID string }
		require.NoError(t, json.Unmarshal(task.Payload, &p), "payload %s", task.Payload)
		out = append(out, p.JobID)
	}
	return out
}

func (e *workEnv) job(t *testing.T, id string) *jobs.Job {
	t.Helper()
	job, err := e.jobs.Get(context.Background(), id, jobs.Consistent())
	require.NoError(t, err)
	return job
}

// drain completes every pending task, so the next case starts empty.
func drain(t *testing.T, e *workEnv) {
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

// createAndReplayQueueWork is the Must show: Create and Replay queue the
// job's work in the job's own transaction, and no crash, refusal or bad
// input leaves one without the other.
func createAndReplayQueueWork(t *testing.T, e *workEnv) {
	ctx := context.Background()

	t.Run("create queues the job's work with the job", func(t *testing.T) {
		job, created, err := e.jobs.Create(ctx, upload("u-create"))
		require.NoError(t, err)
		require.True(t, created)
		require.NotEmpty(t, job.TaskID)
		assert.Equal(t, 1, job.TaskCount)
		task, err := e.tasks.Get(ctx, job.TaskID)
		require.NoError(t, err)
		assert.Equal(t, tasks.StatusPending, task.Status)
		assert.JSONEq(t, `{"jobsTable":"`+e.jobs.Schema().Name+`","jobId":"`+job.ID+`"}`, string(task.Payload))
		assert.Equal(t, []string{job.ID}, e.queued(t))
		assert.Equal(t, job, e.job(t, job.ID), "the stored job is the one Create returned")
		drain(t, e)
	})

	t.Run("a keyed create retried, or raced, queues its work once", func(t *testing.T) {
		in := upload("u-keyed")
		in.IdempotencyKey = "upload-1"
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			wg.Go(func() {
				job, _, err := e.jobs.Create(ctx, in)
				assert.NoError(t, err)
				if err == nil {
					ids[i] = job.ID
				}
			})
		}
		wg.Wait()
		again, created, err := e.jobs.Create(ctx, in)
		require.NoError(t, err)
		assert.False(t, created)
		for _, id := range ids {
			assert.Equal(t, again.ID, id)
		}
		assert.Equal(t, []string{again.ID}, e.queued(t), "one job, one task")
		drain(t, e)
	})

	t.Run("a crash before the create's transaction writes neither", func(t *testing.T) {
		e.db.arm("before")
		_, _, err := e.jobs.Create(ctx, upload("u-before"))
		require.ErrorIs(t, err, errCrash)
		page, err := e.jobs.ByUser("u-before").Page(ctx, "")
		require.NoError(t, err)
		assert.Empty(t, page.Items)
		assert.Empty(t, e.queued(t))
	})

	t.Run("a crash after the create's transaction wrote both", func(t *testing.T) {
		in := upload("u-after")
		in.IdempotencyKey = "upload-after"
		e.db.arm("after")
		_, _, err := e.jobs.Create(ctx, in)
		require.ErrorIs(t, err, errCrash)
		job, created, err := e.jobs.Create(ctx, in)
		require.NoError(t, err, "the client's retry finds the job")
		assert.False(t, created)
		assert.Equal(t, []string{job.ID}, e.queued(t), "and queues nothing more")
		drain(t, e)
	})

	t.Run("bad input writes nothing", func(t *testing.T) {
		in := upload("u-bad")
		in.FileSize = -1
		_, _, err := e.jobs.Create(ctx, in)
		wantInputError(t, err, "fileSize")
		assert.Empty(t, e.queued(t))
	})

	t.Run("a replay queues new work with the move", func(t *testing.T) {
		job := e.failedJob(t, "u-replay")
		replayed, err := e.jobs.Maintenance().Replay(ctx, job.ID)
		require.NoError(t, err)
		assert.Equal(t, jobs.StatusQueued, replayed.Status)
		require.NotNil(t, replayed.Error)
		assert.Equal(t, 1, replayed.Error.RetryCount)
		assert.Equal(t, 2, replayed.TaskCount)
		assert.NotEqual(t, job.TaskID, replayed.TaskID, "a new task: the first one is done")
		assert.Equal(t, []string{job.ID}, e.queued(t))
		drain(t, e)
	})

	t.Run("a crash before the replay's transaction applies neither", func(t *testing.T) {
		job := e.failedJob(t, "u-replay-before")
		e.db.arm("before")
		_, err := e.jobs.Maintenance().Replay(ctx, job.ID)
		require.ErrorIs(t, err, errCrash)
		assert.Equal(t, jobs.StatusFailed, e.job(t, job.ID).Status)
		assert.Empty(t, e.queued(t))
		_, err = e.jobs.Maintenance().Replay(ctx, job.ID)
		require.NoError(t, err, "the retry does it, once")
		assert.Equal(t, []string{job.ID}, e.queued(t))
		drain(t, e)
	})

	t.Run("a crash after the replay's transaction applied both", func(t *testing.T) {
		job := e.failedJob(t, "u-replay-after")
		e.db.arm("after")
		_, err := e.jobs.Maintenance().Replay(ctx, job.ID)
		require.ErrorIs(t, err, errCrash)
		assert.Equal(t, jobs.StatusQueued, e.job(t, job.ID).Status)
		assert.Equal(t, []string{job.ID}, e.queued(t))
		_, err = e.jobs.Maintenance().Replay(ctx, job.ID)
		var te *jobs.TransitionError
		require.ErrorAs(t, err, &te, "the caller's retry is refused by the job's status")
		assert.Equal(t, jobs.StatusQueued, te.Current)
		assert.Equal(t, []string{job.ID}, e.queued(t), "and queues nothing more")
		drain(t, e)
	})

	t.Run("replaying a job that is not FAILED is refused and writes nothing", func(t *testing.T) {
		job, _, err := e.jobs.Create(ctx, upload("u-refused"))
		require.NoError(t, err)
		drain(t, e)
		before := e.job(t, job.ID)
		_, err = e.jobs.Maintenance().Replay(ctx, job.ID)
		var te *jobs.TransitionError
		require.ErrorAs(t, err, &te)
		assert.ErrorIs(t, err, jobs.ErrInvalidTransition)
		assert.Equal(t, jobs.StatusQueued, te.Current)
		assert.Equal(t, before, e.job(t, job.ID))
		_, err = e.jobs.Maintenance().Replay(ctx, "k-missing")
		require.ErrorIs(t, err, jobs.ErrNotFound)
		_, err = e.jobs.Maintenance().Replay(ctx, "")
		wantInputError(t, err, "jobId")
		assert.Empty(t, e.queued(t))
	})
}

func TestCreateAndReplayQueueWorkInTheJobsTransactionAndACrashSplitsNeither(t *testing.T) {
	e, _ := fakeWorkEnv(t)
	createAndReplayQueueWork(t, e)
}

func TestIntegrationCreateAndReplayQueueWorkInTheJobsTransactionAndACrashSplitsNeither(t *testing.T) {
	createAndReplayQueueWork(t, localWorkEnv(t))
}

func TestWorkGoesToTheTasksTableTheCLIReadsByDefault(t *testing.T) {
	db := dynamotest.New()
	store := newStore(t, db, nil, jobs.Work(""))
	assert.Equal(t, tasks.DefaultTableName, store.Tasks().Schema().Name)
	assert.Nil(t, newStore(t, db, nil).Tasks(), "no queue unless asked")
	assert.Equal(t, jobs.DefaultLeaseDuration, store.Tasks().Options().LeaseDuration, "one lease: the job's")

	_, err := jobs.NewStore(db, nil, jobs.MaxAttempts(5), jobs.Work("", func(o *tasks.Options) { o.MaxAttempts = 5 }))
	wantInputError(t, err, "Options.Work.Tasks")
	_, err = jobs.NewStore(db, nil, jobs.Work("bad name!"))
	assert.ErrorIs(t, err, table.ErrInvalidInput)
}

func TestRecoverRequeuesWithNewWorkAndLeavesWorkerHeldJobsAlone(t *testing.T) {
	e, db := fakeWorkEnv(t, jobs.LeaseDuration(time.Minute))
	ctx := context.Background()
	job, _, err := e.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	drain(t, e) // a service that moves jobs itself: the task is not its way
	started, err := e.jobs.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	db.Advance(2 * time.Minute)
	res, err := e.jobs.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Requeued)
	got := e.job(t, job.ID)
	assert.Equal(t, jobs.StatusQueued, got.Status)
	assert.Equal(t, 2, got.TaskCount)
	assert.Equal(t, []string{job.ID}, e.queued(t), "the re-queued job has its work")
	_, err = e.jobs.Complete(ctx, started.Lease(), edit)
	assert.ErrorIs(t, err, jobs.ErrLeaseLost)
}

func TestSweepQueuesTheWorkOfJobsLeftWithoutIt(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	// A store of the same table without a work queue (an older service,
	// or the CLI before it queued work) creates one job and replays
	// another: both QUEUED, with no task.
	bare := newStore(t, w.db, nil, jobs.TableName(jobsTable), jobs.Clock(w.now))
	created, _, err := bare.Create(ctx, upload("u-bare"))
	require.NoError(t, err)
	replayed, _, err := bare.Create(ctx, upload("u-replayed"))
	require.NoError(t, err)
	started, err := bare.StartProcessing(ctx, replayed.ID)
	require.NoError(t, err)
	_, err = bare.Fail(ctx, started.Lease(), jobs.JobError{Code: "X", Message: "x"})
	require.NoError(t, err)
	_, err = bare.Maintenance().Replay(ctx, replayed.ID)
	require.NoError(t, err)
	// One whose task an operator cancelled.
	cancelled, _, err := w.jobs.Create(ctx, upload("u-cancelled"))
	require.NoError(t, err)
	require.NoError(t, w.tasks.Cancel(ctx, cancelled.TaskID, "by mistake"))
	// One with live work, which the sweep leaves alone.
	live, _, err := w.jobs.Create(ctx, upload("u-live"))
	require.NoError(t, err)
	w.fake.Advance(time.Minute)

	var stranded []string
	for job, err := range w.jobs.Maintenance().Stranded(ctx, jobs.MinAge(0)) {
		require.NoError(t, err)
		stranded = append(stranded, job.ID)
	}
	assert.ElementsMatch(t, []string{created.ID, replayed.ID, cancelled.ID}, stranded)
	assert.Equal(t, []string{live.ID}, w.queued(t), "listing writes nothing")

	res, err := w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
	require.NoError(t, err)
	assert.Equal(t, jobs.SweepResult{Found: 3, Queued: 3}, res)
	assert.ElementsMatch(t, []string{created.ID, replayed.ID, cancelled.ID, live.ID}, w.queued(t))
	again, err := w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
	require.NoError(t, err)
	assert.Equal(t, jobs.SweepResult{}, again, "a second sweep finds nothing")

	// A worker runs them all.
	w.start(t, "w1", editor)
	for _, id := range []string{created.ID, replayed.ID, cancelled.ID, live.ID} {
		w.waitStatus(t, id, jobs.StatusCompleted)
	}
}

func TestSweepTakesBackAJobInFlightWhoseTaskIsGone(t *testing.T) {
	for _, attempts := range []int{2, 1} {
		w := newJobWorld(t, jobs.MaxAttempts(attempts))
		ctx := context.Background()
		job, _, err := w.jobs.Create(ctx, upload("u1"))
		require.NoError(t, err)
		dying := w.startCrashing(t, "dies", func(c call) string { return when(c.op == "UpdateItem" && c.table == jobsTable, "after") }, editor)
		waitFor(t, "the crash", dying.conn.dead.Load)
		dying.stop()
		// The dead worker's task is finished by hand instead of taken
		// over: the job is PROCESSING with no live task.
		w.fake.Advance(2 * testLease)
		drain(t, w.workEnv)
		require.Equal(t, jobs.StatusProcessing, w.job(t, job.ID).Status)

		res, err := w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
		require.NoError(t, err)
		got := w.job(t, job.ID)
		if attempts == 1 {
			assert.Equal(t, jobs.SweepResult{Found: 1, Failed: 1}, res)
			assert.Equal(t, jobs.StatusFailed, got.Status, "its only attempt died")
			assert.Equal(t, jobs.LeaseExpiredCode, got.Error.Code)
			assert.Empty(t, w.queued(t))
			continue
		}
		assert.Equal(t, jobs.SweepResult{Found: 1, Queued: 1}, res)
		assert.Equal(t, jobs.StatusQueued, got.Status)
		assert.Equal(t, 2, got.TaskCount)
		assert.Equal(t, []string{job.ID}, w.queued(t))
	}
}

// TestSweepLeavesAJobWhoseTaskIsBeingProcessed: a task a worker holds is
// live work, whether the worker has started the job yet (the job still
// QUEUED, its task claimed) or is running it (the job EDITING under the
// task's lease, with no lease of its own). Sweep must not queue such a job
// again: a second task would run it twice. However old the job is (MinAge
// 0), Stranded lists neither, Sweep moves neither and queues no task, and
// the running job completes once.
func TestSweepLeavesAJobWhoseTaskIsBeingProcessed(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	claimed, _, err := w.jobs.Create(ctx, upload("u-claimed"))
	require.NoError(t, err)
	c, err := w.tasks.Claim(ctx, "slow-worker")
	require.NoError(t, err)
	require.Equal(t, claimed.TaskID, c.Task.ID)

	running, _, err := w.jobs.Create(ctx, upload("u-running"))
	require.NoError(t, err)
	editing, release := make(chan struct{}), make(chan struct{})
	w.start(t, "w1", func(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
		if _, err := a.StartEditing(ctx, analysis); err != nil {
			return jobs.EditResult{}, err
		}
		close(editing)
		<-release
		return edit, nil
	})
	<-editing
	require.Equal(t, jobs.StatusEditing, w.job(t, running.ID).Status)
	require.Equal(t, tasks.StatusProcessing, w.waitTask(t, running.TaskID, tasks.StatusProcessing).Status)

	for job, err := range w.jobs.Maintenance().Stranded(ctx, jobs.MinAge(0)) {
		require.NoError(t, err)
		assert.Fail(t, "a job with a task in hand is not stranded", "job %s (%s)", job.ID, job.Status)
	}
	res, err := w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
	require.NoError(t, err)
	assert.Equal(t, jobs.SweepResult{}, res)
	assert.Empty(t, w.queued(t), "no second task carries either job")
	assert.Equal(t, jobs.StatusQueued, w.job(t, claimed.ID).Status)
	assert.Equal(t, 1, w.job(t, claimed.ID).TaskCount)
	assert.Equal(t, 1, w.job(t, running.ID).TaskCount)

	close(release)
	w.waitStatus(t, running.ID, jobs.StatusCompleted)
	w.countTerminal(t)
	assert.Equal(t, 1, w.terminal[running.ID], "the running job completes once")
}

func TestSweepRefusesBadInputAndAStoreWithoutWork(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	_, err := w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(-time.Second))
	wantInputError(t, err, "SweepOptions.MinAge")
	_, err = w.jobs.Maintenance().Sweep(nil, jobs.MinAge(0)) //nolint:staticcheck // nil is what this checks
	wantInputError(t, err, "ctx")
	f := newFixture(t)
	_, err = f.store.Maintenance().Sweep(ctx)
	assert.ErrorIs(t, err, jobs.ErrNoWork)
	for _, err := range f.store.Maintenance().Stranded(ctx) {
		assert.ErrorIs(t, err, jobs.ErrNoWork)
	}
}

// TestAKeyedJobCreatedAgainWithinItsNamesakesMillisecondTakesItsTask: a
// keyed job deleted and created again within the millisecond of its
// createdAt names its namesake's first queuing again. The key vouched
// new is refused by the tasks table, so Create reads it after all, as a
// queuing did before keys were vouched for: the job is created, its work
// the pending task its namesake left, which carries its id; no second
// task.
func TestAKeyedJobCreatedAgainWithinItsNamesakesMillisecondTakesItsTask(t *testing.T) {
	e, _ := fakeWorkEnv(t)
	ctx := context.Background()
	in := upload("user-1")
	in.IdempotencyKey = "request-1"
	first, created, err := e.jobs.Create(ctx, in)
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, e.jobs.Delete(ctx, first.ID))

	again, created, err := e.jobs.Create(ctx, in)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, first.ID, again.ID, "the key's id")
	assert.Equal(t, first.TaskID, again.TaskID, "its namesake's task")
	assert.Equal(t, again, e.job(t, again.ID))
	assert.Equal(t, []string{first.ID}, e.queued(t), "one task")
}

// replayBehindTheTasksTable fails a job, replays it (its 2nd queuing),
// cancels that task and fails the job again, then sets the job's
// taskCount back to 1 as a jobs table restored to before the replay would
// hold it, and replays it: the vouched key 2 is refused by the tasks
// table, read, and its task becomes the job's work. It returns the job
// and that task's id.
func replayBehindTheTasksTable(t *testing.T, e *workEnv, raw table.API) (*jobs.Job, string) {
	t.Helper()
	ctx := context.Background()
	failed := func(id string) {
		t.Helper()
		started, err := e.jobs.StartProcessing(ctx, id)
		require.NoError(t, err)
		_, err = e.jobs.Fail(ctx, started.Lease(), jobs.JobError{Code: "X", Message: "x"})
		require.NoError(t, err)
	}
	job, _, err := e.jobs.Create(ctx, upload("u1"))
	require.NoError(t, err)
	failed(job.ID)
	replayed, err := e.jobs.Maintenance().Replay(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, 2, replayed.TaskCount)
	require.NoError(t, e.tasks.Cancel(ctx, replayed.TaskID, "done elsewhere"))
	failed(job.ID)

	tb := table.New(raw, e.jobs.Schema())
	require.NoError(t, tb.Update(ctx, tb.Key(job.ID), expression.Set(expression.Name("taskCount"), expression.Value(1)).
		Set(expression.Name("taskId"), expression.Value(job.TaskID))))

	back, err := e.jobs.Maintenance().Replay(ctx, job.ID)
	require.NoError(t, err, "a job whose next key was used is replayed")
	assert.Equal(t, jobs.StatusQueued, back.Status)
	assert.Equal(t, replayed.TaskID, back.TaskID, "the task its key made")
	assert.Equal(t, 2, back.TaskCount)
	return back, replayed.TaskID
}

// TestAJobWhoseTaskCountIsBehindTheTasksTableIsQueuedAgain: a jobs table
// restored to an earlier point in time than its tasks table holds jobs
// whose next queuing's key was used. Replay still queues them (the key
// read after the tasks table refused it), and a sweep then finds that
// task finished and queues the next, new key, which a worker runs.
func TestAJobWhoseTaskCountIsBehindTheTasksTableIsQueuedAgain(t *testing.T) {
	w := newJobWorld(t)
	ctx := context.Background()
	job, _ := replayBehindTheTasksTable(t, w.workEnv, w.fake)

	w.fake.Advance(time.Minute)
	res, err := w.jobs.Maintenance().Sweep(ctx, jobs.MinAge(0))
	require.NoError(t, err)
	assert.Equal(t, jobs.SweepResult{Found: 1, Queued: 1}, res, "its task was cancelled: new work")
	w.start(t, "w1", editor)
	w.waitStatus(t, job.ID, jobs.StatusCompleted)
	assert.Equal(t, 3, w.job(t, job.ID).TaskCount)
}

// TestIntegrationAJobWhoseTaskCountIsBehindTheTasksTableIsReplayed: the
// same on DynamoDB Local, whose cancellation reasons name the tasks
// table's refusal.
func TestIntegrationAJobWhoseTaskCountIsBehindTheTasksTableIsReplayed(t *testing.T) {
	e := localWorkEnv(t)
	replayBehindTheTasksTable(t, e, e.db.API)
}
