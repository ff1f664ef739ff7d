// Command analytics maintains the jobs design's analytics (docs/systems/jobs.md) from the jobs table's
// DynamoDB Stream: per user and per day, how many jobs are in each status
// and the average processing time of the completed ones. The view is
// jobs/analytics's: a changes.Consumer reads the stream, and View.Apply
// sums each batch per user and day into one write of the day's row,
// guarded by the newest sequence number of the stream shard the row holds,
// so a change delivered twice (the stream is at-least-once) counts once.
//
//	go run ./examples/analytics                 # in-memory fake
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 go run ./examples/analytics
//	go run ./examples/analytics -aws            # real AWS, default config chain
//
// The run creates its own tables (a jobs table with a stream, the view, the
// consumer's lease table) under names unique to the run, stops its first
// consumer half way and lets a second take over from the checkpoint, checks
// the view against a recount of the jobs, and deletes the tables unless
// -keep. It exits non-zero on any failure or mismatch.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/keys"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "analytics example:", err)
		os.Exit(1)
	}
}

// simClock is the jobs' time: the run spans two days in a moment.
type simClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *simClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func run(args []string, out io.Writer) (err error) {
	fs := flag.NewFlagSet("analytics", flag.ContinueOnError)
	useAWS := fs.Bool("aws", false, exampleenv.AWSFlagUsage)
	keep := fs.Bool("keep", false, "keep the tables this run created")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: "tablekit-examples"})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "using", env)
	updater, ok := env.DB.(changes.TableUpdater)
	if !ok {
		return fmt.Errorf("%T cannot UpdateTable, so the stream cannot be turned on", env.DB)
	}

	// Names unique to the run: the ULID's random part.
	id := strings.ToLower(keys.ULIDs()(time.Now())[16:])
	jobsTable := jobs.TableNameForEnv("analytics-" + id)
	viewTable := "photoeditor-analytics-" + id + "-stats"
	leaseTable := "tablekit-changes-analytics-" + id
	if !*keep {
		defer func() {
			for _, name := range []string{jobsTable, viewTable, leaseTable} {
				_, derr := env.DB.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
				var nf *types.ResourceNotFoundException
				if derr != nil && !errors.As(derr, &nf) {
					err = errors.Join(err, fmt.Errorf("delete table %s: %w", name, derr))
				}
			}
		}()
	}

	// The jobs' days are the two before today: their TTL (set from their
	// creation time) stays in the future, where a DynamoDB that expires
	// items leaves them alone.
	clock := &simClock{now: time.Now().UTC().Truncate(24 * time.Hour).Add(-48*time.Hour + 9*time.Hour)}
	store, err := jobs.NewStore(env.DB, env.Blobs, jobs.TableName(jobsTable), jobs.Clock(clock.Now))
	if err != nil {
		return err
	}
	if err := store.EnsureTable(ctx); err != nil {
		return fmt.Errorf("jobs table: %w", err)
	}
	arn, err := changes.EnableStream(ctx, updater, jobsTable, types.StreamViewTypeNewAndOldImages)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "jobs table", jobsTable, "streams to", arn)
	v, err := analytics.NewView(env.DB, analytics.TableName(viewTable))
	if err != nil {
		return err
	}
	if err := v.EnsureTable(ctx); err != nil {
		return fmt.Errorf("view table: %w", err)
	}

	newConsumer := func(owner string) (*changes.Consumer[analytics.Job], error) {
		return v.Consumer(env.Streams, jobsTable, changes.Owner(owner),
			changes.LeaseTable(leaseTable), changes.PollInterval(20*time.Millisecond))
	}
	first, err := newConsumer("consumer-1")
	if err != nil {
		return err
	}
	if err := first.EnsureTable(ctx); err != nil {
		return fmt.Errorf("lease table: %w", err)
	}

	var handled sync.Map // consumer -> changes handled
	// handling is held while a batch is applied and counted. The view
	// equals a recount as soon as the last batch's rows are written, a
	// moment before its handler returns: a consumer stopped then fails
	// that batch (its context is cancelled) and leaves it to its
	// successor. That is at-least-once delivery working, but it would make
	// the counts printed below depend on timing, so the run lets the
	// handler finish (settled) before it stops a consumer.
	var handling sync.Mutex
	settled := func() { handling.Lock(); handling.Unlock() }
	count := func(owner string) changes.Handler[analytics.Job] {
		return func(ctx context.Context, batch []changes.Change[analytics.Job]) error {
			handling.Lock()
			defer handling.Unlock()
			if err := v.Apply(ctx, batch); err != nil {
				return err
			}
			n, _ := handled.LoadOrStore(owner, new(int))
			*n.(*int) += len(batch)
			return nil
		}
	}
	start := func(c *changes.Consumer[analytics.Job]) (stop func() error) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Run(cctx, count(c.Owner())) }()
		return func() error { cancel(); return <-done }
	}

	users := []string{"alice-" + id, "bob-" + id}
	stopFirst := start(first)
	fmt.Fprintln(out, "day 1: consumer-1 follows the stream")
	if err := workday(ctx, store, clock, users, out); err != nil {
		return errors.Join(err, stopFirst())
	}
	if err := caughtUp(ctx, store, v, users); err != nil {
		return errors.Join(err, stopFirst())
	}
	settled()
	if err := stopFirst(); err != nil {
		return fmt.Errorf("consumer-1: %w", err)
	}
	fmt.Fprintln(out, "consumer-1 stopped; day 2 happens with no consumer running")
	clock.Advance(24 * time.Hour)
	if err := workday(ctx, store, clock, users, out); err != nil {
		return err
	}
	second, err := newConsumer("consumer-2")
	if err != nil {
		return err
	}
	stopSecond := start(second)
	fmt.Fprintln(out, "consumer-2 takes over from consumer-1's checkpoint")
	if err := caughtUp(ctx, store, v, users); err != nil {
		return errors.Join(err, stopSecond())
	}
	settled()
	if err := stopSecond(); err != nil {
		return fmt.Errorf("consumer-2: %w", err)
	}
	for _, owner := range []string{"consumer-1", "consumer-2"} {
		n := 0
		if p, ok := handled.Load(owner); ok {
			n = *p.(*int)
		}
		fmt.Fprintf(out, "%s handled %d changes\n", owner, n)
	}
	for _, u := range users {
		for d, err := range v.Days(ctx, u) {
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "  %s\n", d)
		}
	}
	fmt.Fprintln(out, "the view equals a recount of the jobs")
	return nil
}

