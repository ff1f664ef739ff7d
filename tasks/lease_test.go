package tasks_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestHeartbeatExtendsLeaseAndKeepsTheTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "long job")
	c := f.claim(t, "w1")
	f.db.Advance(20 * time.Second)
	lease, err := f.store.Heartbeat(ctx, c.Lease)
	require.NoError(t, err)
	want := f.db.Now().Add(tasks.DefaultLeaseDuration)
	assert.True(t, lease.ExpiresAt.Equal(want), "lease expires %v, want %v", lease.ExpiresAt, want)
	stored := f.get(t, task.ID)
	assert.True(t, stored.LeaseExpiresAt.Equal(want), "stored lease expires %v, want %v", stored.LeaseExpiresAt, want)
	assert.Equal(t, "w1", stored.Owner)
	assert.Equal(t, 1, stored.Attempt)
	claimItem := f.raw(t, "WORKER#w1", "TASK#"+task.ID)
	assert.Equal(t, want.Format("2006-01-02T15:04:05.000000Z"), str(claimItem, "leaseExpiresAt"), "the claim item holds the lease")
	meta := f.raw(t, "TASK#"+task.ID, "META")
	assert.Equal(t, "LEASE#"+c.Lease.ExpiresAt.Format("2006-01-02T15:04:05.000000Z"), str(meta, "GSI1SK"),
		"the index entry keeps the claim's expiry: a heartbeat writes the claim item alone")

	// Past the first expiry, but not the extended one: nobody takes it,
	// and the claim that found it moves its index entry to the lease's
	// expiry, so claims stop reading it.
	f.db.Advance(20 * time.Second)
	_, err = f.store.Claim(ctx, "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask, "claim of a heartbeating task")
	meta = f.raw(t, "TASK#"+task.ID, "META")
	assert.Equal(t, "LEASE#"+want.Format("2006-01-02T15:04:05.000000Z"), str(meta, "GSI1SK"), "the index entry moved to the lease")
	require.NoError(t, f.store.Complete(ctx, lease, nil))
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
}

func TestExpiredLeaseIsTakenOverByNextClaim(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "crashy")
	old := f.claim(t, "w-dead")
	f.db.Advance(tasks.DefaultLeaseDuration)
	c := f.claim(t, "w-alive")
	assert.Equal(t, task.ID, c.Task.ID)
	assert.Equal(t, 2, c.Lease.Attempt)
	assert.Equal(t, 4, c.Lease.Seq)
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)
	assert.Equal(t, "w-dead", h[2].Worker)
	assert.Equal(t, 1, h[2].Attempt)
	assert.Equal(t, "w-alive", h[3].Worker)
	assert.Equal(t, 2, h[3].Attempt)
	ids, err := f.store.Maintenance().WorkerTasks(ctx, "w-dead")
	require.NoError(t, err)
	assert.Empty(t, ids, "the dead worker still has claims")

	// The old owner comes back: its heartbeat, completion and failure are
	// refused, and nothing changes.
	before := f.get(t, task.ID)
	_, err = f.store.Heartbeat(ctx, old.Lease)
	var lost *tasks.LeaseLostError
	require.ErrorAs(t, err, &lost, "late heartbeat")
	assert.ErrorIs(t, err, tasks.ErrLeaseLost)
	assert.Equal(t, "w-alive", lost.Owner)
	assert.Equal(t, 2, lost.Attempt)
	err = f.store.Complete(ctx, old.Lease, []byte("late"))
	require.ErrorAs(t, err, &lost, "late completion")
	assert.Equal(t, tasks.StatusProcessing, lost.Status)
	assert.Equal(t, "w-alive", lost.Owner)
	_, err = f.store.Fail(ctx, old.Lease, "late")
	require.ErrorIs(t, err, tasks.ErrLeaseLost, "late failure")
	assert.Equal(t, before, f.get(t, task.ID), "a refused late call changed the task")

	require.NoError(t, f.store.Complete(ctx, c.Lease, []byte("done")))
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, "done", string(got.Result))
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
	assert.Empty(t, heldClaims(t, f.store), "WORKER items left")
}

