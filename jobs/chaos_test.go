package jobs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// The steps of a job worker's attempt a chaos run crashes at, by the
// request the process dies at (before it is sent, or after it applied).
const (
	stepClaim          = "the claim"                            // the task's META update, PROCESSING event, WORKER item
	stepAfterClaim     = "the job's read after the claim"       // the first request after the claim
	stepHeartbeat      = "a heartbeat"                          // the task's lease extended
	stepJobMove        = "a move of the job"                    // start, EDITING, back to the queue, COMPLETED, FAILED
	stepTaskCompletion = "the task's completion"                // its COMPLETED event, after the job's end
	stepTaskSettle     = "the task's failed attempt or release" // a transaction
)

// classify names the step a request of a job worker belongs to.
func classify(c call, jobsTable, tasksTable string) string {
	switch {
	case c.table == jobsTable && c.op == "GetItem":
		return stepAfterClaim
	case c.table == jobsTable && c.op == "UpdateItem" && setsStatus(c.in):
		return stepJobMove
	case c.table == tasksTable && c.op == "UpdateItem" && !setsStatus(c.in):
		return stepHeartbeat
	case c.table == tasksTable && c.op == "UpdateItem":
		for _, v := range c.in.(*dynamodb.UpdateItemInput).ExpressionAttributeValues {
			if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == string(tasks.StatusCompleted) {
				return stepTaskCompletion
			}
		}
		return stepClaim
	case c.table == tasksTable && c.op == "PutItem":
		in := c.in.(*dynamodb.PutItemInput)
		if ev, ok := in.Item["event"].(*types.AttributeValueMemberS); ok && ev.Value == string(tasks.EventCompleted) {
			return stepTaskCompletion
		}
		return stepClaim
	case c.op == "TransactWriteItems":
		return stepTaskSettle
	}
	return ""
}

// chaos is a chaos run: workers processes running job workers against a
// DynamoDB under dynamotest.Chaos, whose faults are drawn from one seed:
// each process dies at a request of a step of an attempt whose answer the
// connection loses (before the request applied, or after), some requests
// are throttled, batches come back partly unprocessed and transactions
// conflict, and on the fake its clock jumps and its indexes lag. Some
// processes stall (a partition: their requests wait past their leases,
// then go on, a zombie whose late writes must be refused). The same seed
// draws the stalls and the handlers' failures.
type chaos struct {
	api                   *dynamotest.Chaotic
	check                 table.API // the same store without faults, for the test's own reads
	rng                   *lockedRand
	jobsTable, tasksTable string
	opts                  []func(*jobs.Options)
	lease                 time.Duration
	// crashRate is the chance per request of each step that the process
	// dies there; stallRate the chance per request that it stalls.
	crashRate map[string]float64
	stallRate float64

	crashes        sync.Map // step -> *atomic.Int64
	stalls, panics atomic.Int64
	processes      atomic.Int64
}

// lockedRand is one seeded random source the processes share.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) Float64() float64 { l.mu.Lock(); defer l.mu.Unlock(); return l.r.Float64() }
func (l *lockedRand) IntN(n int) int   { l.mu.Lock(); defer l.mu.Unlock(); return l.r.IntN(n) }

func (c *chaos) count(step string) *atomic.Int64 {
	n, _ := c.crashes.LoadOrStore(step, new(atomic.Int64))
	return n.(*atomic.Int64)
}

// rates are the faults of one request: a crash (its answer lost, before or
// after it applied, half and half) at the step's rate, and the faults
// every request may meet.
func (c *chaos) rates(op, tableName string, in any) dynamotest.ChaosRates {
	r := dynamotest.ChaosRates{Throttle: 0.005, Conflict: 0.005, Unprocessed: 0.2, ClockJump: 0.002}
	if step := classify(call{op: op, table: tableName, in: in}, c.jobsTable, c.tasksTable); step != "" {
		r.LostBefore = c.crashRate[step] / 2
		r.LostAfter = c.crashRate[step] / 2
	}
	return r
}

// hook decides, per request, whether the process stalls there.
func (c *chaos) hook(stallUntil *atomic.Int64) func(cl call) string {
	return func(cl call) string {
		if until := stallUntil.Load(); until > 0 {
			time.Sleep(time.Until(time.Unix(0, until)))
		}
		if classify(cl, c.jobsTable, c.tasksTable) == "" {
			return ""
		}
		if c.rng.Float64() < c.stallRate {
			c.stalls.Add(1)
			stallUntil.Store(time.Now().Add(2 * c.lease).UnixNano())
			time.Sleep(2 * c.lease)
			stallUntil.Store(0)
		}
		return ""
	}
}

