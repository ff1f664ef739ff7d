// Command jobs runs the photo editor's job pipeline (docs/systems/jobs.md) end to end:
// users upload photos, workers move the jobs QUEUED → PROCESSING → EDITING →
// COMPLETED, one edit fails and an admin replays it, and the program prints
// each user's history and the admin's failed list.
//
//	go run ./examples/jobs             # in-memory fake, in-memory blobs
//	TABLEKIT_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 \
//	TABLEKIT_S3_ENDPOINT=http://127.0.0.1:4568 go run ./examples/jobs
//	go run ./examples/jobs -aws -bucket my-bucket   # real AWS, default config chain
//
// It creates the table photoeditor-{env}-jobs and the bucket when missing,
// deletes the jobs it created when it is done (unless -keep), and exits
// non-zero on any failure or unexpected outcome.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/examples/internal/exampleenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "jobs example:", err)
		os.Exit(1)
	}
}

// upload is one photo a user sends.
type upload struct {
	user, file, fileType string
	size                 int64
	labels               int // how many labels the provider finds
}

// run is the whole program; its flags are its own (not the global set), so
// a test can run it more than once in one process.
func run(args []string) (err error) {
	flags := flag.NewFlagSet("jobs", flag.ContinueOnError)
	useAWS := flags.Bool("aws", false, exampleenv.AWSFlagUsage)
	envName := flags.String("env", "example", "environment in the table name photoeditor-{env}-jobs")
	bucket := flags.String("bucket", "tablekit-examples", "S3 bucket for results too large for DynamoDB")
	keep := flags.Bool("keep", false, "keep the jobs this run created")
	if err := flags.Parse(args); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := exampleenv.Open(ctx, exampleenv.Config{AWS: *useAWS, Bucket: *bucket})
	if err != nil {
		return err
	}
	fmt.Println("using", env)
	store, err := jobs.NewStore(env.DB, env.Blobs, jobs.TableName(jobs.TableNameForEnv(*envName)))
	if err != nil {
		return err
	}
	if err := store.EnsureTable(ctx); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	fmt.Println("table", store.Table().Name())

	// User ids unique to this run, so runs against a long-lived DynamoDB do
	// not mix their histories.
	run := time.Now().UTC().Format("150405.000")
	alice, bob := "alice-"+run, "bob-"+run
	uploads := []upload{
		{alice, "beach.jpg", "image/jpeg", 3_412_220, 4},
		{alice, "mountains.png", "image/png", 8_020_113, 6},
		{alice, "panorama.jpg", "image/jpeg", 24_900_410, 3000}, // an analysis too large for one item
		{bob, "cat.jpg", "image/jpeg", 1_204_556, 3},
		{bob, "dog.webp", "image/webp", 903_112, 5},
	}

	fmt.Println("\n== uploads")
	var created []*jobs.Job
	for _, u := range uploads {
		job, _, err := store.Create(ctx, jobs.CreateInput{
			UserID: u.user, FileSize: u.size, FileType: u.fileType, OriginalFileName: u.file,
			S3TempKey: "temp/" + u.user + "/" + u.file, Provider: "gemini",
		})
		if err != nil {
			return err
		}
		created = append(created, job)
		fmt.Printf("%-18s uploaded %-14s -> job %s %s\n", u.user, u.file, job.ID, job.Status)
		time.Sleep(2 * time.Millisecond) // distinct createdAt, so "newest first" is visible
	}
	if !*keep {
		defer func() { err = errors.Join(err, cleanup(store, created)) }()
	}
	labelsFor := map[string]int{}
	for i, j := range created {
		labelsFor[j.ID] = uploads[i].labels
	}

	// The provider times out on bob's dog the first time.
	provider := &provider{failOnce: map[string]bool{created[4].ID: true}, labels: labelsFor}

	fmt.Println("\n== workers (the queue delivers beach.jpg twice)")
	queue := append(ids(created), created[0].ID)
	duplicates, err := work(ctx, store, provider, queue)
	if err != nil {
		return err
	}

	// The panorama's 3,000 labels do not fit the job item's budget: the
	// item holds a pointer, the labels live in the blob store.
	var raw table.Item
	if err := store.Table().Get(ctx, store.Table().Key(created[2].ID), &raw); err != nil {
		return err
	}
	pointers := blobstore.Pointers(raw)
	if len(pointers) == 0 {
		return fmt.Errorf("the panorama's %d KB analysis was not offloaded", table.ItemSize(raw)/1024)
	}
	for name, p := range pointers {
		fmt.Printf("%s: %s offloaded to the blob store (%d KB at %s)\n", created[2].OriginalFileName, name, p.Size/1024, p.Key)
	}

	fmt.Println("\n== admin: failed jobs")
	failed, err := printFailed(ctx, store)
	if err != nil {
		return err
	}
	for _, j := range failed {
		if j.UserID != alice && j.UserID != bob {
			continue // an earlier run's job: not ours to replay
		}
		replayed, err := store.Maintenance().Replay(ctx, j.ID)
		if err != nil {
			return err
		}
		fmt.Printf("replayed %s: %s, retryCount %d\n", j.ID, replayed.Status, replayed.Error.RetryCount)
		if _, err := work(ctx, store, provider, []string{j.ID}); err != nil {
			return err
		}
	}

	fmt.Println("\n== histories (newest first)")
	for _, user := range []string{alice, bob} {
		fmt.Println(user)
		for j, err := range store.ByUser(user, jobs.Limit(2)).All(ctx) {
			if err != nil {
				return err
			}
			fmt.Printf("  %s  %-14s %-10s labels %-5d retries %d  final %s\n",
				j.CreatedAt.Format("15:04:05.000"), j.OriginalFileName, j.Status,
				len(j.AnalysisResult.Labels), retries(j), j.S3FinalKey)
		}
	}

	fmt.Println("\n== admin: failed jobs after the replay")
	after, err := printFailed(ctx, store)
	if err != nil {
		return err
	}
	return check(ctx, store, created, duplicates, failed, after, alice, bob)
}