func TestSameWorkerReclaimsItsOwnExpiredTask(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "x")
	f.claim(t, "w1")
	f.db.Advance(time.Minute)
	c := f.claim(t, "w1")
	assert.Equal(t, 2, c.Lease.Attempt)
	require.Len(t, claimItems(t, f.store.Table()), 1, "the worker's claim item is replaced, not doubled")
	require.NoError(t, f.store.Complete(context.Background(), c.Lease, nil))
	assert.Empty(t, heldClaims(t, f.store), "WORKER items left")
	assert.Equal(t, tasks.StatusCompleted, f.get(t, task.ID).Status)
}

func TestLateCompletionBeforeAnyTakeoverIsAccepted(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "slow")
	c := f.claim(t, "w1")
	f.db.Advance(time.Hour) // expired, but nobody has taken it
	require.NoError(t, f.store.Complete(context.Background(), c.Lease, []byte("late but first")),
		"completion of an expired but untaken lease")
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusCompleted, got.Status)
	assert.Equal(t, "late but first", string(got.Result))
	assert.Equal(t, 1, got.Attempt)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
}

func TestReclaimExpiredMovesTasksBackToPending(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	expiring := f.submit(t, "a")
	f.claim(t, "w1")
	f.db.Advance(10 * time.Second)
	live := f.submit(t, "b")
	f.claim(t, "w2")
	f.db.Advance(tasks.DefaultLeaseDuration - 5*time.Second) // w1's lease is over, w2's is not
	n, err := f.store.Maintenance().ReclaimExpired(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	got := f.get(t, expiring.ID)
	assert.Equal(t, tasks.StatusPending, got.Status)
	assert.Empty(t, got.Owner)
	assert.Contains(t, got.LastError, "w1")
	assert.Equal(t, tasks.StatusProcessing, f.get(t, live.ID).Status, "a live lease was reclaimed")
	meta := f.raw(t, "TASK#"+expiring.ID, "META")
	assert.Equal(t, "STATUS#PENDING", str(meta, "GSI1PK"))
	wantHistory(t, f.history(t, expiring.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired)
	page, err := f.store.Maintenance().Pending().Page(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, expiring.ID, page.Items[0].ID)
	ids, err := f.store.Maintenance().WorkerTasks(ctx, "w1")
	require.NoError(t, err)
	assert.Empty(t, ids, "w1 still holds tasks")
}

func TestExpiredLeaseOnLastAttemptMakesTaskDead(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 2 })
	task := f.submit(t, "poison")
	for _, w := range []string{"w1", "w2"} {
		f.claim(t, w)
		f.db.Advance(time.Minute)
	}
	// The next claim finds the task expired on its last attempt: it moves
	// it to DEAD instead of handing it out.
	_, err := f.store.Claim(context.Background(), "w3")
	require.ErrorIs(t, err, tasks.ErrNoTask)
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusDead, got.Status)
	assert.Equal(t, 2, got.Attempt)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired,
		tasks.EventProcessing, tasks.EventLeaseExpired)
	assert.Equal(t, "STATUS#DEAD", str(f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK"))
	assert.Empty(t, heldClaims(t, f.store), "WORKER items left")
}

// interleave runs hook once, just before the first transaction sent
// through it: after the call that sends it has read what it will change,
// before it writes. It is how the race tests below put another worker's
// write in that gap, every time.
type interleave struct {
	table.API
	once sync.Once
	hook func()
}

func (i *interleave) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	i.once.Do(i.hook)
	return i.API.TransactWriteItems(ctx, in, opts...)
}

// UpdateItem: the claim of a PENDING task is a conditional UpdateItem.
func (i *interleave) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	i.once.Do(i.hook)
	return i.API.UpdateItem(ctx, in, opts...)
}

// heartbeatRace sets up the race the claim guard exists for: w1 holds a
// task whose lease has just run out, and a store built on the returned
// interleave reads the expired lease, then w1 heartbeats, then that store
// writes. It returns the task, w1's lease after its heartbeat, and the
// racing store.
func heartbeatRace(t *testing.T, f *fixture, opts ...func(*tasks.Options)) (*tasks.Task, *tasks.Lease, *tasks.Store) {
	t.Helper()
	task := f.submit(t, "long job")
	c := f.claim(t, "w1")
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	renewed := &tasks.Lease{}
	race := &interleave{API: f.db, hook: func() {
		l, err := f.store.Heartbeat(context.Background(), c.Lease)
		require.NoError(t, err, "w1's heartbeat, before anyone took the task")
		*renewed = l
	}}
	return task, renewed, newStore(t, race, f.db.Now, opts...)
}

