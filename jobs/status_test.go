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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err, "StartProcessing")
	require.Falsef(t, started.Status != jobs.StatusProcessing || !started.ProcessingStartedAt.Equal(f.db.Now()) || !started.UpdatedAt.Equal(f.db.Now()), "after StartProcessing: status %s, processingStartedAt %v, updatedAt %v; want PROCESSING and %v",
		started.Status, started.ProcessingStartedAt, started.UpdatedAt, f.db.Now())
	require.Truef(t, started.CreatedAt.Equal(job.CreatedAt), "createdAt changed from %v to %v", job.CreatedAt, started.CreatedAt)

	f.db.Advance(time.Second)
	editing, err := f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), analysis)
	require.NoError(t, err, "StartEditing")
	require.Falsef(t, editing.Status != jobs.StatusEditing || editing.AnalysisResult == nil || editing.AnalysisResult.Labels[0].Name != "beach", "after StartEditing: %+v", editing)

	f.db.Advance(time.Second)
	done, err := f.store.Complete(ctx, leaseOf(t, f.store, job.ID), edit)
	require.NoError(t, err, "Complete")
	require.Falsef(t, done.Status != jobs.StatusCompleted || done.EditResult == nil || *done.EditResult != edit || done.S3FinalKey != edit.S3Key || !done.ProcessingCompletedAt.Equal(f.db.Now()), "after Complete: %+v", done)

	got, err := f.store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err, "Get")
	require.Falsef(t, got.Status != jobs.StatusCompleted || !got.ProcessingStartedAt.Equal(started.ProcessingStartedAt) || got.AnalysisResult.SafeSearch.Violence != jobs.Unlikely || got.Error != nil, "stored job %+v", got)
}

func TestClaimFiftyWorkersOneWins(t *testing.T) {
	f := newFixture(t)
	job := f.create(t, "u1")
	raceToProcess(t, f.store, job.ID)
	n := f.db.Calls("GetItem")
	require.Equal(t, 0, n, "the losers read the job")
	n = f.db.Calls("UpdateItem")
	require.Equal(t, 50, n)
	got, err := f.store.Get(context.Background(), job.ID, jobs.Consistent())
	require.Falsef(t, err != nil || got.Status != jobs.StatusProcessing || got.ProcessingStartedAt.IsZero(), "after the race: %+v, %v; want PROCESSING with processingStartedAt", got, err)
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
			assert.Falsef(t, te.JobID != id || te.Current != jobs.StatusProcessing || !slices.Equal(te.From, []jobs.Status{jobs.StatusQueued}) || te.To != jobs.StatusProcessing, "TransitionError %+v, want job %s found PROCESSING on QUEUED → PROCESSING", te, id)
		default:
			assert.Fail(t, "unexpected error", "%v", err)
		}
	}
	require.Falsef(t, won != 1 || lost != workers-1, "%d workers won and %d got ErrInvalidTransition; want 1 and %d", won, lost, workers-1)
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
		"Replay":       func() (*jobs.Job, error) { return f.store.Maintenance().Replay(ctx, job.ID) },
	}
	for name, move := range moves {
		_, err := move()
		var te *jobs.TransitionError
		require.Falsef(t, !errors.As(err, &te) || !errors.Is(err, jobs.ErrInvalidTransition) || !errors.Is(err, table.ErrConditionFailed), "%s on a QUEUED job: got %v, want *TransitionError", name, err)
		require.Falsef(t, te.Current != jobs.StatusQueued || te.JobID != job.ID, "%s: %+v, want Current QUEUED", name, te)
		want := fmt.Sprintf("jobs: job %q is QUEUED, cannot move %s → %s", job.ID, fromText(te.From), te.To)
		require.Equal(t, want, err.Error())
	}
	got, err := f.store.Get(ctx, job.ID, jobs.Consistent())
	require.NoError(t, err)
	require.Falsef(t, got.Status != jobs.StatusQueued || !got.UpdatedAt.Equal(job.UpdatedAt) || got.AnalysisResult != nil || got.Error != nil, "refused moves changed the job: %+v", got)
}

