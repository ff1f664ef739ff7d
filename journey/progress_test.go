package journey

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/changes"
	"github.com/tablekit/tablekit/dynamotest"
	"github.com/tablekit/tablekit/internal/testenv"
	"github.com/tablekit/tablekit/table"
)

// followProgress reads every change the stream holds so far with a
// consumer on the fake and returns the progress events they mean, as
// "kind journey/stage/job" strings.
func followProgress(t *testing.T, e *env, c *changes.Consumer[table.Item]) []string {
	t.Helper()
	var got []string
	for _, ev := range followEvents(t, c) {
		got = append(got, fmt.Sprintf("%s %s/%s/%s", ev.Kind, ev.JourneyID, ev.StageID, ev.JobID))
	}
	return got
}

// followEvents reads every change the stream holds so far and returns
// the progress events they mean.
func followEvents(t *testing.T, c *changes.Consumer[table.Item]) []ProgressEvent {
	t.Helper()
	var got []ProgressEvent
	for {
		n, err := c.Step(context.Background(), func(_ context.Context, batch []changes.Change[table.Item]) error {
			for _, ch := range batch {
				events, err := ProgressEvents(ch)
				if err != nil {
					return err
				}
				got = append(got, events...)
			}
			return nil
		})
		require.NoError(t, err)
		if n == 0 {
			return got
		}
	}
}

func progressConsumer(t *testing.T, e *env) *changes.Consumer[table.Item] {
	t.Helper()
	ctx := context.Background()
	_, err := changes.EnableStream(ctx, e.db, DefaultTableName, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(changes.DefaultLeaseTable).EnsureTable(ctx, e.db))
	c, err := changes.New[table.Item](e.db, e.db, DefaultTableName, changes.Decode(DecodeItem), changes.Name("progress"),
		changes.Clock(e.db.Now), changes.PollInterval(0))
	require.NoError(t, err)
	return c
}

// TestProgressEventsFollowAJourneyThroughItsChangeFeed: a journey whose
// first job fails and is retried, whose second stage is skipped and which
// is then cancelled reports exactly those moves, in order, from the
// table's stream on the fake; log summaries, step progress and rules
// report nothing.
func TestProgressEventsFollowAJourneyThroughItsChangeFeed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := progressConsumer(t, e)
	stages := DefaultStages()
	stages[1].CanSkip = true
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-P", Name: "followed", Stages: stages,
		Configuration: Configuration{RetryAttempts: 3}})
	require.NoError(t, err)
	_, err = e.store.Rules().Add(ctx, NewRule{JourneyID: "JRN-P", StageID: "raw_analysis", Title: "r", Type: RuleFieldMapping})
	require.NoError(t, err)

	first, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-P", StageID: "raw_analysis"})
	require.NoError(t, err)
	_, err = e.store.Jobs().SetProgress(ctx, first.Ref(), 40, "schema_extraction")
	require.NoError(t, err)
	l, err := e.store.Logs().Logger(first.Ref(), "schema_extraction")
	require.NoError(t, err)
	l.Error("connection reset", nil)
	require.NoError(t, l.Close(ctx))
	e.db.Advance(time.Minute)
	_, err = e.store.Jobs().Finish(ctx, first.Ref(), Finish{Status: JobFailed, ErrorMessage: "connection reset"})
	require.NoError(t, err)

	second, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-P", StageID: "raw_analysis"})
	require.NoError(t, err)
	e.db.Advance(time.Minute)
	_, err = e.store.Jobs().Finish(ctx, second.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	_, err = e.store.Stages().Skip(ctx, "JRN-P", "stripped_schema")
	require.NoError(t, err)
	third, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-P", StageID: "tmf_mapping"})
	require.NoError(t, err)
	_, err = e.store.Journeys().Cancel(ctx, "JRN-P")
	require.NoError(t, err)

	got := followProgress(t, e, c)
	// The stream keeps each item's changes in order; items of one
	// transaction are written together, so compare per kind of item.
	assert.ElementsMatch(t, []string{
		"jobStarted JRN-P/raw_analysis/" + first.JobID,
		"jobFailed JRN-P/raw_analysis/" + first.JobID,
		"jobStarted JRN-P/raw_analysis/" + second.JobID,
		"jobCompleted JRN-P/raw_analysis/" + second.JobID,
		"stageCompleted JRN-P/raw_analysis/",
		"stageSkipped JRN-P/stripped_schema/",
		"jobStarted JRN-P/tmf_mapping/" + third.JobID,
		"jobCancelled JRN-P/tmf_mapping/" + third.JobID,
		"journeyCancelled JRN-P//",
	}, got)
	assert.Less(t, indexOf(got, "jobFailed JRN-P/raw_analysis/"+first.JobID), indexOf(got, "jobStarted JRN-P/raw_analysis/"+second.JobID),
		"a retry follows the failure it retries")
	assert.Empty(t, followProgress(t, e, c), "every change was checkpointed")
}