// heartbeatWon asserts that w1's heartbeat won the race: w1 still holds
// the task on its first attempt under the renewed lease, nothing else was
// recorded, and w1 can complete it.
func heartbeatWon(t *testing.T, f *fixture, task *tasks.Task, renewed *tasks.Lease) {
	t.Helper()
	got := f.get(t, task.ID)
	assert.Equal(t, tasks.StatusProcessing, got.Status)
	assert.Equal(t, "w1", got.Owner, "the heartbeating owner lost its task")
	assert.Equal(t, 1, got.Attempt)
	assert.True(t, got.LeaseExpiresAt.Equal(renewed.ExpiresAt), "lease expires %v, want the heartbeat's %v", got.LeaseExpiresAt, renewed.ExpiresAt)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	ids, err := f.store.Maintenance().WorkerTasks(context.Background(), "w1")
	require.NoError(t, err)
	assert.Equal(t, []string{task.ID}, ids)
	require.NoError(t, f.store.Complete(context.Background(), *renewed, []byte("done")), "w1 completes under its renewed lease")
	assert.Equal(t, tasks.StatusCompleted, f.get(t, task.ID).Status)
	assert.Empty(t, heldClaims(t, f.store))
}

// A takeover that read the expired lease before the owner's heartbeat and
// writes after it must fail: the claim is conditioned on the lease being
// as read (owner and expiry), and the heartbeat moved the expiry.
func TestClaimOfExpiredLeaseLosesToHeartbeatBetweenReadAndWrite(t *testing.T) {
	f := newFixture(t)
	task, renewed, racer := heartbeatRace(t, f)
	_, err := racer.Claim(context.Background(), "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask, "the stale takeover must lose and find nothing else")
	wantConflict(t, err, tasks.ClaimConflictError{Worker: "w2", TaskID: task.ID, Status: tasks.StatusProcessing, Owner: "w1", Attempt: 1})
	heartbeatWon(t, f, task, renewed)
	ids, err := f.store.Maintenance().WorkerTasks(context.Background(), "w2")
	require.NoError(t, err)
	assert.Empty(t, ids, "the stale takeover left a WORKER item")
}

func TestReclaimExpiredLosesToHeartbeatBetweenReadAndWrite(t *testing.T) {
	f := newFixture(t)
	task, renewed, racer := heartbeatRace(t, f)
	n, err := racer.Maintenance().ReclaimExpired(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "a heartbeating task was reclaimed")
	heartbeatWon(t, f, task, renewed)
}

// On the last attempt an expired lease makes the task DEAD; a heartbeat
// between the read and that write must keep it alive.
func TestExpiryOnLastAttemptLosesToHeartbeatBetweenReadAndWrite(t *testing.T) {
	oneAttempt := func(o *tasks.Options) { o.MaxAttempts = 1 }
	f := newFixture(t, oneAttempt)
	task, renewed, racer := heartbeatRace(t, f, oneAttempt)
	_, err := racer.Claim(context.Background(), "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask)
	heartbeatWon(t, f, task, renewed)
}

// A pending task claimed by another worker between a claim's read and
// its write: the late claim fails, reporting what it found, and the first
// worker keeps the task. The loser learns the status from its refused
// write (ALL_OLD), not from a read of its own.
func TestClaimOfPendingTaskLosesToClaimBetweenReadAndWrite(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := f.submit(t, "contended")
	var first *tasks.Claim
	reads := &countReads{API: f.db}
	race := &interleave{API: reads, hook: func() { first = f.claim(t, "w1") }}
	racer := newStore(t, race, f.db.Now)
	_, err := racer.Maintenance().ShardCount(ctx) // the racer's one read of the table's CONFIG, done
	require.NoError(t, err)
	reads.n.Store(0)
	_, err = racer.Claim(ctx, "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask)
	require.ErrorIs(t, err, table.ErrConditionFailed)
	wantConflict(t, err, tasks.ClaimConflictError{Worker: "w2", TaskID: task.ID, Status: tasks.StatusProcessing, Owner: "w1", Attempt: 1})
	assert.Zero(t, reads.n.Load(), "the loser read the task to say what it found")
	require.NotNil(t, first)
	got := f.get(t, task.ID)
	assert.Equal(t, "w1", got.Owner)
	assert.Equal(t, 1, got.Attempt)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing)
	assert.Len(t, claimItems(t, f.store.Table()), 1)
}

// Two workers take over one expired lease: the one whose transaction
// comes second is refused, and reports the task held by the other on the
// attempt the takeover began.
func TestClaimOfExpiredLeaseLosesToTakeoverBetweenReadAndWrite(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "orphan")
	f.claim(t, "w-dead")
	f.db.Advance(tasks.DefaultLeaseDuration + time.Second)
	var first *tasks.Claim
	race := &interleave{API: f.db, hook: func() { first = f.claim(t, "w1") }}
	_, err := newStore(t, race, f.db.Now).Claim(context.Background(), "w2")
	require.ErrorIs(t, err, tasks.ErrNoTask)
	wantConflict(t, err, tasks.ClaimConflictError{Worker: "w2", TaskID: task.ID, Status: tasks.StatusProcessing, Owner: "w1", Attempt: 2})
	require.NotNil(t, first)
	assert.Equal(t, "w1", f.get(t, task.ID).Owner)
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)
}