// handler is the service's work: a short edit, sometimes a long one (its
// lease heartbeated meanwhile), a provider that fails a tenth of the
// attempts (retried), a handler that panics now and then.
func (c *chaos) handler(ctx context.Context, a *jobs.Attempt) (jobs.EditResult, error) {
	if c.rng.Float64() < 0.01 {
		c.panics.Add(1)
		panic("the decoder crashed on " + a.Job().ID)
	}
	if _, err := a.StartEditing(ctx, analysis); err != nil {
		return jobs.EditResult{}, err
	}
	d := time.Duration(c.rng.IntN(3)) * time.Millisecond
	if c.rng.Float64() < 0.15 {
		d = c.lease / 2 // past a heartbeat or two
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return jobs.EditResult{}, ctx.Err()
	}
	if c.rng.Float64() < 0.1 {
		return jobs.EditResult{}, &jobs.JobError{Code: "PROVIDER_ERROR", Message: "the provider answered 500"}
	}
	return edit, nil
}

// runProcess runs one worker process until ctx ends or it dies.
func (c *chaos) runProcess(ctx context.Context, t *testing.T, slot int) (died bool) {
	var stallUntil atomic.Int64
	conn := &procConn{API: c.api, died: func(cl call) {
		if step := classify(cl, c.jobsTable, c.tasksTable); step != "" {
			c.count(step).Add(1)
		}
	}}
	conn.crashAt(c.hook(&stallUntil))
	store, err := jobs.NewStore(conn, nil, c.opts...)
	require.NoError(t, err)
	w, err := store.NewWorker(fmt.Sprintf("p%d-%d", slot, c.processes.Add(1)), c.handler,
		tasks.PollBackoff(table.Backoff{Initial: time.Millisecond, Max: 20 * time.Millisecond}),
		tasks.ShutdownGrace(c.lease/4))
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	// A dead process's worker stops (its requests fail from then on).
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for runCtx.Err() == nil && !conn.dead.Load() {
			select {
			case <-tick.C:
			case <-runCtx.Done():
			}
		}
		stop()
	}()
	require.NoError(t, w.Run(runCtx))
	return conn.dead.Load()
}

// run runs a chaos run of n jobs on workers processes and checks that every
// job ended COMPLETED or FAILED exactly once (counted from the jobs
// table's stream), every task COMPLETED, and that the processes died at
// every step of the job worker.
func (c *chaos) run(t *testing.T, n, workers int, streams changes.StreamsAPI) {
	ctx := context.Background()
	service := newStore(t, c.check, nil, c.opts...)
	require.NoError(t, service.EnsureTable(ctx))
	_, err := changes.EnableStream(ctx, c.check, c.jobsTable, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	leases := c.jobsTable + "-changes"
	follower, err := changes.New[table.Item](c.check, streams, c.jobsTable, changes.Decode(changes.DecodeItem),
		changes.Name("terminal-moves"), changes.LeaseTable(leases), changes.PollInterval(0))
	require.NoError(t, err)
	require.NoError(t, follower.EnsureTable(ctx))
	t.Cleanup(func() {
		_, _ = c.check.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(leases)})
	})

	ids := make([]string, n)
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				job, _, err := service.Create(ctx, upload("u-"+strconv.Itoa(i%10)))
				if !assert.NoError(t, err) {
					return
				}
				ids[i] = job.ID
			}
		})
	}
	wg.Wait()
	require.False(t, t.Failed())

	work, stopWork := context.WithCancel(ctx)
	for slot := range workers {
		wg.Go(func() {
			for work.Err() == nil && c.runProcess(work, t, slot) {
			}
		})
	}
	// Wait until every job has ended and its task is done: a job whose
	// progress stops for 60 s is a stall.
	deadline, left := time.Now().Add(60*time.Second), -1
	for {
		open := 0
		for _, id := range ids {
			job, err := service.Get(ctx, id, jobs.Consistent())
			require.NoError(t, err)
			if job.Status != jobs.StatusCompleted && job.Status != jobs.StatusFailed {
				open++
				continue
			}
			task, err := service.Tasks().Get(ctx, job.TaskID)
			require.NoError(t, err)
			if task.Status != tasks.StatusCompleted {
				open++
			}
		}
		if open == 0 {
			break
		}
		if open != left {
			deadline, left = time.Now().Add(60*time.Second), open
		}
		require.Truef(t, time.Now().Before(deadline), "%d of %d jobs (or their tasks) have not ended for 60s", open, n)
		time.Sleep(100 * time.Millisecond)
	}
	stopWork()
	wg.Wait()

	ended := map[string]int{}
	for idle := 0; idle < 3; {
		got, err := follower.Step(ctx, func(_ context.Context, batch []changes.Change[table.Item]) error {
			for _, ch := range batch {
				now, ok, err := jobs.JobFromChange(ch)
				if err != nil || !ok {
					return err
				}
				if now.Status != jobs.StatusCompleted && now.Status != jobs.StatusFailed {
					continue
				}
				if ch.Old != nil {
					before, _, err := jobs.JobFromChange(changes.Change[table.Item]{Keys: ch.Keys, New: ch.Old})
					if err != nil {
						return err
					}
					if before.Status == jobs.StatusCompleted || before.Status == jobs.StatusFailed {
						continue
					}
				}
				ended[now.ID]++
			}
			return nil
		})
		require.NoError(t, err)
		if got == 0 {
			idle++
		}
	}
	byStatus := map[jobs.Status]int{}
	for _, id := range ids {
		job, err := service.Get(ctx, id, jobs.Consistent())
		require.NoError(t, err)
		byStatus[job.Status]++
		assert.Equalf(t, 1, ended[id], "job %s (%s) ended %d times", id, job.Status, ended[id])
	}
	crashes := map[string]int64{}
	for _, step := range []string{stepClaim, stepAfterClaim, stepHeartbeat, stepJobMove, stepTaskCompletion} {
		crashes[step] = c.count(step).Load()
		assert.Positivef(t, crashes[step], "no process died at %s", step)
	}
	crashes[stepTaskSettle] = c.count(stepTaskSettle).Load()
	faults := map[dynamotest.ChaosKind]int{}
	for _, f := range c.api.Faults() {
		faults[f.Kind]++
	}
	t.Logf("%d jobs on %d workers: %v; %d processes, crashes by step %v, %d stalls (zombies), %d panics; faults %v, lag %v",
		n, workers, byStatus, c.processes.Load(), crashes, c.stalls.Load(), c.panics.Load(), faults, c.api.Lag())
}

