package analytics_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/table"
)

// epoch is an hour before midnight: two hours later is the next UTC day,
// well inside the stream's 24-hour retention.
var epoch = time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC)

// world is where a test runs: the fake, or DynamoDB Local with a fake's
// clock for the jobs' times and the consumers' leases.
type world struct {
	db      table.API
	streams changes.StreamsAPI
	clock   *dynamotest.DB // the clock
	// names of the jobs, view and lease tables
	jobsTable, viewTable, leaseTable string
	// wait is how long an empty round waits before the next: the fake
	// publishes at once, DynamoDB Local a moment after the write.
	wait time.Duration
}

func fakeWorld(t *testing.T) world {
	db := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return epoch } })
	return world{db: db, streams: db, clock: db, jobsTable: jobs.DefaultTableName,
		viewTable: analytics.DefaultTableName, leaseTable: changes.DefaultLeaseTable}
}

// setUp creates the three tables, the jobs table streaming both images.
func (w world) setUp(t testing.TB, opts ...func(*analytics.Options)) (*jobs.Store, *analytics.View) {
	t.Helper()
	ctx := context.Background()
	store, err := jobs.NewStore(w.db, nil, jobs.TableName(w.jobsTable), jobs.Clock(w.clock.Now))
	require.NoError(t, err)
	require.NoError(t, store.EnsureTable(ctx))
	_, err = changes.EnableStream(ctx, w.db.(changes.TableUpdater), w.jobsTable, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	view, err := analytics.NewView(w.db, append([]func(*analytics.Options){analytics.TableName(w.viewTable)}, opts...)...)
	require.NoError(t, err)
	require.NoError(t, view.EnsureTable(ctx))
	require.NoError(t, changes.LeaseSchema(w.leaseTable).EnsureTable(ctx, w.db))
	return store, view
}

func (w world) consumer(t testing.TB, view *analytics.View, owner string, opts ...func(*changes.Options)) *changes.Consumer[analytics.Job] {
	t.Helper()
	base := []func(*changes.Options){changes.Owner(owner), changes.LeaseTable(w.leaseTable), changes.Clock(w.clock.Now),
		changes.LeaseDuration(30 * time.Second), changes.BatchSize(4),
		changes.Backoff(table.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond}), changes.PollInterval(time.Millisecond)}
	c, err := view.Consumer(w.streams, w.jobsTable, append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// stepUntil steps c with h until done holds, or fails after 30s of
// waiting for the stream.
func (w world) stepUntil(t *testing.T, c *changes.Consumer[analytics.Job], h changes.Handler[analytics.Job], done func() bool) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !done() {
		n, err := c.Step(context.Background(), h)
		if err != nil {
			return err
		}
		require.True(t, time.Now().Before(deadline), "the stream did not deliver within 30s")
		if n == 0 {
			time.Sleep(w.wait)
		}
	}
	return nil
}

// workday creates four jobs per user and works three of them: two
// complete, one fails, one stays queued, with processing times that
// differ per job.
func workday(t *testing.T, store *jobs.Store, clock *dynamotest.DB, users []string) {
	t.Helper()
	ctx := context.Background()
	for ui, u := range users {
		var created []*jobs.Job
		for i := range 4 {
			j, _, err := store.Create(ctx, jobs.CreateInput{UserID: u, FileSize: int64(1_000_000 + i), FileType: "image/jpeg",
				Provider: "stub", OriginalFileName: fmt.Sprintf("photo-%d.jpg", i)})
			require.NoError(t, err)
			created = append(created, j)
			clock.Advance(time.Minute)
		}
		for i, j := range created[:3] {
			started, err := store.StartProcessing(ctx, j.ID)
			require.NoError(t, err)
			clock.Advance(time.Duration(2+i+ui) * time.Second)
			_, err = store.Heartbeat(ctx, started.Lease()) // a change the view does not count
			require.NoError(t, err)
			editing, err := store.StartEditing(ctx, started.Lease(), &jobs.AnalysisResult{Labels: []jobs.Label{{Name: "beach", Confidence: 0.9}}})
			require.NoError(t, err)
			clock.Advance(time.Duration(5*(i+1)) * time.Second)
			if i == 2 {
				_, err = store.Fail(ctx, editing.Lease(), jobs.JobError{Code: "PROVIDER_TIMEOUT", Message: "the provider did not answer"})
			} else {
				_, err = store.Complete(ctx, editing.Lease(), jobs.EditResult{S3Key: "final/" + j.ID + ".jpg", Width: 800, Height: 600, Format: "jpeg", Size: 90_000})
			}
			require.NoError(t, err)
		}
	}
}

func viewDays(t *testing.T, view *analytics.View, user string) []analytics.Day {
	t.Helper()
	var days []analytics.Day
	for d, err := range view.Days(context.Background(), user, analytics.Limit(1)) {
		require.NoError(t, err)
		days = append(days, d)
	}
	return days
}

func recount(t *testing.T, store *jobs.Store, user string) []analytics.Day {
	t.Helper()
	days, err := analytics.Recount(context.Background(), store, user)
	require.NoError(t, err)
	return days
}

var errKilled = errors.New("killed")

// killedMidBatch is issue 15's Must show for the jobs view: a consumer
// killed half way through a batch (half of it applied, no checkpoint) and
// a second one resuming from the checkpoint after the first's lease ran
// out: every change is applied once, and the view equals a full recount.
func killedMidBatch(t *testing.T, w world) {
	var logs bytes.Buffer
	store, view := w.setUp(t, analytics.Logger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	users := []string{"alice", "bob"}
	workday(t, store, w.clock, users)

	first := w.consumer(t, view, "first", changes.MaxAttempts(1))
	batches, killed := 0, false
	err := w.stepUntil(t, first, func(ctx context.Context, batch []changes.Change[analytics.Job]) error {
		batches++
		if batches < 2 || len(batch) < 2 {
			return view.Apply(ctx, batch)
		}
		require.NoError(t, view.Apply(ctx, batch[:len(batch)/2]))
		killed = true
		return errKilled // the process dies: no checkpoint
	}, func() bool { return killed })
	require.ErrorIs(t, err, errKilled)
	// The dead consumer is never closed: its lease has to run out, which
	// the next day's work (on the same clock) sees to.
	w.clock.Advance(2 * time.Hour)
	workday(t, store, w.clock, users)

	second := w.consumer(t, view, "second")
	want := map[string][]analytics.Day{}
	for _, u := range users {
		want[u] = recount(t, store, u)
		require.Len(t, want[u], 2, "two days of jobs")
	}
	require.NoError(t, w.stepUntil(t, second, view.Apply, func() bool {
		for _, u := range users {
			if !assert.ObjectsAreEqual(want[u], viewDays(t, view, u)) {
				return false
			}
		}
		return true
	}))
	for _, u := range users {
		assert.Equal(t, want[u], viewDays(t, view, u), "the view equals a full recount")
	}
	assert.Contains(t, logs.String(), "change applied before; skipped", "the killed batch's applied half came again and counted once")
	day := want["alice"][0]
	assert.Equal(t, map[jobs.Status]int64{jobs.StatusQueued: 1, jobs.StatusCompleted: 2, jobs.StatusFailed: 1}, day.ByStatus)
	assert.Equal(t, int64(2), day.Completed)
	assert.Equal(t, (2+5+3+10)*time.Second, day.ProcessingTime, "processing runs from StartProcessing to Complete")
}

func TestAViewConsumerKilledMidBatchResumesAndTheViewEqualsARecount(t *testing.T) {
	killedMidBatch(t, fakeWorld(t))
}

func TestIntegrationAViewConsumerKilledMidBatchResumesAndTheViewEqualsARecount(t *testing.T) {
	ep := testenv.DynamoDBEndpoint(t)
	db := testenv.DynamoDB(t)
	// The jobs' clock starts an hour before tonight's midnight: their
	// TTL (90 days from creation) stays in the future, where DynamoDB
	// Local leaves them alone.
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(23 * time.Hour)
	clock := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
	w := world{db: db, streams: dynamotest.NewStreamsClient(ep), clock: clock,
		jobsTable: testenv.TableName(t, "analytics-jobs"), viewTable: testenv.TableName(t, "analytics-view"),
		leaseTable: testenv.TableName(t, "analytics-leases"), wait: 50 * time.Millisecond}
	for _, name := range []string{w.jobsTable, w.viewTable, w.leaseTable} {
		t.Cleanup(func() {
			_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
	}
	killedMidBatch(t, w)
}

func TestApplyingABatchTwiceCountsItOnce(t *testing.T) {
	w := fakeWorld(t)
	store, view := w.setUp(t)
	workday(t, store, w.clock, []string{"carol"})
	var all []changes.Change[analytics.Job]
	c := w.consumer(t, view, "collector")
	for range 100 {
		n, err := c.Step(context.Background(), func(_ context.Context, batch []changes.Change[analytics.Job]) error {
			all = append(all, batch...)
			return nil
		})
		require.NoError(t, err)
		if n == 0 {
			break
		}
	}
	require.NotEmpty(t, all)
	require.NoError(t, view.Apply(context.Background(), all))
	once := viewDays(t, view, "carol")
	require.NoError(t, view.Apply(context.Background(), all))
	require.NoError(t, view.Apply(context.Background(), all[:len(all)/2]))
	assert.Equal(t, once, viewDays(t, view, "carol"))
	assert.Equal(t, recount(t, store, "carol"), once)
}

func TestViewRefusesBadInputWithTypedErrors(t *testing.T) {
	_, err := analytics.NewView(nil)
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	var zero *analytics.View
	assert.ErrorIs(t, zero.Apply(context.Background(), nil), analytics.ErrNoView)
	assert.ErrorIs(t, zero.EnsureTable(context.Background()), analytics.ErrNoView)
	_, err = zero.ListDays(context.Background(), "u", "")
	assert.ErrorIs(t, err, analytics.ErrNoView)
	_, err = zero.Consumer(nil, "t")
	assert.ErrorIs(t, err, analytics.ErrNoView)

	w := fakeWorld(t)
	_, view := w.setUp(t)
	_, err = view.ListDays(context.Background(), "u", "", analytics.Limit(-1))
	assert.ErrorIs(t, err, table.ErrInvalidInput)
	_, err = view.ListDays(context.Background(), "u", "not-a-cursor")
	assert.ErrorIs(t, err, table.ErrInvalidCursor)
}

// A day whose counts went back to zero is absent from the listing without
// cutting a page short: a page of one is the next counted day, never an
// empty page with a cursor.
func TestZeroedDaysDoNotShortenAPage(t *testing.T) {
	w := fakeWorld(t)
	_, view := w.setUp(t)
	ctx := context.Background()
	for _, row := range []struct {
		day       string
		completed int
	}{{"2026-03-01", 0}, {"2026-03-02", 0}, {"2026-03-03", 2}, {"2026-03-04", 0}} {
		_, err := w.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(w.viewTable), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "USER#erin"}, "sk": &types.AttributeValueMemberS{Value: "DAY#" + row.day},
			"userId": &types.AttributeValueMemberS{Value: "erin"}, "day": &types.AttributeValueMemberS{Value: row.day},
			"QUEUED": &types.AttributeValueMemberN{Value: "0"}, "COMPLETED": &types.AttributeValueMemberN{Value: strconv.Itoa(row.completed)},
		}})
		require.NoError(t, err)
	}
	page, err := view.ListDays(ctx, "erin", "", analytics.Limit(1))
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the first counted day, past two zeroed ones")
	assert.Equal(t, "2026-03-03", page.Items[0].Day)
	assert.Equal(t, map[jobs.Status]int64{jobs.StatusCompleted: 2}, page.Items[0].ByStatus)
	assert.Empty(t, page.Next, "the zeroed day after it is no next page")
	assert.Len(t, viewDays(t, view, "erin"), 1)
}

