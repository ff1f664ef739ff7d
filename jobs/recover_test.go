package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/compared"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

const lease = time.Minute

// leaseEnv is where a lease scenario runs: the fake, or DynamoDB Local with
// a fake used only as the clock (DynamoDB Local has none to share).
type leaseEnv struct {
	db    *hookDB
	clock *dynamotest.DB
	name  string
}

// hookDB runs a function once, just before the next UpdateItem it is
// armed for: the interleaving "read, then someone else writes, then write".
type hookDB struct {
	table.API
	mu     sync.Mutex
	before func()
}

func (h *hookDB) arm(f func()) { h.mu.Lock(); h.before = f; h.mu.Unlock() }

func (h *hookDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	h.mu.Lock()
	f := h.before
	h.before = nil
	h.mu.Unlock()
	if f != nil {
		f()
	}
	return h.API.UpdateItem(ctx, in, opts...)
}

func fakeLeaseEnv(t *testing.T) leaseEnv {
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	return leaseEnv{db: &hookDB{API: db}, clock: db, name: "photoeditor-test-jobs"}
}

func localLeaseEnv(t *testing.T) leaseEnv {
	client := compared.DynamoDB(t)
	name := testenv.TableName(t, "jobs")
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	now := time.Now().UTC().Truncate(time.Millisecond)
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return now } })
	return leaseEnv{db: &hookDB{API: client}, clock: clock, name: name}
}

// store is a jobs store on e; the first call creates the table.
func (e leaseEnv) store(t *testing.T, opts ...func(*jobs.Options)) *jobs.Store {
	t.Helper()
	all := append([]func(*jobs.Options){func(o *jobs.Options) {
		o.TableName = e.name
		o.Clock = e.clock.Now
		o.LeaseDuration = lease
	}}, opts...)
	store := newStore(t, e.db, blobstore.NewMemory(), all...)
	require.NoError(t, store.Table().Schema().EnsureTable(context.Background(), e.db))
	return store
}

func TestWorkerKilledAfterStartProcessingIsRecoveredAndCompletedByAnother(t *testing.T) {
	killedWorker(t, fakeLeaseEnv(t))
}

func TestIntegrationWorkerKilledAfterStartProcessingIsRecoveredAndCompletedByAnother(t *testing.T) {
	killedWorker(t, localLeaseEnv(t))
}

func killedWorker(t *testing.T, e leaseEnv) {
	ctx := context.Background()
	store := e.store(t)
	job, _, err := createJob(store, "u1")
	require.NoError(t, err)

	killed, err := store.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, killed.Attempt)
	assert.Equal(t, e.clock.Now().Add(lease), killed.LeaseExpiresAt)

	// Before the lease runs out, recovery leaves the job alone.
	e.clock.Advance(lease - time.Second)
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs.RecoverResult{}, res)

	// The worker died: nobody renews the lease.
	e.clock.Advance(2 * time.Second)
	res, err = store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs.RecoverResult{Found: 1, Requeued: 1}, res)
	requeued, err := store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusQueued, requeued.Status)
	assert.Equal(t, 1, requeued.Attempt)
	assert.True(t, requeued.LeaseExpiresAt.IsZero(), "a queued job holds no lease")
	assert.True(t, requeued.ProcessingStartedAt.IsZero(), "the dead attempt's start time is gone")

	// Another worker takes it and finishes it.
	other, err := store.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, other.Attempt)
	_, err = store.StartEditing(ctx, other.Lease(), analysis)
	require.NoError(t, err)

	// The first worker comes back to life: every move under its lease is
	// refused, and the refusal carries the job as it is.
	_, err = store.Complete(ctx, killed.Lease(), edit)
	var te *jobs.TransitionError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, jobs.ErrLeaseLost)
	assert.True(t, te.LeaseLost)
	require.NotNil(t, te.Job)
	assert.Equal(t, 2, te.Job.Attempt)
	assert.Equal(t, jobs.StatusEditing, te.Job.Status)
	_, err = store.Heartbeat(ctx, killed.Lease())
	assert.ErrorIs(t, err, jobs.ErrLeaseLost)

	done, err := store.Complete(ctx, other.Lease(), edit)
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusCompleted, done.Status)
	assert.True(t, done.LeaseExpiresAt.IsZero())
	assert.Nil(t, done.Error)
}

