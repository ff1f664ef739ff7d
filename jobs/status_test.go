package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/table"
)

var analysis = &jobs.AnalysisResult{
	Labels:      []jobs.Label{{Name: "beach", Confidence: 0.97}, {Name: "sunset", Confidence: 0.81}},
	Description: "A beach at sunset",
	SafeSearch:  &jobs.SafeSearch{Adult: jobs.VeryUnlikely, Violence: jobs.Unlikely},
}

var edit = jobs.EditResult{S3Key: "final/u1/beach.webp", Width: 2048, Height: 1365, Format: jobs.FormatWebP, Size: 812_331}

func TestStatusMovesFollowTheSeedAndSetItsTimestamps(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")

	f.db.Advance(time.Second)
	started, err := f.store.StartProcessing(ctx, job.ID)
	if err != nil {
		t.Fatalf("StartProcessing: %v", err)
	}
	if started.Status != jobs.StatusProcessing || !started.ProcessingStartedAt.Equal(f.db.Now()) || !started.UpdatedAt.Equal(f.db.Now()) {
		t.Fatalf("after StartProcessing: status %s, processingStartedAt %v, updatedAt %v; want PROCESSING and %v",
			started.Status, started.ProcessingStartedAt, started.UpdatedAt, f.db.Now())
	}
	if !started.CreatedAt.Equal(job.CreatedAt) {
		t.Fatalf("createdAt changed from %v to %v", job.CreatedAt, started.CreatedAt)
	}

	f.db.Advance(time.Second)
	editing, err := f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), analysis)
	if err != nil {
		t.Fatalf("StartEditing: %v", err)
	}
	if editing.Status != jobs.StatusEditing || editing.AnalysisResult == nil || editing.AnalysisResult.Labels[0].Name != "beach" {
		t.Fatalf("after StartEditing: %+v", editing)
	}

	f.db.Advance(time.Second)
	done, err := f.store.Complete(ctx, leaseOf(t, f.store, job.ID), edit)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if done.Status != jobs.StatusCompleted || done.EditResult == nil || *done.EditResult != edit ||
		done.S3FinalKey != edit.S3Key || !done.ProcessingCompletedAt.Equal(f.db.Now()) {
		t.Fatalf("after Complete: %+v", done)
	}

	got, err := f.store.Get(ctx, job.ID, jobs.Consistent())
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Status != jobs.StatusCompleted || !got.ProcessingStartedAt.Equal(started.ProcessingStartedAt) ||
		got.AnalysisResult.SafeSearch.Violence != jobs.Unlikely || got.Error != nil {
		t.Fatalf("stored job %+v", got)
	}
}

func TestClaimFiftyWorkersOneWins(t *testing.T) {
	f := newFixture(t)
	job := f.create(t, "u1")
	raceToProcess(t, f.store, job.ID)
	if n := f.db.Calls("GetItem"); n != 0 {
		t.Fatalf("the losers read the job %d times; the current status must come from the refused write", n)
	}
	if n := f.db.Calls("UpdateItem"); n != 50 {
		t.Fatalf("%d UpdateItem calls for 50 attempts; want one each", n)
	}
	got, err := f.store.Get(context.Background(), job.ID, jobs.Consistent())
	if err != nil || got.Status != jobs.StatusProcessing || got.ProcessingStartedAt.IsZero() {
		t.Fatalf("after the race: %+v, %v; want PROCESSING with processingStartedAt", got, err)
	}
}

// raceToProcess has 50 goroutines move one QUEUED job to PROCESSING at
// once: exactly one may succeed, 49 must get the typed error naming the
// status they found.
func raceToProcess(t *testing.T, store *jobs.Store, id string) {
	t.Helper()
	const workers = 50
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, workers)
	)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = store.StartProcessing(context.Background(), id)
		}()
	}
	close(start)
	wg.Wait()

	won, lost := 0, 0
	for _, err := range errs {
		var te *jobs.TransitionError
		switch {
		case err == nil:
			won++
		case errors.As(err, &te) && errors.Is(err, jobs.ErrInvalidTransition):
			lost++
			if te.JobID != id || te.Current != jobs.StatusProcessing || !slices.Equal(te.From, []jobs.Status{jobs.StatusQueued}) || te.To != jobs.StatusProcessing {
				t.Errorf("TransitionError %+v, want job %s found PROCESSING on QUEUED → PROCESSING", te, id)
			}
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 || lost != workers-1 {
		t.Fatalf("%d workers won and %d got ErrInvalidTransition; want 1 and %d", won, lost, workers-1)
	}
}

func TestMoveFromWrongStatusIsTypedAndChangesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	f.db.Advance(time.Minute)

	// A lease as a worker would hold it, for a job that is not in flight.
	lease := jobs.Lease{JobID: job.ID, Attempt: 1}
	moves := map[string]func() (*jobs.Job, error){
		"StartEditing": func() (*jobs.Job, error) { return f.store.StartEditing(ctx, lease, analysis) },
		"Complete":     func() (*jobs.Job, error) { return f.store.Complete(ctx, lease, edit) },
		"Fail":         func() (*jobs.Job, error) { return f.store.Fail(ctx, lease, jobs.JobError{Code: "X", Message: "x"}) },
		"Replay":       func() (*jobs.Job, error) { return f.store.Replay(ctx, job.ID) },
	}
	for name, move := range moves {
		_, err := move()
		var te *jobs.TransitionError
		if !errors.As(err, &te) || !errors.Is(err, jobs.ErrInvalidTransition) || !errors.Is(err, table.ErrConditionFailed) {
			t.Fatalf("%s on a QUEUED job: got %v, want *TransitionError", name, err)
		}
		if te.Current != jobs.StatusQueued || te.JobID != job.ID {
			t.Fatalf("%s: %+v, want Current QUEUED", name, te)
		}
		if want := fmt.Sprintf("jobs: job %q is QUEUED, cannot move %s → %s", job.ID, fromText(te.From), te.To); err.Error() != want {
			t.Fatalf("%s: message %q, want %q", name, err, want)
		}
	}
	got, err := f.store.Get(ctx, job.ID, jobs.Consistent())
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != jobs.StatusQueued || !got.UpdatedAt.Equal(job.UpdatedAt) || got.AnalysisResult != nil || got.Error != nil {
		t.Fatalf("refused moves changed the job: %+v", got)
	}
}