// work runs three workers over the queue and returns how many deliveries
// were refused as duplicates.
func work(ctx context.Context, store *jobs.Store, p *provider, queue []string) (int, error) {
	ch := make(chan string, len(queue))
	for _, id := range queue {
		ch <- id
	}
	close(ch)
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		errs       []error
		duplicates int
	)
	for w := 1; w <= 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ch {
				dup, err := process(ctx, store, p, w, id)
				mu.Lock()
				if dup {
					duplicates++
				}
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return duplicates, errors.Join(errs...)
}

// process is one worker handling one queue message.
func process(ctx context.Context, store *jobs.Store, p *provider, worker int, id string) (duplicate bool, err error) {
	job, err := store.StartProcessing(ctx, id)
	var te *jobs.TransitionError
	if errors.As(err, &te) {
		fmt.Printf("worker %d: job %s is already %s: duplicate delivery, skipped\n", worker, id, te.Current)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	// The lease is this worker's hold on the job: every later move carries
	// it, so a worker that stalls past it and is recovered cannot finish a
	// job another worker took over.
	lease := job.Lease()
	analysis := p.analyze(job)
	if _, err := store.StartEditing(ctx, lease, analysis); err != nil {
		return false, err
	}
	result, perr := p.edit(job)
	if perr != nil {
		failed, err := store.Fail(ctx, lease, jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: perr.Error()})
		if err != nil {
			return false, err
		}
		fmt.Printf("worker %d: %-14s FAILED    (%s)\n", worker, failed.OriginalFileName, failed.Error.Message)
		return false, nil
	}
	done, err := store.Complete(ctx, lease, result)
	if err != nil {
		return false, err
	}
	fmt.Printf("worker %d: %-14s COMPLETED in %v\n", worker, done.OriginalFileName,
		done.ProcessingCompletedAt.Sub(done.ProcessingStartedAt).Round(time.Millisecond))
	return false, nil
}