func TestRenewingWorkerIsNeverRecovered(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t)
	started := startJob(t, store)

	l := started.Lease()
	for i := range 20 {
		e.clock.Advance(lease / 3)
		if i == 10 {
			// A move renews the lease too.
			editing, err := store.StartEditing(ctx, l, nil)
			require.NoError(t, err)
			l = editing.Lease()
		} else {
			var err error
			l, err = store.Heartbeat(ctx, l)
			require.NoError(t, err)
		}
		assert.Equal(t, e.clock.Now().Add(lease), l.ExpiresAt)
		res, err := store.Maintenance().Recover(ctx)
		require.NoError(t, err)
		require.Equal(t, jobs.RecoverResult{}, res, "round %d", i)
	}
	done, err := store.Complete(ctx, l, edit)
	require.NoError(t, err)
	assert.Equal(t, 1, done.Attempt)
}

func TestRecoverFailsTheJobAfterItsLastAttemptAndReplayGrantsMore(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t, func(o *jobs.Options) { o.MaxAttempts = 2 })
	job, _, err := createJob(store, "u1")
	require.NoError(t, err)

	dieOnce := func() jobs.RecoverResult {
		t.Helper()
		_, err := store.StartProcessing(ctx, job.ID)
		require.NoError(t, err)
		e.clock.Advance(lease)
		res, err := store.Maintenance().Recover(ctx)
		require.NoError(t, err)
		return res
	}
	assert.Equal(t, jobs.RecoverResult{Found: 1, Requeued: 1}, dieOnce())
	assert.Equal(t, jobs.RecoverResult{Found: 1, Failed: 1}, dieOnce())

	failed, err := store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusFailed, failed.Status)
	require.NotNil(t, failed.Error)
	assert.Equal(t, jobs.LeaseExpiredCode, failed.Error.Code)
	assert.Equal(t, e.clock.Now(), failed.ProcessingCompletedAt)

	// A replay grants MaxAttempts more; the attempt counter goes on.
	replayed, err := store.Maintenance().Replay(ctx, job.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, replayed.AttemptsAtReplay)
	assert.Equal(t, jobs.RecoverResult{Found: 1, Requeued: 1}, dieOnce())
	assert.Equal(t, jobs.RecoverResult{Found: 1, Failed: 1}, dieOnce())
	last, err := store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, 4, last.Attempt)
	assert.Equal(t, 1, last.Error.RetryCount, "the replay is counted, the recoveries are attempts")
}

func TestFailIsReachableFromEveryInFlightStatus(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	for _, editing := range []bool{false, true} {
		job := f.create(t, "u1")
		started, err := f.store.StartProcessing(ctx, job.ID)
		require.NoError(t, err)
		if editing {
			_, err = f.store.StartEditing(ctx, started.Lease(), nil)
			require.NoError(t, err)
		}
		failed, err := f.store.Fail(ctx, started.Lease(), jobs.JobError{Code: "DOWNLOAD", Message: "temp object missing"})
		require.NoError(t, err)
		assert.Equal(t, jobs.StatusFailed, failed.Status)
		assert.True(t, failed.LeaseExpiresAt.IsZero())
	}
	assert.True(t, jobs.StatusProcessing.CanMoveTo(jobs.StatusFailed))
	assert.True(t, jobs.StatusEditing.CanMoveTo(jobs.StatusFailed))
}

func TestTransitionErrorCarriesTheJobWithoutASecondRead(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	job := f.create(t, "u1")
	started, err := f.store.StartProcessing(ctx, job.ID)
	require.NoError(t, err)
	f.db.ResetCalls()
	_, err = f.store.StartProcessing(ctx, job.ID)
	var te *jobs.TransitionError
	require.ErrorAs(t, err, &te)
	require.NotNil(t, te.Job)
	assert.Equal(t, *started, *te.Job)
	assert.Zero(t, f.db.Calls("GetItem"))
	assert.Equal(t, 1, f.db.Calls("UpdateItem"))
}

