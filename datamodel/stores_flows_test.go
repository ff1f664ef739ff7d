package datamodel_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/access"
	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/jobs/analytics"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

func fakeWith(t *testing.T, s table.Schema) *dynamotest.DB {
	t.Helper()
	fake := dynamotest.New()
	require.NoError(t, s.EnsureTable(context.Background(), fake))
	return fake
}

// TestDeclaredWritesMatchTheStoresCalls runs the write patterns of the
// four stores and the jobs analytics view through their own code and compares the write units
// the fake charged with the estimate of each declaration for the items
// the call really wrote (see checkWrite).
func TestDeclaredWritesMatchTheStoresCalls(t *testing.T) {
	ctx := context.Background()
	var rows []storeRow

	// jobs
	{
		s := decl{jobs.Schema(jobs.TableNameForEnv("prod")), jobs.Patterns()}
		fake := fakeWith(t, s.Schema)
		store, err := jobs.NewStore(fake, blobstore.NewMemory(), func(o *jobs.Options) { o.TableName = jobs.TableNameForEnv("prod") })
		require.NoError(t, err)
		var jb *jobs.Job
		rows = append(rows, checkWrite(t, fake, s, "Create job", func() (err error) {
			jb, _, err = store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"})
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, "Update job status", func() error {
			_, err := store.StartProcessing(ctx, jb.ID)
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, "Delete job", func() error { return store.Delete(ctx, jb.ID) }))
	}

	// jobs with its work on the tasks table: Create is one transaction
	// across both tables, and a Replay another.
	{
		s := decl{jobs.Schema(jobs.TableNameForEnv("prod")), jobs.Patterns(jobs.Work(""))}
		work := decl{tasks.Schema(tasks.DefaultTableName), jobs.WorkPatterns()}
		fake := fakeWith(t, s.Schema)
		store, err := jobs.NewStore(fake, blobstore.NewMemory(), jobs.TableName(jobs.TableNameForEnv("prod")), jobs.Work(""))
		require.NoError(t, err)
		// The tasks table, and its CONFIG item: written once, not per job.
		require.NoError(t, store.EnsureTable(ctx))
		var jb *jobs.Job
		rows = append(rows, checkCallOn(t, fake, []callOn{{s, []string{"Create job"}}, {work, []string{"Queue a job's work", "Set the readiness signal"}}}, func() (err error) {
			jb, _, err = store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"})
			return err
		})...)
		started, err := store.StartProcessing(ctx, jb.ID)
		require.NoError(t, err)
		_, err = store.Fail(ctx, started.Lease(), jobs.JobError{Code: "X", Message: "x"})
		require.NoError(t, err)
		rows = append(rows, checkCallOn(t, fake, []callOn{{s, []string{"Queue a job's work again"}}, {work, []string{"Queue a job's work"}}}, func() error {
			_, err := store.Maintenance().Replay(ctx, jb.ID)
			return err
		})...)
	}

	// tasks
	{
		s := decl{tasks.Schema(tasks.DefaultTableName), tasks.Patterns()}
		fake := fakeWith(t, s.Schema)
		store, err := tasks.NewStore(fake, nil)
		require.NoError(t, err)
		// The table's CONFIG item (its shard count) is written once, by
		// EnsureTable or the first store's first write, not per Submit.
		require.NoError(t, store.EnsureTable(ctx))
		rows = append(rows, checkCall(t, fake, s, []string{"Check idempotency", "Submit: META", "Submit: SUBMITTED event", "Set the readiness signal"}, func() error {
			_, _, err := store.Submit(ctx, tasks.SubmitInput{IdempotencyKey: "order-1", Payload: []byte(`{"n":1}`)})
			return err
		}))
		var c *tasks.Claim
		rows = append(rows, checkCall(t, fake, s, []string{"Claim task (atomic)", "Claim: WORKER item", "Claim: PROCESSING event"}, func() (err error) {
			c, err = store.Claim(ctx, "worker-1")
			return err
		}))
		lease := c.Lease
		rows = append(rows, checkWrite(t, fake, s, "Heartbeat", func() (err error) {
			lease, err = store.Heartbeat(ctx, lease)
			return err
		}))
		rows = append(rows, checkCall(t, fake, s, []string{"Complete task", "Complete: WORKER item", "Complete: COMPLETED event"}, func() error {
			return store.Complete(ctx, lease, []byte("ok"))
		}))
	}

	// pipeline
	{
		s := decl{pipeline.Schema(pipeline.DefaultTableName), pipeline.Patterns()}
		fake := fakeWith(t, s.Schema)
		store, err := pipeline.NewStore(fake, blobstore.NewMemory())
		require.NoError(t, err)
		in := pipeline.Input{Name: "daily", Tags: []pipeline.Tag{{Key: "source", Value: "sap"}, {Key: "region", Value: "usa/northwest/seattle"}},
			Groups: []string{"g1", "g2"}}
		var p *pipeline.Pipeline
		rows = append(rows, checkWrite(t, fake, s, "create a new pipeline", func() (err error) {
			p, err = store.Create(ctx, in)
			return err
		}))
		in.Tags = []pipeline.Tag{{Key: "source", Value: "erp"}, {Key: "region", Value: "usa/northwest/seattle"}}
		in.Groups = []string{"g1", "g3"}
		// sap's last carrier leaves it: its count is ADDed down to zero,
		// then removed.
		rows = append(rows, checkCall(t, fake, s, []string{"update an existing pipeline", "remove a zero tag count"}, func() (err error) {
			p, err = store.Update(ctx, p.ID, p.Version, in)
			return err
		}))
		var e *pipeline.Execution
		rows = append(rows, checkWrite(t, fake, s, "create a pipeline execution", func() (err error) {
			e, err = store.Executions().Create(ctx, pipeline.ExecutionInput{PipelineID: p.ID, Version: p.Version})
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, "move a pipeline execution", func() error {
			_, err := store.Executions().Start(ctx, e.ID)
			return err
		}))
	}

	// journey
	{
		s := decl{journey.Schema(""), journey.Patterns()}
		fake := fakeWith(t, s.Schema)
		store, err := journey.NewStore(fake, blobstore.NewMemory())
		require.NoError(t, err)
		rows = append(rows, checkWrite(t, fake, s, journey.PatternCreateJourney, func() error {
			_, err := store.Journeys().Create(ctx, journey.NewJourney{ID: "JRN-1", Name: "demo"})
			return err
		}))
		var rule *journey.Rule
		rows = append(rows, checkWrite(t, fake, s, journey.PatternAddRule, func() (err error) {
			rule, err = store.Rules().Add(ctx, journey.NewRule{JourneyID: "JRN-1", StageID: "tmf_mapping", Title: "r", Type: journey.RuleFieldMapping, Priority: journey.PriorityHigh})
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, journey.PatternSetRuleStatus, func() error {
			_, err := store.Rules().SetStatus(ctx, rule.Ref(), journey.RuleInactive)
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, journey.PatternRetireRule, func() error {
			_, err := store.Rules().SetStatus(ctx, rule.Ref(), journey.RuleDeprecated)
			return err
		}))
		var job *journey.Job
		rows = append(rows, checkWrite(t, fake, s, journey.PatternStartJob, func() (err error) {
			job, err = store.Jobs().Start(ctx, journey.NewJob{JourneyID: "JRN-1", StageID: "raw_analysis"})
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, journey.PatternUpdateJobProgress, func() error {
			_, err := store.Jobs().SetProgress(ctx, job.Ref(), 50, "extract")
			return err
		}))
		rows = append(rows, checkCall(t, fake, s, []string{journey.PatternWriteLogSummaries, journey.PatternCountLogEntries}, func() error {
			l, err := store.Logs().Logger(job.Ref(), "extract")
			if err != nil {
				return err
			}
			for i := range 25 {
				l.Info(fmt.Sprint("entry ", i), nil)
			}
			return l.Flush(ctx)
		}))
		rows = append(rows, checkWrite(t, fake, s, journey.PatternWriteReport, func() error {
			_, err := store.Reports().Write(ctx, job.Ref(), "extract", journey.Report{ReportType: journey.ReportSummary, Title: "q"})
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, journey.PatternFinishJob, func() error {
			_, err := store.Jobs().Finish(ctx, job.Ref(), journey.Finish{Status: journey.JobCompleted})
			return err
		}))
		rows = append(rows, checkWrite(t, fake, s, journey.PatternJourneyStatus, func() error {
			_, err := store.Journeys().Pause(ctx, "JRN-1")
			return err
		}))
	}
	// jobs/analytics: the view's writes, through the consumer of the
	// jobs table's stream and View.Apply as a service runs them.
	{
		s := decl{analytics.Schema(analytics.TableNameForEnv("prod")), analytics.Patterns()}
		// A stopped clock: a heartbeat writes (and streams) a change only
		// when time has moved its lease on.
		start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
		fake := dynamotest.New(func(o *dynamotest.Options) { o.Clock = func() time.Time { return start } })
		require.NoError(t, s.EnsureTable(ctx, fake))
		jobsTable := jobs.TableNameForEnv("prod")
		require.NoError(t, jobs.Schema(jobsTable).EnsureTable(ctx, fake))
		_, err := changes.EnableStream(ctx, fake, jobsTable, types.StreamViewTypeNewAndOldImages)
		require.NoError(t, err)
		store, err := jobs.NewStore(fake, blobstore.NewMemory(), jobs.TableName(jobsTable), jobs.Clock(fake.Now))
		require.NoError(t, err)
		view, err := analytics.NewView(fake, analytics.TableName(s.Name))
		require.NoError(t, err)
		consumer, err := view.Consumer(fake, jobsTable, changes.Clock(fake.Now))
		require.NoError(t, err)
		require.NoError(t, consumer.EnsureTable(ctx))
		apply := func() error {
			n, err := consumer.Step(ctx, view.Apply)
			if err == nil && n == 0 {
				err = fmt.Errorf("the consumer found no change to apply")
			}
			return err
		}
		in := jobs.CreateInput{UserID: "user-1", FileSize: 1000, FileType: "image/jpeg", Provider: "stub", OriginalFileName: "a.jpg"}
		j, _, err := store.Create(ctx, in)
		require.NoError(t, err)
		rows = append(rows, checkWrite(t, fake, s, analytics.PatternStartDay, apply))
		j, err = store.StartProcessing(ctx, j.ID)
		require.NoError(t, err)
		rows = append(rows, checkWrite(t, fake, s, analytics.PatternAddToDay, apply))

		// A heartbeat's change counts nothing: Apply writes nothing.
		fake.Advance(time.Second)
		_, err = store.Heartbeat(ctx, j.Lease())
		require.NoError(t, err)
		fake.ResetConsumed()
		require.NoError(t, apply())
		assert.Zero(t, fake.Consumed(s.Name).WriteUnits, "a heartbeat's change wrote to the view")

		// One batch of five changes of two users: one write per user's day.
		_, err = store.StartEditing(ctx, j.Lease(), nil)
		require.NoError(t, err)
		for range 2 {
			_, _, err = store.Create(ctx, in)
			require.NoError(t, err)
		}
		in.UserID = "user-2"
		j2, _, err := store.Create(ctx, in)
		require.NoError(t, err)
		_, err = store.StartProcessing(ctx, j2.ID)
		require.NoError(t, err)
		rows = append(rows, checkCall(t, fake, s, []string{analytics.PatternAddToDay, analytics.PatternStartDay}, apply))

		// The declared row size holds the rows written.
		for _, st := range snapshot(t, fake, s.Schema) {
			assert.LessOrEqual(t, st.size, s.Patterns[0].ItemSize, "a day row is larger than declared: %s", st.body)
		}
	}
	reportRows(t, rows)
}

// TestStoreCheckCatchesAWrongDeclaration: the same check fails for a
// declaration that forgets the status index's key move, and for one that
// declares a write the call does not make.
func TestStoreCheckCatchesAWrongDeclaration(t *testing.T) {
	ctx := context.Background()
	s := decl{jobs.Schema(jobs.TableNameForEnv("prod")), jobs.Patterns()}
	for i, ap := range s.Patterns {
		switch ap.Name {
		case "Update job status":
			s.Patterns[i].IndexWrites = ap.IndexWrites[:1] // forgets the status index
		case "Create job":
			s.Patterns[i].Items = []access.Item{
				{Operation: access.PutItem, Size: ap.ItemSize, Partition: ap.Partition, IndexWrites: ap.IndexWrites},
				{Operation: access.PutItem, Size: 100, Partition: "USER#{userId}"}, // never written
			}
		}
	}
	fake := fakeWith(t, s.Schema)
	store, err := jobs.NewStore(fake, blobstore.NewMemory(), func(o *jobs.Options) { o.TableName = jobs.TableNameForEnv("prod") })
	require.NoError(t, err)
	var jb *jobs.Job
	create := checkWrite(t, fake, s, "Create job", func() (err error) {
		jb, _, err = store.Create(ctx, jobs.CreateInput{UserID: "user-1", FileType: "image/jpeg", Provider: "stub"})
		return err
	})
	assert.False(t, create.ok(), "a declared write the call does not make passed: %+v", create)
	assert.Len(t, create.problems, 1, "a declared write the call does not make: %+v", create)
	move := checkWrite(t, fake, s, "Update job status", func() error {
		_, err := store.StartProcessing(ctx, jb.ID)
		return err
	})
	assert.False(t, move.ok(), "a forgotten index key move passed: %+v", move)
	assert.Equal(t, 2.0, move.estimated, "a forgotten index key move: %+v", move)
	assert.Equal(t, 4.0, move.measured, "a forgotten index key move: %+v", move)
}