// chaosRates are the crash and stall chances per request, for a run of n
// jobs: about twenty crashes at each step whatever n, so each is surely
// hit (a step's requests grow with n).
func chaosRates(n int) (map[string]float64, float64) {
	scale := min(1000/float64(n), 25)
	return map[string]float64{
		stepClaim:          0.007 * scale,
		stepAfterClaim:     0.02 * scale,
		stepHeartbeat:      0.1 * scale,
		stepJobMove:        0.007 * scale,
		stepTaskCompletion: 0.02 * scale,
		stepTaskSettle:     0.01 * scale,
	}, 0.0005 * scale
}

// newChaos is a chaos run of n jobs under dynamotest.Chaos drawn from
// seed, on check (DynamoDB Local) or, when check is nil, on the fake.
func newChaos(t *testing.T, seed int64, check table.API, jobsTable, tasksTable string, n int, lease time.Duration) *chaos {
	crash, stall := chaosRates(n)
	c := &chaos{check: check, rng: &lockedRand{r: rand.New(rand.NewPCG(uint64(seed), 1))},
		jobsTable: jobsTable, tasksTable: tasksTable, lease: lease, crashRate: crash, stallRate: stall,
		opts: []func(*jobs.Options){jobs.TableName(jobsTable), jobs.LeaseDuration(lease), jobs.MaxAttempts(3),
			jobs.Work(tasksTable, func(o *tasks.Options) {
				o.ClaimBatch = 20
				o.RetryBackoff = table.Backoff{Initial: lease / 20, Max: lease / 4}
			})}}
	c.api = dynamotest.Chaos(seed, func(o *dynamotest.ChaosOptions) {
		o.API = check // nil: Chaos makes the fake, with a lag drawn from the seed
		o.RatesFor = c.rates
	})
	if check == nil {
		c.check = c.api.DB()
	}
	return c
}

// TestChaosTwentyWorkersThousandJobsEachEndExactlyOnce is the chaos
// run on the in-memory fake: 20 job workers over 1,000 jobs, each worker
// process dying at random requests of every step of an attempt (the claim,
// the job's read after it, a heartbeat, each move of the job, the task's
// completion after the job's end, the task's failed attempts) and
// replaced, some stalling past their leases and writing late, a tenth of
// the provider calls failing and a few handlers panicking; every request
// may be throttled, a batch left partly unprocessed, a transaction
// canceled by a conflict, the fake's clock may jump and its indexes lag,
// all drawn from one seed (dynamotest.Chaos; the log says which, and
// TABLEKIT_CHAOS_SEED replays it). Every job ends COMPLETED or FAILED
// exactly once and every task COMPLETED.
func TestChaosTwentyWorkersThousandJobsEachEndExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos run takes seconds")
	}
	const n = 1000
	c := newChaos(t, dynamotest.ChaosSeed(t), nil, "photoeditor-chaos-jobs", "photoeditor-chaos-tasks", n, 300*time.Millisecond)
	c.run(t, n, 20, c.api.DB())
}

// TestIntegrationChaosTwentyWorkersOnDynamoDBLocal is the same run on
// DynamoDB Local, at 200 jobs by default: Local serves a worker's requests
// a few times slower than the fake, and CI runs the whole module's tests
// in 9 minutes on 2 cores. TABLEKIT_CHAOS_JOBS=1000 runs the full size.
// The crash chances scale up as the run scales down, so every step is
// still crashed at about as often.
func TestIntegrationChaosTwentyWorkersOnDynamoDBLocal(t *testing.T) {
	n := 200
	if s := os.Getenv("TABLEKIT_CHAOS_JOBS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "TABLEKIT_CHAOS_JOBS")
	}
	db := testenv.DynamoDB(t)
	streams := dynamotest.NewStreamsClient(testenv.DynamoDBEndpoint(t))
	jobsTable, tasksTable := testenv.TableName(t, "chaosjobs"), testenv.TableName(t, "chaostasks")
	for _, name := range []string{jobsTable, tasksTable} {
		t.Cleanup(func() {
			_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
	}
	newChaos(t, dynamotest.ChaosSeed(t), db, jobsTable, tasksTable, n, time.Second).run(t, n, 20, streams)
}
