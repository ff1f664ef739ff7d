// Command photoeditor is the photo-editing service of docs/systems/jobs.md, end to end and
// under fire: an HTTP API (POST /jobs with an Idempotency-Key header, GET
// /jobs/{id}, GET /users/{id}/jobs paginated) creates jobs, and the jobs
// store queues each job's work as a task in the same transaction
// (jobs.Work); worker processes, each a jobs.Worker (the library's job
// worker on the tasks runtime: one lease per job covering its task,
// heartbeats, retries with the job's MaxAttempts, takeovers of dead
// workers' jobs, graceful shutdown) running several handlers at once, do
// the service's own part: analyse, call the provider, write the result
// through the blob store. Meanwhile the chaos run fails 10% of the
// provider calls, panics 2% of the handlers, kills the process under 5% of
// the jobs mid-job (its connection cut: it writes, renews and releases
// nothing more; half of its handlers wake up later and try to finish
// anyway) and, on the in-memory fake, throttles DynamoDB calls. Every
// terminal move of a job is counted from the jobs table's stream
// (jobs.JobFromChange).
//
// It ends by printing how many jobs ended in each status and exits non-zero
// if any job is lost (created but gone), stuck (not COMPLETED or FAILED, or
// its task not done), recorded twice (two terminal moves), or its task's
// history has a gap.
//
//	go run ./examples/photoeditor                      # in memory, no setup
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 \
//	TABLEKIT_S3_ENDPOINT=http://127.0.0.1:4568 go run ./examples/photoeditor
//	go run ./examples/photoeditor -jobs 200 -workers 8 -die 0.2
//
// On the in-memory fake it runs 1,000 jobs by default; on other endpoints
// 200, since DynamoDB Local serves it at 3 to 15 jobs a second, depending
// on the machine's load (-jobs 1000 runs the full size there). The run
// gives up when no job has ended for -timeout (a stall), or after ten
// times that in all.
//
// Every run uses tables of its own (photoeditor-ex<run>-jobs,
// photoeditor-ex<run>-tasks and photoeditor-ex<run>-changes, the stream
// follower's leases) and deletes them at the end.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "photoeditor example:", err)
		os.Exit(1)
	}
}

type config struct {
	jobs, workers, users int
	handlers             int
	failRate, dieRate    float64
	panicRate            float64
	lease, timeout       time.Duration
}