// TestProgressEventsReportAJourneyThatCompletes: the last stage's
// completion moves the journey to completed at 100%, and the failure of a
// job with no retry left moves another to failed.
func TestProgressEventsReportAJourneyThatCompletes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := progressConsumer(t, e)
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-OK", Name: "one stage", Stages: []Stage{{StageID: "only"}}})
	require.NoError(t, err)
	_, err = e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-KO", Name: "no retries", Stages: []Stage{{StageID: "only"}}})
	require.NoError(t, err)
	ok, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-OK", StageID: "only"})
	require.NoError(t, err)
	_, err = e.store.Jobs().Finish(ctx, ok.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	ko, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-KO", StageID: "only"})
	require.NoError(t, err)
	_, err = e.store.Jobs().Finish(ctx, ko.Ref(), Finish{Status: JobFailed, ErrorMessage: "boom"})
	require.NoError(t, err)

	var journeys []ProgressEvent
	for _, ev := range followEvents(t, c) {
		if ev.StageID == "" {
			journeys = append(journeys, ev)
		}
	}
	require.Len(t, journeys, 2)
	byID := map[string]ProgressEvent{journeys[0].JourneyID: journeys[0], journeys[1].JourneyID: journeys[1]}
	assert.Equal(t, ProgressJourneyCompleted, byID["JRN-OK"].Kind)
	assert.Equal(t, 100, byID["JRN-OK"].Progress)
	assert.Equal(t, ProgressJourneyFailed, byID["JRN-KO"].Kind)
	assert.NotEmpty(t, byID["JRN-KO"].SequenceNumber)
	assert.False(t, byID["JRN-KO"].At.IsZero())
}

