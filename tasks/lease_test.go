package tasks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func TestHeartbeatExtendsLeaseAndKeepsTheTask(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "long job")
	c := f.claim(t, "w1")
	f.clock.Advance(20 * time.Second)
	lease, err := f.store.Heartbeat(context.Background(), c.Lease)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.clock.Now().Add(tasks.DefaultLeaseDuration); !lease.ExpiresAt.Equal(want) {
		t.Fatalf("lease expires %v, want %v", lease.ExpiresAt, want)
	}
	// Past the first expiry, but not the extended one: nobody takes it.
	f.clock.Advance(20 * time.Second)
	if _, err := f.store.Claim(context.Background(), "w2"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("claim of a heartbeating task: %v, want ErrNoTask", err)
	}
	if err := f.store.Complete(context.Background(), lease, nil); err != nil {
		t.Fatal(err)
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventCompleted)
}

func TestExpiredLeaseIsTakenOverByNextClaim(t *testing.T) {
	f := newFixture(t)
	task := f.submit(t, "crashy")
	old := f.claim(t, "w-dead")
	f.clock.Advance(tasks.DefaultLeaseDuration)
	c := f.claim(t, "w-alive")
	if c.Task.ID != task.ID || c.Lease.Attempt != 2 || c.Lease.Seq != 4 {
		t.Fatalf("takeover claim %+v, want task %s attempt 2 seq 4", c, task.ID)
	}
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing)
	if h[2].Worker != "w-dead" || h[2].Attempt != 1 || h[3].Worker != "w-alive" || h[3].Attempt != 2 {
		t.Fatalf("takeover events %+v", h[2:])
	}
	ids, err := f.store.WorkerTasks(context.Background(), "w-dead")
	if err != nil || len(ids) != 0 {
		t.Fatalf("the dead worker still has claims %v (%v)", ids, err)
	}

	// The old owner comes back: its heartbeat and completion are refused.
	_, err = f.store.Heartbeat(context.Background(), old.Lease)
	var lost *tasks.LeaseLostError
	if !errors.As(err, &lost) || !errors.Is(err, tasks.ErrLeaseLost) || lost.Owner != "w-alive" || lost.Attempt != 2 {
		t.Fatalf("late heartbeat: %v, want *LeaseLostError naming w-alive, attempt 2", err)
	}
	err = f.store.Complete(context.Background(), old.Lease, []byte("late"))
	if !errors.As(err, &lost) || lost.Status != tasks.StatusProcessing || lost.Owner != "w-alive" {
		t.Fatalf("late completion: %v, want *LeaseLostError", err)
	}
	if _, err := f.store.Fail(context.Background(), old.Lease, "late"); !errors.Is(err, tasks.ErrLeaseLost) {
		t.Fatalf("late failure: %v, want ErrLeaseLost", err)
	}
	if err := f.store.Complete(context.Background(), c.Lease, []byte("done")); err != nil {
		t.Fatal(err)
	}
	got := f.get(t, task.ID)
	if got.Status != tasks.StatusCompleted || string(got.Result) != "done" {
		t.Fatalf("final task %+v", got)
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired, tasks.EventProcessing, tasks.EventCompleted)
	if n := len(claimItems(t, f.store.Table())); n != 0 {
		t.Fatalf("%d WORKER items left", n)
	}
}