// run is the whole program. Its flags are its own, so a test can run it
// more than once in one process.
func run(ctx context.Context, args []string) (err error) {
	flags := flag.NewFlagSet("photoeditor", flag.ContinueOnError)
	useAWS := flags.Bool("aws", false, exampleenv.AWSFlagUsage)
	bucket := flags.String("bucket", "tablekit-examples", "S3 bucket for the edited images")
	var cfg config
	flags.IntVar(&cfg.jobs, "jobs", 0, "jobs to create (default 1000 on the in-memory fake, 200 on other endpoints, which are slower)")
	flags.IntVar(&cfg.workers, "workers", 20, "handlers in the pool, in processes of -handlers each")
	flags.IntVar(&cfg.handlers, "handlers", 4, "handlers per worker process (tasks.Concurrency)")
	flags.IntVar(&cfg.users, "users", 10, "users the jobs belong to")
	flags.Float64Var(&cfg.failRate, "fail", 0.10, "probability that the provider fails a job")
	flags.Float64Var(&cfg.dieRate, "die", 0.05, "probability that a job's worker process dies during it")
	flags.Float64Var(&cfg.panicRate, "panic", 0.02, "probability that a handler panics before it touches the job")
	flags.DurationVar(&cfg.lease, "lease", 2*time.Second, "lease of a task and of an in-flight job")
	flags.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "how long the run may go without a job ending before it gives up (and a tenth of the whole run's limit)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if cfg.workers < 1 || cfg.handlers < 1 || cfg.users < 1 || cfg.lease < 10*time.Millisecond {
		return fmt.Errorf("-workers, -handlers and -users must be at least 1 and -lease at least 10ms")
	}
	// Uploads, the wait for the jobs and the final check; on a loaded
	// machine DynamoDB Local slows down several times over.
	ctx, cancel := context.WithTimeout(ctx, 10*cfg.timeout)
	defer cancel()
	began := time.Now()

	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: *bucket})
	if err != nil {
		return err
	}
	fmt.Println("using", env)
	if cfg.jobs <= 0 {
		// DynamoDB Local serves this run at 5 to 15 jobs a second,
		// depending on the machine's load: 200 keep a CI run under a
		// minute.
		cfg.jobs = 200
		if env.Fake != nil {
			cfg.jobs = 1000
		}
	}
	runID := strconv.FormatInt(time.Now().UnixNano(), 36)
	// The job's work goes to a tasks table of the run's own; the library
	// sets the queue's lease to the job's and its MaxAttempts so the
	// job's own decides. A failed attempt (a panic, a provider error) is
	// retried within a few leases.
	jobOpts := []func(*jobs.Options){jobs.TableName(jobs.TableNameForEnv("ex" + runID)),
		jobs.LeaseDuration(cfg.lease), jobs.MaxAttempts(3),
		jobs.Work("photoeditor-ex"+runID+"-tasks", func(o *tasks.Options) {
			o.ClaimBatch = cfg.workers
			o.RetryBackoff = table.Backoff{Initial: cfg.lease / 10, Max: cfg.lease}
		})}
	// The service's own connection (the API, the final check) is never
	// killed; each worker process gets one of its own.
	service := &conn{api: env.DB}
	jobStore, err := jobs.NewStore(service, env.Blobs, jobOpts...)
	if err != nil {
		return err
	}
	if err := jobStore.EnsureTable(ctx); err != nil { // and the tasks table
		return err
	}
	leaseTable := "photoeditor-ex" + runID + "-changes"
	defer func() {
		for _, name := range []string{jobStore.Schema().Name, jobStore.Tasks().Schema().Name, leaseTable} {
			if _, derr := env.DB.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); derr != nil {
				err = errors.Join(err, fmt.Errorf("delete table %s: %w", name, derr))
			}
		}
	}()
	fmt.Println("tables", jobStore.Schema().Name, jobStore.Tasks().Schema().Name)
	// Every terminal move of a job is counted from the jobs table's
	// stream (jobs.JobFromChange), whoever made it.
	moves, err := followTerminalMoves(ctx, env, jobStore.Schema().Name, leaseTable)
	if err != nil {
		return err
	}

	// The service: the API on a loopback port, the workers.
	svc := &api{jobs: jobStore}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: svc.routes()}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	work, stopWork := context.WithCancel(ctx)
	defer stopWork()
	p := &pool{db: env.DB, blobs: env.Blobs, jobOpts: jobOpts, service: jobStore,
		lease: cfg.lease, handlers: cfg.handlers, failRate: cfg.failRate, dieRate: cfg.dieRate,
		panicRate: cfg.panicRate}
	var background sync.WaitGroup
	background.Add(2)
	var poolErr error
	go func() {
		defer background.Done()
		poolErr = p.run(work, (cfg.workers+cfg.handlers-1)/cfg.handlers)
	}()
	var throttled atomic.Int64
	go func() { defer background.Done(); throttled.Store(throttle(work, env.Fake)) }()
	fmt.Printf("%d processes of %d handlers, lease %v, %.0f%% provider failures, %.0f%% handler panics, %.0f%% of jobs kill their process\n",
		(cfg.workers+cfg.handlers-1)/cfg.handlers, cfg.handlers, cfg.lease, 100*cfg.failRate, 100*cfg.panicRate, 100*cfg.dieRate)

	ids, err := upload(ctx, base, runID, cfg)
	if err != nil {
		return err
	}
	if err := pageHistory(ctx, base, "user-"+runID+"-0"); err != nil {
		return err
	}

	fmt.Println("\n== waiting for every job to end")
	// The wait ends when every job has ended, or when none has for
	// cfg.timeout: a slow backend is waited for, a stalled one is not.
	deadline, last := time.Now().Add(cfg.timeout), -1
	for time.Now().Before(deadline) && ctx.Err() == nil {
		open, err := unfinished(ctx, jobStore)
		if err != nil {
			return err
		}
		if open == 0 {
			break
		}
		if open != last {
			deadline, last = time.Now().Add(cfg.timeout), open
		}
		time.Sleep(200 * time.Millisecond)
	}
	waitTasks(ctx, jobStore, ids, time.Now().Add(cfg.timeout))
	stopWork()
	background.Wait() // zombies included: every late write is in before the check
	if poolErr != nil {
		return poolErr
	}

	fmt.Printf("\nworkers: %d processes started, %d handler runs, %d process deaths (%d zombies refused, %d finished late before any takeover), %d provider failures, %d panics; throttled calls injected: %d\n",
		p.processes.Load(), p.claims.Load(), p.deaths.Load(), p.zombiesRefused.Load(), p.zombiesLate.Load(),
		p.providerFailures.Load(), p.panics.Load(), throttled.Load())
	err = check(ctx, jobStore, moves, ids)
	fmt.Printf("ran in %v\n", time.Since(began).Round(time.Millisecond))
	return err
}