func TestCompletedIsFinal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), nil))
	moved(t)(f.store.Complete(ctx, leaseOf(t, f.store, job.ID), edit))
	_, err := f.store.Maintenance().Replay(ctx, job.ID)
	var te *jobs.TransitionError
	require.Falsef(t, !errors.As(err, &te) || te.Current != jobs.StatusCompleted, "Replay of a COMPLETED job: %v, want TransitionError with Current COMPLETED", err)
	require.False(t, jobs.StatusCompleted.CanMoveTo(jobs.StatusQueued) || !jobs.StatusFailed.CanMoveTo(jobs.StatusQueued) || jobs.StatusQueued.CanMoveTo(jobs.StatusEditing) || !jobs.StatusEditing.CanMoveTo(jobs.StatusFailed), "CanMoveTo disagrees with the seed's state machine")
}

// moved fails the test when a move (or any call returning a job) failed.
func moved(t testing.TB) func(*jobs.Job, error) *jobs.Job {
	return func(j *jobs.Job, err error) *jobs.Job {
		t.Helper()
		require.NoError(t, err, "move")
		return j
	}
}

func TestFailThenReplayCountsRetriesAndKeepsThemAcrossFailures(t *testing.T) {
	f := newFixture(t, jobs.Environment("staging")) // where stacks are kept
	ctx := context.Background()
	job := f.create(t, "u1")

	for attempt := range 3 {
		moved(t)(f.store.StartProcessing(ctx, job.ID))
		moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), analysis))
		f.db.Advance(time.Second)
		failed := moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, job.ID), jobs.JobError{
			Code: "PROVIDER_TIMEOUT", Message: fmt.Sprintf("attempt %d timed out", attempt+1), Stack: "stack"}))
		require.Falsef(t, failed.Status != jobs.StatusFailed || failed.Error == nil || failed.Error.RetryCount != attempt || failed.Error.Message != fmt.Sprintf("attempt %d timed out", attempt+1) || !failed.ProcessingCompletedAt.Equal(f.db.Now()), "failure %d: %+v (error %+v)", attempt+1, failed, failed.Error)
		queued := moved(t)(f.store.Maintenance().Replay(ctx, job.ID))
		require.Falsef(t, queued.Status != jobs.StatusQueued || queued.Error.RetryCount != attempt+1 || !queued.ProcessingStartedAt.IsZero() || !queued.ProcessingCompletedAt.IsZero(), "replay %d: %+v (error %+v)", attempt+1, queued, queued.Error)
	}
	// A failure without a stack must not keep the previous one's.
	moved(t)(f.store.StartProcessing(ctx, job.ID))
	moved(t)(f.store.StartEditing(ctx, leaseOf(t, f.store, job.ID), nil))
	last := moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, job.ID), jobs.JobError{Code: "BAD_IMAGE", Message: "corrupt"}))
	require.Falsef(t, last.Error.RetryCount != 3 || last.Error.Stack != "" || last.Error.Code != "BAD_IMAGE", "fourth failure: %+v", last.Error)
}