func TestCompletedIsFinal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), nil))
	moved(t)(f.store.Complete(ctx, leaseOf(t, f.store, job.ID), edit))
	_, err := f.store.Replay(ctx, job.ID)
	var te *jobs.TransitionError
	if !errors.As(err, &te) || te.Current != jobs.StatusCompleted {
		t.Fatalf("Replay of a COMPLETED job: %v, want TransitionError with Current COMPLETED", err)
	}
	if jobs.StatusCompleted.CanMoveTo(jobs.StatusQueued) || !jobs.StatusFailed.CanMoveTo(jobs.StatusQueued) ||
		jobs.StatusQueued.CanMoveTo(jobs.StatusEditing) || !jobs.StatusEditing.CanMoveTo(jobs.StatusFailed) {
		t.Fatal("CanMoveTo disagrees with the seed's state machine")
	}
}

// moved fails the test when a move (or any call returning a job) failed.
func moved(t testing.TB) func(*jobs.Job, error) *jobs.Job {
	return func(j *jobs.Job, err error) *jobs.Job {
		t.Helper()
		if err != nil {
			t.Fatalf("move: %v", err)
		}
		return j
	}
}

func TestFailThenReplayCountsRetriesAndKeepsThemAcrossFailures(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")

	for attempt := range 3 {
		moved(t)(f.store.StartProcessing(ctx, job.ID))
		moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), analysis))
		f.db.Advance(time.Second)
		failed := moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, job.ID), jobs.JobError{
			Code: "PROVIDER_TIMEOUT", Message: fmt.Sprintf("attempt %d timed out", attempt+1), Stack: "stack"}))
		if failed.Status != jobs.StatusFailed || failed.Error == nil || failed.Error.RetryCount != attempt ||
			failed.Error.Message != fmt.Sprintf("attempt %d timed out", attempt+1) || !failed.ProcessingCompletedAt.Equal(f.db.Now()) {
			t.Fatalf("failure %d: %+v (error %+v)", attempt+1, failed, failed.Error)
		}
		queued := moved(t)(f.store.Replay(ctx, job.ID))
		if queued.Status != jobs.StatusQueued || queued.Error.RetryCount != attempt+1 ||
			!queued.ProcessingStartedAt.IsZero() || !queued.ProcessingCompletedAt.IsZero() {
			t.Fatalf("replay %d: %+v (error %+v)", attempt+1, queued, queued.Error)
		}
	}
	// A failure without a stack must not keep the previous one's.
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), nil))
	last := moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, job.ID), jobs.JobError{Code: "BAD_IMAGE", Message: "corrupt"}))
	if last.Error.RetryCount != 3 || last.Error.Stack != "" || last.Error.Code != "BAD_IMAGE" {
		t.Fatalf("fourth failure: %+v", last.Error)
	}
}