func TestRecoverReadsOnlyInFlightJobsOlderThanOneLease(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t)
	var old []string
	for range 3 {
		j, _, err := createJob(store, "u1")
		require.NoError(t, err)
		_, err = store.StartProcessing(ctx, j.ID)
		require.NoError(t, err)
		old = append(old, j.ID)
	}
	for range 4 { // queued: never read
		_, _, err := createJob(store, "u2")
		require.NoError(t, err)
	}
	e.clock.Advance(lease)
	for range 5 { // in flight, younger than a lease: outside the key condition
		j, _, err := createJob(store, "u3")
		require.NoError(t, err)
		_, err = store.StartProcessing(ctx, j.ID)
		require.NoError(t, err)
	}
	e.clock.ResetCalls()
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs.RecoverResult{Found: 3, Requeued: 3}, res)
	assert.Equal(t, 2, e.clock.Calls("Query"), "one query per in-flight status")
	assert.Equal(t, 3, e.clock.Calls("UpdateItem"))
	for _, id := range old {
		j, err := store.Get(ctx, id, jobs.Consistent())
		require.NoError(t, err)
		assert.Equal(t, jobs.StatusQueued, j.Status)
	}
}

func TestRecoverTakesBackAnInFlightJobWrittenWithoutALease(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t)
	// A job a pre-lease worker moved to PROCESSING: the seed's own
	// UpdateItem, status and updatedAt only.
	job, _, err := createJob(store, "u1")
	require.NoError(t, err)
	seedMove := expression.Set(expression.Name("status"), expression.Value(jobs.StatusProcessing)).
		Set(expression.Name("updatedAt"), expression.Value(e.clock.Now().UnixMilli()))
	require.NoError(t, store.Table().Update(ctx, store.Table().Key(job.ID), seedMove, table.IfExists()))
	e.clock.Advance(lease - time.Millisecond)
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Zero(t, res.Found)
	e.clock.Advance(time.Millisecond)
	res, err = store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs.RecoverResult{Found: 1, Requeued: 1}, res)
}

func TestRecoveryRacingAHeartbeatLosesToIt(t *testing.T) {
	raceHeartbeat(t, fakeLeaseEnv(t))
}

func TestIntegrationRecoveryRacingAHeartbeatLosesToIt(t *testing.T) {
	raceHeartbeat(t, localLeaseEnv(t))
}

// raceHeartbeat: Recover reads the expired job, the worker renews, then
// Recover writes: its condition on the lease it read refuses the write.
func raceHeartbeat(t *testing.T, e leaseEnv) {
	ctx := context.Background()
	var logs bytes.Buffer
	store := e.store(t, func(o *jobs.Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	started := startJob(t, store)

	e.clock.Advance(lease + time.Second)

	var renewed jobs.Lease
	e.db.arm(func() {
		var err error
		renewed, err = store.Heartbeat(ctx, started.Lease())
		require.NoError(t, err)
	})
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs.RecoverResult{Found: 1, Skipped: 1}, res)
	assert.Contains(t, logs.String(), "left alone")

	got, err := store.Get(ctx, started.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusProcessing, got.Status)
	assert.Equal(t, renewed, got.Lease())
	_, err = store.StartEditing(ctx, renewed, nil)
	require.NoError(t, err)
	done, err := store.Complete(ctx, renewed, edit)
	require.NoError(t, err)
	assert.Equal(t, 1, done.Attempt)
}

func TestRecoveryRacingCompleteLosesToIt(t *testing.T) {
	raceComplete(t, fakeLeaseEnv(t))
}

func TestIntegrationRecoveryRacingCompleteLosesToIt(t *testing.T) {
	raceComplete(t, localLeaseEnv(t))
}

// raceComplete: Recover reads the expired job, the slow worker completes
// it after all, then Recover writes and is refused: the job stays
// COMPLETED, once.
func raceComplete(t *testing.T, e leaseEnv) {
	ctx := context.Background()
	store := e.store(t)
	started := startJob(t, store)

	_, err := store.StartEditing(ctx, started.Lease(), nil)
	require.NoError(t, err)
	e.clock.Advance(lease + time.Second)
	e.db.arm(func() {
		_, err := store.Complete(ctx, started.Lease(), edit)
		require.NoError(t, err)
	})
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, jobs.RecoverResult{Found: 1, Skipped: 1}, res)
	got, err := store.Get(ctx, started.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusCompleted, got.Status)
	assert.Equal(t, 1, got.Attempt)
}