func TestProgressEventsOfDeletionsAndOtherEntitiesAreNone(t *testing.T) {
	events, err := ProgressEvents(changes.Change[table.Item]{Event: changes.Remove})
	require.NoError(t, err)
	assert.Empty(t, events)
	item := table.Item{attrEntityType: &types.AttributeValueMemberS{Value: EntityRule}}
	events, err = ProgressEvents(changes.Change[table.Item]{Event: changes.Insert, New: &item})
	require.NoError(t, err)
	assert.Empty(t, events)
	var wrong map[string]string
	assert.Error(t, DecodeItem(nil, &wrong))
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// TestProgressIntegrationEventsFromDynamoDBLocalsStream: the same events
// from DynamoDB Local's own stream, read through an unmodified streams
// client. Leases are measured on a fake's clock; only the stream's
// publication delay is waited for.
func TestProgressIntegrationEventsFromDynamoDBLocalsStream(t *testing.T) {
	ep := testenv.DynamoDBEndpoint(t)
	ctx := context.Background()
	backups := blobstore.NewMemory()
	s := localStore(t, WithBackups(backups))
	db := testenv.DynamoDB(t)
	leases := testenv.TableName(t, "journey-progress-leases")
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(leases)})
	})
	_, err := changes.EnableStream(ctx, db, s.Schema().Name, types.StreamViewTypeNewAndOldImages)
	require.NoError(t, err)
	require.NoError(t, changes.LeaseSchema(leases).EnsureTable(ctx, db))
	clock := dynamotest.New() // a clock only
	c, err := changes.New[table.Item](db, dynamotest.NewStreamsClient(ep), s.Schema().Name, changes.Decode(DecodeItem),
		changes.LeaseTable(leases), changes.Clock(clock.Now), changes.PollInterval(0))
	require.NoError(t, err)

	_, err = s.Journeys().Create(ctx, NewJourney{ID: "JRN-STREAM", Name: "streamed", Stages: []Stage{{StageID: "only"}}})
	require.NoError(t, err)
	job, err := s.Jobs().Start(ctx, NewJob{JourneyID: "JRN-STREAM", StageID: "only"})
	require.NoError(t, err)
	backup := func() []byte {
		t.Helper()
		info, err := s.Backups().Export(ctx, "JRN-STREAM")
		require.NoError(t, err)
		rc, _, err := backups.Get(ctx, info.Key)
		require.NoError(t, err)
		defer rc.Close()
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		return b
	}
	running := backup()
	_, err = s.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	done := backup()

	// follow reads the stream until it has delivered n events.
	follow := func(n int) []string {
		t.Helper()
		var got []string
		deadline := time.Now().Add(20 * time.Second)
		for len(got) < n {
			require.True(t, time.Now().Before(deadline), "the stream delivered %v within 20s", got)
			k, err := c.Step(ctx, func(_ context.Context, batch []changes.Change[table.Item]) error {
				for _, ch := range batch {
					events, err := ProgressEvents(ch)
					if err != nil {
						return err
					}
					for _, ev := range events {
						got = append(got, fmt.Sprintf("%s %s/%s/%s", ev.Kind, ev.JourneyID, ev.StageID, ev.JobID))
					}
					// The typed decoders read every record of Local's stream.
					if _, _, err := JobFromChange(ch); err != nil && !localEmptyMap(ch) {
						return err
					}
					if _, _, err := JourneyFromChange(ch); err != nil && !localEmptyMap(ch) {
						return err
					}
				}
				return nil
			})
			require.NoError(t, err)
			if k == 0 {
				time.Sleep(50 * time.Millisecond) // DynamoDB Local publishes records after a short delay
			}
		}
		return got
	}
	want := []string{"jobStarted JRN-STREAM/only/" + job.JobID, "jobCompleted JRN-STREAM/only/" + job.JobID,
		"stageCompleted JRN-STREAM/only/", "journeyCompleted JRN-STREAM//"}
	got := follow(len(want))
	assert.ElementsMatch(t, want, got)
	assert.Equal(t, "jobStarted JRN-STREAM/only/"+job.JobID, got[0], "the job's start comes before its finish")

	// Two imports over the journey, the second restoring the finished
	// journey over the running one the first restored: one journeyRestored
	// each, no job, stage or journey move.
	_, err = s.Backups().ImportFrom(ctx, "JRN-STREAM", bytes.NewReader(running), Overwrite())
	require.NoError(t, err)
	_, err = s.Backups().ImportFrom(ctx, "JRN-STREAM", bytes.NewReader(done), Overwrite())
	require.NoError(t, err)
	// The restored events come from the last writes of each import; the
	// items' changes were published before them.
	assert.Equal(t, []string{"journeyRestored JRN-STREAM//", "journeyRestored JRN-STREAM//"}, follow(2), "two imports")

	// Deleting it reports one journeyDeleted, nothing for its other items.
	_, err = s.Journeys().Delete(ctx, "JRN-STREAM")
	require.NoError(t, err)
	assert.Equal(t, []string{"journeyDeleted JRN-STREAM//"}, follow(1), "delete")
}