func TestMovesOfMissingOrExpiredJobAreNotFound(t *testing.T) {
	f := newFixture(t, func(o *jobs.Options) { o.TTL = time.Hour })
	ctx := context.Background()
	_, err := f.store.StartProcessing(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if !errors.Is(err, jobs.ErrNotFound) || !errors.Is(err, table.ErrNotFound) || errors.Is(err, jobs.ErrInvalidTransition) {
		t.Fatalf("move of a missing job: %v, want ErrNotFound", err)
	}
	job := f.create(t, "u1")
	f.db.SetTime(epoch.Add(time.Hour)) // ttl reached; the fake has not swept it yet
	if _, err := f.store.StartProcessing(ctx, job.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("move of an expired job: %v, want ErrNotFound", err)
	}
}

func TestMovesRejectBadInputBeforeAnyRequest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	lease := jobs.Lease{JobID: job.ID, Attempt: 1}
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"empty id", "jobId", func() error { _, err := f.store.StartProcessing(ctx, ""); return err }},
		{"invalid UTF-8 id", "jobId", func() error { _, err := f.store.Replay(ctx, "\xff"); return err }},
		{"confidence above 1", "analysisResult.labels[0].confidence", func() error {
			_, err := f.store.StartEditing(ctx, lease, &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "x", Confidence: 1.5}}})
			return err
		}},
		{"empty label", "analysisResult.labels[0].name", func() error {
			_, err := f.store.StartEditing(ctx, lease, &jobs.AnalysisResult{Labels: []jobs.Label{{Confidence: 0.5}}})
			return err
		}},
		{"unknown likelihood", "analysisResult.safeSearch.adult", func() error {
			_, err := f.store.StartEditing(ctx, lease, &jobs.AnalysisResult{SafeSearch: &jobs.SafeSearch{Adult: "MAYBE", Violence: jobs.Likely}})
			return err
		}},
		{"unknown format", "editResult.format", func() error {
			e := edit
			e.Format = "gif"
			_, err := f.store.Complete(ctx, lease, e)
			return err
		}},
		{"zero width", "editResult.width/height", func() error {
			e := edit
			e.Width = 0
			_, err := f.store.Complete(ctx, lease, e)
			return err
		}},
		{"negative edit size", "editResult.size", func() error {
			e := edit
			e.Size = -1
			_, err := f.store.Complete(ctx, lease, e)
			return err
		}},
		{"no final key", "editResult.s3Key", func() error {
			e := edit
			e.S3Key = ""
			_, err := f.store.Complete(ctx, lease, e)
			return err
		}},
		{"no error code", "error.code", func() error { _, err := f.store.Fail(ctx, lease, jobs.JobError{Message: "m"}); return err }},
		{"no error message", "error.message", func() error { _, err := f.store.Fail(ctx, lease, jobs.JobError{Code: "C"}); return err }},
		{"lease of a job never started", "lease.Attempt", func() error {
			_, err := f.store.Heartbeat(ctx, jobs.Lease{JobID: job.ID})
			return err
		}},
		{"lease without a job id", "jobId", func() error {
			_, err := f.store.Heartbeat(ctx, jobs.Lease{Attempt: 1})
			return err
		}},
		{"caller-set retry count", "error.retryCount", func() error {
			_, err := f.store.Fail(ctx, lease, jobs.JobError{Code: "C", Message: "m", RetryCount: 2})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.noRequests(t, func() { wantInputError(t, c.call(), c.field) })
		})
	}
}

func ExampleStore_StartProcessing() {
	ctx := context.Background()
	store, _ := exampleStore()
	job, _, _ := store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileType: "image/jpeg", Provider: "gemini"})

	// Two workers received the same queue message; the second one loses.
	if _, err := store.StartProcessing(ctx, job.ID); err != nil {
		panic(err)
	}
	_, err := store.StartProcessing(ctx, job.ID)
	var te *jobs.TransitionError
	if errors.As(err, &te) {
		fmt.Println("already", te.Current)
	}
	// Output: already PROCESSING
}

func ExampleStore_Replay() {
	ctx := context.Background()
	store, _ := exampleStore()
	job, _, _ := store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileType: "image/jpeg", Provider: "seedream"})
	job, _ = store.StartProcessing(ctx, job.ID)
	store.StartEditing(ctx, job.Lease(), nil)
	store.Fail(ctx, job.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "no answer in 30s"})

	job, err := store.Replay(ctx, job.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(job.Status, job.Error.Code, job.Error.RetryCount)
	// Output: QUEUED PROVIDER_TIMEOUT 1
}

// The same race through the fake's HTTP server and an unmodified
// *dynamodb.Client: the refused writes' items must survive the wire.
func TestClaimFiftyWorkersOneWinsOverHTTP(t *testing.T) {
	srv := dynamotest.NewServer()
	t.Cleanup(srv.Close)
	client := srv.Client()
	store := newStore(t, client, nil)
	ctx := context.Background()
	if err := store.Table().Schema().Create(ctx, client); err != nil {
		t.Fatal(err)
	}
	job, _, err := store.Create(ctx, upload("u1"))
	if err != nil {
		t.Fatal(err)
	}
	raceToProcess(t, store, job.ID)
	if _, err := store.StartEditing(ctx, leaseOf(t, store, job.ID), analysis); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Fail(ctx, leaseOf(t, store, job.ID), jobs.JobError{Code: "C", Message: "m"}); err != nil {
		t.Fatal(err)
	}
	replayed, err := store.Replay(ctx, job.ID)
	if err != nil || replayed.Error.RetryCount != 1 {
		t.Fatalf("Replay over HTTP: %+v, %v", replayed, err)
	}
}

// fromText is how a TransitionError names the statuses a move starts from.
func fromText(from []jobs.Status) string {
	parts := make([]string, len(from))
	for i, st := range from {
		parts[i] = string(st)
	}
	return strings.Join(parts, "|")
}