func TestRecoveryFirstThenTheWorkerLosesItsLease(t *testing.T) {
	ctx := context.Background()
	e := fakeLeaseEnv(t)
	store := e.store(t)
	started := startJob(t, store)

	e.clock.Advance(lease)
	res, err := store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, res.Requeued)
	for name, call := range map[string]func() error{
		"Heartbeat":    func() error { _, err := store.Heartbeat(ctx, started.Lease()); return err },
		"StartEditing": func() error { _, err := store.StartEditing(ctx, started.Lease(), nil); return err },
		"Fail": func() error {
			_, err := store.Fail(ctx, started.Lease(), jobs.JobError{Code: "C", Message: "m"})
			return err
		},
	} {
		err := call()
		var te *jobs.TransitionError
		require.ErrorAs(t, err, &te, name)
		assert.Equal(t, jobs.StatusQueued, te.Current, name)
	}
	got, err := store.Get(ctx, started.ID, jobs.Consistent())
	require.NoError(t, err)
	assert.Equal(t, jobs.StatusQueued, got.Status)
	assert.Nil(t, got.Error)
}

func TestRecoveryRacingWorkersConcurrentlyNeverDoublesAnOutcome(t *testing.T) {
	concurrentRace(t, fakeLeaseEnv(t), 40)
}

func TestIntegrationRecoveryRacingWorkersConcurrentlyNeverDoublesAnOutcome(t *testing.T) {
	concurrentRace(t, localLeaseEnv(t), 20)
}

// concurrentRace: n expired jobs, each with a worker that heartbeats and
// completes, while four recoverers run at once. Per job exactly one side
// wins: the worker completed it (COMPLETED, attempt 1), or a recoverer
// re-queued it and every later worker call was refused.
func concurrentRace(t *testing.T, e leaseEnv, n int) {
	ctx := context.Background()
	store := e.store(t)
	leases := make([]jobs.Lease, n)
	for i := range n {
		job, _, err := createJob(store, "u1")
		require.NoError(t, err)
		started, err := store.StartProcessing(ctx, job.ID)
		require.NoError(t, err)
		leases[i] = started.Lease()
	}
	e.clock.Advance(lease)

	var (
		wg        sync.WaitGroup
		completed = make([]bool, n)
		requeued  atomic.Int64
		start     = make(chan struct{})
	)
	for i, l := range leases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			l, err := store.Heartbeat(ctx, l)
			if err == nil {
				_, err = store.StartEditing(ctx, l, nil)
			}
			if err == nil {
				_, err = store.Complete(ctx, l, edit)
			}
			assert.Falsef(t, err != nil && !errors.Is(err, jobs.ErrInvalidTransition) && !errors.Is(err, jobs.ErrLeaseLost), "worker %d: %v", i, err)
			completed[i] = err == nil
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := store.Maintenance().Recover(ctx)
			assert.NoError(t, err)
			requeued.Add(int64(res.Requeued))
		}()
	}
	close(start)
	wg.Wait()

	done := 0
	for i, l := range leases {
		got, err := store.Get(ctx, l.JobID, jobs.Consistent())
		require.NoError(t, err)
		if completed[i] {
			done++
			assert.Equal(t, jobs.StatusCompleted, got.Status, "job %d", i)
		} else {
			assert.Equal(t, jobs.StatusQueued, got.Status, "job %d", i)
		}
		assert.Equal(t, 1, got.Attempt)
	}
	assert.Equal(t, int64(n-done), requeued.Load(), "every job not completed was re-queued exactly once")
}

// createJob is Create with the test upload.
func createJob(store *jobs.Store, user string) (*jobs.Job, bool, error) {
	return store.Create(context.Background(), upload(user))
}

// startJob creates a job and starts it, as a worker that took it would.
func startJob(t *testing.T, store *jobs.Store) *jobs.Job {
	t.Helper()
	job, _, err := createJob(store, "u1")
	require.NoError(t, err)
	started, err := store.StartProcessing(context.Background(), job.ID)
	require.NoError(t, err)
	return started
}