func TestMovesOfMissingOrExpiredJobAreNotFound(t *testing.T) {
	f := newFixture(t, func(o *jobs.Options) { o.Retention = time.Hour })
	ctx := context.Background()
	_, err := f.store.StartProcessing(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	require.Falsef(t, !errors.Is(err, jobs.ErrNotFound) || !errors.Is(err, table.ErrNotFound) || errors.Is(err, jobs.ErrInvalidTransition), "move of a missing job: %v, want ErrNotFound", err)
	job := f.create(t, "u1")
	f.db.SetTime(epoch.Add(time.Hour)) // ttl reached; the fake has not swept it yet
	_, err = f.store.StartProcessing(ctx, job.ID)
	require.ErrorIs(t, err, jobs.ErrNotFound, "move of an expired job")
}

// A ttl of 0 never expires, as in DynamoDB, for a move as for Get: a job
// another writer stored with ttl 0 is found and moved, not "not found".
func TestMovesOfAJobWithTTLZeroTreatItAsAlive(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	job := f.create(t, "u1")
	_, err := f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("photoeditor-test-jobs"),
		Key:                       map[string]types.AttributeValue{"jobId": &types.AttributeValueMemberS{Value: job.ID}},
		UpdateExpression:          aws.String("SET #ttl = :zero"),
		ExpressionAttributeNames:  map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": &types.AttributeValueMemberN{Value: "0"}}})
	require.NoError(t, err)
	_, err = f.store.Get(ctx, job.ID)
	require.NoError(t, err, "Get finds it")
	moved, err := f.store.StartProcessing(ctx, job.ID)
	require.NoError(t, err, "and a move moves it")
	assert.Equal(t, jobs.StatusProcessing, moved.Status)
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
		{"invalid UTF-8 id", "jobId", func() error { _, err := f.store.Maintenance().Replay(ctx, "\xff"); return err }},
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

func ExampleMaintenance_Replay() {
	ctx := context.Background()
	store, _ := exampleStore()
	job, _, _ := store.Create(ctx, jobs.CreateInput{UserID: "user-12345", FileType: "image/jpeg", Provider: "seedream"})
	job, _ = store.StartProcessing(ctx, job.ID)
	store.StartEditing(ctx, job.Lease(), nil)
	store.Fail(ctx, job.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "no answer in 30s"})

	job, err := store.Maintenance().Replay(ctx, job.ID)
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
	require.NoError(t, store.Table().Schema().Create(ctx, client))
	job, _, err := store.Create(ctx, upload("u1"))
	require.NoError(t, err)
	raceToProcess(t, store, job.ID)
	_, err = store.StartEditing(ctx, leaseOf(t, store, job.ID), analysis)
	require.NoError(t, err)
	_, err = store.Fail(ctx, leaseOf(t, store, job.ID), jobs.JobError{Code: "C", Message: "m"})
	require.NoError(t, err)
	replayed, err := store.Maintenance().Replay(ctx, job.ID)
	require.Falsef(t, err != nil || replayed.Error.RetryCount != 1, "Replay over HTTP: %+v, %v", replayed, err)
}

// fromText is how a TransitionError names the statuses a move starts from.
func fromText(from []jobs.Status) string {
	parts := make([]string, len(from))
	for i, st := range from {
		parts[i] = string(st)
	}
	return strings.Join(parts, "|")
}

// TestStackTracesAreKeptInDevAndStagingOnly: the seed's error.stack is
// "Stack trace (dev/staging only)". Both of Fail's writes (a first failure,
// and one after a replay, which updates the error map in place) follow it.
func TestStackTracesAreKeptInDevAndStagingOnly(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  []func(*jobs.Options)
		keeps bool
	}{
		{"the dev table", []func(*jobs.Options){jobs.TableName(jobs.DefaultTableName)}, true},
		{"the staging table", []func(*jobs.Options){jobs.TableName(jobs.TableNameForEnv("staging"))}, true},
		{"the prod table", []func(*jobs.Options){jobs.TableName(jobs.TableNameForEnv("prod"))}, false},
		{"a table named otherwise", []func(*jobs.Options){jobs.TableName("photos")}, false},
		{"a table named otherwise, in dev", []func(*jobs.Options){jobs.TableName("photos"), jobs.Environment("dev")}, true},
		{"the dev table, declared prod", []func(*jobs.Options){jobs.TableName(jobs.DefaultTableName), jobs.Environment("prod")}, false},
	} {
		f := newFixture(t, c.opts...)
		ctx := context.Background()
		job := f.create(t, "u1")
		for attempt := range 2 { // the second Fail updates the replayed job's error map in place
			moved(t)(f.store.StartProcessing(ctx, job.ID))
			failed := moved(t)(f.store.Fail(ctx, leaseOf(t, f.store, job.ID), jobs.JobError{Code: "X", Message: "x", Stack: "main.go:12"}))
			stored, err := f.store.Get(ctx, job.ID, jobs.Consistent())
			require.NoError(t, err)
			for _, j := range []*jobs.Job{failed, stored} {
				assert.Equalf(t, c.keeps, j.Error.Stack != "", "%s, failure %d: stack %q", c.name, attempt+1, j.Error.Stack)
			}
			moved(t)(f.store.Maintenance().Replay(ctx, job.ID))
		}
	}
}