// upload creates the jobs through the API. First fifty clients race one
// Idempotency-Key (one job must come of it); then the rest, each POSTed
// once, and every tenth twice, as a client retrying a lost response would.
func upload(ctx context.Context, base, runID string, cfg config) ([]string, error) {
	fmt.Println("\n== 50 concurrent POST /jobs with one Idempotency-Key")
	type answer struct {
		id     string
		status int
		err    error
	}
	post := func(key string, i int) answer {
		body, _ := json.Marshal(createRequest{
			UserID: fmt.Sprintf("user-%s-%d", runID, i%cfg.users), FileType: "image/jpeg",
			FileSize: int64(100_000 + i), OriginalFileName: fmt.Sprintf("photo-%d.jpg", i), Provider: "stub",
		})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/jobs", bytes.NewReader(body))
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return answer{err: err}
		}
		defer resp.Body.Close()
		var job jobs.Job
		if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(resp.Body)
			return answer{status: resp.StatusCode, err: fmt.Errorf("POST /jobs: %s: %s", resp.Status, msg)}
		}
		err = json.NewDecoder(resp.Body).Decode(&job)
		return answer{id: job.ID, status: resp.StatusCode, err: err}
	}
	answers := make([]answer, 50)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = post("upload-"+runID+"-0", 0) })
	}
	wg.Wait()
	created, distinct := 0, map[string]bool{}
	for _, a := range answers {
		if a.err != nil {
			return nil, a.err
		}
		distinct[a.id] = true
		if a.status == http.StatusCreated {
			created++
		}
	}
	fmt.Printf("%d answers, %d created (201), %d distinct job ids\n", len(answers), created, len(distinct))
	if created != 1 || len(distinct) != 1 {
		return nil, fmt.Errorf("50 POSTs with one key made %d jobs (%d answered 201); want 1", len(distinct), created)
	}

	fmt.Printf("\n== %d more uploads from %d users (every tenth retried)\n", cfg.jobs-1, cfg.users)
	ids := make([]string, cfg.jobs)
	ids[0] = answers[0].id
	next := atomic.Int64{}
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1))
				if i >= cfg.jobs {
					return
				}
				key := "upload-" + runID + "-" + strconv.Itoa(i)
				a := post(key, i)
				if a.err == nil && i%10 == 0 {
					if b := post(key, i); b.err != nil || b.id != a.id || b.status != http.StatusOK {
						a.err = fmt.Errorf("retried POST of %s: %s %d, %v; want %s 200", key, b.id, b.status, b.err, a.id)
					}
				}
				if a.err != nil {
					select {
					case errs <- a.err:
					default:
					}
					return
				}
				ids[i] = a.id
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	fmt.Printf("%d jobs created\n", len(ids))
	return ids, nil
}

// pageHistory reads a user's jobs through the paginated API, 7 a page.
func pageHistory(ctx context.Context, base, user string) error {
	fmt.Println("\n== GET /users/" + user + "/jobs, 7 a page")
	cursor, pages, seen := "", 0, map[string]bool{}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/users/"+user+"/jobs?limit=7&cursor="+cursor, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		var page listPage
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET history: %s, %v", resp.Status, err)
		}
		pages++
		for _, j := range page.Items {
			if seen[j.ID] {
				return fmt.Errorf("history listed job %s twice", j.ID)
			}
			seen[j.ID] = true
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	fmt.Printf("%d jobs in %d pages, each once\n", len(seen), pages)
	return nil
}

// throttle makes the in-memory fake refuse a few calls of every kind now
// and then, as DynamoDB does when a partition is hot; the stores retry
// them with backoff (conn). DynamoDB Local cannot be told to throttle.
func throttle(ctx context.Context, fake *dynamotest.DB) int64 {
	if fake == nil {
		return 0
	}
	var n int64
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fake.ClearFaults()
			return n
		case <-t.C:
		}
		for _, op := range []string{"GetItem", "UpdateItem", "PutItem", "Query", "TransactWriteItems"} {
			fake.Inject(dynamotest.Throttle(op, 1))
			n++
		}
	}
}