// provider stands in for gemini: it labels photos and edits them, and
// times out once on the jobs in failOnce.
type provider struct {
	mu       sync.Mutex
	failOnce map[string]bool
	labels   map[string]int
}

func (p *provider) analyze(job *jobs.Job) *jobs.AnalysisResult {
	p.mu.Lock()
	n := p.labels[job.ID]
	p.mu.Unlock()
	a := &jobs.AnalysisResult{
		Description: "a photo called " + job.OriginalFileName,
		SafeSearch:  &jobs.SafeSearch{Adult: jobs.VeryUnlikely, Violence: jobs.VeryUnlikely},
	}
	for i := range n {
		a.Labels = append(a.Labels, jobs.Label{Name: fmt.Sprintf("object-%04d-detected-in-the-scene", i), Confidence: 0.5 + float64(i%50)/100})
	}
	return a
}

func (p *provider) edit(job *jobs.Job) (jobs.EditResult, error) {
	p.mu.Lock()
	fail := p.failOnce[job.ID]
	delete(p.failOnce, job.ID)
	p.mu.Unlock()
	if fail {
		return jobs.EditResult{}, errors.New("provider did not answer within 30s")
	}
	name := strings.TrimSuffix(job.OriginalFileName, "."+extension(job.OriginalFileName))
	return jobs.EditResult{
		S3Key: "final/" + job.UserID + "/" + name + ".webp", Width: 2048, Height: 1536,
		Format: jobs.FormatWebP, Size: job.FileSize / 3,
	}, nil
}

func extension(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return ""
}

func printFailed(ctx context.Context, store *jobs.Store) ([]jobs.Job, error) {
	var failed []jobs.Job
	for j, err := range store.Maintenance().ByStatus(jobs.StatusFailed).All(ctx) {
		if err != nil {
			return nil, err
		}
		failed = append(failed, j)
		fmt.Printf("  %s  %-18s %-14s %s: %s (retries %d)\n", j.ID, j.UserID, j.OriginalFileName,
			j.Error.Code, j.Error.Message, j.Error.RetryCount)
	}
	if len(failed) == 0 {
		fmt.Println("  (none)")
	}
	return failed, nil
}

func retries(j jobs.Job) int {
	if j.Error == nil {
		return 0
	}
	return j.Error.RetryCount
}

func ids(js []*jobs.Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

// check makes the example fail loudly when the pipeline did not do what it
// prints.
func check(ctx context.Context, store *jobs.Store, created []*jobs.Job, duplicates int, failed, after []jobs.Job, users ...string) error {
	if duplicates != 1 {
		return fmt.Errorf("%d duplicate deliveries refused, want 1", duplicates)
	}
	ours := func(js []jobs.Job) (n int) {
		for _, j := range js {
			for _, u := range users {
				if j.UserID == u {
					n++
				}
			}
		}
		return n
	}
	if ours(failed) != 1 || ours(after) != 0 {
		return fmt.Errorf("failed list had %d of this run's jobs before the replay and %d after; want 1 and 0", ours(failed), ours(after))
	}
	for _, c := range created {
		j, err := store.Get(ctx, c.ID, jobs.Consistent())
		if err != nil {
			return err
		}
		if j.Status != jobs.StatusCompleted {
			return fmt.Errorf("job %s (%s) ended %s, want COMPLETED", j.ID, j.OriginalFileName, j.Status)
		}
	}
	fmt.Println("\nok: every job COMPLETED, one duplicate refused, one failure replayed")
	return nil
}

// cleanup deletes this run's jobs, so a shared table stays small.
func cleanup(store *jobs.Store, created []*jobs.Job) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	for _, j := range created {
		if err := store.Delete(ctx, j.ID); err != nil {
			errs = append(errs, fmt.Errorf("cleanup: %w", err))
		}
	}
	return errors.Join(errs...)
}