// A claim whose task was cancelled between its read and its write.
func TestClaimOfPendingTaskLosesToCancelBetweenReadAndWrite(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "withdrawn")
	race := &interleave{API: f.db, hook: func() { require.NoError(t, f.store.Cancel(context.Background(), task.ID, "not needed")) }}
	_, err := newStore(t, race, f.db.Now).Claim(context.Background(), "w2")
	wantConflict(t, err, tasks.ClaimConflictError{Worker: "w2", TaskID: task.ID, Status: tasks.StatusCancelled})
}

// wantConflict asserts err is a *ClaimConflictError like want (its Cause
// aside).
func wantConflict(t testing.TB, err error, want tasks.ClaimConflictError) {
	t.Helper()
	var ce *tasks.ClaimConflictError
	require.ErrorAs(t, err, &ce)
	got := *ce
	got.Cause = nil
	assert.Equal(t, want, got)
	assert.ErrorIs(t, err, tasks.ErrNoTask)
}

// countReads counts the GetItem requests sent through it.
type countReads struct {
	table.API
	n atomic.Int64
}

func (c *countReads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.Add(1)
	return c.API.GetItem(ctx, in, opts...)
}

// recordQueries keeps the Query requests sent through it.
type recordQueries struct {
	table.API
	queries []*dynamodb.QueryInput
}

func (r *recordQueries) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.queries = append(r.queries, in)
	return r.API.Query(ctx, in, opts...)
}

func TestExpiredLeasesAreFoundByKeyConditionNotFilter(t *testing.T) {
	f := newFixture(t)
	for range 5 {
		f.submit(t, "x")
		f.claim(t, "w1")
	}
	rec := &recordQueries{API: f.db}
	store := newStore(t, rec, f.db.Now)
	n, err := store.Maintenance().ReclaimExpired(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "ReclaimExpired with live leases")
	require.Len(t, rec.queries, 1)
	q := rec.queries[0]
	assert.Nil(t, q.FilterExpression, "expired leases read with a filter")
	assert.True(t, strings.Contains(*q.KeyConditionExpression, "<="), "key condition %q has no range on the lease expiry", *q.KeyConditionExpression)
	f.db.ResetConsumed()
	_, err = store.Maintenance().ReclaimExpired(context.Background())
	require.NoError(t, err)
	// Five live leases, nothing read: an empty query costs DynamoDB's
	// minimum of half a read unit.
	assert.LessOrEqual(t, f.db.Consumed(store.Table().Name()).ReadUnits, 0.5, "the live leases were read")
}

func TestLeaseCallsBadInputSendsNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	good := tasks.Lease{TaskID: "t-1", Worker: "w1", Attempt: 1, Seq: 2}
	for _, c := range []struct {
		name  string
		mod   func(*tasks.Lease)
		field string
	}{
		{"zero lease", func(l *tasks.Lease) { *l = tasks.Lease{} }, "taskID"},
		{"task id with #", func(l *tasks.Lease) { l.TaskID = "a#b" }, "taskID"},
		{"no worker", func(l *tasks.Lease) { l.Worker = "" }, "workerID"},
		{"attempt 0", func(l *tasks.Lease) { l.Attempt = 0 }, "Lease.Attempt"},
		{"seq 1", func(l *tasks.Lease) { l.Seq = 1 }, "Lease.Seq"},
		{"seq past the history", func(l *tasks.Lease) { l.Seq = tasks.MaxEvents + 1 }, "Lease.Seq"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := good
			c.mod(&l)
			f.noRequests(t, func() {
				_, err := f.store.Heartbeat(ctx, l)
				wantInputError(t, err, c.field)
				wantInputError(t, f.store.Complete(ctx, l, nil), c.field)
				_, err = f.store.Fail(ctx, l, "x")
				wantInputError(t, err, c.field)
			})
		})
	}
}

func TestHeartbeatOfMissingTaskIsNotFoundAndCreatesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	lease := tasks.Lease{TaskID: "t-none", Worker: "w1", Attempt: 1, Seq: 2}
	_, err := f.store.Heartbeat(ctx, lease)
	assert.ErrorIs(t, err, tasks.ErrNotFound)
	assert.ErrorIs(t, err, table.ErrNotFound)
	assert.ErrorIs(t, f.store.Complete(ctx, lease, nil), tasks.ErrNotFound)
	_, err = f.store.Get(ctx, "t-none")
	assert.ErrorIs(t, err, tasks.ErrNotFound, "a heartbeat or completion of a missing task created it")
	_, err = f.store.History(ctx, "t-none")
	assert.ErrorIs(t, err, tasks.ErrNotFound)
}

func TestReclaimExpiredOnLastAttemptMakesTaskDead(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 1 })
	task := f.submit(t, "poison")
	f.claim(t, "w1")
	f.db.Advance(time.Minute)
	n, err := f.store.Maintenance().ReclaimExpired(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, tasks.StatusDead, f.get(t, task.ID).Status, "a task whose only attempt expired")
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired)
	assert.Equal(t, tasks.StatusDead, h[2].Status, "the LEASE_EXPIRED event's status")
	assert.Empty(t, heldClaims(t, f.store))
}

func TestExpiredListsWhatReclaimExpiredWouldMoveAndWritesNothing(t *testing.T) {
	f := newFixture(t, tasks.Shards(4))
	ctx := context.Background()
	dead := f.submit(t, "worker dies")
	alive := f.submit(t, "worker heartbeats")
	var deadClaim, aliveClaim *tasks.Claim
	for _, w := range []string{"w-1", "w-2"} {
		c := f.claim(t, w)
		if c.Task.ID == dead.ID {
			deadClaim = c
		} else {
			aliveClaim = c
		}
	}
	require.NotNil(t, deadClaim)
	require.Equal(t, alive.ID, aliveClaim.Task.ID)
	f.db.Advance(tasks.DefaultLeaseDuration / 2)
	_, err := f.store.Heartbeat(ctx, aliveClaim.Lease)
	require.NoError(t, err)
	f.db.Advance(tasks.DefaultLeaseDuration/2 + time.Second)

	before := f.totalWrites()
	var ids []string
	for task, err := range f.store.Maintenance().Expired(ctx) {
		require.NoError(t, err)
		ids = append(ids, task.ID)
		assert.Equal(t, tasks.StatusProcessing, task.Status)
	}
	assert.Equal(t, []string{dead.ID}, ids, "the heartbeated lease still runs")
	assert.Equal(t, before, f.totalWrites(), "Expired writes nothing")
	n, err := f.store.Maintenance().ReclaimExpired(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, tasks.StatusProcessing, f.get(t, alive.ID).Status)
}