// TestALateWorkerGetsExactlyTheErrorsRecoverPromises: every move a worker
// makes under a lease Recover took is refused, writes nothing, and says
// why: ErrLeaseLost whatever became of the job, ErrNotFound once it is
// gone, ErrInvalidTransition only for a move the worker's own earlier move
// ruled out.
func TestALateWorkerGetsExactlyTheErrorsRecoverPromises(t *testing.T) {
	const lease = time.Minute
	ctx := context.Background()
	failure := jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "slow"}
	lateMoves := func(f *fixture, l jobs.Lease) map[string]func() error {
		return map[string]func() error{
			"Heartbeat":    func() error { _, err := f.store.Heartbeat(ctx, l); return err },
			"StartEditing": func() error { _, err := f.store.StartEditing(ctx, l, analysis); return err },
			"Complete":     func() error { _, err := f.store.Complete(ctx, l, edit); return err },
			"Fail":         func() error { _, err := f.store.Fail(ctx, l, failure); return err },
		}
	}
	for _, c := range []struct {
		name string
		// then makes what happens to the job after its worker died; it
		// returns the error every late move must match.
		then func(t *testing.T, f *fixture, id string) error
	}{
		{"recovered to QUEUED", func(t *testing.T, f *fixture, id string) error {
			f.db.Advance(2 * lease)
			res, err := f.store.Maintenance().Recover(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, res.Requeued)
			return jobs.ErrLeaseLost
		}},
		{"recovered to FAILED after its last attempt", func(t *testing.T, f *fixture, id string) error {
			f.db.Advance(2 * lease)
			res, err := f.store.Maintenance().Recover(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, res.Failed)
			return jobs.ErrLeaseLost
		}},
		{"recovered, then started and completed by another worker", func(t *testing.T, f *fixture, id string) error {
			f.db.Advance(2 * lease)
			_, err := f.store.Maintenance().Recover(ctx)
			require.NoError(t, err)
			other := moved(t)(f.store.StartProcessing(ctx, id))
			other = moved(t)(f.store.StartEditing(ctx, other.Lease(), analysis))
			moved(t)(f.store.Complete(ctx, other.Lease(), edit))
			return jobs.ErrLeaseLost
		}},
		{"deleted", func(t *testing.T, f *fixture, id string) error {
			require.NoError(t, f.store.Delete(ctx, id))
			return jobs.ErrNotFound
		}},
		{"failed by the worker itself", func(t *testing.T, f *fixture, id string) error {
			moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, id), failure))
			return jobs.ErrInvalidTransition
		}},
	} {
		attempts := 3
		if c.name == "recovered to FAILED after its last attempt" {
			attempts = 1
		}
		f := newFixture(t, jobs.LeaseDuration(lease), jobs.MaxAttempts(attempts))
		job := f.create(t, "u1")
		started := moved(t)(f.store.StartProcessing(ctx, job.ID))
		want := c.then(t, f, job.ID)
		before := f.getRaw(t, job.ID)
		for name, move := range lateMoves(f, started.Lease()) {
			err := move()
			require.ErrorIsf(t, err, want, "%s: late %s", c.name, name)
			if want == jobs.ErrLeaseLost {
				var te *jobs.TransitionError
				require.ErrorAs(t, err, &te)
				assert.Truef(t, te.LeaseLost, "%s: late %s", c.name, name)
				assert.NotErrorIsf(t, err, jobs.ErrInvalidTransition, "%s: late %s", c.name, name)
				assert.ErrorIsf(t, err, table.ErrConditionFailed, "%s: late %s", c.name, name)
			}
			if want == jobs.ErrInvalidTransition {
				assert.NotErrorIsf(t, err, jobs.ErrLeaseLost, "%s: late %s", c.name, name)
			}
		}
		assert.Equalf(t, before, f.getRaw(t, job.ID), "%s: the late moves wrote nothing", c.name)
	}
}

func TestExpiredListsWhatRecoverWouldMoveAndWritesNothing(t *testing.T) {
	f := newFixture(t, jobs.LeaseDuration(time.Minute))
	ctx := context.Background()
	dead := f.create(t, "u1")
	alive := f.create(t, "u2")
	moved(t)(f.store.StartProcessing(ctx, dead.ID))
	f.db.Advance(30 * time.Second)
	renewing := moved(t)(f.store.StartProcessing(ctx, alive.ID))
	f.db.Advance(40 * time.Second)
	_, err := f.store.Heartbeat(ctx, renewing.Lease())
	require.NoError(t, err)
	list := func() []string {
		var ids []string
		for j, err := range f.store.Maintenance().Expired(ctx) {
			require.NoError(t, err)
			ids = append(ids, j.ID)
		}
		return ids
	}
	writes := func() int { return f.db.Calls("UpdateItem") + f.db.Calls("PutItem") + f.db.Calls("TransactWriteItems") }
	before := writes()
	assert.Equal(t, []string{dead.ID}, list(), "the dead worker's job, not the renewing one's")
	assert.Equal(t, before, writes(), "listing writes nothing")
	res, err := f.store.Maintenance().Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Requeued)
	assert.Empty(t, list())
	for _, err := range (*jobs.Store)(nil).Maintenance().Expired(ctx) {
		assert.ErrorIs(t, err, jobs.ErrNoStore)
	}
}