func TestSameWorkerReclaimsItsOwnExpiredTask(t *testing.T) {
	f := newFixture(t)
	f.submit(t, "x")
	f.claim(t, "w1")
	f.clock.Advance(time.Minute)
	c := f.claim(t, "w1")
	if c.Lease.Attempt != 2 {
		t.Fatalf("attempt %d, want 2", c.Lease.Attempt)
	}
	if err := f.store.Complete(context.Background(), c.Lease, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(claimItems(t, f.store.Table())); n != 0 {
		t.Fatalf("%d WORKER items left", n)
	}
}

func TestLateCompletionBeforeAnyTakeoverIsAccepted(t *testing.T) {
	f := newFixture(t)
	f.submit(t, "slow")
	c := f.claim(t, "w1")
	f.clock.Advance(time.Hour) // expired, but nobody has taken it
	if err := f.store.Complete(context.Background(), c.Lease, nil); err != nil {
		t.Fatalf("completion of an expired but untaken lease: %v", err)
	}
}

func TestReclaimExpiredMovesTasksBackToPending(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	expiring := f.submit(t, "a")
	f.claim(t, "w1")
	f.clock.Advance(10 * time.Second)
	live := f.submit(t, "b")
	f.claim(t, "w2")
	f.clock.Advance(tasks.DefaultLeaseDuration - 5*time.Second) // w1's lease is over, w2's is not
	n, err := f.store.ReclaimExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("ReclaimExpired = %d, %v; want 1", n, err)
	}
	got := f.get(t, expiring.ID)
	if got.Status != tasks.StatusPending || got.Owner != "" || !strings.Contains(got.LastError, "w1") {
		t.Fatalf("reclaimed task %+v", got)
	}
	if f.get(t, live.ID).Status != tasks.StatusProcessing {
		t.Fatal("a live lease was reclaimed")
	}
	meta := f.raw(t, "TASK#"+expiring.ID, "META")
	if str(meta, "GSI1PK") != "STATUS#PENDING" || str(meta, "GSI1SK") != "CREATED#"+expiring.CreatedAt.Format("2006-01-02T15:04:05.000000Z") {
		t.Fatalf("reclaimed task indexed at %s / %s, want its original pending place", str(meta, "GSI1PK"), str(meta, "GSI1SK"))
	}
	wantHistory(t, f.history(t, expiring.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired)
	page, err := f.store.ListPending(ctx, "")
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != expiring.ID {
		t.Fatalf("pending after reclaim: %+v, %v", page, err)
	}
	if ids, _ := f.store.WorkerTasks(ctx, "w1"); len(ids) != 0 {
		t.Fatalf("w1 still holds %v", ids)
	}
}

func TestExpiredLeaseOnLastAttemptMakesTaskDead(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 2 })
	task := f.submit(t, "poison")
	for _, w := range []string{"w1", "w2"} {
		f.claim(t, w)
		f.clock.Advance(time.Minute)
	}
	// The next claim finds the task expired on its last attempt: it moves
	// it to DEAD instead of handing it out.
	if _, err := f.store.Claim(context.Background(), "w3"); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("claim: %v, want ErrNoTask", err)
	}
	got := f.get(t, task.ID)
	if got.Status != tasks.StatusDead || got.Attempt != 2 {
		t.Fatalf("task %+v, want DEAD after 2 attempts", got)
	}
	wantHistory(t, f.history(t, task.ID), tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired,
		tasks.EventProcessing, tasks.EventLeaseExpired)
	if str(f.raw(t, "TASK#"+task.ID, "META"), "GSI1PK") != "STATUS#DEAD" {
		t.Fatal("a dead task is not in STATUS#DEAD")
	}
	if n := len(claimItems(t, f.store.Table())); n != 0 {
		t.Fatalf("%d WORKER items left", n)
	}
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
	store := tasks.NewStore(rec, func(o *tasks.Options) { o.Clock = f.clock.Now })
	if n, err := store.ReclaimExpired(context.Background()); err != nil || n != 0 {
		t.Fatalf("ReclaimExpired with live leases = %d, %v", n, err)
	}
	if len(rec.queries) != 1 {
		t.Fatalf("%d queries, want 1", len(rec.queries))
	}
	q := rec.queries[0]
	if q.FilterExpression != nil || !strings.Contains(*q.KeyConditionExpression, "<=") {
		t.Fatalf("expired leases read with key condition %q and filter %v; want a range key condition and no filter",
			*q.KeyConditionExpression, q.FilterExpression)
	}
	f.db.ResetConsumed()
	if _, err := store.ReclaimExpired(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Five live leases, nothing read: an empty query costs DynamoDB's
	// minimum of half a read unit.
	if got := f.db.Consumed(store.Table().Name()).ReadUnits; got > 0.5 {
		t.Fatalf("looking for expired leases among 5 live ones read %.1f RCU; the live ones were read", got)
	}
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

func TestHeartbeatOfMissingTaskIsNotFound(t *testing.T) {
	f := newFixture(t)
	_, err := f.store.Heartbeat(context.Background(), tasks.Lease{TaskID: "t-none", Worker: "w1", Attempt: 1, Seq: 2})
	if !errors.Is(err, tasks.ErrNotFound) || !errors.Is(err, table.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	if err := f.store.Complete(context.Background(), tasks.Lease{TaskID: "t-none", Worker: "w1", Attempt: 1, Seq: 2}, nil); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Complete: got %v, want ErrNotFound", err)
	}
}

func TestReclaimExpiredOnLastAttemptMakesTaskDead(t *testing.T) {
	f := newFixture(t, func(o *tasks.Options) { o.MaxAttempts = 1 })
	task := f.submit(t, "poison")
	f.claim(t, "w1")
	f.clock.Advance(time.Minute)
	if n, err := f.store.ReclaimExpired(context.Background()); err != nil || n != 1 {
		t.Fatalf("ReclaimExpired = %d, %v; want 1", n, err)
	}
	if got := f.get(t, task.ID); got.Status != tasks.StatusDead {
		t.Fatalf("task %s after its only attempt expired, want DEAD", got.Status)
	}
	h := f.history(t, task.ID)
	wantHistory(t, h, tasks.EventSubmitted, tasks.EventProcessing, tasks.EventLeaseExpired)
	if h[2].Status != tasks.StatusDead {
		t.Fatalf("LEASE_EXPIRED event says %s, want DEAD", h[2].Status)
	}
}