func TestEveryViewCallStartsOneSpanNamedForIt(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	w := fakeWorld(t)
	store, view := w.setUp(t, analytics.TracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
	workday(t, store, w.clock, []string{"dave"})
	c := w.consumer(t, view, "traced")
	_, err := c.Step(context.Background(), view.Apply)
	require.NoError(t, err)
	viewDays(t, view, "dave")
	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"analytics.EnsureTable", "analytics.Apply", "analytics.ListDays"}, names)
}

// change is a change of job in shard with sequence number seq, from old
// to new status (a creation when old is "", a deletion when new is "").
func change(shard, seq, job string, old, new jobs.Status) changes.Change[analytics.Job] {
	image := func(s jobs.Status) *analytics.Job {
		if s == "" {
			return nil
		}
		return &analytics.Job{JobID: job, UserID: "erin", Status: s, CreatedAt: epoch.UnixMilli()}
	}
	return changes.Change[analytics.Job]{ShardID: shard, SequenceNumber: seq, Old: image(old), New: image(new)}
}

func TestChangesOfManyShardsDeliveredAgainInAnyBatchesCountOnce(t *testing.T) {
	w := fakeWorld(t)
	_, view := w.setUp(t)
	ctx := context.Background()
	p, q := "shardId-00000001-aaaa", "shardId-00000002-bbbb"
	a1 := change(p, "100000000000000000010", "a", "", jobs.StatusQueued)
	b1 := change(q, "100000000000000000011", "b", "", jobs.StatusQueued)
	a2 := change(p, "100000000000000000012", "a", jobs.StatusQueued, jobs.StatusProcessing)
	b2 := change(q, "100000000000000000013", "b", jobs.StatusQueued, jobs.StatusProcessing)
	c1 := change(p, "100000000000000000014", "c", "", jobs.StatusQueued)
	a3 := change(p, "100000000000000000015", "a", jobs.StatusProcessing, jobs.StatusCompleted)
	c2 := change(p, "100000000000000000016", "c", jobs.StatusQueued, "") // deleted

	require.NoError(t, view.Apply(ctx, []changes.Change[analytics.Job]{a1, b1}))
	// Delivered again with more after: the row holds a1 and b1 already.
	require.NoError(t, view.Apply(ctx, []changes.Change[analytics.Job]{a1, a2, c1}))
	require.NoError(t, view.Apply(ctx, []changes.Change[analytics.Job]{b1, b2}))
	require.NoError(t, view.Apply(ctx, []changes.Change[analytics.Job]{a2, c1, a3, c2}))
	require.NoError(t, view.Apply(ctx, []changes.Change[analytics.Job]{a1, b1, a2, b2, c1, a3, c2}))

	days := viewDays(t, view, "erin")
	require.Len(t, days, 1)
	assert.Equal(t, map[jobs.Status]int64{jobs.StatusProcessing: 1, jobs.StatusCompleted: 1}, days[0].ByStatus,
		"a completed, b processing, c created and deleted: each change counted once")
}