// workday creates four jobs per user and works them: two complete, one
// fails, one stays queued, with processing times that differ per job.
func workday(ctx context.Context, store *jobs.Store, clock *simClock, users []string, out io.Writer) error {
	for ui, u := range users {
		var created []*jobs.Job
		for i := range 4 {
			j, _, err := store.Create(ctx, jobs.CreateInput{UserID: u, FileSize: int64(1_000_000 + i), FileType: "image/jpeg", Provider: "stub",
				OriginalFileName: fmt.Sprintf("photo-%d.jpg", i)})
			if err != nil {
				return fmt.Errorf("create: %w", err)
			}
			created = append(created, j)
			clock.Advance(time.Minute)
		}
		for i, j := range created[:3] {
			started, err := store.StartProcessing(ctx, j.ID)
			if err != nil {
				return fmt.Errorf("start: %w", err)
			}
			clock.Advance(time.Duration(2+i+ui) * time.Second)
			editing, err := store.StartEditing(ctx, started.Lease(), &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "beach", Confidence: 0.9}}})
			if err != nil {
				return fmt.Errorf("edit: %w", err)
			}
			clock.Advance(time.Duration(5*(i+1)) * time.Second)
			if i == 2 {
				if _, err := store.Fail(ctx, editing.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "the provider did not answer"}); err != nil {
					return fmt.Errorf("fail: %w", err)
				}
				continue
			}
			if _, err := store.Complete(ctx, editing.Lease(), jobs.EditResult{S3Key: "final/" + j.ID + ".jpg", Width: 800, Height: 600, Format: "jpeg", Size: 90_000}); err != nil {
				return fmt.Errorf("complete: %w", err)
			}
		}
	}
	fmt.Fprintf(out, "  %s: %d users each created 4 jobs: 2 completed, 1 failed, 1 queued\n", clock.Now().Format(time.DateOnly), len(users))
	return nil
}

// caughtUp waits until the view equals a recount for every user.
func caughtUp(ctx context.Context, store *jobs.Store, v *analytics.View, users []string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var diff string
		for _, u := range users {
			want, err := analytics.Recount(ctx, store, u)
			if err != nil {
				return err
			}
			var got []analytics.Day
			for d, err := range v.Days(ctx, u) {
				if err != nil {
					return err
				}
				got = append(got, d)
			}
			if !reflect.DeepEqual(want, got) {
				diff = fmt.Sprintf("%s: view %v, recount %v", u, got, want)
				break
			}
		}
		if diff == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the view did not catch up within 30s: %s", diff)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