// TestProgressEventsReportAnImportAsOneRestoredEvent: an import reports
// one journeyRestored and nothing for the items it wrote. Restoring a
// running job into an empty table is not a job that started; restoring a
// finished journey over a running one is not a job, a stage and a journey
// that completed. Moves after the restore are reported again.
func TestProgressEventsReportAnImportAsOneRestoredEvent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := progressConsumer(t, e)
	_, err := e.store.Journeys().Create(ctx, NewJourney{ID: "JRN-R", Name: "restored", Stages: []Stage{{StageID: "only"}}})
	require.NoError(t, err)
	job, err := e.store.Jobs().Start(ctx, NewJob{JourneyID: "JRN-R", StageID: "only"})
	require.NoError(t, err)
	backup := func() []byte {
		t.Helper()
		info, err := e.store.Backups().Export(ctx, "JRN-R")
		require.NoError(t, err)
		rc, _, err := e.backups.Get(ctx, info.Key)
		require.NoError(t, err)
		defer rc.Close()
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		return b
	}
	running := backup()
	e.db.Advance(time.Minute)
	_, err = e.store.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	done := backup()
	require.Equal(t, []string{"jobCompleted JRN-R/only/" + job.JobID, "jobStarted JRN-R/only/" + job.JobID,
		"journeyCompleted JRN-R//", "stageCompleted JRN-R/only/"}, sortedByKind(followProgress(t, e, c)), "before any import")

	// A finished journey restored over the running one it became.
	_, err = e.store.Backups().ImportFrom(ctx, "JRN-R", bytes.NewReader(running), Overwrite())
	require.NoError(t, err)
	_, err = e.store.Backups().ImportFrom(ctx, "JRN-R", bytes.NewReader(done), Overwrite())
	require.NoError(t, err)
	assert.Equal(t, []string{"journeyRestored JRN-R//", "journeyRestored JRN-R//"}, followProgress(t, e, c),
		"two imports over an existing journey")

	// A running job restored into an empty table.
	f := newEnv(t, func(o *Options) { o.Backups = e.backups })
	fc := progressConsumer(t, f)
	_, err = f.store.Backups().ImportFrom(ctx, "JRN-R", bytes.NewReader(running))
	require.NoError(t, err)
	events := followEvents(t, fc)
	require.Len(t, events, 1, "an import into an empty table: %+v", events)
	assert.Equal(t, ProgressJourneyRestored, events[0].Kind, "the one event of an import")
	assert.Equal(t, "JRN-R", events[0].JourneyID, "the restored journey")
	assert.NotEmpty(t, events[0].SequenceNumber, "the restored event's sequence number")
	assert.False(t, events[0].At.IsZero(), "the restored event's time")

	// The rule library is not a journey: restoring it reports nothing.
	_, err = f.store.Library().Create(ctx, nil)
	require.NoError(t, err)
	info, err := f.store.Library().Export(ctx)
	require.NoError(t, err)
	lib, _, err := e.backups.Get(ctx, info.Key) // f's store writes to e's backups
	require.NoError(t, err)
	defer lib.Close()
	_, err = f.store.Library().ImportFrom(ctx, lib, Overwrite())
	require.NoError(t, err)
	assert.Empty(t, followEvents(t, fc), "a library created and restored")

	// The restored running job then finishes: its moves are the journey's own.
	_, err = f.store.Jobs().Finish(ctx, job.Ref(), Finish{Status: JobCompleted})
	require.NoError(t, err)
	assert.Equal(t, []string{"jobCompleted JRN-R/only/" + job.JobID, "journeyCompleted JRN-R//", "stageCompleted JRN-R/only/"},
		sortedByKind(followProgress(t, f, fc)), "moves after the restore")
}

// sortedByKind sorts followProgress's strings: items of one transaction
// reach the stream together, in no order between items.
func sortedByKind(events []string) []string {
	out := slices.Clone(events)
	slices.Sort(out)
	return out
}

// localEmptyMap reports whether ch's new image holds a journey's
// currentJobs or a job's results as something other than a map: DynamoDB
// Local writes an empty map in a stream image as {} (no type; DynamoDB
// writes {"M":{}}), which the SDK reads as a number or a string, so the
// record of a new journey (no job yet) or a new job (no results yet)
// cannot be read from Local's stream.
func localEmptyMap(ch changes.Change[table.Item]) bool {
	if ch.New == nil {
		return false
	}
	data, ok := (*ch.New)[attrData].(*types.AttributeValueMemberM)
	if !ok {
		return false
	}
	for _, name := range []string{"currentJobs", "results"} {
		if v, present := data.Value[name]; present {
			if _, isMap := v.(*types.AttributeValueMemberM); !isMap {
				return true
			}
		}
	}
	return false
}
